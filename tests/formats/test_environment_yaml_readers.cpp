// The differential test of the two YAML readings behind load_environment_yaml: wherever libyaml
// judges a file, its model (or its error) must be yaml-cpp's, element by element and position by
// position; where it does not, load_environment_yaml takes yaml-cpp's reading.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/environment_yaml.hpp"
#include "tests/catch.hpp"

using namespace envcheck::formats;

namespace
{
    namespace fs = std::filesystem;

    auto read_text(const fs::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        REQUIRE(in.good());
        std::stringstream buffer;
        buffer << in.rdbuf();
        return buffer.str();
    }

    auto at(TextPosition position) -> std::string
    {
        return "@" + std::to_string(position.line) + ":" + std::to_string(position.column);
    }

    auto show(const EnvDiagnostic& diagnostic) -> std::string
    {
        return std::string(envcheck::model::to_string(diagnostic.severity)) + " " +
               diagnostic.rule + at(diagnostic.position) + " " + diagnostic.message + " | " +
               diagnostic.fix + "\n";
    }

    auto show(const EnvString& value) -> std::string
    {
        return "'" + value.value + "'" + at(value.position);
    }

    auto show(const std::optional<EnvString>& value) -> std::string
    {
        return value ? show(*value) : "none";
    }

    // Every field of the model, one element a line, so that a difference reads as a diff.
    auto show(const envcheck::util::Result<EnvironmentFile, EnvDiagnostic>& reading) -> std::string
    {
        if (!reading)
        {
            return "error " + show(reading.error());
        }
        const EnvironmentFile& file = *reading;
        std::string out = "name " + show(file.name) + "\nprefix " + show(file.prefix) + "\n";
        out += "channels " + std::to_string(file.has_channels) + at(file.channels_position) + "\n";
        for (const auto& channel : file.channels)
        {
            out += "  channel '" + channel.value + "'" + at(channel.position) + "\n";
        }
        out += "dependencies " + std::to_string(file.has_dependencies) +
               at(file.dependencies_position) + "\n";
        for (const auto& dependency : file.dependencies)
        {
            out += "  dependency '" + dependency.text + "'" + at(dependency.position) + " [" +
                   dependency.selector + "]\n";
        }
        out += "pip" + at(file.pip_position) + "\n";
        for (const auto& line : file.pip)
        {
            out += "  pip '" + line.text + "'" + at(line.position) + " [" + line.selector + "]\n";
        }
        for (const auto& variable : file.variables)
        {
            out += "variable " + show(variable.name) + " = " + show(variable.value) + "\n";
        }
        for (const auto& diagnostic : file.diagnostics)
        {
            out += show(diagnostic);
        }
        return out;
    }

    struct Tally
    {
        std::size_t judged = 0; // by libyaml
        std::size_t left = 0;   // to yaml-cpp
    };

    // Reads `text` both ways; they must agree wherever libyaml judges. True when it judged.
    auto compare_readings(const std::string& text) -> bool
    {
        const auto libyaml = read_environment_yaml_with_libyaml(text);
        if (!libyaml)
        {
            return false;
        }
        CHECK(show(*libyaml) == show(read_environment_yaml_with_yaml_cpp(text)));
        return true;
    }

    auto is_yaml(const fs::path& path) -> bool
    {
        return path.extension() == ".yml" || path.extension() == ".yaml";
    }

    auto compare_folder(const fs::path& folder, Tally& tally)
    {
        REQUIRE(fs::is_directory(folder));
        for (const auto& entry : fs::recursive_directory_iterator(folder))
        {
            if (!entry.is_regular_file() || !is_yaml(entry.path()))
            {
                continue;
            }
            CAPTURE(entry.path().string());
            if (compare_readings(read_text(entry.path())))
            {
                ++tally.judged;
            }
            else
            {
                ++tally.left;
            }
        }
    }

    // What decides whether libyaml may judge a file looks at each node once: a billion laughs
    // (10^9 paths through aliases to 100 nodes) is judged, and read as yaml-cpp reads it.
    TEST_CASE("an alias bomb environment file is read by libyaml", "[formats][EnvironmentFile]")
    {
        std::string laughs = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
        for (int level = 1; level <= 9; ++level)
        {
            const std::string previous = "*a" + std::to_string(level - 1);
            laughs += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
            for (int i = 0; i < 10; ++i)
            {
                laughs += (i == 0 ? "" : ", ") + previous;
            }
            laughs += "]\n";
        }
        laughs += "dependencies: [numpy]\n";
        CHECK(compare_readings(laughs));
    }

    TEST_CASE("environment files read by libyaml and by yaml-cpp agree",
              "[formats][EnvironmentFile]")
    {
        const fs::path source(ENVCHECK_SOURCE_DIR);
        Tally corpus;
        compare_folder(fs::path(ENVCHECK_SHARED_DIR) / "corpus" / "envs", corpus);
        Tally ours;
        compare_folder(source / "envs", ours);
        compare_folder(fs::path(ENVCHECK_TEST_DATA_DIR), ours);
        INFO("corpus: " << corpus.judged << " judged by libyaml, " << corpus.left
                        << " left to yaml-cpp; envs and tests/data: " << ours.judged << ", "
                        << ours.left);
        // Left to yaml-cpp: the files whose YAML libyaml refuses. The other 7 failures of the
        // corpus ("parse_environment_yaml corpus") are found by the checks before any parser.
        CHECK(corpus.judged == 114);
        CHECK(corpus.left == 4);
        CHECK(ours.judged == 52);
        CHECK(ours.left == 2);
    }

    // Shapes the corpus has few of, each read both ways; `judged` says whether libyaml must
    // judge it (false: it must leave it to yaml-cpp).
    TEST_CASE("environment file shapes read by libyaml and by yaml-cpp agree",
              "[formats][EnvironmentFile]")
    {
        struct Case
        {
            std::string text;
            bool judged;
        };
        const std::vector<Case> cases{
            { "name: x\ndependencies:\n  - numpy\n", true },
            { "dependencies:\n- numpy\n- pip:\n  - requests\n", true },
            { "dependencies: [numpy, 'scipy', \"pandas\"]\nchannels: [conda-forge]\n", true },
            { "name: caf\xC3\xA9\ndependencies: [\xC3\xA9t\xC3\xA9, b, c]\n", true },
            { "dependencies:\n  - \xE2\x9C\x93: 1\n  - {\xC3\xA9: x, b: y}\n", true },
            { "dependencies:\n  -\n  - ~\n  - null\n  - ''\n  -   # a comment\n  - x\n", true },
            { "dependencies:\n  - 3.10\n  - yes\n  - 1e3\n  - 0x1F\n  - .inf\n", true },
            { "name:\nprefix: ~\nchannels:\ndependencies:\nvariables:\n", true },
            { "name: [a]\nprefix: {a: b}\nchannels: x\ndependencies: y\nvariables: [z]\n", true },
            { "dependencies:\n  - !!str 1.0\n  - !!python/unicode 'x'\n  - !custom y\n", true },
            { "dependencies: !!python/tuple\n  - x\nchannels: !!set {a, b}\n", true },
            { "base: &deps\n  - numpy\ndependencies: *deps\nname: &n base\nprefix: *n\n", true },
            { "dependencies:\n  - &a numpy\n  - *a\n  - &b 'quoted'\n  - ! x\n", true },
            { "dependencies:\n  - |\n    numpy\n  - >-\n    scipy\n    pandas\n", true },
            { "dependencies:\n  - \"a\\tb\\u00e9\"\n  - 'it''s'\n  - plain\n    folded\n", true },
            { "dependencies:\n  - cudatoolkit  # [linux]\n  - sel(osx): mkl\n  - sel(win):\n",
              true },
            { "dependencies:\n  - pip:\n  - pip: x\n  - conda: y\n  - {a: [b]}\n  - [x]\n", true },
            { "dependencies:\n  - pip:\n      - a  # [win]\n      - 1\n      - [b]\n", true },
            { "variables:\n  A: 1\n  B:\n  C: [x]\n  ? [d]\n  : e\n  'F': \"g\"\n", true },
            { "variables:\n  A: 1\n  A: 2\ndependencies: []\n", true },
            { "name: a\nname: b\ndependencies: []\n", true },
            { "- a\n- b\n", true },
            { "just text\n", true },
            { "'quoted text'\n", true },
            { "name: a/b\ndependencies: []\n", true },
            { "name: root\n", true },
            { "nmae: x\nplatforms: [linux-64]\ndependencies: []\n1: 2\n[a]: b\n", true },
            { "%YAML 1.1\n---\nname: x\ndependencies: []\n...\n", true },
            { "--- \nname: x\ndependencies:\n  - a\n", true },
            { "name: x\r\ndependencies:\r\n  - a  # [linux]\r\n", true },
            { "\xEF\xBB\xBFname: x\ndependencies: [a]\n", true },
            { "dependencies:\n  - a\n\n\n  - b\n", true },
            { "dependencies:\n    - a\n    - b:\n        - c\n", true },
            { "{name: x, dependencies: [a, {pip: [b]}]}\n", true },
            { "? name\n: x\ndependencies: []\n", true },
            // Left to yaml-cpp: an empty key, an empty document, other line breaks, two
            // documents, and YAML libyaml refuses.
            { ": x\ndependencies: []\n", false },
            { "dependencies:\n  - {: x}\n", false },
            { "variables:\n  ? \n  : x\n", false },
            { "--- ~\n", true },
            { "--- !!null\n", false },
            { "''\n", false },
            { "name: !!null\ndependencies: !!str\n", true },
            { "name: !!null ~\nprefix: !!null x\ndependencies:\n  - !!null\n  - !!null ~\n", true },
            { "dependencies: !!null\nchannels: !!seq [a]\nvariables: !!map {a: !!int 1}\n", true },
            { "~\n", true },
            { "name: x\rdependencies: []\n", false },
            { "name: x\xC2\x85"
              "dependencies: []\n",
              false },
            { "name: x\n---\nname: y\n", false },
            { "name: x\n  dependencies: []\n", false },
            { "dependencies:\n  - 'open\n", false },
            { "dependencies: [a, b\n", false },
            { "name: *nowhere\n", false },
            { "a: b: c\n", false },
            // Tags yaml-cpp reads otherwise (found by fuzz_environment_yaml: yaml-cpp refuses
            // `!!python!tuple` as two tags, libyaml reads one).
            { "dependencies: !!python!tuple\n  - x\n", false },
            { "dependencies: !<tag:example.com:x> [a]\n", false },
            // A byte order mark after the start (fuzz_environment_yaml): libyaml skips it at the
            // start of a line, indenting what follows; yaml-cpp reads it as a character.
            { "s:\n\xEF\xBB\xBFx: 1\n", false },
            { "dependencies:\n  - a\xEF\xBB\xBF\n", false },
            // An empty value on a last line without a line break (fuzz_environment_yaml):
            // yaml-cpp places it at the token before, libyaml at its "-".
            { "dependencies:\n  - pip:\n    - a\n    -", false },
            { "dependencies:\n  -", false },
            { "dependencies:\n  - pip:\n    - a\n    -\n", true },
            { "dependencies: [a]\nname:", true },
            { "name: x\ndependencies:\n  - a", true },
            // An anchor name ending in a character libyaml stops at and yaml-cpp takes
            // (fuzz_environment_yaml).
            { "&a::", false },
            { "dependencies:\n  - &py: python\n", false },
            { "dependencies:\n  - &py python\n  - *py\n", true },
            // A tag or anchor before a plain scalar folded over lines (fuzz_environment_yaml):
            // yaml-cpp ends the scalar at the line break.
            { "! .\n.", false },
            { "&x a\nb\n", false },
            { "dependencies:\n  - ! a\n    b\n", false },
            { "dependencies:\n  - &x a\n    b\n", false },
            { "dependencies:\n  - a\n    b\n", true },
            { "dependencies:\n  - !\n    a\n", true },
        };
        for (const auto& [text, judged] : cases)
        {
            CAPTURE(text);
            CHECK(compare_readings(text) == judged);
            // load_environment_yaml is libyaml's reading where it judges, else yaml-cpp's.
            const auto libyaml = read_environment_yaml_with_libyaml(text);
            CHECK(show(load_environment_yaml(text)) ==
                  show(libyaml ? *libyaml : read_environment_yaml_with_yaml_cpp(text)));
        }
    }
}
