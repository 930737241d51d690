// Channels as MatchSpecs name them and as records store them (CEP 29 "Channel matching").
//
// A spec channel is a name (`conda-forge`, `pkgs/main`, `conda-forge/label/dev`), a URL, a local
// path, `*`, or a glob/regex. A record channel is whatever conda-meta or repodata wrote:
// `https://conda.anaconda.org/conda-forge/`, `https://conda.anaconda.org/conda-forge/linux-64`,
// `conda-forge`, `pkgs/main`, `defaults`, `https://repo.anaconda.com/pkgs/main`.
//
// Names and URLs meet through conda's built-in configuration, since a pure module reads no
// .condarc: the channel alias https://conda.anaconda.org (so `conda-forge` is
// https://conda.anaconda.org/conda-forge) and the `defaults` multichannel of
// https://repo.anaconda.com/pkgs/{main,r}, as on Linux (conda on Windows adds pkgs/msys2;
// formats/channel_config.hpp knows that). As in conda's ChannelMatch, a spec channel
// matches a record when its name equals the record's name or canonical name: `defaults` matches
// a record from pkgs/main, `pkgs/main` does not match a record that only says `defaults`.
// Glob and regex channels match the record's canonical name. Comparisons ignore ASCII case.
#ifndef ENVCHECK_SPECS_CHANNEL_HPP
#define ENVCHECK_SPECS_CHANNEL_HPP

#include <optional>
#include <string>
#include <string_view>

#include "specs/string_matcher.hpp"
#include "util/error.hpp"
#include "util/result.hpp"

namespace envcheck::specs
{
    inline constexpr std::string_view default_channel_alias = "https://conda.anaconda.org";
    inline constexpr std::string_view default_channels_base = "https://repo.anaconda.com";

    // "conda-forge/linux-64" -> {"conda-forge", "linux-64"}: a trailing known subdir is split off.
    struct ChannelPath
    {
        std::string_view channel;
        std::optional<std::string_view> subdir;
    };
    [[nodiscard]] auto split_subdir(std::string_view channel) -> ChannelPath;

    // A record's channel as names: the alias-relative name (or the URL, subdir removed) and the
    // canonical name ("defaults" for the default channels).
    struct ChannelNames
    {
        std::string_view name;
        std::string_view canonical;
    };
    [[nodiscard]] auto record_channel_names(std::string_view record_channel) -> ChannelNames;

    class Channel
    {
    public:
        enum class Kind
        {
            any,     // "*"
            name,    // conda-forge, pkgs/main, defaults
            url,     // https://..., file://...
            path,    // /srv/channel, ./channel, ~/channel, C:\channel
            pattern, // a glob or regex on the canonical name
        };

        // The channel "*".
        Channel() = default;

        // The channel part of a spec, without a subdir (split that off with split_subdir).
        [[nodiscard]] static auto parse(std::string_view text)
          -> util::Result<Channel, util::ParseError>;

        [[nodiscard]] auto matches(std::string_view record_channel) const -> bool;

        [[nodiscard]] auto kind() const -> Kind { return m_kind; }
        [[nodiscard]] auto is_free() const -> bool { return m_kind == Kind::any; }
        // Compared with records: "conda-forge" for https://conda.anaconda.org/conda-forge.
        [[nodiscard]] auto name() const -> const std::string& { return m_name; }
        // conda's canonical_name: "defaults" for the default channels (as names or URLs), the
        // alias-relative name for URLs under the alias, else the name.
        [[nodiscard]] auto canonical_name() const -> std::string;
        // How a canonical MatchSpec writes it: the name, or the URL for channels off the alias.
        [[nodiscard]] auto to_string() const -> std::string { return m_display; }

        // conda's MatchSpec reading of a channel: the names pkgs/main and pkgs/r become
        // "defaults"; their URLs stay as written.
        [[nodiscard]] auto for_spec() const -> Channel;

        friend auto operator==(const Channel& a, const Channel& b) -> bool;

    private:
        Kind m_kind = Kind::any;
        std::string m_name = "*";
        std::string m_display = "*";
        std::optional<StringMatcher> m_pattern;
    };
}

#endif
