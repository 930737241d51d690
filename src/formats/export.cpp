#include "formats/export.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "formats/explicit.hpp"
#include "formats/pip_reference.hpp"
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

        auto header(const ExportOptions& options, const std::vector<const model::Package*>& conda,
                    const std::vector<const model::Package*>& pip) -> std::string
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
            text += "\n";
            // conda-lock categories, so that a reader knows dev and extras are in.
            std::vector<std::string> categories;
            for (const auto* list : { &conda, &pip })
            {
                for (const auto* package : *list)
                {
                    if (!package->category.empty() &&
                        std::find(categories.begin(), categories.end(), package->category) ==
                          categories.end())
                    {
                        categories.push_back(package->category);
                    }
                }
            }
            if (!categories.empty())
            {
                // main first, the others by name
                std::sort(categories.begin(), categories.end(),
                          [](const std::string& a, const std::string& b)
                          { return a == "main" ? b != "main" : (b != "main" && a < b); });
                text += "# conda-lock categories: " + util::join(categories, ", ") + "\n";
            }
            return text;
        }

        // Whether YAML reads `value` back as this very string when written plain (block
        // context): no indicator first, no ": " or " #" inside, no ':' last, no edge spaces, and
        // nothing YAML 1.1 resolves to null, a boolean or a number.
        auto plain_is_safe(std::string_view value) -> bool
        {
            if (value.empty() || value.front() == ' ' || value.back() == ' ' ||
                value.back() == ':' ||
                std::string_view("-?:,[]{}#&*!|>'\"%@`").find(value.front()) !=
                  std::string_view::npos ||
                value.find(": ") != std::string_view::npos ||
                value.find(" #") != std::string_view::npos ||
                value.find_first_of("\t\r\n{}[],") != std::string_view::npos)
            {
                return false;
            }
            const std::string lower = util::to_lower(value);
            for (const std::string_view word : { "~", "null", "true", "false", "yes", "no", "on",
                                                 "off", "y", "n", ".inf", ".nan" })
            {
                if (lower == word)
                {
                    return false;
                }
            }
            return !std::all_of(value.begin(), value.end(),
                                [](char c)
                                {
                                    return util::is_digit(c) || c == '.' || c == '+' || c == '-' ||
                                           c == 'e' || c == 'E' || c == '_' || c == ':';
                                });
        }

        auto yaml_scalar(const std::string& value) -> std::string
        {
            if (plain_is_safe(value))
            {
                return value;
            }
            std::string quoted(1, '\'');
            quoted += util::replace_all(value, "'", "''");
            quoted += '\'';
            return quoted;
        }

        // Whether the package's URL is a conda artifact (…/name-version-build.conda), not the
        // path or git URL of a package pixi builds from source.
        auto is_artifact_url(const std::string& url) -> bool
        {
            const auto slash = url.find_last_of("/\\");
            return !url.empty() &&
                   parse_artifact_name(slash == std::string::npos ? url : url.substr(slash + 1))
                     .has_value();
        }

        auto render_explicit(const std::vector<const model::Package*>& conda,
                             const std::vector<const model::Package*>& pip,
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
            text += header(options, conda, pip);
            if (!pip.empty())
            {
                text += "# " + std::to_string(pip.size()) +
                        " pip package(s) follow as '# pip' lines, which micromamba and conda-lock "
                        "install read and conda ignores: export --format requirements lists them "
                        "for pip\n";
                // For the reader: a '# pip' line is one requirement, so options cannot be one.
                for (const auto& option : options.pip_options)
                {
                    text += "# pip option: " + option + "\n";
                }
            }
            text += "@EXPLICIT\n";
            for (const auto* package : conda)
            {
                if (!is_artifact_url(package->url))
                {
                    text += "# no URL for: " + package->name + "-" + package->version + "-" +
                            package->build + "\n";
                    result.left_out.push_back(
                      package->name + " " + package->version + " " + package->build +
                      (package->url.empty()
                         ? ": no URL recorded"
                         : ": built from source at " + package->url + ", no artifact URL"));
                    continue;
                }
                const bool use_md5 =
                  options.hash == ExportHash::md5 ? !package->md5.empty() : package->sha256.empty();
                const std::string& hash = use_md5 ? package->md5 : package->sha256;
                text += package->url + (hash.empty() ? std::string() : "#" + hash) + "\n";
            }
            for (const auto* package : pip)
            {
                text += "# pip " + pip_requirement(*package) + "\n";
            }
            return result;
        }
    }

    auto channel_name(std::string_view channel) -> std::string
    {
        std::string name(channel);
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
            return render_explicit(conda, pip, options);
        }
        ExportResult result;
        if (format == ExportFormat::requirements)
        {
            result.text = header(options, {}, pip);
            for (const auto& option : options.pip_options)
            {
                result.text += option + "\n";
            }
            for (const auto* package : pip)
            {
                result.text += pip_requirement(*package) + "\n";
            }
            return result;
        }
        std::string& text = result.text;
        text = header(options, conda, pip);
        if (!options.name.empty())
        {
            text += "name: " + yaml_scalar(options.name) + "\n";
        }
        std::vector<std::string> channels;
        for (const auto* package : conda)
        {
            const std::string channel = channel_name(package->channel);
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
        // From several channels, each package names its own: the channel list alone would let
        // the solver take it from the first channel that has it.
        const bool name_channels = channels.size() > 1;
        for (const auto* package : conda)
        {
            if (package->version.empty() ||
                (!package->url.empty() && !is_artifact_url(package->url)))
            {
                // A package pixi builds from source is in no channel: a pin cannot name it.
                result.left_out.push_back(package->name + " " + package->version +
                                          ": built from source at " + package->url +
                                          ", in no channel");
                continue;
            }
            const std::string channel = channel_name(package->channel);
            text += "  - " +
                    yaml_scalar((name_channels && !channel.empty() ? channel + "::" : "") +
                                package->name + "=" + package->version +
                                (package->build.empty() ? std::string() : "=" + package->build)) +
                    "\n";
        }
        if (!pip.empty())
        {
            text += "  - pip:\n";
            for (const auto& option : options.pip_options)
            {
                text += "      - " + yaml_scalar(option) + "\n";
            }
            for (const auto* package : pip)
            {
                text += "      - " + yaml_scalar(pip_requirement(*package)) + "\n";
            }
        }
        return result;
    }

    auto render_lock_export(const model::Lock& lock, ExportFormat format, ExportOptions options)
      -> ExportResult
    {
        if (options.platform.empty())
        {
            options.platform = lock.machine.platform.value_or(std::string());
        }
        if (options.pip_options.empty())
        {
            options.pip_options = lock.pip_options;
        }
        return render_export(lock.packages, format, options);
    }
}
