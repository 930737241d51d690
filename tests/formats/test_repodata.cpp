#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/repodata.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using formats::RepodataIndex;
using formats::RepodataRecord;

namespace
{
    // Written like conda-index output, with the awkward parts JSON allows: escapes, brackets
    // inside strings, nested values in skipped fields, a record without subdir, a file name
    // that does not follow <name>-<version>-<build>.
    constexpr std::string_view sample = R"({
  "info": {"subdir": "linux-64", "base_url": "https://example.test/x"},
  "packages": {
    "numpy-1.26.4-py311h64a7726_0.tar.bz2": {
      "build": "py311h64a7726_0", "build_number": 0,
      "depends": ["libblas >=3.9.0,<4.0a0", "python >=3.11,<3.12.0a0 *_cpython", "weird {[\"]}"],
      "license": "BSD-3-Clause \"and\" \\ more", "md5": "a0", "name": "numpy",
      "subdir": "linux-64", "timestamp": 1707225380000, "version": "1.26.4",
      "nested": {"a": [1, 2, {"b": "}"}], "c": null, "d": true, "e": -1.5e3}
    },
    "python-dateutil-2.8.2-pyhd8ed1ab_0.tar.bz2": {
      "build": "pyhd8ed1ab_0", "build_number": 0, "depends": [], "name": "python-dateutil",
      "noarch": "python", "version": "2.8.2"
    },
    "oddly_named.tar.bz2": {"name": "odd", "version": "1.0", "build": "0", "build_number": 3}
  },
  "packages.conda": {
    "numpy-2.0.0-py312h22e1c76_0.conda": {
      "build": "py312h22e1c76_0", "build_number": 0, "name": "numpy", "version": "2.0.0",
      "subdir": "linux-64"
    },
    "pytorch-cuda-11.8-h7e8668a_5.conda": {
      "build": "h7e8668a_5", "build_number": 5, "name": "pytorch-cuda", "version": "11.8",
      "license": "caf\u00e9 \ud83d\ude80"
    }
  },
  "removed": ["numpy-1.0-0.tar.bz2"],
  "repodata_version": 1
}
)";

    auto build(std::string_view json, std::vector<std::string> names = {})
    {
        return RepodataIndex::build(json, names);
    }

    auto read_text(const std::filesystem::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream out;
        out << in.rdbuf();
        return out.str();
    }

    TEST_CASE("package_name_of_filename", "[formats][RepodataIndex]")
    {
        using formats::package_name_of_filename;
        CHECK(package_name_of_filename("numpy-1.26.4-py311h64a7726_0.conda") == "numpy");
        CHECK(package_name_of_filename("python-dateutil-2.8.2-pyhd8ed1ab_0.tar.bz2") ==
              "python-dateutil");
        CHECK(package_name_of_filename("_libgcc_mutex-0.1-conda_forge.tar.bz2") == "_libgcc_mutex");
        CHECK(package_name_of_filename("pytorch-cuda-11.8-h7e8668a_5.conda") == "pytorch-cuda");
        CHECK(package_name_of_filename("a-1-0") == "a");
        CHECK(package_name_of_filename("oddly_named.tar.bz2").empty());
        CHECK(package_name_of_filename("a-b.conda").empty());
        CHECK(package_name_of_filename("-1-0.conda").empty());
        CHECK(package_name_of_filename("").empty());
    }

    TEST_CASE("RepodataIndex::build", "[formats][RepodataIndex]")
    {
        auto index = build(sample, { "numpy", "pytorch-cuda", "odd", "absent" });
        REQUIRE(index);
        CHECK(index->subdir() == "linux-64");
        CHECK(index->entry_count() == 5);
        CHECK(index->indexed_count() == 4);

        const auto numpy = index->records("numpy");
        REQUIRE(numpy.size() == 2);
        CHECK(numpy[0] == RepodataRecord{ "numpy", "1.26.4", "py311h64a7726_0", 0, "linux-64",
                                          "numpy-1.26.4-py311h64a7726_0.tar.bz2" });
        CHECK(numpy[1] == RepodataRecord{ "numpy", "2.0.0", "py312h22e1c76_0", 0, "linux-64",
                                          "numpy-2.0.0-py312h22e1c76_0.conda" });
        // No subdir in the record: info.subdir stands in.
        const auto cuda = index->records("pytorch-cuda");
        REQUIRE(cuda.size() == 1);
        CHECK(cuda[0].subdir == "linux-64");
        CHECK(cuda[0].build_number == 5);
        // Found by reading the entry, since its file name does not carry the name.
        REQUIRE(index->records("odd").size() == 1);
        CHECK(index->records("odd")[0].build_number == 3);

        CHECK(index->records("python-dateutil").empty()); // not asked for
        CHECK(index->records("absent").empty());
        CHECK(index->has_package("python-dateutil"));
        CHECK(index->has_package("odd"));
        CHECK_FALSE(index->has_package("absent"));
        CHECK(index->package_names() ==
              std::vector<std::string>{ "numpy", "odd", "python-dateutil", "pytorch-cuda" });
    }

    TEST_CASE("RepodataIndex::build with every name", "[formats][RepodataIndex]")
    {
        auto index = build(sample);
        REQUIRE(index);
        CHECK(index->indexed_count() == 5);
        REQUIRE(index->records("python-dateutil").size() == 1);
        CHECK(index->records("python-dateutil")[0].version == "2.8.2");
    }

    TEST_CASE("RepodataIndex::build decodes escapes in the fields it reads",
              "[formats][RepodataIndex]")
    {
        auto index =
          build(R"({"packages": {"a-1-0.conda": {"name": "a", "version": "1.0\u002b\u0041",
            "build": "x\"y\\z\/\t"},
            "b\u002d1-0.conda": {"name": "b", "version": "\ud83d\ude80"}}})");
        REQUIRE(index);
        REQUIRE(index->records("a").size() == 1);
        CHECK(index->records("a")[0].version == "1.0+A");
        CHECK(index->records("a")[0].build == "x\"y\\z/\t");
        REQUIRE(index->records("b").size() == 1);
        CHECK(index->records("b")[0].fn == "b-1-0.conda");
        CHECK(index->records("b")[0].version == "\xF0\x9F\x9A\x80");
    }

    TEST_CASE("RepodataIndex::build accepts minimal files", "[formats][RepodataIndex]")
    {
        for (const std::string_view json :
             { "{}", " { } \n", R"({"packages": {}})",
               R"({"info": {}, "packages": {}, "packages.conda": {}})",
               R"({"repodata_version": 2, "removed": []})" })
        {
            CAPTURE(json);
            auto index = build(json, { "a" });
            REQUIRE(index);
            CHECK(index->entry_count() == 0);
            CHECK(index->subdir().empty());
        }
    }

    TEST_CASE("RepodataIndex::build negative", "[formats][RepodataIndex]")
    {
        struct Case
        {
            std::string_view json;
            std::string_view message;
        };
        const std::vector<Case> cases = {
            { "", "a repodata file must be a JSON object" },
            { "[]", "a repodata file must be a JSON object" },
            { "{", "expected a string key" },
            { R"({"packages": [])", "\"packages\" must be an object" },
            { R"({"info": "linux-64"})", "\"info\" must be an object" },
            { R"({"packages": {"a-1-0.conda": 3}})",
              "package entry 'a-1-0.conda' must be an object" },
            { R"({"packages": {"a-1-0.conda": {"name": 3}}})", "name must be a string" },
            { R"({"packages": {"a-1-0.conda": {"version": null}}})", "version must be a string" },
            { R"({"packages": {"a-1-0.conda": {"build_number": "1"}}})",
              "build_number must be an integer" },
            { R"({"packages": {"a-1-0.conda": {"build_number": 1.5}}})",
              "build_number must be an integer" },
            { R"({"packages": {"odd.conda": {"version": "1"}}})",
              "package entry 'odd.conda' has no name" },
            { R"({"packages": {"a-1-0.conda": {"name": "a\q"}}})",
              "invalid escape in a string (JSON knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)" },
            { R"({"packages": {"a-1-0.conda": {"name": "\u12"}}})",
              "\\u must be followed by four hex digits" },
            { R"({"packages": {"a-1-0.conda": {"name": "\udc00"}}})",
              "a low surrogate \\u escape without a high one" },
            { R"({"packages": {"a-1-0.conda": {"name": "\ud83d\u0041"}}})",
              "invalid low surrogate after a high surrogate \\u escape" },
            { R"({"packages": {"a-1-0.conda": {"name": "a)", "unterminated string" },
            { R"({"packages": {"b-1-0.conda": {"depends": ["x"})", "unterminated object or array" },
            { R"({"packages" {}})", "expected ':' after a key" },
            { R"({"packages": {} "info": {}})", "expected ',' or '}'" },
            { R"({"a": })", "expected a value" },
            { R"({} trailing)", "unexpected text after the repodata object" },
        };
        for (const auto& [json, message] : cases)
        {
            CAPTURE(json);
            auto index = build(json, { "a" });
            REQUIRE_FALSE(index);
            CHECK(index.error().kind == util::ErrorKind::parse);
            CHECK(index.error().message == "invalid repodata: " + std::string(message));
            CHECK(index.error().where.line >= 1);
        }
    }

    TEST_CASE("RepodataIndex::build negative points at the offending byte",
              "[formats][RepodataIndex]")
    {
        auto index = build("{\n  \"packages\": {\n    \"a-1-0.conda\": {\"name\": \"a\", "
                           "\"build_number\": x}\n  }\n}\n",
                           { "a" });
        REQUIRE_FALSE(index);
        CHECK(index.error().where.line == 3);
        CHECK(index.error().where.column == 50);
    }

    TEST_CASE("RepodataIndex::build never crashes on truncated input", "[formats][RepodataIndex]")
    {
        // Every proper prefix of a valid file is invalid JSON; each must fail cleanly.
        for (std::size_t length = 0; length + 2 < sample.size(); ++length)
        {
            CAPTURE(length);
            const auto index = build(sample.substr(0, length), { "numpy" });
            CHECK_FALSE(index);
        }
    }

    // Every repodata file of the shared corpus, indexed in full and compared with a DOM parse.
    TEST_CASE("RepodataIndex::build on the corpus", "[formats][RepodataIndex]")
    {
        const std::filesystem::path dir =
          std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus" / "conda-meta";
        if (!std::filesystem::is_directory(dir))
        {
            FAIL("shared corpus missing (configure with -DENVCHECK_SHARED_DIR): " << dir);
            return;
        }
        std::size_t files = 0;
        std::size_t records = 0;
        for (const auto& item : std::filesystem::directory_iterator(dir))
        {
            const std::string file = item.path().filename().string();
            if (file.find("repodata") == std::string::npos || !file.ends_with(".json"))
            {
                continue;
            }
            CAPTURE(file);
            const std::string text = read_text(item.path());
            const auto dom = nlohmann::json::parse(text);
            auto index = build(text);
            REQUIRE(index);
            const std::string info_subdir =
              dom.contains("info") ? dom["info"].value("subdir", "") : "";
            CHECK(index->subdir() == info_subdir);
            std::size_t expected = 0;
            for (const char* section : { "packages", "packages.conda" })
            {
                if (!dom.contains(section))
                {
                    continue;
                }
                for (const auto& [filename, entry] : dom[section].items())
                {
                    ++expected;
                    const std::string name = entry.at("name").get<std::string>();
                    const auto found = index->records(name);
                    // A named copy: clang 14 cannot capture a structured binding in a lambda.
                    const std::string& record_file = filename;
                    const auto match =
                      std::find_if(found.begin(), found.end(),
                                   [&](const RepodataRecord& r) { return r.fn == record_file; });
                    REQUIRE(match != found.end());
                    CHECK(match->version == entry.at("version").get<std::string>());
                    CHECK(match->build == entry.at("build").get<std::string>());
                    CHECK(match->build_number == entry.value("build_number", 0LL));
                    CHECK(match->subdir == entry.value("subdir", info_subdir));
                    CHECK(index->has_package(name));
                }
            }
            CHECK(index->entry_count() == expected);
            CHECK(index->indexed_count() == expected);
            records += expected;
            ++files;
        }
        CHECK(files >= 5);
        INFO("corpus repodata files: " << files << ", records: " << records);
        CHECK(records > 0);
    }

    TEST_CASE("RepodataIndex::build keeps only the names asked for", "[formats][RepodataIndex]")
    {
        const std::filesystem::path file =
          std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus" / "conda-meta" /
          "conda__rattler__test-data_channels_pytorch_linux-64_repodata.json";
        if (!std::filesystem::exists(file))
        {
            FAIL("shared corpus missing (configure with -DENVCHECK_SHARED_DIR): " << file);
            return;
        }
        const std::string text = read_text(file);
        auto all = build(text);
        auto some = build(text, { "pytorch", "cudatoolkit" });
        REQUIRE(all);
        REQUIRE(some);
        CHECK(some->package_names() == all->package_names());
        CHECK(some->entry_count() == all->entry_count());
        for (const char* name : { "pytorch", "cudatoolkit" })
        {
            const auto expected = all->records(name);
            const auto got = some->records(name);
            CHECK(std::vector<RepodataRecord>(got.begin(), got.end()) ==
                  std::vector<RepodataRecord>(expected.begin(), expected.end()));
        }
        CHECK_FALSE(some->records("pytorch").empty());
        CHECK(some->indexed_count() < all->indexed_count());
    }
}
