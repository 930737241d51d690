#include "host/ports.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <unistd.h>

#include "fsio/files.hpp"
#include "gpu/build_info.hpp"
#include "gpu/probes.hpp"
#include "gpu/smoke.hpp"
#include "net/cache.hpp"
#include "net/http_client.hpp"
#include "prefix/locate.hpp"
#include "prefix/parallel.hpp"
#include "prefix/reader.hpp"
#include "prefix/verify.hpp"
#include "slurm/scontrol.hpp"
#include "system/environment.hpp"
#include "system/framework_check.hpp"
#include "system/host.hpp"
#include "system/library_search.hpp"
#include "system/machine_probe.hpp"
#include "system/system_root.hpp"
#include "util/control_chars.hpp"

namespace envcheck::host
{
    namespace
    {
        namespace fs = std::filesystem;

        auto milliseconds(double seconds) -> std::chrono::milliseconds
        {
            return std::chrono::milliseconds(static_cast<long long>(seconds * 1000.0));
        }

        auto http_options(const TransferOptions& transfer, std::string_view version)
          -> net::HttpOptions
        {
            net::HttpOptions options;
            options.connect_timeout = milliseconds(transfer.connect_timeout_seconds);
            options.total_timeout = milliseconds(transfer.download_timeout_seconds);
            options.max_bytes =
              static_cast<std::size_t>(transfer.max_download_mib * 1024.0 * 1024.0);
            options.ca_bundle = transfer.ca_bundle;
            options.user_agent = "envcheck/" + std::string(version);
            return options;
        }

        // "[2/5] GPU 0 matmul-shared ... pass" on a terminal's stderr, nothing otherwise.
        auto terminal_progress() -> gpu::Progress
        {
            if (isatty(STDERR_FILENO) == 0)
            {
                return {};
            }
            return [](const gpu::ProgressEvent& event)
            {
                switch (event.kind)
                {
                    case gpu::ProgressEvent::Kind::device:
                        // The name is the driver's: escaped as every message on the terminal.
                        std::cerr << "GPU " << event.device.index << ": "
                                  << util::escape_control_characters(event.device.name) << '\n';
                        break;
                    case gpu::ProgressEvent::Kind::probe_started:
                        std::cerr << "  [" << event.number << '/' << event.count << "] "
                                  << event.probe << " ... " << std::flush;
                        break;
                    case gpu::ProgressEvent::Kind::probe_finished:
                        std::cerr << model::to_string(event.status) << '\n';
                        break;
                }
            };
        }

        // A channel's repodata through the on-disk cache, one HTTP client for the run.
        class CachedRepodata final : public app::RepodataSource
        {
        public:
            CachedRepodata(std::string directory, bool offline)
              : m_cache(std::move(directory), offline)
            {
            }

            auto fetch(const std::string& url) -> util::Result<std::optional<std::string>> override
            {
                auto body = m_cache.fetch(m_client, url);
                if (!body)
                {
                    if (net::is_not_found(body.error()))
                    {
                        return std::optional<std::string>{};
                    }
                    return util::unexpected(body.error());
                }
                return std::optional(std::move(body->body));
            }

        private:
            net::HttpClient m_client;
            net::Cache m_cache;
        };
    }

    // Every port, each a thin call into its adapter. One object per run; the process
    // environment is read once, here.
    class RealPorts::Adapters final
      : public app::Files
      , public app::Prefixes
      , public app::Machine
      , public app::GpuSmoke
      , public app::Frameworks
      , public app::Repodata
      , public app::Slurm
      , public app::Clock
      , public app::Workers
    {
    public:
        Adapters(const TransferOptions& transfer, std::string_view version)
          : m_http(http_options(transfer, version))
        {
        }
        Adapters(const Adapters&) = delete; // `ports` refers to this object
        auto operator=(const Adapters&) -> Adapters& = delete;

        app::Environment environment = system::read_environment();
        app::Ports ports{
            *this, *this, *this, *this, *this, *this, *this, *this, *this, environment
        };

        // --- Files -------------------------------------------------------------------------
        auto read_input(const std::string& path) -> util::Result<std::string> override
        {
            return net::read_input(path, m_http);
        }
        auto is_url(const std::string& text) const -> bool override { return net::is_url(text); }
        auto read_file(const std::string& path) -> util::Result<std::string> override
        {
            return fsio::read_file(path);
        }
        auto is_regular_file(const std::string& path) const -> bool override
        {
            std::error_code error;
            return fs::is_regular_file(path, error);
        }
        auto is_directory(const std::string& path) const -> bool override
        {
            std::error_code error;
            return fs::is_directory(path, error);
        }
        auto exists(const std::string& path) const -> bool override
        {
            std::error_code error;
            return fs::exists(path, error);
        }
        auto write_atomic(const std::string& path, std::string_view content, WriteMode mode)
          -> util::Result<void> override
        {
            return fsio::write_file_atomic(path, content, 0644,
                                           mode == WriteMode::create_new
                                             ? fsio::WriteMode::create_new
                                             : fsio::WriteMode::replace);
        }
        auto same_file(const std::string& a, const std::string& b) const -> bool override
        {
            return fsio::same_file(a, b);
        }
        void append(const std::string& path, std::string_view content) override
        {
            std::ofstream(path, std::ios::app) << content;
        }
        auto current_directory() const -> std::string override
        {
            std::error_code error;
            auto directory = fs::current_path(error);
            return error ? std::string("/") : directory.generic_string();
        }
        auto relative_to_directory_of(const std::string& path, const std::string& file) const
          -> std::string override
        {
            std::error_code error;
            const fs::path directory = fs::absolute(file, error).parent_path();
            const fs::path relative = fs::absolute(path, error).lexically_relative(directory);
            return relative.empty() ? path : relative.generic_string();
        }

        // --- Prefixes ----------------------------------------------------------------------
        auto locate(const app::PrefixSelection& selection)
          -> util::Result<app::LocatedEnvironment> override
        {
            auto located = prefix::locate_prefix(
              { selection.prefix, selection.name, prefix::search_paths_from(environment) });
            if (!located)
            {
                return util::unexpected(located.error());
            }
            return app::LocatedEnvironment{ located->path, located->how };
        }
        auto read(const std::string& path, const app::PrefixReadOptions& options)
          -> util::Result<model::InstalledEnvironment> override
        {
            return prefix::read_prefix(path, { options.files, options.threads });
        }
        auto verify(const std::string& path, const std::vector<model::PackageFiles>& packages,
                    unsigned threads, bool untracked) -> app::VerifiedFiles override
        {
            auto verified =
              prefix::verify_files(path, packages, prefix::VerifyOptions{ threads, untracked });
            return { std::move(verified.findings), verified.summary };
        }

        // --- Machine -----------------------------------------------------------------------
        auto platform() const -> std::string override { return prefix::current_platform(); }
        auto os() -> model::OsFacts override { return system::read_os(system::SystemRoot("/")); }
        auto probe(const app::MachineProbeRequest& request) -> model::MachineFacts override
        {
            // The probe children inherit this process's environment: what the request's leaves
            // out must not reach them (slurm-health: the hook's CUDA_VISIBLE_DEVICES is the
            // job's, not the node's).
            for (const auto& [name, value] : environment)
            {
                if (request.environment && !request.environment->contains(name))
                {
                    ::unsetenv(name.c_str());
                }
            }
            auto facts =
              system::probe_machine({ request.root, request.environment.value_or(environment),
                                      request.driver_timeout, true, request.nvml_heard });
            facts.runtime = embedded_runtime();
            return facts;
        }
        auto hostname() -> std::string override
        {
            return system::read_hostname(system::SystemRoot("/"));
        }
        auto find_libraries(const app::LibraryLookupRequest& request)
          -> std::vector<model::LoadableLibrary> override
        {
            std::vector<system::SearchDir> dirs;
            for (const auto& dir : request.environment_dirs)
            {
                dirs.push_back({ dir.path, dir.source });
            }
            return system::find_loadable_libraries(system::SystemRoot(request.root), environment,
                                                   dirs, request.names);
        }

        // --- GpuSmoke ----------------------------------------------------------------------
        auto probes() const -> std::vector<app::SmokeProbeInfo> override
        {
            std::vector<app::SmokeProbeInfo> out;
            for (const auto& probe : gpu::probes())
            {
                out.push_back({ std::string(probe.id), std::string(probe.description),
                                std::string(probe.requirement) });
            }
            return out;
        }
        class StartedSmoke final : public app::PendingSmoke
        {
        public:
            StartedSmoke(const gpu::SmokeRequest& request, gpu::Progress progress)
              : m_smoke(request, std::move(progress))
            {
            }
            void go(const std::map<int, std::string>& spared) override { m_smoke.go(spared); }
            auto proceed(const std::map<int, std::string>& spared) -> model::SmokeReport override
            {
                return m_smoke.proceed(spared);
            }

        private:
            gpu::PendingSmoke m_smoke;
        };
        auto start(const app::SmokeRunRequest& request)
          -> std::unique_ptr<app::PendingSmoke> override
        {
            return std::make_unique<StartedSmoke>(
              gpu::SmokeRequest{ request.mode, request.device, request.probes,
                                 request.probe_timeout },
              request.progress ? terminal_progress() : gpu::Progress{});
        }

        // --- Frameworks --------------------------------------------------------------------
        auto known() const -> std::vector<std::string> override
        {
            return { system::frameworks.begin(), system::frameworks.end() };
        }
        auto find_python(const std::string& prefix) -> std::string override
        {
            return system::find_python(prefix);
        }
        auto path_python_version() -> std::optional<std::string> override
        {
            return system::path_python_version(environment, std::chrono::seconds(10));
        }
        auto check(const std::string& python, const std::string& framework,
                   std::chrono::milliseconds timeout) -> model::FrameworkFacts override
        {
            return system::run_framework_check(python, framework, environment, timeout);
        }

        // --- Repodata ----------------------------------------------------------------------
        auto open(const app::RepodataCacheOptions& options)
          -> util::Result<std::unique_ptr<app::RepodataSource>> override
        {
            auto directory =
              options.directory.empty()
                ? net::default_cache_directory(app::variable(environment, "XDG_CACHE_HOME"),
                                               app::variable(environment, "HOME"))
                : util::Result<std::string>(options.directory);
            if (!directory)
            {
                return util::unexpected(directory.error());
            }
            std::error_code error;
            fs::create_directories(*directory, error);
            if (error)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::io, "cannot create the cache directory: " + error.message(),
                  util::SourceLocation{ *directory, 0, 0 }));
            }
            return std::unique_ptr<app::RepodataSource>(
              std::make_unique<CachedRepodata>(std::move(*directory), options.offline));
        }

        // --- Slurm -------------------------------------------------------------------------
        auto show_node(const std::string& node, const app::ScontrolCall& call)
          -> util::Result<formats::SlurmNode> override
        {
            return slurm::show_node(node, { call.program, call.timeout });
        }
        auto drain_node(const std::string& node, const std::string& reason,
                        const app::ScontrolCall& call) -> util::Result<void> override
        {
            return slurm::drain_node(node, reason, { call.program, call.timeout });
        }
        auto resume_node(const std::string& node, const app::ScontrolCall& call)
          -> util::Result<void> override
        {
            return slurm::resume_node(node, { call.program, call.timeout });
        }

        // --- Clock -------------------------------------------------------------------------
        auto unix_seconds() -> std::int64_t override
        {
            using namespace std::chrono;
            return duration_cast<seconds>(system_clock::now().time_since_epoch()).count();
        }
        auto monotonic_seconds() -> double override
        {
            using namespace std::chrono;
            return duration<double>(steady_clock::now().time_since_epoch()).count();
        }

        // --- Workers -----------------------------------------------------------------------
        void for_each(std::size_t count, unsigned threads, const util::IndexWork& run) override
        {
            // The items are the caller's pure work: an exception is a bug, which main reports.
            if (const auto failures = prefix::parallel_for(count, threads, run); !failures.empty())
            {
                throw std::runtime_error(failures.front().what);
            }
        }

    private:
        net::HttpOptions m_http;
    };

    void start_workers()
    {
        prefix::start_helpers();
    }

    auto embedded_runtime() -> model::EmbeddedRuntime
    {
        auto build = gpu::build_info();
        return { build.cuda_enabled, build.runtime, std::move(build.sass_architectures),
                 std::move(build.ptx_architectures) };
    }

    RealPorts::RealPorts(const TransferOptions& transfer, std::string_view version)
      : m_adapters(std::make_unique<Adapters>(transfer, version))
    {
    }

    RealPorts::~RealPorts() = default;

    auto RealPorts::ports() -> app::Ports&
    {
        return m_adapters->ports;
    }
}
