#include "specs/channel.hpp"

#include <algorithm>
#include <array>

#include "specs/chars.hpp"
#include "specs/platform.hpp"
#include "util/strings.hpp"

namespace envcheck::specs
{
    namespace
    {
        // conda's DEFAULT_CHANNELS_UNIX. On Windows conda adds pkgs/msys2; envcheck reads
        // specs as conda on Linux does, where pkgs/msys2 is an ordinary channel (found by
        // differential testing against conda.models).
        constexpr std::array<std::string_view, 2> default_members{ "pkgs/main", "pkgs/r" };

        auto is_default_member(std::string_view name) -> bool
        {
            for (const auto member : default_members)
            {
                if (util::iequals(member, name))
                {
                    return true;
                }
            }
            return false;
        }

        auto strip_trailing_slashes(std::string_view text) -> std::string_view
        {
            while (text.size() > 1 && text.back() == '/')
            {
                text.remove_suffix(1);
            }
            return text;
        }

        auto is_url(std::string_view text) -> bool
        {
            const auto scheme = text.find("://");
            if (scheme == std::string_view::npos || scheme == 0)
            {
                return false;
            }
            for (std::size_t i = 0; i < scheme; ++i)
            {
                const char c = text[i];
                if (!chars::is_alnum(c) && c != '+' && c != '-' && c != '.')
                {
                    return false;
                }
            }
            return true;
        }

        auto is_path(std::string_view text) -> bool
        {
            if (text.empty())
            {
                return false;
            }
            if (text.front() == '/' || text.front() == '.' || text.front() == '~')
            {
                return true;
            }
            const bool drive = text.size() >= 3 && chars::is_alpha(text[0]) && text[1] == ':' &&
                               (text[2] == '\\' || text[2] == '/');
            return drive || text.find('\\') != std::string_view::npos;
        }

        // The part of `url` after "<base>/", or nullopt. http and https count as the same.
        auto relative_to(std::string_view url, std::string_view base)
          -> std::optional<std::string_view>
        {
            auto strip_scheme = [](std::string_view text)
            {
                if (util::istarts_with(text, "https://"))
                {
                    return text.substr(8);
                }
                if (util::istarts_with(text, "http://"))
                {
                    return text.substr(7);
                }
                return text;
            };
            const std::string_view host_path = strip_scheme(url);
            const std::string_view base_host_path = strip_scheme(base);
            if (host_path.size() > base_host_path.size() + 1 &&
                util::istarts_with(host_path, base_host_path) &&
                host_path[base_host_path.size()] == '/')
            {
                return host_path.substr(base_host_path.size() + 1);
            }
            return std::nullopt;
        }

        auto alias_name(std::string_view url) -> std::optional<std::string_view>
        {
            return relative_to(url, default_channel_alias);
        }

        auto defaults_member_of(std::string_view url) -> std::optional<std::string_view>
        {
            const auto rest = relative_to(url, default_channels_base);
            if (rest && is_default_member(*rest))
            {
                return rest;
            }
            return std::nullopt;
        }
    }

    namespace
    {
        // Where a channel holds a character no channel may: '(' too, since a spec reads a
        // parenthesized block as conda's legacy (target=..., optional) block, so a channel
        // holding one could not be written back.
        auto invalid_character(std::string_view channel) -> std::optional<std::size_t>
        {
            constexpr std::string_view invalid = "[]\"',=<>|#(";
            for (std::size_t i = 0; i < channel.size(); ++i)
            {
                if (chars::is_space(channel[i]) ||
                    invalid.find(channel[i]) != std::string_view::npos)
                {
                    return i;
                }
            }
            return std::nullopt;
        }

        // Where a ':' is out of place. ':' only after a URL scheme, in a URL's host:port, or
        // after a drive letter (C:\channel, file:///C:/channel): "conda-forge::" is a typo,
        // not a channel.
        auto stray_colon(std::string_view channel, bool url, bool path)
          -> std::optional<std::size_t>
        {
            const std::size_t authority = url ? channel.find("://") + 3 : 0;
            const std::size_t path_start =
              url ? std::min(channel.find('/', authority), channel.size()) : 0;
            for (std::size_t i = 0; i < channel.size(); ++i)
            {
                if (channel[i] != ':')
                {
                    continue;
                }
                const bool scheme = url && i + 3 == authority;
                const bool port = url && i > authority && i < path_start;
                const bool drive = (path && i == 1) || (url && i == path_start + 2 &&
                                                        chars::is_alpha(channel[path_start + 1]));
                if (!scheme && !drive && !port)
                {
                    return i;
                }
            }
            return std::nullopt;
        }

        struct UrlNames
        {
            std::string_view name;
            std::string_view display;
        };

        // A channel URL's name (a defaults member, or the path under the channel alias) and how
        // it is written: as the short name only when that name reads back as this channel (a
        // name with glob or regex characters, or ending in a subdir, would not).
        auto url_names(std::string_view url) -> UrlNames
        {
            if (const auto member = defaults_member_of(url))
            {
                return { *member, url };
            }
            if (const auto name = alias_name(url))
            {
                const bool short_form = name->find_first_of("*^$:") == std::string_view::npos &&
                                        !split_subdir(*name).subdir;
                return { *name, short_form ? *name : url };
            }
            return { url, url };
        }
    }

    auto split_subdir(std::string_view channel) -> ChannelPath
    {
        const std::string_view trimmed = strip_trailing_slashes(channel);
        const auto slash = trimmed.rfind('/');
        if (slash == std::string_view::npos || slash == 0)
        {
            return { trimmed, std::nullopt };
        }
        const std::string_view last = trimmed.substr(slash + 1);
        if (!is_known_subdir(last))
        {
            return { trimmed, std::nullopt };
        }
        return { trimmed.substr(0, slash), last };
    }

    auto record_channel_names(std::string_view record_channel) -> ChannelNames
    {
        std::string_view channel = split_subdir(util::trim(record_channel)).channel;
        if (is_url(channel))
        {
            if (const auto member = defaults_member_of(channel))
            {
                return { *member, "defaults" };
            }
            if (const auto name = alias_name(channel))
            {
                channel = *name;
            }
        }
        if (is_default_member(channel))
        {
            return { channel, "defaults" };
        }
        return { channel, channel };
    }

    auto Channel::parse(std::string_view text) -> util::Result<Channel, util::ParseError>
    {
        auto fail = [&](std::size_t offset, std::string message) {
            return util::unexpected(
              util::ParseError{ std::string(text), offset, std::move(message) });
        };

        const std::string_view trimmed = strip_trailing_slashes(util::trim(text));
        const std::size_t lead = text.find_first_not_of(util::whitespace);
        if (trimmed.empty())
        {
            return fail(0, "expected a channel");
        }
        Channel channel;
        if (trimmed == "*")
        {
            return channel;
        }
        const bool regex = trimmed.front() == '^' && trimmed.back() == '$';
        if (regex)
        {
            if (auto matcher = StringMatcher::parse(trimmed); !matcher)
            {
                return fail(lead + matcher.error().offset, matcher.error().message);
            }
        }
        if (const auto bad = invalid_character(trimmed))
        {
            return fail(lead + *bad,
                        std::string("invalid character '") + trimmed[*bad] + "' in a channel");
        }
        const bool url = is_url(trimmed);
        const bool path = !url && is_path(trimmed);
        if (const auto colon = stray_colon(trimmed, url, path))
        {
            return fail(lead + *colon, "unexpected ':' in a channel");
        }
        if ((trimmed.front() == '^' && trimmed.back() == '$') ||
            (!url && trimmed.find('*') != std::string_view::npos))
        {
            auto matcher = StringMatcher::parse(trimmed);
            if (!matcher)
            {
                return fail(lead + matcher.error().offset, matcher.error().message);
            }
            channel.m_kind = Kind::pattern;
            channel.m_pattern = std::move(matcher).value();
            channel.m_name = std::string(trimmed);
            channel.m_display = channel.m_name;
            return channel;
        }
        channel.m_display = std::string(trimmed);
        if (url)
        {
            channel.m_kind = Kind::url;
            const auto names = url_names(trimmed);
            channel.m_name = std::string(names.name);
            channel.m_display = std::string(names.display);
            return channel;
        }
        channel.m_kind = path ? Kind::path : Kind::name;
        channel.m_name = channel.m_display;
        return channel;
    }

    auto Channel::matches(std::string_view record_channel) const -> bool
    {
        switch (m_kind)
        {
            case Kind::any:
                return true;
            case Kind::pattern:
            {
                const ChannelNames names = record_channel_names(record_channel);
                return m_pattern->matches(names.canonical) || m_pattern->matches(names.name);
            }
            case Kind::name:
            case Kind::url:
            case Kind::path:
            {
                const ChannelNames names = record_channel_names(record_channel);
                return util::iequals(m_name, names.name) || util::iequals(m_name, names.canonical);
            }
        }
        return false;
    }

    auto Channel::canonical_name() const -> std::string
    {
        if ((m_kind == Kind::name || m_kind == Kind::url) && is_default_member(m_name))
        {
            return "defaults";
        }
        return m_kind == Kind::url ? m_name : m_display;
    }

    auto Channel::for_spec() const -> Channel
    {
        if (m_kind == Kind::name && is_default_member(m_name))
        {
            Channel defaults;
            defaults.m_kind = Kind::name;
            defaults.m_name = "defaults";
            defaults.m_display = "defaults";
            return defaults;
        }
        return *this;
    }

    auto operator==(const Channel& a, const Channel& b) -> bool
    {
        // A URL under the alias is the same channel as its name: compare names, not kinds.
        return (a.m_kind == Channel::Kind::pattern) == (b.m_kind == Channel::Kind::pattern) &&
               util::iequals(a.m_name, b.m_name) && util::iequals(a.m_display, b.m_display);
    }
}
