#include "formats/export.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "model/lock.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        constexpr std::array<std::pair<ExportFormat, std::string_view>, 3> format_names{ {
          { ExportFormat::explicit_, "explicit" },
          { ExportFormat::environment, "environment" },
          { ExportFormat::requirements, "requirements" },
        } };

        auto header(const ExportOptions& options) -> std::string
        {
            std::string text = "# Written by envcheck";
            if (!options.envcheck_version.empty())
            {
                text += " " + options.envcheck_version;
            }
            if (!options.source.empty())
            {
                text += " from " + options.source;
            }
            return text + "\n";
        }

        // YAML needs quotes around values that start with a character it reserves.
        auto yaml_scalar(const std::string& value) -> std::string
        {
            const bool plain = !value.empty() &&
                               value.find_first_of(":#{}[],&*!|>'\"%@`") == std::string::npos &&
                               value.front() != '-' && value.front() != ' ' && value.back() != ' ';
            if (plain)
            {
                return value;
            }
            std::string quoted(1, '\'');
            quoted += util::replace_all(value, "'", "''");
            quoted += '\'';
            return quoted;
        }

        auto channel_for_yaml(const std::string& channel) -> std::string
        {
            std::string name = channel;
            while (name.ends_with('/'))
            {
                name.pop_back();
            }
            for (const std::string_view host : { std::string_view("https://conda.anaconda.org/"),
                                                 std::string_view("https://repo.anaconda.com/") })
            {
                if (name.starts_with(host))
                {
                    return name.substr(host.size());
                }
            }
            return name;
        }

        auto pip_requirement(const model::Package& package) -> std::string
        {
            if (package.direct_url && !package.direct_url->editable)
            {
                const auto& url = *package.direct_url;
                if (!url.vcs.empty())
                {
                    const std::string scheme =
                      url.url.starts_with(url.vcs + "+") ? "" : url.vcs + "+";
                    return package.name + " @ " + scheme + url.url +
                           (url.commit_id.empty() ? std::string() : "@" + url.commit_id);
                }
                if (!url.url.starts_with("file:"))
                {
                    return package.name + " @ " + url.url +
                           (url.archive_sha256.empty() ? std::string()
                                                       : "#sha256=" + url.archive_sha256);
                }
            }
            return package.name + "==" + package.version;
        }

        auto render_explicit(const std::vector<const model::Package*>& conda, std::size_t pip_count,
                             const ExportOptions& options) -> ExportResult
        {
            ExportResult result;
            std::string& text = result.text;
            text = "# This file may be used to create an environment using:\n"
                   "# $ conda create --name <env> --file <this file>\n";
            if (!options.platform.empty())
            {
                text += "# platform: " + options.platform + "\n";
            }
            text += header(options);
            if (pip_count > 0)
            {
                text += "# " + std::to_string(pip_count) +
                        " pip package(s) cannot be part of an explicit file: export --format "
                        "requirements lists them\n";
            }
            text += "@EXPLICIT\n";
            for (const auto* package : conda)
            {
                if (package->url.empty())
                {
                    text += "# no URL for: " + package->name + "-" + package->version + "-" +
                            package->build + "\n";
                    result.left_out.push_back(package->name + " " + package->version + " " +
                                              package->build + ": no URL recorded");
                    continue;
                }
                const bool use_md5 =
                  options.hash == ExportHash::md5 ? !package->md5.empty() : package->sha256.empty();
                const std::string& hash = use_md5 ? package->md5 : package->sha256;
                text += package->url + (hash.empty() ? std::string() : "#" + hash) + "\n";
            }
            return result;
        }
    }

    auto to_string(ExportFormat format) -> std::string_view
    {
        for (const auto& [value, name] : format_names)
        {
            if (value == format)
            {
                return name;
            }
        }
        return "explicit";
    }

    auto parse_export_format(std::string_view text) -> std::optional<ExportFormat>
    {
        for (const auto& [value, name] : format_names)
        {
            if (name == text)
            {
                return value;
            }
        }
        return std::nullopt;
    }

    auto render_export(const std::vector<model::Package>& packages, ExportFormat format,
                       const ExportOptions& options) -> ExportResult
    {
        std::vector<model::Package> sorted = packages;
        model::sort_packages(sorted);
        std::vector<const model::Package*> conda;
        std::vector<const model::Package*> pip;
        for (const auto& package : sorted)
        {
            if (package.manager == model::Manager::conda && package.name.starts_with("__"))
            {
                continue; // virtual packages are not installable
            }
            (package.manager == model::Manager::conda ? conda : pip).push_back(&package);
        }
        // The render functions keep pointers into `sorted`, which lives until the end.
        if (format == ExportFormat::explicit_)
        {
            return render_explicit(conda, pip.size(), options);
        }
        ExportResult result;
        if (format == ExportFormat::requirements)
        {
            result.text = header(options);
            for (const auto* package : pip)
            {
                result.text += pip_requirement(*package) + "\n";
            }
            return result;
        }
        std::string& text = result.text;
        text = header(options);
        if (!options.name.empty())
        {
            text += "name: " + yaml_scalar(options.name) + "\n";
        }
        std::vector<std::string> channels;
        for (const auto* package : conda)
        {
            const std::string channel = channel_for_yaml(package->channel);
            if (!channel.empty() &&
                std::find(channels.begin(), channels.end(), channel) == channels.end())
            {
                channels.push_back(channel);
            }
        }
        if (!channels.empty())
        {
            text += "channels:\n";
            for (const auto& channel : channels)
            {
                text += "  - " + yaml_scalar(channel) + "\n";
            }
        }
        text += "dependencies:\n";
        for (const auto* package : conda)
        {
            text += "  - " +
                    yaml_scalar(package->name + "=" + package->version +
                                (package->build.empty() ? std::string() : "=" + package->build)) +
                    "\n";
        }
        if (!pip.empty())
        {
            text += "  - pip:\n";
            for (const auto* package : pip)
            {
                text += "      - " + yaml_scalar(pip_requirement(*package)) + "\n";
            }
        }
        return result;
    }
}
