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

    auto decode_base64url(std::string_view text) -> std::optional<std::string>
    {
        const auto value = [](char c) -> int
        {
            if (c >= 'A' && c <= 'Z')
            {
                return c - 'A';
            }
            if (c >= 'a' && c <= 'z')
            {
                return c - 'a' + 26;
            }
            if (c >= '0' && c <= '9')
            {
                return c - '0' + 52;
            }
            if (c == '-' || c == '+')
            {
                return 62;
            }
            if (c == '_' || c == '/')
            {
                return 63;
            }
            return -1;
        };
        while (text.ends_with('='))
        {
            text.remove_suffix(1); // tolerated, as Python's urlsafe_b64decode does
        }
        if (text.size() % 4 == 1)
        {
            return std::nullopt;
        }
        std::string bytes;
        bytes.reserve(text.size() * 3 / 4);
        std::uint32_t buffer = 0;
        int bits = 0;
        for (const char c : text)
        {
            const int v = value(c);
            if (v < 0)
            {
                return std::nullopt;
            }
            buffer = (buffer << 6) | static_cast<std::uint32_t>(v);
            bits += 6;
            if (bits >= 8)
            {
                bits -= 8;
                bytes.push_back(static_cast<char>((buffer >> bits) & 0xffU));
            }
        }
        return bytes;
    }

    namespace
    {
        auto record_error(std::string_view file_name, std::size_t line, std::string message)
          -> util::Error
        {
            return metadata_error(file_name, line, "RECORD: " + std::move(message));
        }

        // One CSV line (Python's csv module, the writer pip and uv use): fields separated by
        // commas, a field in double quotes may hold commas and doubled quotes.
        auto split_csv(std::string_view line) -> std::optional<std::vector<std::string>>
        {
            std::vector<std::string> fields(1);
            bool quoted = false;
            for (std::size_t i = 0; i < line.size(); ++i)
            {
                const char c = line[i];
                if (quoted)
                {
                    if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
                    {
                        fields.back() += '"';
                        ++i;
                    }
                    else if (c == '"')
                    {
                        quoted = false;
                    }
                    else
                    {
                        fields.back() += c;
                    }
                }
                else if (c == '"' && fields.back().empty())
                {
                    quoted = true;
                }
                else if (c == ',')
                {
                    fields.emplace_back();
                }
                else
                {
                    fields.back() += c;
                }
            }
            if (quoted)
            {
                return std::nullopt;
            }
            return fields;
        }
    }

    auto parse_record(std::string_view text, std::string_view file_name)
      -> util::Result<std::vector<RecordEntry>>
    {
        std::vector<RecordEntry> entries;
        std::size_t line_number = 0;
        for (auto line : util::split_lines(text))
        {
            ++line_number;
            if (line.ends_with('\r'))
            {
                line.remove_suffix(1);
            }
            if (util::trim(line).empty())
            {
                continue;
            }
            if (line.find('\0') != std::string_view::npos)
            {
                return util::unexpected(record_error(file_name, line_number, "a NUL byte"));
            }
            auto fields = split_csv(line);
            if (!fields)
            {
                return util::unexpected(
                  record_error(file_name, line_number, "an unterminated quoted field"));
            }
            if (fields->size() != 3)
            {
                return util::unexpected(
                  record_error(file_name, line_number,
                               "expected 3 fields (path,hash,size) but found " +
                                 std::to_string(fields->size())));
            }
            RecordEntry entry;
            entry.line = line_number;
            entry.path = std::move((*fields)[0]);
            if (entry.path.empty())
            {
                return util::unexpected(record_error(file_name, line_number, "an empty path"));
            }
            const std::string& hash = (*fields)[1];
            if (hash.starts_with("sha256="))
            {
                const auto digest = decode_base64url(std::string_view(hash).substr(7));
                if (!digest || digest->size() != 32)
                {
                    return util::unexpected(
                      record_error(file_name, line_number,
                                   "'" + hash.substr(0, 80) +
                                     "' is not a sha256 in urlsafe base64 (43 characters)"));
                }
                entry.sha256 = util::to_hex(*digest);
            }
            else if (!hash.empty())
            {
                if (hash.find('=') == std::string::npos)
                {
                    return util::unexpected(
                      record_error(file_name, line_number,
                                   "'" + hash.substr(0, 80) + "' is not ALGORITHM=DIGEST"));
                }
                entry.other_hash = hash;
            }
            const std::string& size = (*fields)[2];
            if (!size.empty())
            {
                std::uint64_t value = 0;
                for (const char c : size)
                {
                    if (c < '0' || c > '9' || value > (UINT64_MAX - 9) / 10)
                    {
                        return util::unexpected(record_error(file_name, line_number,
                                                             "size '" + size.substr(0, 40) +
                                                               "' is not a number of bytes"));
                    }
                    value = value * 10 + static_cast<std::uint64_t>(c - '0');
                }
                entry.size = value;
            }
            entries.push_back(std::move(entry));
        }
        return entries;
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
