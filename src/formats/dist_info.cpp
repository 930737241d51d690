#include "formats/dist_info.hpp"

#include <nlohmann/json.hpp>

#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        using nlohmann::json;

        auto metadata_error(std::string_view file_name, std::size_t line, std::string message)
          -> util::Error
        {
            return util::make_error(
              util::ErrorKind::parse, std::move(message),
              util::SourceLocation{ std::string(file_name), line,
                                    line == 0 ? std::size_t{ 0 } : std::size_t{ 1 } },
              "reinstall the distribution (pip install --force-reinstall --no-deps NAME)");
        }

        auto string_at(const json& object, const char* key) -> std::string
        {
            const auto found = object.find(key);
            return found != object.end() && found->is_string() ? found->get<std::string>()
                                                               : std::string();
        }
    }

    auto parse_core_metadata(std::string_view text, std::string_view file_name)
      -> util::Result<CoreMetadata>
    {
        CoreMetadata metadata;
        std::size_t line_number = 0;
        std::string* last_value = nullptr; // for folded continuation lines
        for (const auto line : util::split_lines(text))
        {
            ++line_number;
            if (util::trim(line).empty())
            {
                break; // the description body follows
            }
            if (line.front() == ' ' || line.front() == '\t')
            {
                if (last_value != nullptr)
                {
                    *last_value += ' ';
                    *last_value += util::trim(line);
                }
                continue;
            }
            const auto colon = line.find(':');
            if (colon == std::string_view::npos)
            {
                return util::unexpected(
                  metadata_error(file_name, line_number,
                                 "expected a 'Field: value' header line but found '" +
                                   std::string(line.substr(0, 60)) + "'"));
            }
            const auto field = util::trim(line.substr(0, colon));
            const auto value = std::string(util::trim(line.substr(colon + 1)));
            last_value = nullptr;
            if (util::iequals(field, "Name"))
            {
                metadata.name = value;
                last_value = &metadata.name;
            }
            else if (util::iequals(field, "Version"))
            {
                metadata.version = value;
                last_value = &metadata.version;
            }
            else if (util::iequals(field, "Requires-Dist"))
            {
                metadata.requires_dist.push_back(value);
                last_value = &metadata.requires_dist.back();
            }
        }
        if (metadata.name.empty())
        {
            return util::unexpected(metadata_error(file_name, 0, "the metadata has no Name field"));
        }
        if (metadata.version.empty())
        {
            return util::unexpected(
              metadata_error(file_name, 0, "the metadata has no Version field"));
        }
        return metadata;
    }

    auto parse_direct_url(std::string_view text, std::string_view file_name)
      -> util::Result<model::DirectUrl>
    {
        const json document = json::parse(text, nullptr, false);
        if (document.is_discarded() || !document.is_object())
        {
            return util::unexpected(
              metadata_error(file_name, 0, "direct_url.json is not a JSON object"));
        }
        model::DirectUrl url;
        url.url = string_at(document, "url");
        if (url.url.empty())
        {
            return util::unexpected(metadata_error(file_name, 0, "direct_url.json has no 'url'"));
        }
        if (const auto vcs = document.find("vcs_info"); vcs != document.end() && vcs->is_object())
        {
            url.vcs = string_at(*vcs, "vcs");
            url.commit_id = string_at(*vcs, "commit_id");
            url.requested_revision = string_at(*vcs, "requested_revision");
        }
        if (const auto archive = document.find("archive_info");
            archive != document.end() && archive->is_object())
        {
            if (const auto hashes = archive->find("hashes");
                hashes != archive->end() && hashes->is_object())
            {
                url.archive_sha256 = util::to_lower(string_at(*hashes, "sha256"));
            }
            // The older single "hash": "sha256=<hex>" form.
            const std::string hash = string_at(*archive, "hash");
            if (url.archive_sha256.empty() && hash.starts_with("sha256="))
            {
                url.archive_sha256 = util::to_lower(hash.substr(7));
            }
        }
        if (const auto dir = document.find("dir_info"); dir != document.end() && dir->is_object())
        {
            const auto editable = dir->find("editable");
            url.editable =
              editable != dir->end() && editable->is_boolean() && editable->get<bool>();
        }
        return url;
    }

    auto parse_installer(std::string_view text) -> std::string
    {
        const auto lines = util::split_lines(text);
        return lines.empty() ? std::string() : std::string(util::trim(lines.front()));
    }

    auto parse_dist_directory_name(std::string_view directory) -> std::optional<DistDirectoryName>
    {
        DistDirectoryName parsed;
        std::string_view stem;
        if (directory.ends_with(".dist-info"))
        {
            stem = directory.substr(0, directory.size() - 10);
        }
        else if (directory.ends_with(".egg-info"))
        {
            stem = directory.substr(0, directory.size() - 9);
            parsed.egg_info = true;
        }
        else
        {
            return std::nullopt;
        }
        const auto dash = stem.find('-');
        parsed.name = std::string(stem.substr(0, dash));
        if (dash != std::string_view::npos)
        {
            auto version = stem.substr(dash + 1);
            // setuptools appends "-pyX.Y" to egg-info names.
            if (const auto py = version.find("-py");
                parsed.egg_info && py != std::string_view::npos)
            {
                version = version.substr(0, py);
            }
            parsed.version = std::string(version);
        }
        if (parsed.name.empty() || (!parsed.egg_info && parsed.version.empty()))
        {
            return std::nullopt;
        }
        return parsed;
    }
}
