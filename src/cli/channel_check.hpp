// `lint --check-channels`: fetches (through the cache) the repodata each environment file's
// specs may come from and reports the pins nothing publishes. The decision is pure
// (checks/channel_availability.hpp); this file resolves channels, fetches and indexes.
#ifndef ENVCHECK_CLI_CHANNEL_CHECK_HPP
#define ENVCHECK_CLI_CHANNEL_CHECK_HPP

#include <string>
#include <vector>

#include "formats/environment_yaml.hpp"
#include "util/result.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
    struct ChannelCheckOptions
    {
        bool enabled = false;
        std::string platform;      // empty: this machine's
        std::string channel_alias; // --channel-alias
        std::string cache_dir;     // empty: $XDG_CACHE_HOME/envcheck or ~/.cache/envcheck
        bool offline = false;
    };

    void add_channel_check_options(CLI::App& app, ChannelCheckOptions& options);

    // The channel-availability findings for one environment file's text. Fails only on bad
    // usage (an unknown --platform, an unusable cache directory, an unreadable .condarc).
    [[nodiscard]] auto check_channels(const std::string& text, const std::string& file_name,
                                      const ChannelCheckOptions& options)
      -> util::Result<std::vector<formats::EnvDiagnostic>>;
}

#endif
