#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "formats/environment_yaml.hpp"
#include "tests/catch.hpp"

using namespace envcheck::formats;

namespace
{
    auto read_text(const std::filesystem::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        REQUIRE(in.good());
        std::stringstream buffer;
        buffer << in.rdbuf();
        return buffer.str();
    }

    auto fixture(const std::string& name) -> std::string
    {
        return read_text(std::filesystem::path(ENVCHECK_TEST_DATA_DIR) / "envfiles" / name);
    }

    auto load(const std::string& text) -> EnvironmentFile
    {
        auto loaded = load_environment_yaml(text);
        if (!loaded)
        {
            INFO(loaded.error().rule << " " << loaded.error().message);
            REQUIRE(loaded.has_value());
        }
        return std::move(loaded).value();
    }

    auto texts(const std::vector<EnvDependency>& dependencies) -> std::vector<std::string>
    {
        std::vector<std::string> out;
        for (const auto& dependency : dependencies)
        {
            out.push_back(dependency.text);
        }
        return out;
    }

    auto rules_of(const EnvironmentFile& file) -> std::vector<std::string>
    {
        std::vector<std::string> out;
        for (const auto& diagnostic : file.diagnostics)
        {
            out.push_back(diagnostic.rule);
        }
        return out;
    }

    TEST_CASE("parse_environment_yaml exported file with build strings",
              "[formats][EnvironmentFile]")
    {
        const EnvironmentFile file = load(fixture("exported-full-builds.yml"));
        REQUIRE(file.name);
        CHECK(file.name->value == "resnet");
        CHECK(file.name->position == TextPosition{ 1, 7 });
        REQUIRE(file.prefix);
        CHECK(file.prefix->value == "/home/user/miniconda3/envs/resnet");
        CHECK(file.has_channels);
        REQUIRE(file.channels.size() == 3);
        CHECK(file.channels[1].value == "nvidia");
        CHECK(file.channels[1].position == TextPosition{ 4, 5 });
        CHECK(file.channels_position == TextPosition{ 2, 1 });
        CHECK(file.has_dependencies);
        CHECK(file.dependencies_position == TextPosition{ 6, 1 });
        REQUIRE(file.dependencies.size() == 27);
        CHECK(file.dependencies.front().text == "_libgcc_mutex=0.1=conda_forge");
        CHECK(file.dependencies.front().position == TextPosition{ 7, 5 });
        CHECK(file.dependencies[20].text == "pytorch=2.0.1=py3.9_cuda11.8_cudnn8.7.0_0");
        REQUIRE(file.pip.size() == 2);
        CHECK(file.pip[0].text == "pillow==10.0.0");
        CHECK(file.pip[0].position == TextPosition{ 35, 9 });
        CHECK(file.pip_position == TextPosition{ 34, 5 });
        CHECK(file.diagnostics.empty());
        CHECK_FALSE(has_errors(file));
    }

    TEST_CASE("parse_environment_yaml pip options, comments and variables",
              "[formats][EnvironmentFile]")
    {
        const EnvironmentFile file = load(fixture("pip-options.yml"));
        std::vector<std::string> pip;
        for (const auto& line : file.pip)
        {
            pip.push_back(line.text);
        }
        const std::vector<std::string> expected{
            "--index-url https://pypi.org/simple",
            "--extra-index-url https://download.pytorch.org/whl/cu121",
            "torch==2.3.1+cu121",
            "-r requirements-dev.txt",
            "-e ./src/mypackage",
            "git+https://github.com/huggingface/transformers.git@v4.41.2#egg=transformers",
            "requests[socks]==2.32.3 ; python_version >= \"3.8\"",
            "numpy>=1.26,<2",
        };
        CHECK(pip == expected);
        // A quoted entry's position is that of its first character, after the quote.
        CHECK(file.pip[5].position == TextPosition{ 16, 10 });
        CHECK(file.pip[7].position == TextPosition{ 18, 9 });
        REQUIRE(file.variables.size() == 2);
        CHECK(file.variables[0].name.value == "PYTHONNOUSERSITE");
        CHECK(file.variables[0].value.value == "1");
        CHECK(file.variables[0].value.position == TextPosition{ 20, 22 });
        CHECK(file.variables[1].value.value == "4");
        CHECK(file.diagnostics.empty());
    }

    TEST_CASE("parse_environment_yaml anchors and aliases", "[formats][EnvironmentFile]")
    {
        const EnvironmentFile file = load(fixture("anchors.yml"));
        CHECK(texts(file.dependencies) ==
              std::vector<std::string>{ "python=3.10.14", "numpy=1.26.4", "pip=24.0" });
        CHECK(file.dependencies[0].position == TextPosition{ 6, 13 });
        REQUIRE(file.channels.size() == 2);
        CHECK(file.channels[1].value == "nodefaults");
        REQUIRE(file.pip.size() == 1);
        CHECK(file.pip[0].text == "rich==13.7.1");
    }

    TEST_CASE("parse_environment_yaml odd indentation", "[formats][EnvironmentFile]")
    {
        const EnvironmentFile file = load(fixture("odd-indentation.yml"));
        REQUIRE(file.name);
        CHECK(file.name->position == TextPosition{ 1, 10 });
        REQUIRE(file.channels.size() == 2);
        CHECK(file.channels[1].position == TextPosition{ 4, 5 });
        CHECK(texts(file.dependencies) ==
              std::vector<std::string>{ "python=3.12.3", "samtools=1.20", "pip" });
        CHECK(file.dependencies[2].position == TextPosition{ 8, 13 });
        REQUIRE(file.pip.size() == 1);
        CHECK(file.pip[0].position == TextPosition{ 10, 14 });
    }

    TEST_CASE("parse_environment_yaml CRLF line endings", "[formats][EnvironmentFile]")
    {
        const std::string text = fixture("crlf.yml");
        REQUIRE(text.find("\r\n") != std::string::npos);
        const EnvironmentFile file = load(text);
        REQUIRE(file.name);
        CHECK(file.name->value == "crlf");
        CHECK(texts(file.dependencies) ==
              std::vector<std::string>{ "python=3.10.14", "numpy>=1.26,<2" });
        CHECK(file.dependencies[1].position == TextPosition{ 6, 6 });
        REQUIRE(file.pip.size() == 1);
        CHECK(file.pip[0].text == "rich==13.7.1");
    }

    TEST_CASE("parse_environment_yaml selectors", "[formats][EnvironmentFile]")
    {
        const EnvironmentFile file = load(fixture("selectors.yml"));
        REQUIRE(file.dependencies.size() == 5);
        CHECK(file.dependencies[0].selector.empty());
        CHECK(file.dependencies[2].text == "pytorch-cuda=12.1");
        CHECK(file.dependencies[2].selector == "linux");
        CHECK(file.dependencies[3].selector == "win");
        CHECK(file.dependencies[4].text == "llvm-openmp");
        CHECK(file.dependencies[4].selector == "osx");
        CHECK(rules_of(file) == std::vector<std::string>{ "env.micromamba-selector" });
        CHECK(file.diagnostics[0].position == TextPosition{ 11, 5 });
    }

    TEST_CASE("parse_environment_yaml byte order mark", "[formats][EnvironmentFile]")
    {
        const EnvironmentFile file = load("\xEF\xBB\xBFname: bom\ndependencies:\n  - python\n");
        REQUIRE(file.name);
        CHECK(file.name->position == TextPosition{ 1, 7 });
        CHECK(file.dependencies.size() == 1);
    }

    struct Failure
    {
        std::string name;
        std::string text;
        std::string rule;
        std::size_t line;
        std::size_t column;
    };

    TEST_CASE("parse_environment_yaml negative", "[formats][EnvironmentFile]")
    {
        const std::vector<Failure> cases{
            { "empty file", "", "yaml.empty", 1, 1 },
            { "only comments", "# nothing here\n\n   # at all\n", "yaml.empty", 1, 1 },
            { "document marker only", "---\n", "yaml.empty", 1, 1 },
            { "tab in indentation", "name: x\ndependencies:\n\t- numpy\n", "yaml.tab-indentation",
              3, 1 },
            { "tab after spaces", "dependencies:\n  \t- numpy\n", "yaml.tab-indentation", 2, 3 },
            { "conflict marker",
              "dependencies:\n  - numpy\n<<<<<<< HEAD\n  - scipy\n=======\n  - pandas\n>>>>>>> "
              "topic\n",
              "yaml.merge-conflict", 3, 1 },
            { "conflict separator alone", "dependencies:\n  - numpy\n=======\n",
              "yaml.merge-conflict", 3, 1 },
            { "jinja expression", "dependencies:\n  - {{ compiler('c') }}\n", "yaml.template", 2,
              5 },
            { "jinja statement", "{% set v = 1 %}\ndependencies:\n  - numpy\n", "yaml.template", 1,
              1 },
            { "invalid utf-8", "name: caf\xE9\ndependencies:\n  - numpy\n", "yaml.invalid-utf8", 1,
              10 },
            { "utf-16 bom", std::string("\xFF\xFEn\0a", 5), "yaml.invalid-utf8", 1, 1 },
            { "duplicate top-level key", "name: a\nname: b\ndependencies: []\n",
              "yaml.duplicate-key", 2, 1 },
            { "duplicate dependencies key",
              "dependencies:\n  - a\nchannels: []\ndependencies:\n  - b\n", "yaml.duplicate-key", 4,
              1 },
            { "duplicate variable", "dependencies: []\nvariables:\n  A: 1\n  A: 2\n",
              "yaml.duplicate-key", 4, 3 },
            { "duplicate pip key", "dependencies:\n  - pip: [a]\n    pip: [b]\n",
              "yaml.duplicate-key", 3, 5 },
            { "top-level list", "- python=3.10\n- numpy\n", "yaml.not-a-mapping", 1, 1 },
            { "plain text", "numpy>=1.2\nscipy\n", "yaml.not-a-mapping", 1, 1 },
            { "two documents", "dependencies: [a]\n---\ndependencies: [b]\n",
              "yaml.multiple-documents", 3, 1 },
            { "unterminated quote", "name: \"abc\ndependencies:\n  - numpy\n", "yaml.syntax", 1,
              7 },
            { "unterminated single quote", "dependencies:\n  - 'numpy\n  - scipy\n", "yaml.syntax",
              2, 5 },
            { "unterminated quote in unknown key", "foo: 'x\ndependencies: []\n", "yaml.syntax", 1,
              6 },
            { "bad indentation", "dependencies:\n  - numpy\n  pip:\n    - rich\n", "yaml.syntax", 3,
              3 },
            { "stray colon", "name: scipy-dev:\ndependencies: []\n", "yaml.syntax", 1, 16 },
            // yaml-cpp 0.7 loops forever on these (found by fuzzing); the pre-scan stops them.
            { "comma after a root flow mapping", "{[]},", "yaml.syntax", 1, 5 },
            { "comma after a root list", "[]\n  ,\n", "yaml.syntax", 2, 3 },
            { "comma after a root string", "\"a\",", "yaml.syntax", 1, 4 },
            { "comma alone", ",\n", "yaml.syntax", 1, 1 },
            { "comma after a block list", "dependencies:\n- a\n,\n", "yaml.syntax", 3, 1 },
            { "comma after an anchor", "&a ,\n", "yaml.syntax", 1, 4 },
            { "comma in an anchor name", "&n,\n bz,\n", "yaml.syntax", 1, 3 },
            { "comma after a document marker", "--- ,\n", "yaml.syntax", 1, 5 },
            { "comma after a block scalar", "|\n x\n,\n", "yaml.syntax", 3, 1 },
            { "quotes inside a plain scalar do not hide the comma", "{a: [x 'y\" z]},",
              "yaml.syntax", 1, 15 },
            { "comma in a second document", "dependencies: [a]\n---\n# c\n&x [b] ,\n",
              "yaml.syntax", 4, 8 },
            { "unclosed flow list", "channels: [conda-forge\ndependencies: []\n", "yaml.syntax", 0,
              0 },
            // Characters YAML does not allow, said before either reader: yaml-cpp 0.7's LoadAll
            // never returned on the first (found by fuzzing).
            { "NUL bytes", std::string("\0,\0~\0.", 6), "yaml.syntax", 1, 1 },
            { "a control character in a spec", "dependencies:\n  - numpy\x01\n", "yaml.syntax", 2,
              10 },
            { "DEL", "name: a\x7f\ndependencies: []\n", "yaml.syntax", 1, 8 },
            { "a C1 control", "name: a\xC2\x9F\ndependencies: []\n", "yaml.syntax", 1, 8 },
            { "U+FFFE", "dependencies: []\nname: \xEF\xBF\xBE\n", "yaml.syntax", 2, 7 },
        };
        for (const auto& item : cases)
        {
            SECTION(item.name)
            {
                auto loaded = load_environment_yaml(item.text);
                REQUIRE_FALSE(loaded.has_value());
                const EnvDiagnostic& failure = loaded.error();
                INFO(failure.message);
                CHECK(failure.rule == item.rule);
                CHECK(to_string(failure.severity) == "error");
                CHECK_FALSE(failure.message.empty());
                CHECK_FALSE(failure.fix.empty());
                CHECK(failure.position.line >= 1);
                CHECK(failure.position.column >= 1);
                if (item.line != 0)
                {
                    CHECK(failure.position == TextPosition{ item.line, item.column });
                }
            }
        }
    }

    struct Finding
    {
        std::string name;
        std::string text;
        std::string rule;
        std::string severity;
        std::size_t line;
        std::size_t column;
    };

    TEST_CASE("parse_environment_yaml diagnostics that do not stop loading",
              "[formats][EnvironmentFile]")
    {
        const std::vector<Finding> cases{
            { "float where a spec belongs", "dependencies:\n  - 3.10\n", "yaml.wrong-type", "error",
              2, 5 },
            { "integer where a spec belongs", "dependencies:\n  - python\n  - 3\n",
              "yaml.wrong-type", "error", 3, 5 },
            { "boolean where a spec belongs", "dependencies:\n  - yes\n", "yaml.wrong-type",
              "error", 2, 5 },
            { "empty entry", "dependencies:\n  -\n  - numpy\n", "yaml.wrong-type", "error", 2, 3 },
            { "empty quoted entry", "dependencies:\n  - ''\n", "yaml.wrong-type", "error", 2, 6 },
            { "blank channel", "channels:\n  - \"  \"\ndependencies: []\n", "yaml.wrong-type",
              "error", 2, 6 },
            { "empty last entry", "dependencies:\n  - numpy\n  -   # nothing\n", "yaml.wrong-type",
              "error", 3, 3 },
            { "list where a spec belongs", "dependencies:\n  - [numpy, scipy]\n", "yaml.wrong-type",
              "error", 2, 5 },
            { "mapping where a spec belongs", "dependencies:\n  - python: 3.10\n",
              "env.unknown-subsection", "error", 2, 5 },
            { "unknown installer", "dependencies:\n  - npm:\n      - left-pad\n",
              "env.unknown-subsection", "error", 2, 5 },
            { "channels as a string", "channels: conda-forge\ndependencies: []\n",
              "yaml.wrong-type", "error", 1, 11 },
            { "dependencies as a mapping", "dependencies:\n  numpy: 1.26\n", "yaml.wrong-type",
              "error", 2, 3 },
            { "pip as a string", "dependencies:\n  - pip: rich\n", "yaml.wrong-type", "error", 2,
              10 },
            { "number in pip", "dependencies:\n  - pip:\n    - 1.0\n", "yaml.wrong-type", "error",
              3, 7 },
            { "name as a number", "name: 2023\ndependencies: []\n", "yaml.wrong-type", "error", 1,
              7 },
            { "name as a list", "name: [a]\ndependencies: []\n", "yaml.wrong-type", "error", 1, 7 },
            { "name without value", "name:\ndependencies: []\n", "yaml.wrong-type", "error", 1, 1 },
            { "variables as a list", "dependencies: []\nvariables:\n  - A=1\n", "yaml.wrong-type",
              "error", 3, 3 },
            { "nested variable value", "dependencies: []\nvariables:\n  A: [1]\n",
              "yaml.wrong-type", "error", 3, 6 },
            { "unknown key", "dependencies: []\nchanels: [x]\n", "env.unknown-key", "warning", 2,
              1 },
            { "conda-lock key", "dependencies: []\nplatforms: [linux-64]\n", "env.extension-key",
              "info", 2, 1 },
            { "missing dependencies", "name: x\n", "env.missing-dependencies", "error", 1, 1 },
            { "name with a slash", "name: a/b\ndependencies: []\n", "env.invalid-name", "error", 1,
              8 },
            { "reserved name", "name: base\ndependencies: []\n", "env.invalid-name", "error", 1,
              7 },
            { "python tuple tag", "channels: !!python/tuple\n  - defaults\ndependencies: []\n",
              "yaml.python-tag", "warning", 1, 11 },
            { "micromamba selector", "dependencies:\n  - sel(win): pywin32\n",
              "env.micromamba-selector", "warning", 2, 5 },
        };
        for (const auto& item : cases)
        {
            SECTION(item.name)
            {
                const EnvironmentFile file = load(item.text);
                REQUIRE(file.diagnostics.size() == 1);
                const EnvDiagnostic& diagnostic = file.diagnostics.front();
                INFO(diagnostic.message);
                CHECK(diagnostic.rule == item.rule);
                CHECK(to_string(diagnostic.severity) == item.severity);
                CHECK(diagnostic.position == TextPosition{ item.line, item.column });
                CHECK_FALSE(diagnostic.fix.empty());
                CHECK(has_errors(file) == (item.severity == "error"));
            }
        }
    }

    TEST_CASE("parse_environment_yaml keeps the good entries around a bad one",
              "[formats][EnvironmentFile]")
    {
        const EnvironmentFile file = load("dependencies:\n  - numpy\n  - 3.10\n  - scipy\n");
        CHECK(texts(file.dependencies) == std::vector<std::string>{ "numpy", "scipy" });
        CHECK(has_errors(file));
    }

    TEST_CASE("parse_environment_yaml commas YAML allows", "[formats][EnvironmentFile]")
    {
        // Inside plain scalars, flow collections, quotes, comments, block scalars and on the
        // more indented continuation line of a plain scalar.
        const EnvironmentFile file = load("name: long\n  , name\n"
                                          "channels: [conda-forge, 'a,b']  # x, y\n"
                                          "dependencies:\n  - numpy>=1.2,<2\n  - \"scipy,\"\n"
                                          "variables:\n  NOTE: |\n    a\n    , b\n");
        REQUIRE(file.name);
        CHECK(file.name->value == "long , name");
        CHECK(file.channels.size() == 2);
        CHECK(texts(file.dependencies) == std::vector<std::string>{ "numpy>=1.2,<2", "scipy," });
        REQUIRE(file.variables.size() == 1);
        CHECK(file.variables[0].value.value == "a\n, b\n");
    }

    TEST_CASE("parse_environment_yaml suggests the key that was meant",
              "[formats][EnvironmentFile]")
    {
        const EnvironmentFile file = load("name: x\ndependecies:\n  - numpy\n");
        REQUIRE(file.diagnostics.size() == 2);
        CHECK(file.diagnostics[0].rule == "env.unknown-key");
        CHECK(file.diagnostics[0].fix == "Did you mean 'dependencies'?");
        CHECK(file.diagnostics[1].rule == "env.missing-dependencies");
    }

    TEST_CASE("parse_environment_yaml as util::Error", "[formats][EnvironmentFile]")
    {
        auto parsed = parse_environment_yaml("name: a\nname: b\n", "envs/x.yml");
        REQUIRE_FALSE(parsed.has_value());
        const auto& error = parsed.error();
        CHECK(error.kind == envcheck::util::ErrorKind::parse);
        CHECK(error.where.file == "envs/x.yml");
        CHECK(error.where.line == 2);
        CHECK(error.where.column == 1);
        CHECK(error.to_string().starts_with("envs/x.yml:2:1: duplicate key 'name'"));
        CHECK(error.message.ends_with("[yaml.duplicate-key]"));
        CHECK_FALSE(error.hint.empty());
        CHECK(parse_environment_yaml("dependencies: [numpy]\n", "x.yml").has_value());
    }

    TEST_CASE("parse_environment_yaml never throws on hostile input", "[formats][EnvironmentFile]")
    {
        const std::vector<std::string> inputs{
            std::string(20000, '['),
            std::string(20000, '{'),
            "&a [*a]",
            "dependencies: &d [*d]",
            "dependencies:\n  - *undefined\n",
            "? [a, b]\n: c\n",
            "dependencies:\n  - ? x\n    : y\n",
            std::string("dependencies:\n  - \0numpy\n", 24),
            "%YAML 1.2\n%YAML 1.2\n---\na: b\n",
            "!!binary |\n  R0lGODlh\n",
            "dependencies: !!map {a: b}\n",
            "'\n",
            "- - - - - - -\n",
            ":\n",
        };
        for (const auto& input : inputs)
        {
            CAPTURE(input.substr(0, 40));
            CHECK_NOTHROW((void)load_environment_yaml(input));
        }
    }

    TEST_CASE("loader_rules", "[formats][LoaderRule]")
    {
        std::set<std::string_view> ids;
        for (const auto& rule : loader_rules())
        {
            CAPTURE(rule.id);
            CHECK(ids.insert(rule.id).second);
            CHECK((rule.id.starts_with("yaml.") || rule.id.starts_with("env.")));
            CHECK(rule.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") ==
                  std::string_view::npos);
            CHECK_FALSE(rule.description.empty());
            CHECK_FALSE(rule.fix.empty());
        }
        CHECK(ids.size() == 18); // with yaml.too-large
    }

    // Real files from public projects: each one loads, or fails with a positioned error.
    TEST_CASE("parse_environment_yaml corpus", "[formats][EnvironmentFile]")
    {
        const std::filesystem::path corpus =
          std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus" / "envs";
        if (!std::filesystem::is_directory(corpus))
        {
            FAIL("shared corpus missing (configure with -DENVCHECK_SHARED_DIR): " << corpus);
            return;
        }
        std::size_t loaded = 0;
        std::size_t failed = 0;
        for (const auto& entry : std::filesystem::directory_iterator(corpus))
        {
            CAPTURE(entry.path().filename().string());
            auto result = load_environment_yaml(read_text(entry.path()));
            if (result)
            {
                ++loaded;
                continue;
            }
            ++failed;
            CHECK(result.error().position.line >= 1);
            CHECK(result.error().rule.starts_with("yaml."));
        }
        INFO(loaded << " loaded, " << failed << " failed");
        CHECK(loaded + failed >= 100);
        CHECK(failed == 11);
    }
}
