#include <string>
#include <utility>
#include <vector>

#include "tests/catch.hpp"
#include "util/strings.hpp"

using namespace envcheck::util;

namespace
{
    TEST_CASE("trim", "[util][strings]")
    {
        CHECK(trim("  a b \t\r\n") == "a b");
        CHECK(trim("") == "");
        CHECK(trim(" \t ") == "");
        CHECK(trim_left("  x ") == "x ");
        CHECK(trim_right("  x ") == "  x");
        // Blank input gives an empty view inside the input, so offsets stay computable.
        const std::string_view blank = "  \t ";
        CHECK(trim(blank).data() >= blank.data());
        CHECK(trim(blank).data() <= blank.data() + blank.size());
        CHECK(trim_left(blank).data() == blank.data() + blank.size());
        CHECK(trim_right(blank).data() == blank.data());
    }

    TEST_CASE("split and split_lines", "[util][strings]")
    {
        CHECK(split("a,b,,c", ',') == std::vector<std::string_view>{ "a", "b", "", "c" });
        CHECK(split("", ',') == std::vector<std::string_view>{ "" });
        CHECK(split_lines("a\r\nb\n\nc") == std::vector<std::string_view>{ "a", "b", "", "c" });
        CHECK(split_lines("a\n") == std::vector<std::string_view>{ "a" });
        CHECK(split_lines("").empty());
    }

    TEST_CASE("parse_uint and parse_int", "[util][strings]")
    {
        CHECK(parse_uint("0") == 0ULL);
        CHECK(parse_uint("18446744073709551615") == 18446744073709551615ULL);
        CHECK_FALSE(parse_uint("18446744073709551616"));
        CHECK_FALSE(parse_uint(""));
        CHECK_FALSE(parse_uint("1a"));
        CHECK_FALSE(parse_uint("-1"));
        CHECK(parse_int("-9223372036854775808") == std::numeric_limits<long long>::min());
        CHECK_FALSE(parse_int("9223372036854775808"));
        CHECK(parse_int("+12") == 12);
        CHECK_FALSE(parse_int("-"));
    }

    TEST_CASE("hex_digit_value and percent_decode", "[util][strings]")
    {
        CHECK(hex_digit_value('0') == 0);
        CHECK(hex_digit_value('9') == 9);
        CHECK(hex_digit_value('a') == 10);
        CHECK(hex_digit_value('F') == 15);
        CHECK(hex_digit_value('g') == -1);
        CHECK(hex_digit_value('%') == -1);

        // text -> decoded
        const std::vector<std::pair<std::string, std::string>> cases = {
            { "", "" },           { "plain", "plain" },
            { "a%20b", "a b" },   { "%2Bcu121%2b", "+cu121+" },
            { "%41", "A" },       { "100%", "100%" }, // no digits after '%'
            { "%4", "%4" },                           // one digit
            { "%zz%41", "%zzA" },                     // not hex, then hex
            { "%%41", "%A" },     { "%E2%9C%93", "\xE2\x9C\x93" },
        };
        for (const auto& [text, decoded] : cases)
        {
            CAPTURE(text);
            CHECK(percent_decode(text) == decoded);
        }
    }

    TEST_CASE("line_column_at", "[util][strings]")
    {
        const std::string_view text = "ab\ncd\n";
        CHECK(line_column_at(text, 0).line == 1);
        CHECK(line_column_at(text, 0).column == 1);
        CHECK(line_column_at(text, 4).line == 2);
        CHECK(line_column_at(text, 4).column == 2);
        CHECK(line_column_at(text, 100).line == 3);
    }

    TEST_CASE("find_invalid_utf8", "[util][strings]")
    {
        CHECK_FALSE(find_invalid_utf8("plain ascii"));
        CHECK_FALSE(find_invalid_utf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
        CHECK(find_invalid_utf8("ab\xff") == 2u);
        CHECK(find_invalid_utf8("\xc3") == 0u);             // truncated sequence
        CHECK(find_invalid_utf8("x\xc0\xaf") == 1u);        // overlong '/'
        CHECK(find_invalid_utf8("\xed\xa0\x80") == 0u);     // UTF-16 surrogate
        CHECK(find_invalid_utf8("\xf4\x90\x80\x80") == 0u); // past U+10FFFF
    }

    TEST_CASE("glob_match", "[util][strings]")
    {
        struct Case
        {
            std::string_view pattern;
            std::string_view text;
            bool case_insensitive;
            bool expected;
        };
        const Case cases[] = {
            { "*", "", false, true },
            { "*", "anything", false, true },
            { "cuda*", "cuda118_py39", false, true },
            { "*cuda*", "py39_cuda11.8_cudnn8_0", false, true },
            { "*cuda*", "py39_cpu_0", false, false },
            { "py3*_0", "py39_0", false, true },
            { "py3*_0", "py39_1", false, false },
            { "a*b*c", "aXbYc", false, true },
            { "a*b*c", "aXbY", false, false },
            { "ABC", "abc", true, true },
            { "ABC", "abc", false, false },
            { "", "", false, true },
            { "", "x", false, false },
            { "**a", "a", false, true },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.pattern, c.text);
            CHECK(glob_match(c.pattern, c.text, c.case_insensitive) == c.expected);
        }
    }

    TEST_CASE("glob_match is linear on adversarial input", "[util][strings]")
    {
        const std::string text(20000, 'a');
        const std::string pattern = std::string(50, '*') + "a*b";
        CHECK_FALSE(glob_match(pattern, text));
    }

    TEST_CASE("closest_match", "[util][strings]")
    {
        const std::vector<std::string> commands = { "lint", "diff", "lock", "check", "doctor" };
        CHECK(closest_match("lnit", commands) == std::string("lint"));
        CHECK(closest_match("doctr", commands) == std::string("doctor"));
        CHECK_FALSE(closest_match("frobnicate", commands));
    }
}
