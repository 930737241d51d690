// The YAML event reader (formats/yaml_document.hpp): structure, scalars, styles, tags and
// positions of small documents; errors with positions; and, on every YAML file of the shared
// corpus, the same tree as yaml-cpp reads (the reader it replaces for locks).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "formats/yaml_document.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
namespace yaml = envcheck::formats::yaml;
namespace fs = std::filesystem;

namespace
{
    auto read_file(const fs::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    // A one-line rendering of a tree: {k: v, ...}, [a, ...], scalars as they read, ~ for null.
    auto render(const yaml::Node& node) -> std::string
    {
        switch (node.kind())
        {
            case yaml::Kind::missing:
                return "<missing>";
            case yaml::Kind::scalar:
                return node.is_null() ? "~" : std::string(node.text());
            case yaml::Kind::sequence:
            {
                std::string out = "[";
                for (std::size_t i = 0; i < node.size(); ++i)
                {
                    out += (i == 0 ? "" : ", ") + render(node.item(i));
                }
                return out + "]";
            }
            case yaml::Kind::mapping:
            {
                std::string out = "{";
                for (std::size_t i = 0; i < node.size(); ++i)
                {
                    out +=
                      (i == 0 ? "" : ", ") + render(node.key(i)) + ": " + render(node.value(i));
                }
                return out + "}";
            }
        }
        return {};
    }

    // The same rendering of yaml-cpp's tree.
    auto render(const YAML::Node& node) -> std::string
    {
        if (node.IsNull())
        {
            return "~";
        }
        if (node.IsScalar())
        {
            return node.Scalar();
        }
        std::string out;
        if (node.IsSequence())
        {
            out = "[";
            bool first = true;
            for (const auto& item : node)
            {
                out += (first ? "" : ", ") + render(item);
                first = false;
            }
            return out + "]";
        }
        out = "{";
        bool first = true;
        for (const auto& item : node)
        {
            out += (first ? "" : ", ") + render(item.first) + ": " + render(item.second);
            first = false;
        }
        return out + "}";
    }

    TEST_CASE("yaml::parse reads structure and scalars", "[formats][yaml]")
    {
        struct Case
        {
            std::string text;
            std::string tree;
        };
        const std::vector<Case> cases{
            { "a: 1\nb: [x, 'y', \"z\"]\n", "{a: 1, b: [x, y, z]}" },
            { "- a\n- - b\n  - c\n- {d: e}\n", "[a, [b, c], {d: e}]" },
            { "k: ~\nl: null\nm:\nn: ''\n", "{k: ~, l: ~, m: ~, n: }" },
            { "s: |\n  line one\n  line two\n", "{s: line one\nline two\n}" },
            { "f: >-\n  folded\n  text\n", "{f: folded text}" },
            { "q: \"tab\\there \\u00e9\"\n", "{q: tab\there \xc3\xa9}" },
            { "# only a comment\n", "<missing>" },
            { "", "<missing>" },
            { "---\nplain\n...\n", "plain" },
            { "base: &b {x: 1}\nuse: *b\n", "{base: {x: 1}, use: {x: 1}}" },
            { "\xEF\xBB\xBFkey: value\n", "{key: value}" },
            { "version: 6\npackages:\n- conda: https://x/linux-64/a-1-0.conda\n  sha256: AB\n",
              "{version: 6, packages: [{conda: https://x/linux-64/a-1-0.conda, sha256: AB}]}" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.text);
            const auto document = yaml::parse(test.text, "t.yml");
            REQUIRE(document.has_value());
            CHECK(render(document->root()) == test.tree);
        }
    }

    TEST_CASE("yaml::Node positions, styles, tags and lookups", "[formats][yaml]")
    {
        const std::string text = "name: env\n"
                                 "deps:\n"
                                 "  - 'quoted'\n"
                                 "  - !!python/tuple [1, 2]\n"
                                 "  - plain\n"
                                 "name: second\n";
        const auto document = yaml::parse(text, "t.yml");
        REQUIRE(document.has_value());
        const auto root = document->root();
        REQUIRE(root.is_mapping());
        CHECK(root.size() == 3);
        CHECK(root.text("name") == "env"); // the first of two equal keys
        const auto deps = root.get("deps");
        REQUIRE(deps.is_sequence());
        CHECK(deps.line() == 3);
        CHECK(deps.column() == 3);
        CHECK(deps.item(0).style() == yaml::ScalarStyle::single_quoted);
        CHECK(deps.item(0).line() == 3);
        CHECK(deps.item(0).column() == 5);
        CHECK(deps.item(1).tag() == "tag:yaml.org,2002:python/tuple");
        CHECK(deps.item(2).style() == yaml::ScalarStyle::plain);
        CHECK(deps.item(2).tag().empty());
        // Missing things are missing, never a crash.
        CHECK_FALSE(deps.item(3).exists());
        CHECK(deps.item(3).text().empty());
        CHECK(deps.get("x").kind() == yaml::Kind::missing);
        CHECK_FALSE(root.get("nothing").get("deeper").item(2).exists());
        CHECK(root.key(7).line() == 0);
        CHECK(root.get("name").location("t.yml").to_string() == "t.yml:1:7");
    }

    TEST_CASE("yaml::parse errors carry file, line and column", "[formats][yaml]")
    {
        struct Case
        {
            std::string text;
            std::string where;
            std::string message;
        };
        const std::vector<Case> cases{
            { "a: [1, 2\n", "t.yml:2:1", "did not find expected ',' or ']'" },
            { "a: b: c\n", "t.yml:1:5", "mapping values are not allowed" },
            { "a: 1\n---\nb: 2\n", "t.yml:2:1", "more than one YAML document" },
            { "x: *nothing\n", "t.yml:1:4", "refers to no anchor" },
            { "k: \"\xff\"\n", "t.yml:1:5", "invalid" },
            { "a:\n\t- b\n", "t.yml:2:1", "found character that cannot start any token" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.text);
            const auto document = yaml::parse(test.text, "t.yml");
            REQUIRE_FALSE(document.has_value());
            CHECK(document.error().kind == util::ErrorKind::parse);
            CHECK(document.error().where.to_string() == test.where);
            CAPTURE(document.error().message);
            CHECK(document.error().message.find(test.message) != std::string::npos);
        }
    }

    TEST_CASE("yaml::parse bounds nesting and refuses cyclic aliases", "[formats][yaml]")
    {
        // Built with append: g++ 12 warns falsely on `string + "literal" + string`
        // (-Warray-bounds).
        std::string deep(yaml::max_depth + 1, '[');
        deep.append("1").append(yaml::max_depth + 1, ']');
        const auto too_deep = yaml::parse(deep, "deep.yml");
        REQUIRE_FALSE(too_deep.has_value());
        CHECK(too_deep.error().message.find("nesting deeper than") != std::string::npos);

        std::string fits(100, '[');
        fits.append("1").append(100, ']');
        CHECK(yaml::parse(fits, "ok.yml").has_value());

        const auto cycle = yaml::parse("a: &x [1, *x]\n", "cycle.yml");
        REQUIRE_FALSE(cycle.has_value());
        CHECK(cycle.error().message.find("a cycle") != std::string::npos);

        // A billion laughs shares nodes instead of copying them.
        std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
        for (char name = 'b'; name <= 'j'; ++name)
        {
            const char previous = static_cast<char>(name - 1);
            laughs += name;
            laughs += ": &";
            laughs += name;
            laughs += " [";
            for (int i = 0; i < 10; ++i)
            {
                laughs += i == 0 ? "*" : ", *";
                laughs += previous;
            }
            laughs += "]\n";
        }
        const auto shared = yaml::parse(laughs, "laughs.yml");
        REQUIRE(shared.has_value());
        CHECK(shared->node_count() < 200);
        CHECK(shared->root().get("j").item(9).item(9).item(0).item(0).kind() ==
              yaml::Kind::sequence);
        // all_nodes visits each of them once, not each path to it (10^9 here).
        std::size_t visits = 0;
        CHECK(shared->all_nodes([&](const yaml::Node&) { return ++visits > 0; }));
        CHECK(visits == shared->node_count());
        CHECK_FALSE(shared->all_nodes([](const yaml::Node& node) { return !node.is_sequence(); }));
    }

    // Every YAML file of the shared corpus (environment files, conda-lock files, pixi.lock
    // files): the tree is yaml-cpp's, and the two agree on which files are not YAML.
    TEST_CASE("yaml::parse reads the corpus as yaml-cpp does", "[formats][yaml]")
    {
        std::size_t compared = 0;
        for (const char* folder : { "corpus/envs", "corpus/locks" })
        {
            for (const auto& entry : fs::directory_iterator(fs::path(ENVCHECK_SHARED_DIR) / folder))
            {
                const std::string name = entry.path().filename().string();
                if (!(name.ends_with(".yml") || name.ends_with(".yaml") ||
                      name.ends_with("pixi.lock") || name.ends_with("test.lock")))
                {
                    continue;
                }
                CAPTURE(name);
                const std::string text = read_file(entry.path());
                const auto ours = yaml::parse(text, name);
                std::string theirs;
                bool theirs_ok = true;
                try
                {
                    theirs = render(YAML::Load(text));
                }
                catch (const YAML::Exception&)
                {
                    theirs_ok = false;
                }
                if (!theirs_ok)
                {
                    continue; // yaml-cpp refuses some broken files that are valid YAML 1.1
                }
                CAPTURE(ours.has_value() ? std::string() : ours.error().to_string());
                REQUIRE(ours.has_value());
                CHECK(render(ours->root()) == theirs);
                ++compared;
            }
        }
        CHECK(compared > 100);
    }
}
