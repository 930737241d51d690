// lint --check-channels: fetches (through the cache) the repodata each environment file's specs
// may come from and reports the pins that nothing publishes. The decision is pure
// (checks/channel_availability.hpp); this resolves the channels (.condarc, the channel alias)
// and fetches and indexes the repodata through the ports.
#ifndef ENVCHECK_APP_CHANNELS_HPP
#define ENVCHECK_APP_CHANNELS_HPP

#include <string>
#include <vector>

#include "app/ports.hpp"
#include "formats/environment_yaml.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct ChannelCheckRequest
    {
        bool enabled = false;
        std::string platform;      // empty: this machine's
        std::string channel_alias; // empty: $ENVCHECK_CHANNEL_ALIAS, .condarc, conda's default
        std::string cache_dir;     // empty: $XDG_CACHE_HOME/envcheck or ~/.cache/envcheck
        bool offline = false;
    };

    // The channel-availability findings for one environment file's text. Fails only on bad
    // usage (an unknown platform, an unusable cache directory, an unreadable .condarc).
    [[nodiscard]] auto check_channels(const std::string& text, const std::string& file_name,
                                      const ChannelCheckRequest& request, Ports& ports)
      -> util::Result<std::vector<formats::EnvDiagnostic>>;
}

#endif
