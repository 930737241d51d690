// Reading /work/shared/vectors for the specs tests: the JSON files, which peer asserted an entry,
// and the tally of checked and deliberately skipped entries that each test prints.
#ifndef ENVCHECK_TESTS_SPECS_SHARED_VECTORS_HPP
#define ENVCHECK_TESTS_SPECS_SHARED_VECTORS_HPP

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "specs/package_record.hpp"
#include "specs/version.hpp"
#include "tests/catch.hpp"

namespace envcheck::tests
{
    // The vector file, or nullopt (with a WARN) when ../shared is not there.
    inline auto load_vectors(std::string_view file) -> std::optional<nlohmann::json>
    {
        const std::filesystem::path path =
          std::filesystem::path(ENVCHECK_SHARED_DIR) / "vectors" / file;
        std::ifstream in(path);
        if (!in)
        {
            FAIL(
              "shared vectors missing (configure with -DENVCHECK_SHARED_DIR): " << path.string());
            return std::nullopt;
        }
        return nlohmann::json::parse(in);
    }

    // Whether `peer` ("conda", "mamba", "rattler") is among the entry's sources.
    inline auto asserted_by(const nlohmann::json& entry, std::string_view peer) -> bool
    {
        const std::string prefix = peer == "conda"   ? "conda/conda/"
                                   : peer == "mamba" ? "mamba-org/mamba/"
                                                     : "conda/rattler/";
        const auto check = [&](const nlohmann::json& source)
        { return source.is_string() && source.get<std::string>().rfind(prefix, 0) == 0; };
        const auto& sources = entry.contains("source") ? entry.at("source") : nlohmann::json();
        if (sources.is_array())
        {
            for (const auto& source : sources)
            {
                if (check(source))
                {
                    return true;
                }
            }
            return false;
        }
        return check(sources);
    }

    inline auto only_asserted_by(const nlohmann::json& entry, std::string_view peer) -> bool
    {
        int count = 0;
        for (const std::string_view other : { "conda", "mamba", "rattler" })
        {
            count += asserted_by(entry, other) ? 1 : 0;
        }
        return count == 1 && asserted_by(entry, peer);
    }

    inline auto string_field(const nlohmann::json& entry, const char* key) -> std::string
    {
        if (!entry.contains(key) || entry.at(key).is_null())
        {
            return {};
        }
        return entry.at(key).get<std::string>();
    }

    // Counts checked and skipped entries per section and prints them when it goes out of scope.
    class Tally
    {
    public:
        explicit Tally(std::string file)
          : m_file(std::move(file))
        {
        }
        Tally(const Tally&) = delete;
        auto operator=(const Tally&) -> Tally& = delete;
        ~Tally()
        {
            int checked = 0;
            int skipped = 0;
            std::cout << m_file << ":\n";
            for (const auto& [section, counts] : m_counts)
            {
                std::cout << "  " << section << ": " << counts.first << " checked, "
                          << counts.second << " deliberately skipped\n";
                checked += counts.first;
                skipped += counts.second;
            }
            std::cout << "  total: " << checked << " checked, " << skipped
                      << " deliberately skipped\n";
        }

        void checked(const std::string& section) { ++m_counts[section].first; }
        void skipped(const std::string& section) { ++m_counts[section].second; }

    private:
        std::string m_file;
        std::map<std::string, std::pair<int, int>> m_counts;
    };

    // A record from a vector entry's fields (null and missing fields stay empty; an empty
    // version is mamba's default Version{}, i.e. 0).
    inline auto record_from(const nlohmann::json& fields) -> specs::PackageRecord
    {
        specs::PackageRecord record;
        record.name = string_field(fields, "name");
        const std::string version = string_field(fields, "version");
        if (!version.empty())
        {
            record.version = specs::Version::parse(version).value();
        }
        record.build = string_field(fields, "build");
        if (fields.contains("build_number") && fields.at("build_number").is_number())
        {
            record.build_number = fields.at("build_number").get<std::uint64_t>();
        }
        record.channel = string_field(fields, "channel");
        // conda's test Dist records print their channel object; its base_url is the channel.
        if (const auto base = record.channel.find("base_url="); base != std::string::npos)
        {
            record.channel = record.channel.substr(base + 9);
        }
        record.subdir = string_field(fields, "subdir");
        const nlohmann::json& extra =
          fields.contains("record_extra") ? fields.at("record_extra") : fields;
        for (const auto* source : { &fields, &extra })
        {
            for (const auto& [key, target] :
                 std::initializer_list<std::pair<const char*, std::string*>>{
                   { "fn", &record.fn },
                   { "md5", &record.md5 },
                   { "sha256", &record.sha256 },
                   { "url", &record.url },
                   { "license", &record.license },
                   { "license_family", &record.license_family },
                 })
            {
                if (source->contains(key) && source->at(key).is_string())
                {
                    *target = source->at(key).get<std::string>();
                }
            }
            if (source->contains("track_features"))
            {
                const auto& features = source->at("track_features");
                record.track_features.clear();
                if (features.is_string())
                {
                    record.track_features.push_back(features.get<std::string>());
                }
                else if (features.is_array())
                {
                    for (const auto& feature : features)
                    {
                        record.track_features.push_back(feature.get<std::string>());
                    }
                }
            }
        }
        return record;
    }
}

#endif
