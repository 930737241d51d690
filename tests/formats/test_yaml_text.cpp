#include <optional>
#include <string_view>
#include <vector>

#include "formats/yaml_text.hpp"
#include "tests/catch.hpp"

using envcheck::formats::describe_non_printable;
using envcheck::formats::find_non_printable;

namespace
{
    TEST_CASE("find_non_printable: YAML 1.1 c-printable, as PyYAML judges a stream",
              "[formats][yaml_text]")
    {
        struct Case
        {
            std::string_view text;
            std::optional<std::size_t> offset; // nullopt: every character is allowed
            char32_t code_point = 0;
        };
        using namespace std::string_view_literals;
        const std::vector<Case> cases = {
            { "name: env\n", std::nullopt },
            { "a:\tb\r\n", std::nullopt },                  // tab, CR and LF are allowed
            { "a: \xC2\x85\n", std::nullopt },              // NEL (U+0085) is allowed
            { "a: \xC2\xA0 \xE2\x82\xAC\n", std::nullopt }, // NBSP, the euro sign
            { "a: \xEF\xBF\xBD\n", std::nullopt },          // U+FFFD, the replacement character
            { "\0"sv, 0, 0x00 },
            { "ab\x01", 2, 0x01 },
            { "a: b\x1B[0m", 4, 0x1B }, // an escape sequence pasted from a terminal
            { "a: \x7F", 3, 0x7F },
            { "a: \xC2\x80", 3, 0x80 },
            { "a: \xC2\x9F", 3, 0x9F },
            { "\xEF\xBF\xBE", 0, 0xFFFE },
            { "x \xEF\xBF\xBF", 2, 0xFFFF },
            { "a\x02\x03", 1, 0x02 }, // the first is reported
        };
        for (const auto& [text, offset, code_point] : cases)
        {
            CAPTURE(text);
            const auto found = find_non_printable(text);
            REQUIRE(found.has_value() == offset.has_value());
            if (found)
            {
                CHECK(found->offset == *offset);
                CHECK(found->code_point == code_point);
            }
        }
    }

    TEST_CASE("describe_non_printable names the code point", "[formats][yaml_text]")
    {
        CHECK(describe_non_printable({ 0, 0x1B }) ==
              "the non-printable character U+001B is not allowed in YAML (conda's reader "
              "refuses the file)");
        CHECK(
          describe_non_printable({ 7, 0xFFFE }).starts_with("the non-printable character U+FFFE "));
    }
}
