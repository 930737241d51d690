// Text that reaches a terminal must not carry the terminal's commands: a package name or
// version read from conda-meta or dist-info can hold ESC sequences that rewrite the screen.
#ifndef ENVCHECK_UTIL_CONTROL_CHARS_HPP
#define ENVCHECK_UTIL_CONTROL_CHARS_HPP

#include <string>
#include <string_view>

namespace envcheck::util
{
    // `text` with every C0 control character but newline and tab, and DEL, written as "\xNN"
    // (ESC -> "\x1b", CR -> "\x0d"); other bytes, UTF-8 included, are kept.
    [[nodiscard]] auto escape_control_characters(std::string_view text) -> std::string;
}

#endif
