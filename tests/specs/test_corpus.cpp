// Real data: every version string, and every depends/constrains entry, of every record in the
// conda-meta records and repodata files of /work/shared/corpus/conda-meta must parse; and every
// record must match the exact spec conda would write for it (channel/subdir::name==version=build).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "specs/channel.hpp"
#include "specs/match_spec.hpp"
#include "specs/package_record.hpp"
#include "specs/version.hpp"
#include "tests/catch.hpp"

using envcheck::specs::MatchSpec;
using envcheck::specs::PackageRecord;
using envcheck::specs::Version;

namespace
{
    auto corpus_files() -> std::vector<std::filesystem::path>
    {
        std::vector<std::filesystem::path> files;
        const auto folder = std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus" / "conda-meta";
        if (!std::filesystem::is_directory(folder))
        {
            return files;
        }
        for (const auto& entry : std::filesystem::directory_iterator(folder))
        {
            if (entry.path().extension() == ".json")
            {
                files.push_back(entry.path());
            }
        }
        std::sort(files.begin(), files.end());
        return files;
    }

    // The records of a conda-meta file (one) or of a repodata file (many).
    auto records_of(const nlohmann::json& document) -> std::vector<const nlohmann::json*>
    {
        std::vector<const nlohmann::json*> records;
        if (document.contains("packages") || document.contains("packages.conda"))
        {
            for (const char* key : { "packages", "packages.conda" })
            {
                if (document.contains(key))
                {
                    for (const auto& [filename, record] : document.at(key).items())
                    {
                        records.push_back(&record);
                    }
                }
            }
        }
        else if (document.is_object())
        {
            records.push_back(&document);
        }
        return records;
    }

    TEST_CASE("corpus: every version, depends and constrains entry parses",
              "[specs][MatchSpec][corpus]")
    {
        const auto files = corpus_files();
        if (files.empty())
        {
            FAIL("shared corpus missing (configure with -DENVCHECK_SHARED_DIR): "
                 << ENVCHECK_SHARED_DIR);
            return;
        }
        std::size_t versions = 0;
        std::size_t specs = 0;
        std::size_t self_matches = 0;
        std::size_t corrupt_files = 0;
        for (const auto& path : files)
        {
            std::ifstream in(path, std::ios::binary);
            std::stringstream buffer;
            buffer << in.rdbuf();
            // Some records are corrupt on purpose (conda's own test data); those are skipped.
            const auto document =
              nlohmann::json::parse(buffer.str(), nullptr, /*allow_exceptions=*/false);
            if (document.is_discarded())
            {
                ++corrupt_files;
                continue;
            }
            for (const auto* record : records_of(document))
            {
                INFO(path.filename().string() << ": " << record->value("name", "?"));
                if (!record->contains("version"))
                {
                    continue;
                }
                const auto version = Version::parse(record->at("version").get<std::string>());
                INFO("version '" << record->at("version").get<std::string>() << "'");
                REQUIRE(version.has_value());
                ++versions;
                for (const char* list : { "depends", "constrains" })
                {
                    for (const auto& dependency : record->value(list, nlohmann::json::array()))
                    {
                        const auto spec = MatchSpec::parse(dependency.get<std::string>());
                        INFO(list << " entry '" << dependency.get<std::string>() << "'"
                                  << (spec ? "" : ": " + spec.error().to_string()));
                        CHECK(spec.has_value());
                        ++specs;
                    }
                }

                PackageRecord package;
                package.name = record->value("name", "");
                package.version = *version;
                package.build = record->value("build", "");
                package.build_number = record->value("build_number", std::uint64_t{ 0 });
                package.channel = record->value("channel", "");
                package.subdir = record->value("subdir", "");
                std::string exact =
                  package.name + "==" + std::string(version->text()) + "=" + package.build;
                if (!package.channel.empty() && !package.subdir.empty())
                {
                    // Records often store the channel with its subdir (.../pkgs/main/osx-64).
                    const auto channel = envcheck::specs::split_subdir(package.channel).channel;
                    exact = std::string(channel) + "/" + package.subdir + "::" + exact;
                }
                const auto spec = MatchSpec::parse(exact);
                INFO("own spec '" << exact << "'");
                REQUIRE(spec.has_value());
                CHECK(spec->matches(package));
                ++self_matches;
            }
        }
        std::cout << "corpus/conda-meta: " << files.size() << " files (" << corrupt_files
                  << " corrupt on purpose, skipped), " << versions << " versions, " << specs
                  << " depends/constrains specs, " << self_matches
                  << " records matching their own spec\n";
        CHECK(versions > 1000);
        CHECK(specs > 10000);
    }
}
