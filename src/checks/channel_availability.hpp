// `lint --check-channels`: which of an environment's conda specs no package on its channels
// satisfies for the target platform ("pytorch-cuda=11.9 is not published on nvidia/linux-64"),
// so that a mistyped or withdrawn pin fails CI before anything is installed.
//
// Pure: the lint use case (app/channels.cpp) resolves the channels (formats/channel_config.hpp),
// fetches each channel's <platform> and noarch repodata (through the cache), indexes the names
// returned by package_names_to_index (formats::RepodataIndex) and passes the indexes in. Each
// spec comes with its matcher (specs::MatchSpec::matches over the record), so this module
// decides only where a spec may come from and what to report.
#ifndef ENVCHECK_CHECKS_CHANNEL_AVAILABILITY_HPP
#define ENVCHECK_CHECKS_CHANNEL_AVAILABILITY_HPP

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/channel_config.hpp"
#include "formats/environment_yaml.hpp"
#include "formats/repodata.hpp"
#include "specs/match_spec.hpp"
#include "util/result.hpp"

namespace envcheck::checks
{
    inline constexpr std::string_view channel_availability_rule = "channel-availability";

    struct AvailabilitySpec
    {
        std::string text;    // as written, for messages: "pytorch-cuda=11.9"
        std::string name;    // the package name; virtual (__cuda) and glob names are skipped
        std::string channel; // "nvidia" from "nvidia::pytorch-cuda"; "" when none
        std::string subdir;  // from "nvidia/linux-64::..."; "" means the platform and noarch
        bool pinned = false; // has a version or build constraint
        // Whether a record of the channel at `channel_url` satisfies the spec; empty: any
        // record of the name does.
        std::function<bool(const formats::RepodataRecord&, std::string_view channel_url)> matches;
        formats::TextPosition position;
    };

    // One channel subdir's repodata as the use case obtained it.
    struct ChannelSubdir
    {
        formats::Channel channel;
        std::string subdir;
        const formats::RepodataIndex* index = nullptr; // nullptr: could not be obtained
        bool absent = false; // the channel has no such subdir (HTTP 404): empty, as for conda
    };

    // Where a spec may come from: its own channel when it names one, otherwise the
    // environment's channels (in order).
    struct RepodataRequest
    {
        formats::Channel channel;
        std::string subdir;

        auto operator==(const RepodataRequest&) const -> bool = default;
    };

    // The check's view of a conda dependency: its name, channel and subdir, and
    // specs::MatchSpec::matches as the matcher. Virtual packages and glob names come back with
    // an empty name (not looked up).
    [[nodiscard]] auto availability_spec(const specs::MatchSpec& spec, std::string text,
                                         formats::TextPosition position) -> AvailabilitySpec;

    // The same for every dependency of an environment file that parses as a MatchSpec (the
    // others are lint's syntax.matchspec findings).
    [[nodiscard]] auto availability_specs(std::span<const formats::EnvDependency> dependencies)
      -> std::vector<AvailabilitySpec>;

    // Every channel subdir the check needs, each once, in a stable order. Fails when a spec's
    // channel does not resolve.
    [[nodiscard]] auto plan_repodata_requests(std::span<const AvailabilitySpec> specs,
                                              std::span<const formats::Channel> channels,
                                              std::string_view platform,
                                              const formats::ChannelResolveParams& params)
      -> util::Result<std::vector<RepodataRequest>>;

    // The package names to index in every fetched repodata.
    [[nodiscard]] auto package_names_to_index(std::span<const AvailabilitySpec> specs)
      -> std::vector<std::string>;

    // One finding (rule channel-availability) per spec that nothing satisfies:
    //  - error: a pinned spec with no satisfying record on any subdir it may come from, or a
    //    name no such subdir has at all (with "did you mean" and the published versions);
    //  - warning: no answer, because a subdir it may come from could not be obtained.
    [[nodiscard]] auto check_channel_availability(std::span<const AvailabilitySpec> specs,
                                                  std::span<const formats::Channel> channels,
                                                  std::string_view platform,
                                                  std::span<const ChannelSubdir> repodata,
                                                  const formats::ChannelResolveParams& params)
      -> std::vector<formats::EnvDiagnostic>;
}

#endif
