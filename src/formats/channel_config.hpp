// Channel names -> channel URLs, as conda resolves them, and the channel settings of a .condarc.
// Pure: the .condarc arrives as text, the alias chosen by the cli (--channel-alias, then
// ENVCHECK_CHANNEL_ALIAS, then the .condarc) as a value.
//
//   conda-forge                 -> <channel_alias>/conda-forge
//   conda-forge/label/dev       -> <channel_alias>/conda-forge/label/dev
//   mychan (in custom_channels) -> <custom_channels[mychan]>/mychan
//   defaults                    -> default_channels, or repo.anaconda.com pkgs/main and pkgs/r
//                                  (and pkgs/msys2 for win-* platforms)
//   https://host/path, file:///path (also /path) -> kept as they are
// The repodata of a channel's subdir is <channel URL>/<subdir>/repodata.json.
#ifndef ENVCHECK_FORMATS_CHANNEL_CONFIG_HPP
#define ENVCHECK_FORMATS_CHANNEL_CONFIG_HPP

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace envcheck::formats
{
    inline constexpr std::string_view default_channel_alias = "https://conda.anaconda.org";
    inline constexpr std::string_view defaults_channel = "defaults";
    inline constexpr std::string_view nodefaults_channel = "nodefaults";

    // The platform subdirs conda knows, "noarch" included.
    [[nodiscard]] auto known_subdirs() -> std::span<const std::string_view>;
    [[nodiscard]] auto is_known_subdir(std::string_view subdir) -> bool;
    // A platform a user asks for (--platform): a known subdir other than noarch. The error names
    // the closest known one.
    [[nodiscard]] auto parse_platform(std::string_view text) -> util::Result<std::string>;

    // What a .condarc says about channels; absent keys stay empty / nullopt.
    struct CondaConfig
    {
        std::optional<std::string> channel_alias;
        std::map<std::string, std::string> custom_channels; // name -> base URL
        std::vector<std::string> default_channels;          // what "defaults" stands for
        std::optional<std::vector<std::string>> channels;   // the user's channel list
    };

    // Parses .condarc text (YAML). Keys other than the four above are ignored; a key of the
    // wrong shape fails with ErrorKind::parse at its line and column (`file_name` names it).
    [[nodiscard]] auto parse_condarc(std::string_view text, std::string_view file_name)
      -> util::Result<CondaConfig>;

    struct ChannelResolveParams
    {
        std::string channel_alias = std::string(default_channel_alias);
        std::map<std::string, std::string> custom_channels;
        std::vector<std::string> default_channels; // empty: conda's built-in defaults
        std::string platform = "linux-64";         // decides whether defaults includes msys2
    };

    // The alias in force: the command-line option, else the environment variable, else the
    // .condarc's channel_alias, else conda's default. Empty strings count as not given.
    [[nodiscard]] auto choose_channel_alias(std::string_view option, std::string_view environment,
                                            const CondaConfig& condarc) -> std::string;

    // Params from a .condarc and the chosen alias.
    [[nodiscard]] auto make_resolve_params(const CondaConfig& condarc,
                                           std::string_view channel_alias, std::string platform)
      -> ChannelResolveParams;

    struct Channel
    {
        std::string name; // as conda shows it: "conda-forge", "pkgs/main", or the URL
        std::string url;  // without a trailing slash

        [[nodiscard]] auto repodata_url(std::string_view subdir) const -> std::string;
        auto operator==(const Channel&) const -> bool = default;
    };

    // One channel as written in an environment file, a spec ("nvidia::") or a .condarc;
    // "defaults" gives several. Fails (ErrorKind::usage) for an empty name, whitespace,
    // "nodefaults" and relative paths.
    [[nodiscard]] auto resolve_channel(std::string_view channel, const ChannelResolveParams& params)
      -> util::Result<std::vector<Channel>>;

    // A channel list in order, "defaults" expanded, duplicates (by URL) dropped, "nodefaults"
    // skipped.
    [[nodiscard]] auto resolve_channels(std::span<const std::string> channels,
                                        const ChannelResolveParams& params)
      -> util::Result<std::vector<Channel>>;

    // The channels conda searches for an environment file: its own channels, then (unless it
    // lists "nodefaults") the .condarc's channels, which are ["defaults"] when it sets none.
    // conda/env/installers/conda.py does the same.
    [[nodiscard]] auto environment_channels(std::span<const std::string> file_channels,
                                            const CondaConfig& condarc) -> std::vector<std::string>;
}

#endif
