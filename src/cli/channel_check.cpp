#include "cli/channel_check.hpp"

#include <filesystem>
#include <map>
#include <memory>

#include <CLI/CLI.hpp>

#include "checks/channel_availability.hpp"
#include "cli/inputs.hpp"
#include "formats/channel_config.hpp"
#include "formats/repodata.hpp"
#include "net/cache.hpp"
#include "net/http_client.hpp"
#include "prefix/locate.hpp"
#include "system/environment.hpp"

namespace envcheck::cli
{
    namespace
    {
        auto variable(const system::Environment& variables, const std::string& name) -> std::string
        {
            const auto found = variables.find(name);
            return found == variables.end() ? std::string{} : found->second;
        }

        // $CONDARC, else ~/.condarc; absent files are an empty configuration, as for conda.
        auto read_condarc(const system::Environment& variables)
          -> util::Result<formats::CondaConfig>
        {
            std::string path = variable(variables, "CONDARC");
            if (path.empty())
            {
                const std::string home = variable(variables, "HOME");
                if (home.empty())
                {
                    return formats::CondaConfig{};
                }
                path = home + "/.condarc";
            }
            std::error_code error;
            if (!std::filesystem::is_regular_file(path, error))
            {
                return formats::CondaConfig{};
            }
            auto text = read_input(path);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            return formats::parse_condarc(*text, path);
        }
    }

    void add_channel_check_options(CLI::App& app, ChannelCheckOptions& options)
    {
        app.add_flag(
          "--check-channels", options.enabled,
          "Fetch the channels' repodata and report pins that no package on the platform satisfies");
        app.add_option(
          "--platform", options.platform,
          "With --check-channels: the platform to check, e.g. linux-64 (default: this machine's)");
        app.add_option(
          "--channel-alias", options.channel_alias,
          "With --check-channels: where channel names live (default $ENVCHECK_CHANNEL_ALIAS, "
          "~/.condarc's channel_alias, else https://conda.anaconda.org)");
        app.add_option(
          "--cache-dir", options.cache_dir,
          "With --check-channels: the repodata cache (default $XDG_CACHE_HOME/envcheck)");
        app.add_flag("--offline", options.offline,
                     "With --check-channels: answer from the cache alone, without the network");
    }

    auto check_channels(const std::string& text, const std::string& file_name,
                        const ChannelCheckOptions& options)
      -> util::Result<std::vector<formats::EnvDiagnostic>>
    {
        const auto variables = system::read_environment();
        auto platform = formats::parse_platform(
          options.platform.empty() ? prefix::current_platform() : options.platform);
        if (!platform)
        {
            return util::unexpected(platform.error());
        }
        auto condarc = read_condarc(variables);
        if (!condarc)
        {
            return util::unexpected(condarc.error());
        }
        auto cache_dir = options.cache_dir.empty()
                           ? net::default_cache_directory(variable(variables, "XDG_CACHE_HOME"),
                                                          variable(variables, "HOME"))
                           : util::Result<std::string>(options.cache_dir);
        if (!cache_dir)
        {
            return util::unexpected(cache_dir.error());
        }
        std::error_code error;
        std::filesystem::create_directories(*cache_dir, error);
        if (error)
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::io, "cannot create the cache directory: " + error.message(),
              util::SourceLocation{ *cache_dir, 0, 0 }));
        }

        auto file = formats::parse_environment_yaml(text, file_name);
        if (!file)
        {
            return std::vector<formats::EnvDiagnostic>{}; // lint already reports why it does not
                                                          // load
        }
        const auto params = formats::make_resolve_params(
          *condarc,
          formats::choose_channel_alias(options.channel_alias,
                                        variable(variables, "ENVCHECK_CHANNEL_ALIAS"), *condarc),
          *platform);
        std::vector<std::string> written;
        for (const auto& channel : file->channels)
        {
            written.push_back(channel.value);
        }
        auto channels =
          formats::resolve_channels(formats::environment_channels(written, *condarc), params);
        if (!channels)
        {
            return util::unexpected(channels.error());
        }
        const auto specs = checks::availability_specs(file->dependencies);
        auto requests = checks::plan_repodata_requests(specs, *channels, *platform, params);
        if (!requests)
        {
            return util::unexpected(requests.error());
        }
        const auto names = checks::package_names_to_index(specs);

        net::HttpClient client;
        net::Cache cache(*cache_dir, options.offline);
        std::vector<std::unique_ptr<formats::RepodataIndex>> indexes;
        std::vector<checks::ChannelSubdir> repodata;
        std::vector<formats::EnvDiagnostic> findings;
        for (const auto& request : *requests)
        {
            checks::ChannelSubdir subdir{ request.channel, request.subdir, nullptr, false };
            const std::string url = request.channel.repodata_url(request.subdir);
            auto body = cache.fetch(client, url);
            if (!body)
            {
                if (net::is_not_found(body.error()))
                {
                    subdir.absent = true;
                }
                else
                {
                    findings.push_back({ model::Severity::warning,
                                         std::string(checks::channel_availability_rule),
                                         "cannot read " + url + ": " + body.error().message,
                                         {},
                                         body.error().hint });
                }
            }
            else if (auto index = formats::RepodataIndex::build(body->body, names))
            {
                indexes.push_back(std::make_unique<formats::RepodataIndex>(std::move(*index)));
                subdir.index = indexes.back().get();
            }
            else
            {
                findings.push_back({ model::Severity::warning,
                                     std::string(checks::channel_availability_rule),
                                     url + " is not valid repodata: " + index.error().to_string(),
                                     {},
                                     "" });
            }
            repodata.push_back(std::move(subdir));
        }
        auto availability =
          checks::check_channel_availability(specs, *channels, *platform, repodata, params);
        findings.insert(findings.end(), availability.begin(), availability.end());
        return findings;
    }
}
