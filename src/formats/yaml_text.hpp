// What a YAML stream may contain, checked before a YAML reader sees the text: yaml-cpp takes
// characters that YAML forbids (and its LoadAll never returned on a NUL byte), where conda's
// readers (PyYAML, ruamel.yaml) refuse the file.
#ifndef ENVCHECK_FORMATS_YAML_TEXT_HPP
#define ENVCHECK_FORMATS_YAML_TEXT_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace envcheck::formats
{
    struct NonPrintable
    {
        std::size_t offset = 0; // of the character's first byte
        char32_t code_point = 0;
    };

    // The first character YAML does not allow in a stream, as PyYAML's and libyaml's readers
    // judge it (YAML 1.1 c-printable): a C0 control other than tab, line feed and carriage
    // return, DEL, a C1 control other than NEL, U+FFFE or U+FFFF. `text` is valid UTF-8.
    [[nodiscard]] auto find_non_printable(std::string_view text) -> std::optional<NonPrintable>;

    // "the non-printable character U+0000 is not allowed in YAML (...)".
    [[nodiscard]] auto describe_non_printable(const NonPrintable& found) -> std::string;
}

#endif
