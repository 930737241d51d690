#include <string>
#include <utility>
#include <vector>

#include "formats/pyproject.hpp"
#include "formats/toml_document.hpp"
#include "tests/catch.hpp"
#include "util/strings.hpp"

using namespace envcheck;

namespace
{
    TEST_CASE("parse_toml: values and positions", "[formats][Toml]")
    {
        const auto document = formats::parse_toml("title = \"x\"\n"
                                                  "[tool.a]\n"
                                                  "n = 3\n"
                                                  "list = [ 'a', true ]\n",
                                                  "t.toml");
        REQUIRE(document.has_value());
        REQUIRE(document->find("title") != nullptr);
        CHECK(document->find("title")->text == "x");
        CHECK(document->find("title")->position == formats::TextPosition{ 1, 9 });
        const auto* a = document->find("tool")->find("a");
        REQUIRE(a != nullptr);
        CHECK(a->find("n")->kind == formats::TomlValue::Kind::integer);
        CHECK(a->find("n")->text == "3");
        const auto& list = *a->find("list");
        REQUIRE(list.items.size() == 2);
        CHECK(list.items[0].text == "a");
        CHECK(list.items[0].position == formats::TextPosition{ 4, 10 });
        CHECK(list.items[1].kind == formats::TomlValue::Kind::boolean);
        CHECK(document->find("absent") == nullptr);
    }

    TEST_CASE("parse_toml negative: file, line and column", "[formats][Toml]")
    {
        struct Case
        {
            std::string text;
            std::size_t line;
        };
        const std::vector<Case> cases{
            { "a = 1\nb = \n", 2 },        { "a = 1\na = 2\n", 2 }, // a key defined twice
            { "[t]\nx = 1\n[t]\n", 3 },                             // a table defined twice
            { "s = \"unterminated\n", 1 }, { "x = [1, 2\n", 1 },
        };
        for (const auto& [text, line] : cases)
        {
            CAPTURE(text);
            const auto parsed = formats::parse_toml(text, "bad.toml");
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().where.file == "bad.toml");
            CHECK(parsed.error().where.line == line);
            CHECK(parsed.error().message.starts_with("not valid TOML: "));
        }
    }

    // toml++ 3.3 reached __builtin_unreachable() on a non-ASCII character where it looked for
    // whitespace (marzer/tomlplusplus#190, #295); the build patches its headers (CMakeLists.txt),
    // and the sanitizer build of this test is the check.
    TEST_CASE("parse_toml: a non-ASCII character where whitespace may stand", "[formats][Toml]")
    {
        const auto continued = formats::parse_toml("s = \"\"\"\\\n\u00a7\"\"\"\n", "ok.toml");
        REQUIRE(continued.has_value());
        REQUIRE(continued->find("s") != nullptr);
        CHECK(continued->find("s")->text == "\u00a7");
        for (const std::string_view text : { "\xcc\xaa", "a = 1\n\u00a1\n", "a = 1 \u3001\n" })
        {
            CAPTURE(text);
            const auto parsed = formats::parse_toml(text, "bad.toml");
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().message.starts_with("not valid TOML: "));
        }
    }

    TEST_CASE("parse_pyproject", "[formats][Pyproject]")
    {
        const std::string text =
          "[build-system]\nrequires = [\"hatchling\"]\n"
          "[project]\nname = \"app\"\n"
          "dependencies = [\n  \"numpy>=1.26\",\n  'torch==2.5.1; sys_platform == \"linux\"',\n]\n"
          "[project.optional-dependencies]\ncuda = [\"cupy-cuda12x\"]\n"
          "[dependency-groups]\ndev = [\"pytest>=8\", {include-group = \"lint\"}]\nlint = "
          "[\"ruff\"]\n";
        const auto file = formats::parse_pyproject(text, "pyproject.toml");
        REQUIRE(file.has_value());
        std::vector<std::string> requirements;
        std::vector<std::size_t> line_numbers;
        const auto source_lines = util::split_lines(text);
        for (const auto& line : file->pip)
        {
            requirements.push_back(line.text);
            line_numbers.push_back(line.position.line);
            // The position is the requirement's first character, inside its quotes.
            REQUIRE(line.position.line >= 1);
            REQUIRE(line.position.column >= 2);
            CAPTURE(line.text, line.position.line, line.position.column);
            CHECK(source_lines[line.position.line - 1]
                    .substr(line.position.column - 1)
                    .starts_with(line.text.substr(0, 4)));
        }
        CHECK(requirements == std::vector<std::string>{ "numpy>=1.26",
                                                        "torch==2.5.1; sys_platform == \"linux\"",
                                                        "cupy-cuda12x", "pytest>=8", "ruff" });
        CHECK(line_numbers == std::vector<std::size_t>{ 6, 7, 10, 12, 13 });
        CHECK(file->dependencies.empty());

        const auto empty =
          formats::parse_pyproject("[tool.ruff]\nline-length = 100\n", "pyproject.toml");
        REQUIRE(empty.has_value());
        CHECK(empty->pip.empty());
    }

    TEST_CASE("parse_pyproject negative", "[formats][Pyproject]")
    {
        struct Case
        {
            std::string text;
            std::size_t line;
            std::string message;
        };
        const std::vector<Case> cases{
            { "[project]\ndependencies = \"numpy\"\n", 2, "project.dependencies must be an array" },
            { "[project]\ndependencies = [1]\n", 2, "must hold requirement strings" },
            { "project = 3\n", 1, "[project] must be a table" },
            { "[project]\ndependencies = [\n", 2, "not valid TOML" },
        };
        for (const auto& [text, line, message] : cases)
        {
            CAPTURE(text);
            const auto parsed = formats::parse_pyproject(text, "pyproject.toml");
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().where.line == line);
            CHECK(parsed.error().message.find(message) != std::string::npos);
        }
        CHECK(formats::is_pyproject_file_name("sub/pyproject.toml"));
        CHECK_FALSE(formats::is_pyproject_file_name("pyproject.toml.bak"));
    }
}
