#include <string>
#include <utility>
#include <vector>

#include "formats/requirements_txt.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    using Line = std::pair<std::string, formats::TextPosition>;

    auto lines(const formats::EnvironmentFile& file) -> std::vector<Line>
    {
        std::vector<Line> out;
        for (const auto& line : file.pip)
        {
            out.emplace_back(line.text, line.position);
        }
        return out;
    }

    TEST_CASE("parse_requirements_txt", "[formats][RequirementsTxt]")
    {
        struct Case
        {
            std::string text;
            std::vector<Line> expected;
        };
        const std::vector<Case> cases{
            { "", {} },
            { "numpy>=1.26\n", { { "numpy>=1.26", { 1, 1 } } } },
            { "\xEF\xBB\xBFsix\r\n", { { "six", { 1, 1 } } } },
            { "# a comment\n\n  torch==2.5.1  # pinned\n", { { "torch==2.5.1", { 3, 3 } } } },
            { "url#fragment-is-not-a-comment\n",
              { { "url#fragment-is-not-a-comment", { 1, 1 } } } },
            { "-r base.txt\n--index-url https://download.pytorch.org/whl/cu124\n",
              { { "-r base.txt", { 1, 1 } },
                { "--index-url https://download.pytorch.org/whl/cu124", { 2, 1 } } } },
            { "requests \\\n  [socks] >=2 \\\n  ; python_version >= '3.8'\nidna",
              { { "requests   [socks] >=2   ; python_version >= '3.8'", { 1, 1 } },
                { "idna", { 4, 1 } } } },
            { "last \\", { { "last", { 1, 1 } } } },
        };
        for (const auto& [text, expected] : cases)
        {
            CAPTURE(text);
            const auto file = formats::parse_requirements_txt(text, "requirements.txt");
            REQUIRE(file.has_value());
            CHECK(lines(*file) == expected);
            CHECK(file->dependencies.empty());
        }
    }

    TEST_CASE("parse_requirements_txt negative", "[formats][RequirementsTxt]")
    {
        const auto file =
          formats::parse_requirements_txt(std::string("six\nnu\0mpy\n", 11), "req.txt");
        REQUIRE_FALSE(file.has_value());
        CHECK(file.error().where.file == "req.txt");
        CHECK(file.error().where.line == 2);
    }

    TEST_CASE("is_requirements_file_name", "[formats][RequirementsTxt]")
    {
        CHECK(formats::is_requirements_file_name("requirements.txt"));
        CHECK(formats::is_requirements_file_name("ci/requirements-dev.in"));
        CHECK_FALSE(formats::is_requirements_file_name("environment.yml"));
        CHECK_FALSE(formats::is_requirements_file_name("pixi.lock"));
    }
}
