#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "formats/conda_meta.hpp"
#include "formats/conda_meta_scanner.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    auto read_text(const std::filesystem::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        return buffer.str();
    }

    const std::string full_record = R"({
  "build": "py311h64a7726_0",
  "build_number": 0,
  "channel": "https://conda.anaconda.org/conda-forge",
  "constrains": ["numpy-base <0a0"],
  "depends": ["libblas >=3.9.0,<4.0a0", "python >=3.11,<3.12.0a0"],
  "extracted_package_dir": "/opt/conda/pkgs/numpy-1.26.4-py311h64a7726_0",
  "files": [
    "bin/f2py",
    "lib/python3.11/site-packages/numpy-1.26.4.dist-info/INSTALLER",
    "lib/python3.11/site-packages/numpy-1.26.4.dist-info/METADATA",
    "lib/python3.11/site-packages/numpy/__init__.py"
  ],
  "fn": "numpy-1.26.4-py311h64a7726_0.conda",
  "license": "BSD-3-Clause",
  "link": {"source": "/opt/conda/pkgs/numpy-1.26.4-py311h64a7726_0", "type": 1},
  "md5": "A8FD8AB6E8A5C8B5F2B0B2A6E4F9E9C1",
  "name": "numpy",
  "paths_data": {"paths": [{"_path": "bin/f2py", "path_type": "hardlink", "sha256": "aa", "sha256_in_prefix": "bb",
                            "size_in_bytes": 10, "file_mode": "text", "prefix_placeholder": "/opt/anaconda1anaconda2"}],
                 "paths_version": 1},
  "requested_spec": "numpy=1.26",
  "sha256": "3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149",
  "size": 8065890,
  "subdir": "linux-64",
  "timestamp": 1707225380409,
  "url": "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda",
  "version": "1.26.4"
})";

    TEST_CASE("parse_conda_meta", "[formats][CondaMeta]")
    {
        const auto record =
          formats::parse_conda_meta(full_record, "numpy-1.26.4-py311h64a7726_0.json");
        REQUIRE(record.has_value());
        const auto& package = record->package;
        CHECK(package.manager == model::Manager::conda);
        CHECK(package.name == "numpy");
        CHECK(package.version == "1.26.4");
        CHECK(package.build == "py311h64a7726_0");
        CHECK(package.build_number == 0);
        CHECK(package.channel == "https://conda.anaconda.org/conda-forge");
        CHECK(package.subdir == "linux-64");
        CHECK(package.url ==
              "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda");
        CHECK(package.filename == "numpy-1.26.4-py311h64a7726_0.conda");
        CHECK(package.md5 == "a8fd8ab6e8a5c8b5f2b0b2a6e4f9e9c1"); // lowercased
        CHECK(package.sha256 == "3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149");
        CHECK(package.size == 8065890u);
        CHECK(package.requested);
        CHECK(package.installer == "conda");
        CHECK(package.depends ==
              std::vector<std::string>{ "libblas >=3.9.0,<4.0a0", "python >=3.11,<3.12.0a0" });
        CHECK(record->python_anchors ==
              std::vector<std::string>{ "lib/python3.11/site-packages/numpy-1.26.4.dist-info" });
        CHECK(record->has_paths_data);
        CHECK(record->paths.empty()); // identity only
        CHECK(record->files.empty());

        SECTION("with files: paths_data expectations")
        {
            const auto deep = formats::parse_conda_meta(full_record, "numpy.json",
                                                        formats::CondaMetaOptions{ true });
            REQUIRE(deep.has_value());
            CHECK(deep->files.size() == 4);
            REQUIRE(deep->paths.size() == 1);
            const auto& file = deep->paths[0];
            CHECK(file.path == "bin/f2py");
            CHECK(file.type == model::PathType::hardlink);
            CHECK(file.sha256 == "bb");         // sha256_in_prefix wins
            CHECK_FALSE(file.size.has_value()); // a replaced text placeholder changes the size
            CHECK(deep->python_anchors == record->python_anchors);
        }
    }

    TEST_CASE("parse_conda_meta requested and optional fields", "[formats][CondaMeta]")
    {
        struct Case
        {
            const char* json;
            bool requested;
        };
        const std::vector<Case> cases{
            { R"({"name":"a","version":"1","build":"0"})", false },
            { R"({"name":"a","version":"1","build":"0","requested_spec":""})", false },
            { R"({"name":"a","version":"1","build":"0","requested_spec":"a>=1"})", true },
            { R"({"name":"a","version":"1","build":"0","requested_specs":[]})", false },
            { R"({"name":"a","version":"1","build":"0","requested_specs":["a"]})", true },
            { R"({"name":"a","version":"1","build":"0","requested_spec":null,"channel":null,"build_number":null})",
              false },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.json);
            const auto record = formats::parse_conda_meta(test.json, "a.json");
            REQUIRE(record.has_value());
            CHECK(record->package.requested == test.requested);
            CHECK_FALSE(record->package.size.has_value());
            CHECK(record->package.channel.empty());
        }
    }

    TEST_CASE("parse_conda_meta string escapes", "[formats][CondaMeta]")
    {
        const auto record = formats::parse_conda_meta(
          R"({"name":"caf\u00e9","version":"1\/2","build":"\ud83d\ude00\t","files":["lib/python3.12/site-packages/x-1.dist-info/RE\"CORD"]})",
          "x.json");
        REQUIRE(record.has_value());
        CHECK(record->package.name == "caf\xc3\xa9");
        CHECK(record->package.version == "1/2");
        CHECK(record->package.build == "\xf0\x9f\x98\x80\t");
        CHECK(record->python_anchors ==
              std::vector<std::string>{ "lib/python3.12/site-packages/x-1.dist-info" });
    }

    TEST_CASE("parse_conda_meta negative", "[formats][CondaMeta]")
    {
        struct Case
        {
            std::string json;
            std::size_t line;
            std::size_t column;
            std::string message; // a part of it
            // Valid JSON in a shape no conda writes (the hint says so), else not JSON at all.
            bool shape = false;
        };
        const std::vector<Case> cases{
            { "{\n    'build': 0x0,\n}\n", 2, 5, "key" },
            { "", 1, 1, "JSON object" },
            { "[1, 2]", 1, 1, "JSON object", true },
            { R"({"name":"a","version":"1"})", 1, 1, "no 'build'", true },
            { R"({"name":1,"version":"1","build":"0"})", 1, 9, "'name' must be a string", true },
            { R"({"name":"a","version":"1","build":"0","build_number":"3"})", 1, 54,
              "'build_number' must be an integer", true },
            { R"({"name":"a","version":"1","build":"0","depends":["x",2]})", 1, 54,
              "list of strings", true },
            { R"({"name":"a","version":"1","build":"0"} x)", 1, 40, "unexpected text" },
            { R"({"name":"a,"version":"1","build":"0"})", 1, 13, "expected ',' or '}'" },
            { R"({"name":"a","version":"1","build":"0","depends":["a" "b"]})", 1, 54,
              "expected ',' or ']' in 'depends'" },
            { R"({"name":"a","version":"1","build":"0","x":[1,]})", 1, 46, "expected a value" },
            { R"({"name":"a","version":"1","build":"0","x":01})", 1, 44, "expected ',' or '}'" },
            { R"({"name":"a","version":"1","build":"0","x":tru})", 1, 43, "expected a value" },
            { R"({"name":"a\q","version":"1","build":"0"})", 1, 11, "invalid escape" },
            { R"({"name":"\ud800","version":"1","build":"0"})", 1, 10, "surrogate" },
            { "{\"name\":\"a\xff\",\"version\":\"1\",\"build\":\"0\"}", 1, 9, "UTF-8" },
            { R"({"name":"a","version":"1","build":"0","files":["unterminated)", 1, 47,
              "unterminated" },
            { "\x1f\x8b\x08\x00", 1, 1, "JSON object" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.json);
            const auto record = formats::parse_conda_meta(test.json, "conda-meta/a-1-0.json");
            REQUIRE_FALSE(record.has_value());
            const auto& error = record.error();
            CHECK(error.kind == util::ErrorKind::parse);
            CHECK(error.where.file == "conda-meta/a-1-0.json");
            CHECK(error.where.line == test.line);
            CHECK(error.where.column == test.column);
            CAPTURE(error.message);
            CHECK(error.message.find(test.message) != std::string::npos);
            CHECK(error.hint.find(test.shape ? "not a record as conda writes them"
                                             : "not valid JSON") != std::string::npos);
        }
    }

    TEST_CASE("parse_conda_meta skips files and paths_data by structure", "[formats][CondaMeta]")
    {
        // Inside `files` and `paths_data` only strings and brackets are followed: a missing comma
        // there does not stop the identity from being read (the full parser is stricter).
        const std::string lenient =
          R"({"name":"a","version":"1","build":"0","files":["a" "b"],"paths_data":{"x" 1}})";
        CHECK(formats::parse_conda_meta(lenient, "a.json").has_value());
        CHECK_FALSE(formats::parse_conda_meta_full(lenient, "a.json").has_value());
        // Brackets and quotes inside strings, escaped quotes and backslashes do not confuse it.
        const std::string tricky =
          R"({"name":"a","files":["x]\"}[{", "lib/python3.12/site-packages/a-1.dist-info/RECORD",)"
          R"( "c:\\dir\\", "e-info"],"version":"1","build":"0"})";
        const auto record = formats::parse_conda_meta(tricky, "a.json");
        REQUIRE(record.has_value());
        CHECK(record->package.version == "1");
        CHECK(record->python_anchors ==
              std::vector<std::string>{ "lib/python3.12/site-packages/a-1.dist-info" });
        const std::vector<std::pair<std::string, std::size_t>> broken{
            { R"({"name":"a","version":"1","build":"0","files":["a", "b"})", 56 }, // '}' closes '['
            { R"({"name":"a","version":"1","build":"0","files":["a", "b)",
              47 }, // string never closed
            { R"({"name":"a","version":"1","build":"0","paths_data":{"p":[}})",
              58 }, // '}' closes '['
        };
        for (const auto& [text, column] : broken)
        {
            CAPTURE(text);
            const auto failed = formats::parse_conda_meta(text, "a.json");
            REQUIRE_FALSE(failed.has_value());
            CHECK(failed.error().where.column == column);
        }
    }

    // The keys after paths_data are read from the end of the record; the result must be what
    // a full parse gives, for every layout writers use, and a broken tail must still be found.
    TEST_CASE("parse_conda_meta reads the tail after paths_data", "[formats][CondaMeta]")
    {
        std::string entries;
        for (int i = 0; i < 400; ++i)
        {
            entries += std::string(i == 0 ? "" : ",") + R"({"_path": "lib/f)" + std::to_string(i) +
                       R"(.so", "path_type": "hardlink", "sha256": "00", "size_in_bytes": 1})";
        }
        const std::string big_paths = R"({"paths_version": 1, "paths": [)" + entries + "]}";
        REQUIRE(big_paths.size() > (std::size_t{ 4 } << 10)); // beyond the backward budget
        // conda's and mamba's order (rattler's is big_paths'): paths_data known by its last pair.
        const std::string big_paths_last_version =
          R"({"paths": [)" + entries + "],\n    \"paths_version\": 1\n  }";
        const std::string small_paths = R"({"paths": [], "paths_version": 1})";
        struct Layout
        {
            const char* description;
            std::string text;
        };
        const auto head =
          std::string(
            R"({"build": "h0_0", "build_number": 3, "channel": "https://conda.anaconda.org/conda-forge/",)") +
          R"( "files": ["bin/x", "lib/python3.12/site-packages/x-1.0.dist-info/METADATA"], "name": "x",)";
        const std::vector<Layout> layouts{
            { "conda: sorted keys, scalars after paths_data",
              head + R"( "paths_data": )" + big_paths +
                R"(, "requested_spec": "x>=1", "sha256": "ab", "size": 10, "subdir": "linux-64", "url": "u", "version": "1.0"})" },
            { "rattler: an object after paths_data",
              head + R"( "version": "1.0", "paths_data": )" + big_paths +
                R"(, "requested_specs": ["x"], "link": {"source": "/c/x-1.0-h0_0", "type": 1}})" },
            { "conda: paths_version last in paths_data",
              head + R"( "paths_data": )" + big_paths_last_version +
                R"(, "requested_spec": "x>=1", "sha256": "ab", "size": 10, "subdir": "linux-64", "url": "u", "version": "1.0"})" },
            { "paths_version last, an object after paths_data",
              head + R"( "version": "1.0", "paths_data": )" + big_paths_last_version +
                R"(, "requested_specs": ["x"], "link": {"source": "/c/x-1.0-h0_0", "type": 1}})" },
            { "nothing after paths_data",
              head + R"( "version": "1.0", "paths_data": )" + big_paths_last_version + "}" },
            { "a small paths_data",
              head + R"( "paths_data": )" + small_paths + R"(, "version": "1.0", "md5": "cd"})" },
            { "a large array after paths_data (files last): read forward",
              R"({"build": "h0_0", "name": "x", "paths_data": )" + big_paths +
                R"(, "version": "1.0", "files": )" +
                R"(["lib/python3.12/site-packages/x-1.0.dist-info/RECORD")" +
                std::string(5000, ' ') + R"(]})" },
            { "escapes and brackets in tail strings",
              head + R"( "paths_data": )" + big_paths +
                R"(, "url": "https://h/x]\"{,\\", "version": "1.0"}  )" + "\n" },
        };
        for (const auto& layout : layouts)
        {
            CAPTURE(layout.description);
            const auto fast = formats::parse_conda_meta(layout.text, "x.json");
            const auto full = formats::parse_conda_meta_full(layout.text, "x.json");
            REQUIRE(full.has_value());
            REQUIRE(fast.has_value());
            CHECK(*fast == *full);
            CHECK(fast->package.version == "1.0");
            CHECK(fast->has_paths_data);
        }
        SECTION("a broken tail is still an error")
        {
            const std::string broken =
              head + R"( "paths_data": )" + big_paths + R"(, "version": "1.0" "size": 1})";
            const auto fast = formats::parse_conda_meta(broken, "x.json");
            REQUIRE_FALSE(fast.has_value());
            CHECK(fast.error().message.find("expected ',' or '}'") != std::string::npos);
        }
    }

    TEST_CASE("JsonScanner::skip_container", "[formats][JsonScanner]")
    {
        // Across 64-byte blocks, with escapes in some blocks and not in others.
        std::string text = "[";
        for (int i = 0; i < 200; ++i)
        {
            text += R"({"_path": "lib/x-info/f)" + std::to_string(i) + R"(]", "s": ")" +
                    (i % 7 == 0 ? std::string("a\\\"b") : "ab") + R"(", "n": [1, 2, {"k": "}"}]},)";
        }
        text.back() = ']';
        const std::string followed = text + " tail"; // the scanner keeps a view of it
        formats::JsonScanner by_structure(followed);
        std::vector<std::size_t> hits;
        REQUIRE(by_structure.skip_container(&hits));
        formats::JsonScanner by_grammar(followed);
        REQUIRE(by_grammar.skip_value());
        CHECK(by_structure.offset() == text.size());
        CHECK(by_grammar.offset() == text.size());
        CHECK(hits.size() == 200);
        for (const auto hit : hits)
        {
            CHECK(text.compare(hit, 5, "-info") == 0);
        }
    }

    TEST_CASE("parse_conda_meta deep nesting", "[formats][CondaMeta]")
    {
        // Skipped values nest without recursion: a hostile record cannot overflow the stack.
        const std::string deep = R"({"name":"a","version":"1","build":"0","x":)" +
                                 std::string(200000, '[') + std::string(200000, ']') + "}";
        CHECK(formats::parse_conda_meta(deep, "a.json").has_value());
        const std::string unbalanced =
          R"({"name":"a","version":"1","build":"0","x":)" + std::string(200000, '[') + "}";
        CHECK_FALSE(formats::parse_conda_meta(unbalanced, "a.json").has_value());
    }

    TEST_CASE("python_anchor_of", "[formats][CondaMeta]")
    {
        struct Case
        {
            const char* path;
            const char* anchor; // nullptr: none
        };
        const std::vector<Case> cases{
            { "lib/python3.11/site-packages/six-1.16.0.dist-info/RECORD",
              "lib/python3.11/site-packages/six-1.16.0.dist-info" },
            { "Lib/site-packages/six-1.16.0.dist-info/METADATA",
              "Lib/site-packages/six-1.16.0.dist-info" },
            { "lib/python2.7/site-packages/certifi-2018.8.13-py2.7.egg-info",
              "lib/python2.7/site-packages/certifi-2018.8.13-py2.7.egg-info" },
            { "lib/python3.8/site-packages/x.egg-info/PKG-INFO",
              "lib/python3.8/site-packages/x.egg-info" },
            { "lib/python3.8/site-packages/x.egg-infoo", nullptr },
            { "lib/python3.11/site-packages/six.py", nullptr },
            { "share/doc/x.dist-info", nullptr },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.path);
            const auto anchor = formats::python_anchor_of(test.path);
            if (test.anchor == nullptr)
            {
                CHECK_FALSE(anchor.has_value());
            }
            else
            {
                REQUIRE(anchor.has_value());
                CHECK(*anchor == test.anchor);
            }
        }
    }

    TEST_CASE("JsonScanner::skip_value", "[formats][JsonScanner]")
    {
        const std::vector<std::string> valid{
            R"("")",       R"("a\"b\\")", "0",
            "-0.5e+10",    "true",        "null",
            "[]",          "{}",          R"({"a":[1,{"b":null}],"c":"\\\""})",
            " [ 1 , 2 ] ",
        };
        for (const auto& text : valid)
        {
            CAPTURE(text);
            formats::JsonScanner scanner(text);
            CHECK(scanner.skip_value());
            CHECK(scanner.at_end_of_document());
        }
        const std::vector<std::string> invalid{ R"("a)",      "-",     "1.", "1e",  "[1 2]",
                                                R"({"a" 1})", "{1:2}", "[",  "nul", "]" };
        for (const auto& text : invalid)
        {
            CAPTURE(text);
            formats::JsonScanner scanner(text);
            const bool skipped = scanner.skip_value();
            CHECK_FALSE((skipped && scanner.at_end_of_document()));
        }
    }

    // Every real record in the shared corpus: the fast path and the full JSON parse agree, with
    // and without files; the corrupt ones are refused by both with a position.
    TEST_CASE("parse_conda_meta corpus", "[formats][CondaMeta]")
    {
        const std::filesystem::path dir =
          std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus" / "conda-meta";
        if (!std::filesystem::is_directory(dir))
        {
            FAIL("shared corpus missing (configure with -DENVCHECK_SHARED_DIR): " << dir);
            return;
        }
        const std::vector<std::string> corrupt{
            "conda__conda__tests_data_corrupt_dot_underscore_conda-meta_._valid-1.0-0.json", // AppleDouble
            "conda__conda__tests_data_corrupt_json_conda-meta_corrupt-1.2.3-hashhash.json", // single
                                                                                            // quotes
            "conda__conda__tests_data_corrupt_unicode_conda-meta_corrupt-1.2.3-hashhash.json", // gzip
                                                                                               // bytes
        };
        std::size_t parsed = 0;
        std::size_t refused = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
        {
            const std::string name = entry.path().filename().string();
            if (entry.path().extension() != ".json" || name.find("repodata") != std::string::npos)
            {
                continue;
            }
            CAPTURE(name);
            const std::string text = read_text(entry.path());
            const bool is_corrupt =
              std::find(corrupt.begin(), corrupt.end(), name) != corrupt.end();
            for (const bool files : { false, true })
            {
                const auto fast =
                  formats::parse_conda_meta(text, name, formats::CondaMetaOptions{ files });
                const auto full =
                  formats::parse_conda_meta_full(text, name, formats::CondaMetaOptions{ files });
                if (is_corrupt)
                {
                    REQUIRE_FALSE(fast.has_value());
                    REQUIRE_FALSE(full.has_value());
                    CHECK(fast.error().where.file == name);
                    CHECK(fast.error().where.line >= 1);
                    continue;
                }
                REQUIRE(fast.has_value());
                REQUIRE(full.has_value());
                CHECK(*fast == *full);
                CHECK_FALSE(fast->package.name.empty());
            }
            (is_corrupt ? refused : parsed) += 1;
        }
        CHECK(parsed == 33);
        CHECK(refused == corrupt.size());
    }

    // Damaged records: whatever the full JSON parser accepts, the fast path reads the same; and
    // nothing crashes (the sanitizer builds run this too). Deterministic: a fixed seed.
    TEST_CASE("parse_conda_meta mutations", "[formats][CondaMeta]")
    {
        std::vector<std::string> seeds{ full_record };
        seeds.push_back(
          std::string(
            R"({"name":"x","version":"1","build":"0","paths_data":{"paths":[{"_path":"a"}]},)") +
          R"("link":{"source":"/c","type":1},"url":"u\"v","size":3})");
        const std::filesystem::path fixture =
          std::filesystem::path(ENVCHECK_TEST_DATA_DIR) / "prefixes" / "conda-basic" / "conda-meta";
        for (const auto& entry : std::filesystem::directory_iterator(fixture))
        {
            if (entry.path().filename().string().ends_with("-0_0.json") ||
                entry.path().filename().string().starts_with("six"))
            {
                seeds.push_back(read_text(entry.path()));
            }
        }
        std::mt19937 random(20261130);
        const std::string specials = "\"\\[]{},: \n0a";
        std::size_t agreed = 0;
        std::size_t both_refused = 0;
        for (int round = 0; round < 6000; ++round)
        {
            std::string text = seeds[static_cast<std::size_t>(round) % seeds.size()];
            const int edits = 1 + static_cast<int>(random() % 3);
            for (int edit = 0; edit < edits && !text.empty(); ++edit)
            {
                const std::size_t at = random() % text.size();
                switch (random() % 4)
                {
                    case 0:
                        text[at] = specials[random() % specials.size()];
                        break;
                    case 1:
                        text.erase(at, 1 + random() % 8);
                        break;
                    case 2:
                        text.insert(at, 1, specials[random() % specials.size()]);
                        break;
                    default:
                        text.resize(at);
                        break;
                }
            }
            CAPTURE(text);
            const auto fast = formats::parse_conda_meta(text, "m.json");
            const auto full = formats::parse_conda_meta_full(text, "m.json");
            if (full)
            {
                REQUIRE(fast.has_value());
                CHECK(*fast == *full);
                ++agreed;
            }
            else if (!fast)
            {
                CHECK(fast.error().where.line >= 1);
                ++both_refused;
            }
        }
        INFO(agreed << " read alike, " << both_refused << " refused by both");
        CHECK(agreed > 100);
        CHECK(both_refused > 1000);
    }

    TEST_CASE("parse_conda_meta noarch python paths", "[formats][CondaMeta]")
    {
        const auto path = std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus" / "conda-meta" /
                          "conda__conda__tests_data_env_metadata_envpy313tosx_whl_conda-meta_pip-"
                          "25.0.1-pyh145f28c_0.json";
        if (!std::filesystem::exists(path))
        {
            FAIL("shared corpus missing (configure with -DENVCHECK_SHARED_DIR): " << path);
            return;
        }
        const auto record =
          formats::parse_conda_meta(read_text(path), "pip.json", formats::CondaMetaOptions{ true });
        REQUIRE(record.has_value());
        CHECK(record->noarch == "python");
        REQUIRE_FALSE(record->paths.empty());
        // paths_data says "site-packages/pip-25.0.1.dist-info/AUTHORS.txt"; files says where it is.
        CHECK(record->paths.front().path ==
              "lib/python3.13t/site-packages/pip-25.0.1.dist-info/AUTHORS.txt");
        for (const auto& file : record->paths)
        {
            CAPTURE(file.path);
            CHECK((file.path.starts_with("lib/python3.13t/site-packages/") ||
                   file.path.starts_with("bin/")));
        }
        CHECK(record->python_anchors ==
              std::vector<std::string>{ "lib/python3.13t/site-packages/pip-25.0.1.dist-info" });
    }
}
