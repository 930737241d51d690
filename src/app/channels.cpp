#include "app/channels.hpp"

#include <memory>
#include <utility>

#include "checks/channel_availability.hpp"
#include "formats/channel_config.hpp"
#include "formats/repodata.hpp"

namespace envcheck::app
{
    namespace
    {
        // $CONDARC, else ~/.condarc; absent files are an empty configuration, as for conda.
        auto read_condarc(Ports& ports) -> util::Result<formats::CondaConfig>
        {
            std::string path = variable(ports.environment, "CONDARC");
            if (path.empty())
            {
                const std::string home = variable(ports.environment, "HOME");
                if (home.empty())
                {
                    return formats::CondaConfig{};
                }
                path = home + "/.condarc";
            }
            if (!ports.files.is_regular_file(path))
            {
                return formats::CondaConfig{};
            }
            auto text = ports.files.read_input(path);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            return formats::parse_condarc(*text, path);
        }

        auto warning(std::string message, std::string fix) -> formats::EnvDiagnostic
        {
            return { model::Severity::warning,
                     std::string(checks::channel_availability_rule),
                     std::move(message),
                     {},
                     std::move(fix) };
        }

        struct FetchedRepodata
        {
            std::vector<std::unique_ptr<formats::RepodataIndex>> indexes; // owned for `subdirs`
            std::vector<checks::ChannelSubdir> subdirs;
            std::vector<formats::EnvDiagnostic> findings; // what could not be fetched or read
        };

        auto fetch_repodata(const std::vector<checks::RepodataRequest>& requests,
                            const std::vector<std::string>& names, RepodataSource& source)
          -> FetchedRepodata
        {
            FetchedRepodata fetched;
            for (const auto& request : requests)
            {
                checks::ChannelSubdir subdir{ request.channel, request.subdir, nullptr, false };
                const std::string url = request.channel.repodata_url(request.subdir);
                auto body = source.fetch(url);
                if (!body)
                {
                    fetched.findings.push_back(warning(
                      "cannot read " + url + ": " + body.error().message, body.error().hint));
                }
                else if (!*body)
                {
                    subdir.absent = true;
                }
                else if (auto index = formats::RepodataIndex::build(**body, names))
                {
                    fetched.indexes.push_back(
                      std::make_unique<formats::RepodataIndex>(std::move(*index)));
                    subdir.index = fetched.indexes.back().get();
                }
                else
                {
                    fetched.findings.push_back(
                      warning(url + " is not valid repodata: " + index.error().to_string(), ""));
                }
                fetched.subdirs.push_back(std::move(subdir));
            }
            return fetched;
        }

        struct ChannelSetup
        {
            std::string platform;
            formats::CondaConfig condarc;
            std::unique_ptr<RepodataSource> source;
        };

        // What does not depend on the file: the platform, .condarc and the cache.
        auto set_up(const ChannelCheckRequest& request, Ports& ports) -> util::Result<ChannelSetup>
        {
            auto platform = formats::parse_platform(
              request.platform.empty() ? ports.machine.platform() : request.platform);
            if (!platform)
            {
                return util::unexpected(platform.error());
            }
            auto condarc = read_condarc(ports);
            if (!condarc)
            {
                return util::unexpected(condarc.error());
            }
            auto source =
              ports.repodata.open(RepodataCacheOptions{ request.cache_dir, request.offline });
            if (!source)
            {
                return util::unexpected(source.error());
            }
            return ChannelSetup{ std::move(*platform), std::move(*condarc), std::move(*source) };
        }
    }

    auto check_channels(const std::string& text, const std::string& file_name,
                        const ChannelCheckRequest& request, Ports& ports)
      -> util::Result<std::vector<formats::EnvDiagnostic>>
    {
        auto setup = set_up(request, ports);
        if (!setup)
        {
            return util::unexpected(setup.error());
        }
        auto file = formats::parse_environment_yaml(text, file_name);
        if (!file)
        {
            return std::vector<formats::EnvDiagnostic>{}; // lint reports why it does not load
        }
        const auto params = formats::make_resolve_params(
          setup->condarc,
          formats::choose_channel_alias(request.channel_alias,
                                        variable(ports.environment, "ENVCHECK_CHANNEL_ALIAS"),
                                        setup->condarc),
          setup->platform);
        std::vector<std::string> written;
        for (const auto& channel : file->channels)
        {
            written.push_back(channel.value);
        }
        auto channels =
          formats::resolve_channels(formats::environment_channels(written, setup->condarc), params);
        if (!channels)
        {
            return util::unexpected(channels.error());
        }
        const auto specs = checks::availability_specs(file->dependencies);
        auto requests = checks::plan_repodata_requests(specs, *channels, setup->platform, params);
        if (!requests)
        {
            return util::unexpected(requests.error());
        }
        auto fetched =
          fetch_repodata(*requests, checks::package_names_to_index(specs), *setup->source);
        auto availability = checks::check_channel_availability(specs, *channels, setup->platform,
                                                               fetched.subdirs, params);
        fetched.findings.insert(fetched.findings.end(), availability.begin(), availability.end());
        return std::move(fetched.findings);
    }
}
