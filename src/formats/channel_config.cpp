#include "formats/channel_config.hpp"

#include <algorithm>
#include <array>

#include <yaml-cpp/yaml.h>

#include "formats/yaml_text.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        // conda/base/constants.py KNOWN_SUBDIRS.
        constexpr std::array<std::string_view, 19> subdirs = {
            "noarch",        "emscripten-wasm32",
            "wasi-wasm32",   "freebsd-64",
            "linux-32",      "linux-64",
            "linux-aarch64", "linux-armv6l",
            "linux-armv7l",  "linux-ppc64",
            "linux-ppc64le", "linux-riscv64",
            "linux-s390x",   "osx-64",
            "osx-arm64",     "win-32",
            "win-64",        "win-arm64",
            "zos-z",
        };

        constexpr std::string_view anaconda_repo = "https://repo.anaconda.com/pkgs";

        auto has_scheme(std::string_view text) -> bool
        {
            const auto end = text.find("://");
            return end != std::string_view::npos && end > 0 &&
                   std::all_of(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end),
                               [](char c) { return util::is_alpha(c); });
        }

        auto without_trailing_slashes(std::string_view text) -> std::string
        {
            while (text.size() > 1 && text.back() == '/')
            {
                text.remove_suffix(1);
            }
            return std::string(text);
        }

        // An alias or custom channel base as a URL: a bare host gets https://, as conda does.
        auto as_base_url(std::string_view text) -> std::string
        {
            std::string url = without_trailing_slashes(util::trim(text));
            return has_scheme(url) ? url : "https://" + url;
        }

        auto yaml_error(const YAML::Mark& mark, std::string_view file_name, std::string message)
          -> util::Error
        {
            util::SourceLocation where{ std::string(file_name), 0, 0 };
            if (mark.line >= 0)
            {
                where.line = static_cast<std::size_t>(mark.line) + 1;
                where.column = static_cast<std::size_t>(mark.column) + 1;
            }
            return util::make_error(util::ErrorKind::parse, std::move(message), std::move(where));
        }

        auto string_list(const YAML::Node& node, std::string_view key, std::string_view file_name)
          -> util::Result<std::vector<std::string>>
        {
            if (!node.IsSequence())
            {
                std::string message(key);
                message += " must be a list of channels";
                return util::unexpected(yaml_error(node.Mark(), file_name, std::move(message)));
            }
            std::vector<std::string> out;
            for (const auto& item : node)
            {
                if (!item.IsScalar())
                {
                    std::string message("entries of ");
                    message += key;
                    message += " must be strings";
                    return util::unexpected(yaml_error(item.Mark(), file_name, std::move(message)));
                }
                out.push_back(item.Scalar());
            }
            return out;
        }

        auto builtin_defaults(std::string_view platform) -> std::vector<std::string>
        {
            std::vector<std::string> out = { std::string(anaconda_repo) + "/main",
                                             std::string(anaconda_repo) + "/r" };
            if (platform.starts_with("win-"))
            {
                out.push_back(std::string(anaconda_repo) + "/msys2");
            }
            return out;
        }

        // conda's display name for a channel URL: relative to the alias when under it,
        // "pkgs/main" for Anaconda's repository, otherwise the URL itself.
        auto display_name(const std::string& url, const ChannelResolveParams& params) -> std::string
        {
            const std::string alias = params.channel_alias + "/";
            if (url.starts_with(alias) && url.size() > alias.size())
            {
                return url.substr(alias.size());
            }
            const std::string repo = std::string(anaconda_repo) + "/";
            if (url.starts_with(repo) && url.size() > repo.size())
            {
                return "pkgs/" + url.substr(repo.size());
            }
            return url;
        }

        auto usage(std::string message) -> util::Unexpected<util::Error>
        {
            return util::unexpected(util::make_error(util::ErrorKind::usage, std::move(message)));
        }
    }

    auto known_subdirs() -> std::span<const std::string_view>
    {
        return subdirs;
    }

    auto is_known_subdir(std::string_view subdir) -> bool
    {
        return std::find(subdirs.begin(), subdirs.end(), subdir) != subdirs.end();
    }

    auto parse_platform(std::string_view text) -> util::Result<std::string>
    {
        std::string platform(util::trim(text));
        if (platform != "noarch" && is_known_subdir(platform))
        {
            return platform;
        }
        std::vector<std::string> candidates;
        for (const auto subdir : subdirs)
        {
            if (subdir != "noarch")
            {
                candidates.emplace_back(subdir);
            }
        }
        std::string hint = "platforms: " + util::join(candidates, ", ");
        if (const auto closest = util::closest_match(platform, candidates))
        {
            hint = "did you mean " + *closest + "?";
        }
        return util::unexpected(util::make_error(util::ErrorKind::usage,
                                                 "unknown platform '" + platform + "'", {}, hint));
    }

    auto parse_condarc(std::string_view text, std::string_view file_name)
      -> util::Result<CondaConfig>
    {
        if (const auto control = find_non_printable(text))
        {
            const auto where = util::line_column_at(text, control->offset);
            return util::unexpected(util::make_error(
              util::ErrorKind::parse, describe_non_printable(*control),
              util::SourceLocation{ std::string(file_name), where.line, where.column },
              "delete the character, or save the file as text"));
        }
        YAML::Node root;
        try
        {
            root = YAML::Load(std::string(text));
        }
        catch (const YAML::Exception& error)
        {
            return util::unexpected(yaml_error(error.mark, file_name, error.msg));
        }
        CondaConfig config;
        if (root.IsNull())
        {
            return config; // an empty .condarc
        }
        if (!root.IsMap())
        {
            return util::unexpected(
              yaml_error(root.Mark(), file_name, "a .condarc must be a mapping"));
        }
        if (const auto alias = root["channel_alias"])
        {
            if (!alias.IsScalar() || util::trim(alias.Scalar()).empty())
            {
                return util::unexpected(
                  yaml_error(alias.Mark(), file_name, "'channel_alias' must be a URL"));
            }
            config.channel_alias = as_base_url(alias.Scalar());
        }
        if (const auto custom = root["custom_channels"])
        {
            if (!custom.IsMap())
            {
                return util::unexpected(yaml_error(
                  custom.Mark(), file_name, "'custom_channels' must map channel names to URLs"));
            }
            for (const auto& entry : custom)
            {
                if (!entry.first.IsScalar() || !entry.second.IsScalar() ||
                    util::trim(entry.second.Scalar()).empty())
                {
                    return util::unexpected(
                      yaml_error(entry.first.Mark(), file_name,
                                 "'custom_channels' must map channel names to URLs"));
                }
                config.custom_channels[entry.first.Scalar()] = as_base_url(entry.second.Scalar());
            }
        }
        if (const auto defaults = root["default_channels"])
        {
            auto list = string_list(defaults, "default_channels", file_name);
            if (!list)
            {
                return util::unexpected(list.error());
            }
            config.default_channels = std::move(*list);
        }
        if (const auto channels = root["channels"])
        {
            auto list = string_list(channels, "channels", file_name);
            if (!list)
            {
                return util::unexpected(list.error());
            }
            config.channels = std::move(*list);
        }
        return config;
    }

    auto choose_channel_alias(std::string_view option, std::string_view environment,
                              const CondaConfig& condarc) -> std::string
    {
        if (!util::trim(option).empty())
        {
            return as_base_url(option);
        }
        if (!util::trim(environment).empty())
        {
            return as_base_url(environment);
        }
        if (condarc.channel_alias)
        {
            return *condarc.channel_alias;
        }
        return std::string(default_channel_alias);
    }

    auto make_resolve_params(const CondaConfig& condarc, std::string_view channel_alias,
                             std::string platform) -> ChannelResolveParams
    {
        return ChannelResolveParams{ as_base_url(channel_alias), condarc.custom_channels,
                                     condarc.default_channels, std::move(platform) };
    }

    auto Channel::repodata_url(std::string_view subdir) const -> std::string
    {
        return url + "/" + std::string(subdir) + "/repodata.json";
    }

    auto resolve_channel(std::string_view channel, const ChannelResolveParams& params)
      -> util::Result<std::vector<Channel>>
    {
        const std::string_view text = util::trim(channel);
        if (text.empty())
        {
            return usage("empty channel name");
        }
        if (std::any_of(text.begin(), text.end(), [](char c) { return util::is_space(c); }))
        {
            return usage("channel '" + std::string(text) + "' contains whitespace");
        }
        if (text == nodefaults_channel)
        {
            return usage("'nodefaults' is a marker, not a channel");
        }
        if (text == defaults_channel)
        {
            const auto& names = params.default_channels.empty() ? builtin_defaults(params.platform)
                                                                : params.default_channels;
            std::vector<Channel> out;
            for (const auto& name : names)
            {
                if (name == defaults_channel)
                {
                    return usage("default_channels must not contain 'defaults'");
                }
                auto resolved = resolve_channel(name, params);
                if (!resolved)
                {
                    return resolved;
                }
                out.insert(out.end(), resolved->begin(), resolved->end());
            }
            return out;
        }
        if (has_scheme(text))
        {
            std::string url = without_trailing_slashes(text);
            return std::vector<Channel>{ Channel{ display_name(url, params), url } };
        }
        if (text.starts_with('/'))
        {
            std::string url = "file://" + without_trailing_slashes(text);
            return std::vector<Channel>{ Channel{ url, url } };
        }
        if (text.starts_with('.') || text.starts_with('~'))
        {
            return usage("channel '" + std::string(text) +
                         "' is a relative path; use an absolute path or a file:// URL");
        }
        const std::string name = without_trailing_slashes(text);
        // A custom channel matches the whole name or its first components
        // ("mychan/label/dev" under custom_channels: {mychan: URL}); the longest key wins.
        const std::string* base = nullptr;
        std::size_t matched = 0;
        for (const auto& [key, url] : params.custom_channels)
        {
            const bool matches = name == key || (name.starts_with(key) && name[key.size()] == '/');
            if (matches && key.size() > matched)
            {
                base = &url;
                matched = key.size();
            }
        }
        const std::string url = (base != nullptr ? *base : params.channel_alias) + "/" + name;
        return std::vector<Channel>{ Channel{ name, url } };
    }

    auto resolve_channels(std::span<const std::string> channels, const ChannelResolveParams& params)
      -> util::Result<std::vector<Channel>>
    {
        std::vector<Channel> out;
        for (const auto& channel : channels)
        {
            if (util::trim(channel) == nodefaults_channel)
            {
                continue;
            }
            auto resolved = resolve_channel(channel, params);
            if (!resolved)
            {
                return resolved;
            }
            for (auto& one : *resolved)
            {
                const bool seen = std::any_of(out.begin(), out.end(),
                                              [&](const Channel& c) { return c.url == one.url; });
                if (!seen)
                {
                    out.push_back(std::move(one));
                }
            }
        }
        return out;
    }

    auto environment_channels(std::span<const std::string> file_channels,
                              const CondaConfig& condarc) -> std::vector<std::string>
    {
        std::vector<std::string> out;
        bool no_defaults = false;
        for (const auto& channel : file_channels)
        {
            if (util::trim(channel) == nodefaults_channel)
            {
                no_defaults = true;
                continue;
            }
            out.push_back(channel);
        }
        if (!no_defaults)
        {
            const std::vector<std::string> fallback = { std::string(defaults_channel) };
            const auto& extra = condarc.channels ? *condarc.channels : fallback;
            out.insert(out.end(), extra.begin(), extra.end());
        }
        return out;
    }
}
