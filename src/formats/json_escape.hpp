// One JSON backslash escape (RFC 8259 §7), decoded the same way by both hand-written JSON
// readers in formats: conda-meta records (conda_meta_scanner) and repodata (repodata).
#ifndef ENVCHECK_FORMATS_JSON_ESCAPE_HPP
#define ENVCHECK_FORMATS_JSON_ESCAPE_HPP

#include <cstddef>
#include <string>
#include <string_view>

namespace envcheck::formats
{
    struct JsonEscape
    {
        std::size_t end = 0;    // the index just after the escape (after a pair's second half)
        std::string_view error; // empty on success; a static message otherwise
    };

    // Decodes the escape at text[at] (a backslash) and appends it to `out` as UTF-8. A \u high
    // surrogate must be followed by a \u low one, which it joins; a lone surrogate is an error,
    // as is any escape letter JSON does not define.
    [[nodiscard]] auto decode_json_escape(std::string_view text, std::size_t at, std::string& out)
      -> JsonEscape;
}

#endif
