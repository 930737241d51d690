// Where nlohmann::json gave up on a text, for messages with a line and column: the JSON readers
// of this module (envcheck's lock, the full conda-meta parse) share it.
#ifndef ENVCHECK_FORMATS_LOCK_JSON_HPP
#define ENVCHECK_FORMATS_LOCK_JSON_HPP

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace envcheck::formats
{
    struct JsonFailure
    {
        std::size_t offset = 0; // of the offending character in the text
        std::string message;    // nlohmann's reason without its "[json.exception...]" prefix
    };

    // A parse_error carries a byte position; an out_of_range (a number too large for a double,
    // "5e449") names the token, which is then looked up in the text.
    [[nodiscard]] auto json_failure(const nlohmann::json::exception& error, std::string_view text)
      -> JsonFailure;
}

#endif
