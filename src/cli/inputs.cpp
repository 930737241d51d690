#include "cli/inputs.hpp"

#include <chrono>

#include <CLI/CLI.hpp>

#include "net/http_client.hpp"

namespace envcheck::cli
{
    namespace
    {
        struct InputSettings
        {
            double connect_timeout_seconds = 10.0;
            double download_timeout_seconds = 300.0;
            double max_download_mib = 1024.0;
            std::string ca_bundle;
        };

        auto settings() -> InputSettings&
        {
            static InputSettings instance;
            return instance;
        }

        auto milliseconds(double seconds) -> std::chrono::milliseconds
        {
            return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
        }
    }

    void add_input_options(CLI::App& app)
    {
        auto& s = settings();
        app
          .add_option("--ca-bundle", s.ca_bundle,
                      "For https:// inputs: trust these PEM CAs instead of the system's (TLS is "
                      "always verified)")
          ->check(CLI::ExistingFile);
        app
          .add_option("--connect-timeout", s.connect_timeout_seconds,
                      "For URL inputs: seconds to connect (default 10)")
          ->check(CLI::PositiveNumber);
        app
          .add_option("--download-timeout", s.download_timeout_seconds,
                      "For URL inputs: seconds for the whole transfer (default 300)")
          ->check(CLI::PositiveNumber);
        app
          .add_option("--max-download", s.max_download_mib,
                      "For URL inputs: the largest body in MiB (default 1024)")
          ->check(CLI::PositiveNumber);
    }

    auto read_input(const std::string& path_or_url) -> util::Result<std::string>
    {
        const auto& s = settings();
        net::HttpOptions options;
        options.connect_timeout = milliseconds(s.connect_timeout_seconds);
        options.total_timeout = milliseconds(s.download_timeout_seconds);
        options.max_bytes = static_cast<std::size_t>(s.max_download_mib * 1024.0 * 1024.0);
        options.ca_bundle = s.ca_bundle;
        options.user_agent = std::string("envcheck/") + ENVCHECK_VERSION;
        return net::read_input(path_or_url, options);
    }

    auto is_url(const std::string& path_or_url) -> bool
    {
        return net::is_url(path_or_url);
    }
}
