// MatchSpec::parse's fast path (issue 19) against the whole grammar: wherever the fast path
// answers, the spec, its spans and its warnings are those parse_match_spec_full makes of the
// same text; and parse() as a whole answers as the full parser does, errors included. Over a
// table of the shapes, every depends/constrains entry of the shared corpus's records and
// repodata, every list item of its environment files and locks and of tests/data, and the
// MatchSpec vectors.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "specs/match_spec.hpp"
#include "specs/match_spec_fast_path.hpp"
#include "tests/catch.hpp"
#include "tests/specs/shared_vectors.hpp"

using envcheck::specs::CommonSpec;
using envcheck::specs::MatchSpec;
using envcheck::specs::parse_match_spec_common_shape;
using envcheck::specs::parse_match_spec_full;
using envcheck::specs::spec_field_count;
using envcheck::specs::SpecField;

namespace
{
    void require_same_spec(const MatchSpec& fast, const MatchSpec& full)
    {
        CHECK(fast == full);
        CHECK(fast.to_string() == full.to_string());
        CHECK(fast.conda_build_form() == full.conda_build_form());
        CHECK(fast.name().kind() == full.name().kind());
        CHECK(fast.name().text() == full.name().text());
        CHECK(fast.build().kind() == full.build().kind());
        CHECK(fast.build().text() == full.build().text());
        CHECK(fast.version().to_string() == full.version().to_string());
        CHECK(fast.version().is_free() == full.version().is_free());
        CHECK(fast.is_optional() == full.is_optional());
        CHECK(fast.is_package_file() == full.is_package_file());
        CHECK(fast.namespace_name() == full.namespace_name());
        for (std::size_t i = 0; i < spec_field_count; ++i)
        {
            const auto field = static_cast<SpecField>(i);
            const auto a = fast.span(field);
            const auto b = full.span(field);
            INFO("span of " << envcheck::specs::to_string(field));
            REQUIRE(a.has_value() == b.has_value());
            if (a)
            {
                CHECK(a->offset == b->offset);
                CHECK(a->length == b->length);
            }
        }
        REQUIRE(fast.warnings().size() == full.warnings().size());
        for (std::size_t i = 0; i < fast.warnings().size(); ++i)
        {
            CHECK(fast.warnings()[i].offset == full.warnings()[i].offset);
            CHECK(fast.warnings()[i].length == full.warnings()[i].length);
            CHECK(fast.warnings()[i].message == full.warnings()[i].message);
        }
    }

    // A CommonSpec reads the name, version and build as the MatchSpec of the same text: the
    // same name, and the same verdict on identities around the versions the specs name.
    void require_same_identity(const CommonSpec& common, const MatchSpec& spec)
    {
        CHECK(common.name() == spec.name().text());
        for (const std::string_view version :
             { "0", "0.1", "1", "1.0", "1.2", "1.2.3", "1.8.1", "1.26.4", "2.0a0", "2.0", "2.1",
               "3.11.9", "3.12.0", "4.5", "12.9", "13", "13.0a0", "1.0+local.1", "1!2.0" })
        {
            const auto parsed = envcheck::specs::Version::parse(version);
            REQUIRE(parsed.has_value());
            for (const std::string_view build :
                 { "", "h0_0", "py_0", "hb9d3cd8_2", "b", "0", "h1_cp311", "py311h0_1" })
            {
                INFO("version " << version << ", build '" << build << "'");
                CHECK(common.matches_identity(*parsed, build) ==
                      spec.matches_identity(spec.name().text(), *parsed, build, 0));
            }
        }
    }

    // One cache of version specs for every text a test parses: the texts share their
    // constraints, as records' depends do.
    auto shared_versions() -> envcheck::specs::VersionSpecCache&
    {
        static envcheck::specs::VersionSpecCache cache;
        return cache;
    }

    // Holds parse() (with and without a cache of version specs) and the fast path to the full
    // parser; returns whether the fast path answered.
    auto compare_paths(const std::string& text) -> bool
    {
        INFO("spec '" << text << "'");
        const auto full = parse_match_spec_full(text);
        for (const auto& parsed :
             { MatchSpec::parse(text), MatchSpec::parse(text, shared_versions()) })
        {
            REQUIRE(parsed.has_value() == full.has_value());
            if (!full)
            {
                CHECK(parsed.error().offset == full.error().offset);
                CHECK(parsed.error().message == full.error().message);
            }
            else
            {
                require_same_spec(*parsed, *full);
            }
        }
        const auto fast = parse_match_spec_common_shape(text);
        const auto common = CommonSpec::parse(text, shared_versions());
        REQUIRE(common.has_value() == fast.has_value());
        if (!fast)
        {
            return false;
        }
        REQUIRE(full.has_value());
        require_same_spec(*fast, *full);
        require_same_identity(*common, *full);
        return true;
    }

    void collect_json_specs(const nlohmann::json& node, bool in_spec_list,
                            std::set<std::string>& out)
    {
        if (node.is_string() && in_spec_list)
        {
            out.insert(node.get<std::string>());
        }
        else if (node.is_array())
        {
            for (const auto& item : node)
            {
                collect_json_specs(item, in_spec_list, out);
            }
        }
        else if (node.is_object())
        {
            for (const auto& [key, value] : node.items())
            {
                const bool list = key == "depends" || key == "constrains" ||
                                  key == "dependencies" || key == "specs";
                collect_json_specs(value, list, out);
            }
        }
    }

    // The items of YAML and text lists ("- numpy >=1.26", quotes taken off): most are specs
    // (environment files, pixi and conda-lock depends), the rest exercise the refusals.
    void collect_list_items(std::string_view text, std::set<std::string>& out)
    {
        std::istringstream lines{ std::string(text) };
        std::string line;
        while (std::getline(lines, line))
        {
            const auto first = line.find_first_not_of(" \t");
            if (first == std::string::npos || line.compare(first, 2, "- ") != 0)
            {
                continue;
            }
            std::string item = line.substr(first + 2);
            while (!item.empty() && (item.back() == '\r' || item.back() == ' '))
            {
                item.pop_back();
            }
            if (item.size() >= 2 && (item.front() == '"' || item.front() == '\'') &&
                item.back() == item.front())
            {
                item = item.substr(1, item.size() - 2);
            }
            out.insert(item);
        }
    }

    auto read_file(const std::filesystem::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        return buffer.str();
    }

    // `records`: the depends and constrains of JSON records; `other`: every list item.
    void collect_tree(const std::filesystem::path& root, std::set<std::string>& records,
                      std::set<std::string>& other)
    {
        if (!std::filesystem::is_directory(root))
        {
            return;
        }
        for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
        {
            if (!entry.is_regular_file() || entry.file_size() > 16 * 1024 * 1024)
            {
                continue;
            }
            const auto extension = entry.path().extension().string();
            if (extension == ".json")
            {
                const auto document =
                  nlohmann::json::parse(read_file(entry.path()), nullptr, false);
                if (!document.is_discarded())
                {
                    collect_json_specs(document, false, records);
                }
            }
            else if (extension == ".yml" || extension == ".yaml" || extension == ".lock" ||
                     extension == ".txt")
            {
                collect_list_items(read_file(entry.path()), other);
            }
        }
    }

    TEST_CASE("MatchSpec fast path: the common shapes", "[specs][MatchSpec][fast_path]")
    {
        // Taken by the fast path, and read as the full parser reads them.
        for (const std::string text : {
               "numpy",
               "libgcc >=13",
               "python >=3.11,<3.12.0a0",
               "python_abi 3.11.* *_cp311",
               "libzlib ==1.3.1 hb9d3cd8_2",
               "openssl ==3.1.4",
               "numpy>=1.26",
               "numpy<2",
               "numpy!=1.26.0",
               "numpy~=1.26",
               "numpy==1.26.4",
               "pkg 1.2 py_0",
               "pkg 1.2.*",
               "pkg 1.2*",
               "pkg *",
               "pkg * *_cp311",
               "pkg >=1.8.*",      // deprecated '.*' after >=: a warning, at its place
               "pkg ==1.8.* py_0", // ignored '.*' after ==, with a build
               "pkg >=1.0,<13.0a0,!=2.1",
               "r-base >=4.3,<4.4.0a0",
               "_openmp_mutex >=4.5",
               "pkg 1.0+local.1",
               "ca-certificates",
               "pkg-1.2",
             })
        {
            INFO("spec '" << text << "'");
            CHECK(compare_paths(text));
        }
        // Left to the full parser: a shape it reads differently (sanitizing, cutting,
        // lowercasing, splitting), or refuses.
        for (const std::string text : {
               "numpy=1.26",         // a lone '=': starts-with, sanitized to 1.26*
               "pkg =1.8 b",         // kept fuzzy (CEP 29)
               "pkg ==1.2,<2",       // '==' with ',' is not sanitized
               "NumPy >=1",          // lowercased
               " numpy",             // blank around the spec
               "numpy ",             // (trimmed)
               "pkg  >=1",           // two spaces
               "pkg\t>=1",           // a tab
               "pkg 1.2 py_0 x",     // a build with a space (warning)
               "pkg 1.0 h-1",        // '-' in the tail: not a build, so part of the version
               "pkg >=1 # note",     // a comment
               "pkg 1 if __linux",   // a condition
               "pkg if __linux",     // a condition where the version would be
               "pkg >=1 b if x",     // a condition after the build
               "pkg.conda",          // a package file
               "pkg 1.conda",        // a package file
               "pkg.conda >=1",      // a name ending in .conda
               "conda-forge::pkg",   // a channel
               "pkg[version='>=1']", // brackets
               "pkg (>=1|<0)",       // a parenthesized version
               "pkg >=1|<0",         // '|'
               "mkl@",               // a feature
               "pkg*",               // a name glob
               "^pkg$",              // a name regex
               "-pkg",               // refused
               ".pkg",               // refused
               "pk..g",              // refused
               "pk--g",              // refused
               "pkg >=",             // refused
               "pkg >=1,",           // an empty clause
               "pkg ==",             // refused
               "pkg =",              // a trailing '='
               "pkg 1!2.0",          // an epoch
               "pkg ===1.2",         // ===
               "pkg =>1.2",          // '=>' (warning)
               "",                   // the free spec
             })
        {
            INFO("spec '" << text << "'");
            CHECK_FALSE(compare_paths(text));
        }
    }

    TEST_CASE("MatchSpec fast path: every spec of the corpus, tests/data and the vectors",
              "[specs][MatchSpec][fast_path][corpus]")
    {
        std::set<std::string> records;
        std::set<std::string> texts;
        const std::filesystem::path shared(ENVCHECK_SHARED_DIR);
        collect_tree(shared / "corpus", records, texts);
        const std::size_t from_corpus = records.size() + texts.size();
        collect_tree(std::filesystem::path(ENVCHECK_TEST_DATA_DIR), records, texts);
        if (const auto vectors = envcheck::tests::load_vectors("conda_match_spec.json"))
        {
            for (const char* section : { "cases", "parse" })
            {
                for (const auto& entry : vectors->value(section, nlohmann::json::array()))
                {
                    if (entry.contains("spec") && entry.at("spec").is_string())
                    {
                        texts.insert(entry.at("spec").get<std::string>());
                    }
                }
            }
        }
        std::size_t fast_records = 0;
        for (const auto& text : records)
        {
            fast_records += compare_paths(text) ? 1 : 0;
        }
        std::size_t fast = 0;
        for (const auto& text : texts)
        {
            fast += compare_paths(text) ? 1 : 0;
        }
        std::cout << "MatchSpec fast path: " << records.size()
                  << " distinct depends/constrains of records, " << fast_records
                  << " read by the fast path; " << texts.size() << " other list items and vectors, "
                  << fast << " read by it\n";
        CHECK(from_corpus > 10000);
        // Nearly every record spec has a common shape; a fast path that stopped answering fails
        // here.
        CHECK(records.size() > 500);
        CHECK(fast_records * 10 > records.size() * 9);
    }
}
