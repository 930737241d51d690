#include "checks/channel_availability.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        constexpr std::size_t max_versions_listed = 12;

        auto checkable(const AvailabilitySpec& spec) -> bool
        {
            return !spec.name.empty() && !spec.name.starts_with("__") &&
                   spec.name.find('*') == std::string::npos;
        }

        auto subdirs_for(const AvailabilitySpec& spec, std::string_view platform)
          -> std::vector<std::string>
        {
            if (!spec.subdir.empty())
            {
                return { spec.subdir };
            }
            return { std::string(platform), "noarch" };
        }

        auto channels_for(const AvailabilitySpec& spec, std::span<const formats::Channel> channels,
                          const formats::ChannelResolveParams& params)
          -> util::Result<std::vector<formats::Channel>>
        {
            if (spec.channel.empty())
            {
                return std::vector<formats::Channel>(channels.begin(), channels.end());
            }
            return formats::resolve_channel(spec.channel, params);
        }

        auto find_repodata(std::span<const ChannelSubdir> repodata, const formats::Channel& channel,
                           std::string_view subdir) -> const ChannelSubdir*
        {
            const auto found =
              std::find_if(repodata.begin(), repodata.end(),
                           [&](const ChannelSubdir& one)
                           { return one.channel.url == channel.url && one.subdir == subdir; });
            return found == repodata.end() ? nullptr : &*found;
        }

        // In conda's version order, so that the newest come last; unparsable ones first, as text.
        void sort_versions(std::vector<std::string>& versions)
        {
            std::vector<std::pair<std::optional<specs::Version>, std::string>> keyed;
            for (auto& text : versions)
            {
                auto parsed = specs::Version::parse(text);
                keyed.emplace_back(parsed ? std::optional<specs::Version>(std::move(*parsed))
                                          : std::nullopt,
                                   std::move(text));
            }
            std::stable_sort(keyed.begin(), keyed.end(),
                             [](const auto& a, const auto& b)
                             {
                                 if (a.first.has_value() != b.first.has_value())
                                 {
                                     return !a.first.has_value();
                                 }
                                 return a.first ? *a.first < *b.first : a.second < b.second;
                             });
            versions.clear();
            for (auto& [version, text] : keyed)
            {
                versions.push_back(std::move(text));
            }
        }

        // "a", "a or b", "a, b or c".
        auto either(const std::vector<std::string>& items) -> std::string
        {
            std::string out;
            for (std::size_t i = 0; i < items.size(); ++i)
            {
                if (i > 0)
                {
                    out += i + 1 == items.size() ? " or " : ", ";
                }
                out += items[i];
            }
            return out;
        }

        auto finding(model::Severity severity, std::string message, const AvailabilitySpec& spec,
                     std::string fix) -> formats::EnvDiagnostic
        {
            return formats::EnvDiagnostic{ severity, std::string(channel_availability_rule),
                                           std::move(message), spec.position, std::move(fix) };
        }
    }

    auto availability_spec(const specs::MatchSpec& spec, std::string text,
                           formats::TextPosition position) -> AvailabilitySpec
    {
        AvailabilitySpec out;
        out.text = std::move(text);
        out.position = position;
        if (spec.name().is_exact())
        {
            out.name = spec.name().text();
        }
        const auto& channel = spec.channel();
        if (channel && !channel->is_free() && channel->kind() != specs::Channel::Kind::pattern)
        {
            out.channel = channel->to_string();
        }
        if (spec.subdir() && spec.subdir()->is_exact())
        {
            out.subdir = spec.subdir()->text();
        }
        out.pinned =
          !spec.version().is_free() || !spec.build().is_free() || !spec.build_number().is_free();
        // Only the spec's own channel is searched when it names one, so records are stamped with
        // that name: a mirror's URL would not compare equal to it.
        const std::string stamp = out.channel;
        out.matches =
          [spec, stamp](const formats::RepodataRecord& record, std::string_view channel_url)
        {
            const auto converted =
              formats::to_package_record(record, stamp.empty() ? channel_url : stamp);
            return converted && spec.matches(*converted);
        };
        return out;
    }

    auto availability_specs(std::span<const formats::EnvDependency> dependencies)
      -> std::vector<AvailabilitySpec>
    {
        std::vector<AvailabilitySpec> out;
        for (const auto& dependency : dependencies)
        {
            auto spec = specs::MatchSpec::parse(dependency.text);
            if (spec)
            {
                out.push_back(availability_spec(*spec, dependency.text, dependency.position));
            }
        }
        return out;
    }

    auto plan_repodata_requests(std::span<const AvailabilitySpec> specs,
                                std::span<const formats::Channel> channels,
                                std::string_view platform,
                                const formats::ChannelResolveParams& params)
      -> util::Result<std::vector<RepodataRequest>>
    {
        std::vector<RepodataRequest> requests;
        for (const auto& spec : specs)
        {
            if (!checkable(spec))
            {
                continue;
            }
            auto sources = channels_for(spec, channels, params);
            if (!sources)
            {
                return util::unexpected(sources.error());
            }
            for (const auto& channel : *sources)
            {
                for (auto& subdir : subdirs_for(spec, platform))
                {
                    RepodataRequest request{ channel, std::move(subdir) };
                    if (std::find(requests.begin(), requests.end(), request) == requests.end())
                    {
                        requests.push_back(std::move(request));
                    }
                }
            }
        }
        return requests;
    }

    auto package_names_to_index(std::span<const AvailabilitySpec> specs) -> std::vector<std::string>
    {
        std::vector<std::string> names;
        for (const auto& spec : specs)
        {
            if (checkable(spec))
            {
                names.push_back(spec.name);
            }
        }
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        return names;
    }

    namespace
    {
        // What searching a spec's channels found.
        struct Search
        {
            std::vector<std::string> searched;    // channel/platform-subdir, for messages
            std::vector<std::string> unreadable;  // channel/subdir whose repodata is missing
            std::vector<std::string> versions;    // of the records that do not match
            std::vector<std::string> known_names; // for "did you mean", while none is found
            bool has_name = false;
            bool satisfied = false;
        };

        // Searches one channel subdir's records of the spec's name (a subdir known to be absent
        // is skipped; one without repodata is noted as unreadable).
        void search_subdir(const AvailabilitySpec& spec, const formats::Channel& channel,
                           const ChannelSubdir* found, const std::string& where, Search& search)
        {
            if (found != nullptr && found->absent)
            {
                return;
            }
            if (found == nullptr || found->index == nullptr)
            {
                search.unreadable.push_back(where);
                return;
            }
            const auto& index = *found->index;
            search.has_name = search.has_name || index.has_package(spec.name);
            for (const auto& record : index.records(spec.name))
            {
                if (!spec.matches || spec.matches(record, channel.url))
                {
                    search.satisfied = true;
                    break;
                }
                if (std::find(search.versions.begin(), search.versions.end(), record.version) ==
                    search.versions.end())
                {
                    search.versions.push_back(record.version);
                }
            }
            if (!search.has_name)
            {
                const auto& names = index.package_names();
                search.known_names.insert(search.known_names.end(), names.begin(), names.end());
            }
        }

        auto search_channels(const AvailabilitySpec& spec,
                             const std::vector<formats::Channel>& sources,
                             const std::vector<std::string>& subdirs,
                             std::span<const ChannelSubdir> repodata) -> Search
        {
            Search search;
            for (const auto& channel : sources)
            {
                // Messages name the platform subdir of each channel; noarch goes into a suffix.
                search.searched.push_back(channel.name + "/" + subdirs.front());
                for (const auto& subdir : subdirs)
                {
                    search_subdir(spec, channel, find_repodata(repodata, channel, subdir),
                                  channel.name + "/" + subdir, search);
                    if (search.satisfied)
                    {
                        return search;
                    }
                }
            }
            return search;
        }

        // The finding for a spec that no channel publishes, with the versions that are.
        auto unpublished(const AvailabilitySpec& spec, Search& search,
                         const std::vector<std::string>& subdirs) -> formats::EnvDiagnostic
        {
            std::string on = either(search.searched);
            if (subdirs.size() > 1)
            {
                on += search.searched.size() == 1 ? " (nor noarch)" : " (nor their noarch)";
            }
            if (!search.has_name)
            {
                std::string fix = "check the package name and the channels";
                if (const auto closest = util::closest_match(spec.name, search.known_names))
                {
                    fix = "did you mean " + *closest + "?";
                }
                return finding(model::Severity::error,
                               spec.text + " is not published on " + on + ": no package is named " +
                                 spec.name,
                               spec, std::move(fix));
            }
            auto& versions = search.versions;
            sort_versions(versions);
            std::string fix = "published versions: ";
            const std::size_t shown = std::min(versions.size(), max_versions_listed);
            fix +=
              util::join(std::vector<std::string>(
                           versions.end() - static_cast<std::ptrdiff_t>(shown), versions.end()),
                         ", ");
            if (versions.size() > shown)
            {
                fix += " (and " + std::to_string(versions.size() - shown) + " older)";
            }
            return finding(model::Severity::error, spec.text + " is not published on " + on, spec,
                           std::move(fix));
        }
    }

    auto check_channel_availability(std::span<const AvailabilitySpec> specs,
                                    std::span<const formats::Channel> channels,
                                    std::string_view platform,
                                    std::span<const ChannelSubdir> repodata,
                                    const formats::ChannelResolveParams& params)
      -> std::vector<formats::EnvDiagnostic>
    {
        std::vector<formats::EnvDiagnostic> findings;
        for (const auto& spec : specs)
        {
            if (!checkable(spec))
            {
                continue;
            }
            auto sources = channels_for(spec, channels, params);
            if (!sources)
            {
                findings.push_back(
                  finding(model::Severity::error,
                          "cannot check " + spec.text + ": " + sources.error().message, spec,
                          "name the channel as conda would: a name, a URL or an absolute path"));
                continue;
            }
            const std::vector<std::string> subdirs = subdirs_for(spec, platform);
            Search search = search_channels(spec, *sources, subdirs, repodata);
            if (search.satisfied || (search.has_name && !spec.pinned))
            {
                continue;
            }
            if (!search.unreadable.empty())
            {
                findings.push_back(finding(
                  model::Severity::warning,
                  "cannot tell whether " + spec.text + " is published: the repodata of " +
                    either(search.unreadable) + " could not be read",
                  spec, "fix the channel's URL or the network, or run with a filled cache"));
                continue;
            }
            if (search.searched.empty())
            {
                continue; // no channels at all: repro.no-channels says so
            }
            findings.push_back(unpublished(spec, search, subdirs));
        }
        return findings;
    }
}
