// The world of a use case, in memory (ninja's VirtualFileSystem): files and URLs in a map,
// installed environments from the prefix fixtures (tests/data/prefixes, read by the real reader)
// or given as values, the healthy H200 of tests/checks/doctor_fixture.hpp as the machine, a
// canned smoke report, canned Slurm node states, and a clock that reads the same every time.
// Each fake records what it was asked, so that tests can say what a use case did not do (probe
// the GPU, run scontrol, write a file).
#ifndef ENVCHECK_TESTS_APP_FAKES_HPP
#define ENVCHECK_TESTS_APP_FAKES_HPP

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/ports.hpp"
#include "prefix/reader.hpp"
#include "prefix/verify.hpp"
#include "tests/checks/doctor_fixture.hpp"

namespace envcheck::tests
{
    inline auto test_data(const std::string& relative) -> std::string
    {
        return std::string(ENVCHECK_TEST_DATA_DIR) + "/" + relative;
    }

    inline auto read_test_file(const std::string& relative) -> std::string
    {
        std::ifstream in(test_data(relative), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }

    // Files, stdin and URLs as a map; the working directory is /work/project.
    class MemoryFiles final : public app::Files
    {
    public:
        std::map<std::string, std::string> files; // path or URL -> content
        std::set<std::string> directories{ "/" };
        std::set<std::string> unwritable;            // write_atomic fails for these
        std::map<std::string, std::string> appended; // path -> what append() added
        std::vector<std::string> written;            // paths write_atomic replaced
        std::string working_directory = "/work/project";

        auto read_input(const std::string& path_or_url) -> util::Result<std::string> override
        {
            const auto found = files.find(path_or_url);
            if (found == files.end())
            {
                return util::unexpected(util::make_error(
                  is_url(path_or_url) ? util::ErrorKind::network : util::ErrorKind::io,
                  "No such file or directory", util::SourceLocation{ path_or_url, 0, 0 }));
            }
            return found->second;
        }

        auto is_url(const std::string& text) const -> bool override
        {
            return text.starts_with("http://") || text.starts_with("https://") ||
                   text.starts_with("file://");
        }

        auto read_file(const std::string& path) -> util::Result<std::string> override
        {
            if (is_url(path))
            {
                return util::unexpected(util::make_error(util::ErrorKind::io,
                                                         "No such file or directory",
                                                         util::SourceLocation{ path, 0, 0 }));
            }
            return read_input(path);
        }

        auto is_regular_file(const std::string& path) const -> bool override
        {
            return !is_url(path) && files.contains(path);
        }

        auto same_file(const std::string& a, const std::string& b) const -> bool override
        {
            return a == b;
        }

        auto is_directory(const std::string& path) const -> bool override
        {
            return directories.contains(path);
        }

        auto exists(const std::string& path) const -> bool override
        {
            return is_regular_file(path) || is_directory(path);
        }

        auto write_atomic(const std::string& path, std::string_view content, WriteMode mode)
          -> util::Result<void> override
        {
            if (unwritable.contains(path))
            {
                return util::unexpected(util::make_error(util::ErrorKind::io, "Permission denied",
                                                         util::SourceLocation{ path, 0, 0 }));
            }
            if (mode == WriteMode::create_new && files.contains(path))
            {
                return util::unexpected(util::make_error(util::ErrorKind::io, "File exists",
                                                         util::SourceLocation{ path, 0, 0 }));
            }
            files[path] = std::string(content);
            written.push_back(path);
            return {};
        }

        void append(const std::string& path, std::string_view content) override
        {
            appended[path] += content;
        }

        auto current_directory() const -> std::string override { return working_directory; }

        auto relative_to_directory_of(const std::string& path, const std::string& file) const
          -> std::string override
        {
            const std::filesystem::path cwd(working_directory);
            const auto absolute = [&](const std::string& text)
            { return text.starts_with('/') ? std::filesystem::path(text) : cwd / text; };
            const auto relative = absolute(path).lexically_relative(absolute(file).parent_path());
            return relative.empty() ? path : relative.generic_string();
        }
    };

    // Installed environments: a prefix fixture directory read by the real reader (and verified
    // by the real verifier), or a value. Located by --prefix, -n NAME (under /envs) or the
    // environment's $VIRTUAL_ENV / $CONDA_PREFIX.
    class FixturePrefixes final : public app::Prefixes
    {
    public:
        explicit FixturePrefixes(const app::Environment& environment)
          : m_environment(environment)
        {
        }

        std::map<std::string, std::string> directories;                  // path -> fixture dir
        std::map<std::string, model::InstalledEnvironment> environments; // path -> value
        std::vector<app::PrefixReadOptions> reads;

        // The conda-basic fixture: hello, python, six and three pip distributions, with an
        // unreadable record and an unreadable dist-info.
        static auto conda_basic() -> std::string { return test_data("prefixes/conda-basic"); }

        // The conda-basic fixture without its two unreadable entries: an environment that
        // can be locked.
        static auto readable_conda_basic() -> model::InstalledEnvironment
        {
            auto environment = prefix::read_prefix(conda_basic());
            environment->problems.clear();
            return *environment;
        }

        auto locate(const app::PrefixSelection& selection)
          -> util::Result<app::LocatedEnvironment> override
        {
            if (!selection.prefix.empty())
            {
                return app::LocatedEnvironment{ selection.prefix, "--prefix" };
            }
            if (!selection.name.empty())
            {
                const std::string path = "/envs/" + selection.name;
                if (!known(path))
                {
                    return util::unexpected(util::make_error(
                      util::ErrorKind::usage, "no environment named '" + selection.name + "'"));
                }
                return app::LocatedEnvironment{ path, "-n " + selection.name };
            }
            for (const char* name : { "VIRTUAL_ENV", "CONDA_PREFIX" })
            {
                if (const auto value = app::variable(m_environment, name); !value.empty())
                {
                    return app::LocatedEnvironment{ value, "$" + std::string(name) };
                }
            }
            return util::unexpected(util::make_error(util::ErrorKind::usage,
                                                     "no environment to read", {},
                                                     "pass --prefix PATH or -n NAME"));
        }

        auto read(const std::string& path, const app::PrefixReadOptions& options)
          -> util::Result<model::InstalledEnvironment> override
        {
            reads.push_back(options);
            if (const auto value = environments.find(path); value != environments.end())
            {
                auto environment = value->second;
                environment.prefix = path;
                return environment;
            }
            const auto directory = directories.find(path);
            if (directory == directories.end())
            {
                return util::unexpected(util::make_error(util::ErrorKind::io,
                                                         "No such file or directory",
                                                         util::SourceLocation{ path, 0, 0 }));
            }
            auto environment = prefix::read_prefix(
              directory->second, prefix::ReadOptions{ options.files, options.threads });
            if (environment)
            {
                environment->prefix = path;
            }
            return environment;
        }

        auto verify(const std::string& path, const std::vector<model::PackageFiles>& packages,
                    unsigned threads, bool untracked) -> app::VerifiedFiles override
        {
            const auto directory = directories.find(path);
            if (directory == directories.end())
            {
                return {};
            }
            auto verified = prefix::verify_files(directory->second, packages,
                                                 prefix::VerifyOptions{ threads, untracked });
            return app::VerifiedFiles{ std::move(verified.findings), verified.summary };
        }

    private:
        auto known(const std::string& path) const -> bool
        {
            return directories.contains(path) || environments.contains(path);
        }

        const app::Environment& m_environment;
    };

    // A healthy live machine with one H200 (driver 580.65.06, CUDA 13.0) on linux-64, glibc 2.36.
    class FakeMachine final : public app::Machine
    {
    public:
        model::MachineFacts facts = healthy_machine_with_os();
        std::string name = "gpu07.cluster";
        std::vector<app::MachineProbeRequest> probes; // every probe() asked
        int os_reads = 0;

        static auto healthy_machine_with_os() -> model::MachineFacts
        {
            auto facts = healthy_machine();
            facts.os.glibc_version = "2.36";
            return facts;
        }

        auto platform() const -> std::string override { return "linux-64"; }

        auto os() -> model::OsFacts override
        {
            ++os_reads;
            return facts.os;
        }

        bool probing = false; // inside probe(), where NVML's facts are handed out early

        auto probe(const app::MachineProbeRequest& request) -> model::MachineFacts override
        {
            probes.push_back(request);
            auto probed = facts;
            probed.root = request.root;
            probed.live = request.root == "/" && facts.live;
            if (probed.live && request.nvml_heard)
            {
                probing = true;
                request.nvml_heard(probed.nvml);
                probing = false;
            }
            return probed;
        }

        auto hostname() -> std::string override { return name; }

        std::vector<model::LoadableLibrary> libraries; // what find_libraries answers
        std::vector<app::LibraryLookupRequest> lookups;
        auto find_libraries(const app::LibraryLookupRequest& request)
          -> std::vector<model::LoadableLibrary> override
        {
            lookups.push_back(request);
            return libraries;
        }
    };

    // The healthy machine with its GPU gone: no NVIDIA device on the PCI bus, and neither NVML
    // nor libcuda to load.
    inline auto machine_without_gpu() -> model::MachineFacts
    {
        auto machine = FakeMachine::healthy_machine_with_os();
        machine.pci.devices.clear();
        machine.nvml = {};
        machine.nvml.attempted = true;
        machine.nvml.load_error = "libnvidia-ml.so.1: cannot open shared object file";
        machine.cuda = {};
        machine.cuda.attempted = true;
        machine.cuda.load_error = "libcuda.so.1: cannot open shared object file";
        return machine;
    }

    // One H200 whose quick smoke run measures `bandwidth.h2d_pinned_gbps` at `gbps`.
    inline auto smoke_report(double gbps = 55.0) -> model::SmokeReport
    {
        model::SmokeReport report;
        model::DeviceSmoke device;
        device.device.index = 0;
        device.device.name = "NVIDIA H200";
        device.device.uuid = "GPU-8a7c2b1e-0000-1111-2222-333344445555";
        device.device.pci_bus_id = "0000:17:00.0";
        model::ProbeResult bandwidth;
        bandwidth.id = "bandwidth";
        bandwidth.status = model::Status::pass;
        bandwidth.message = "pinned host-device copies";
        bandwidth.metrics = { { "h2d_pinned_gbps", gbps, "GB/s", 0.01, 5,
                                model::MetricDirection::higher_is_better } };
        device.probes = { bandwidth };
        report.devices = { device };
        return report;
    }

    inline auto no_gpu_report() -> model::SmokeReport
    {
        model::SmokeReport report;
        report.availability = model::GpuAvailability::no_driver;
        report.diagnosis = "no NVIDIA driver (libcuda.so.1 not found)";
        return report;
    }

    class CannedSmoke final : public app::GpuSmoke
    {
    public:
        std::vector<app::SmokeProbeInfo> registry{
            { "hello", "Launch a kernel and read its answer back", "" },
            { "matmul-shared", "Shared-memory tiled matmul", "" },
            { "bandwidth", "Pinned and pageable host-device copies", "" },
        };
        model::SmokeReport report = smoke_report();
        // What the runs after the first measure, in turn (a drop measured again); `report` once
        // they are used up.
        std::vector<model::SmokeReport> later_reports;
        std::vector<app::SmokeRunRequest> runs;
        std::vector<std::map<int, std::string>> spared; // what each run's go-ahead spared
        // Whether each run's go-ahead came while a machine probe was under way (NVML had
        // answered, the CUDA driver not yet): FakeWorld wires machine_probing.
        std::vector<bool> early_go;
        const bool* machine_probing = nullptr;
        // How many machine probes had been made when each run started (FakeWorld wires it):
        // the child is started before the machine is probed, so that it loads the driver
        // meanwhile.
        const std::vector<app::MachineProbeRequest>* machine_probes = nullptr;
        std::vector<std::size_t> probes_before_start;

        auto probes() const -> std::vector<app::SmokeProbeInfo> override { return registry; }

        // Like the probe child: a spared device is described, each requested probe skipped
        // with the reason.
        class Pending final : public app::PendingSmoke
        {
        public:
            Pending(CannedSmoke& owner, app::SmokeRunRequest request)
              : m_owner(owner)
              , m_request(std::move(request))
            {
            }
            void go(const std::map<int, std::string>& spared) override
            {
                if (!m_went)
                {
                    m_went = spared;
                    m_owner.spared.push_back(spared);
                    m_owner.early_go.push_back(m_owner.machine_probing != nullptr &&
                                               *m_owner.machine_probing);
                }
            }
            auto proceed(const std::map<int, std::string>& given) -> model::SmokeReport override
            {
                go(given);
                const auto& spared = *m_went;
                auto report = m_owner.report;
                if (m_owner.runs.size() > 1 && !m_owner.later_reports.empty())
                {
                    report = m_owner.later_reports.front();
                    m_owner.later_reports.erase(m_owner.later_reports.begin());
                }
                for (auto& device : report.devices)
                {
                    const auto reason = spared.find(device.device.index);
                    if (reason == spared.end())
                    {
                        continue;
                    }
                    std::vector<std::string> ids = m_request.probes;
                    if (ids.empty())
                    {
                        for (const auto& probe : m_owner.registry)
                        {
                            ids.push_back(probe.id);
                        }
                    }
                    device.probes.clear();
                    for (const auto& id : ids)
                    {
                        model::ProbeResult skipped;
                        skipped.id = id;
                        skipped.status = model::Status::skip;
                        skipped.message = reason->second;
                        device.probes.push_back(std::move(skipped));
                    }
                }
                return report;
            }

        private:
            CannedSmoke& m_owner;
            app::SmokeRunRequest m_request;
            std::optional<std::map<int, std::string>> m_went; // the go-ahead, once sent
        };

        auto start(const app::SmokeRunRequest& request)
          -> std::unique_ptr<app::PendingSmoke> override
        {
            runs.push_back(request);
            probes_before_start.push_back(machine_probes != nullptr ? machine_probes->size() : 0);
            return std::make_unique<Pending>(*this, request);
        }
    };

    class FakeFrameworks final : public app::Frameworks
    {
    public:
        std::set<std::string> pythons; // prefixes that have a bin/python
        std::vector<std::string> checked;

        auto known() const -> std::vector<std::string> override
        {
            return { "torch", "jax", "tensorflow" };
        }

        auto find_python(const std::string& prefix) -> std::string override
        {
            return pythons.contains(prefix) ? prefix + "/bin/python" : std::string{};
        }

        std::optional<std::string> path_python = "3.12.3"; // the python3 on PATH
        int path_python_asked = 0;

        auto path_python_version() -> std::optional<std::string> override
        {
            ++path_python_asked;
            return path_python;
        }

        auto check(const std::string& python, const std::string& framework,
                   std::chrono::milliseconds /*timeout*/) -> model::FrameworkFacts override
        {
            checked.push_back(python + " " + framework);
            model::FrameworkFacts facts;
            facts.framework = framework;
            facts.python = python;
            facts.installed = true;
            facts.version = "2.5.1";
            facts.gpu_build = true;
            facts.cuda_available = true;
            facts.device_count = 1;
            facts.operation_ok = true;
            facts.operation = "matmul 64x64";
            return facts;
        }
    };

    // repodata.json bodies by URL; a URL that is not there is not published (404).
    class MemoryRepodata final : public app::Repodata
    {
    public:
        std::map<std::string, std::string> bodies;
        std::set<std::string> failing; // URLs whose fetch fails (network)
        std::vector<app::RepodataCacheOptions> opened;
        std::vector<std::string> fetched;

        auto open(const app::RepodataCacheOptions& options)
          -> util::Result<std::unique_ptr<app::RepodataSource>> override
        {
            opened.push_back(options);
            return std::unique_ptr<app::RepodataSource>(std::make_unique<Source>(*this));
        }

    private:
        class Source final : public app::RepodataSource
        {
        public:
            explicit Source(MemoryRepodata& owner)
              : m_owner(owner)
            {
            }

            auto fetch(const std::string& url) -> util::Result<std::optional<std::string>> override
            {
                m_owner.fetched.push_back(url);
                if (m_owner.failing.contains(url))
                {
                    return util::unexpected(util::make_error(util::ErrorKind::network,
                                                             "connection refused",
                                                             util::SourceLocation{ url, 0, 0 }));
                }
                const auto found = m_owner.bodies.find(url);
                if (found == m_owner.bodies.end())
                {
                    return std::optional<std::string>{};
                }
                return std::optional(found->second);
            }

        private:
            MemoryRepodata& m_owner;
        };
    };

    // scontrol: a node's state, and every call made (show/drain/resume node [reason]).
    class FakeSlurm final : public app::Slurm
    {
    public:
        formats::SlurmNode node;
        std::optional<util::Error> failure; // every call fails with it
        std::vector<std::string> calls;

        auto show_node(const std::string& name, const app::ScontrolCall& /*call*/)
          -> util::Result<formats::SlurmNode> override
        {
            calls.push_back("show " + name);
            if (failure)
            {
                return util::unexpected(*failure);
            }
            return node;
        }

        auto drain_node(const std::string& name, const std::string& reason,
                        const app::ScontrolCall& /*call*/) -> util::Result<void> override
        {
            calls.push_back("drain " + name + " " + reason);
            if (failure)
            {
                return util::unexpected(*failure);
            }
            return {};
        }

        auto resume_node(const std::string& name, const app::ScontrolCall& /*call*/)
          -> util::Result<void> override
        {
            calls.push_back("resume " + name);
            if (failure)
            {
                return util::unexpected(*failure);
            }
            return {};
        }
    };

    // 2026-12-01T03:08:46Z, and a monotonic clock that advances half a second per reading.
    class FixedClock final : public app::Clock
    {
    public:
        std::int64_t now = 1796094526;
        double monotonic = 100.0;

        auto unix_seconds() -> std::int64_t override { return now; }

        auto monotonic_seconds() -> double override
        {
            const double reading = monotonic;
            monotonic += 0.5;
            return reading;
        }
    };

    // Runs the items one after another, in order.
    class SerialWorkers final : public app::Workers
    {
    public:
        void for_each(std::size_t count, unsigned /*threads*/, const util::IndexWork& run) override
        {
            util::for_each_index_serially(count, run);
        }
    };

    struct FakeWorld
    {
        FakeWorld()
        {
            smoke.machine_probes = &machine.probes;
            smoke.machine_probing = &machine.probing;
        }
        FakeWorld(const FakeWorld&) = delete;
        auto operator=(const FakeWorld&) -> FakeWorld& = delete;

        app::Environment environment;
        MemoryFiles files;
        FixturePrefixes prefixes{ environment };
        FakeMachine machine;
        CannedSmoke smoke;
        FakeFrameworks frameworks;
        MemoryRepodata repodata;
        FakeSlurm slurm;
        FixedClock clock;
        SerialWorkers workers;
        app::Ports ports{ files,    prefixes, machine, smoke,   frameworks,
                          repodata, slurm,    clock,   workers, environment };
    };

    inline constexpr const char* demo_environment_yml =
      "name: demo\nchannels: [conda-forge]\ndependencies:\n  - hello=1.0\n  - python=3.11\n";

    // A project directory: ./environment.yml, and the environment it describes activated at
    // /envs/train (the conda-basic fixture without its unreadable entries).
    inline void make_project(FakeWorld& world,
                             const std::string& environment_yml = demo_environment_yml)
    {
        world.files.files["environment.yml"] = environment_yml;
        world.environment["CONDA_PREFIX"] = "/envs/train";
        world.prefixes.environments["/envs/train"] = FixturePrefixes::readable_conda_basic();
    }

    // The package named `name` of an environment, to change it.
    inline auto package(model::InstalledEnvironment& environment, const std::string& name)
      -> model::Package&
    {
        for (auto& candidate : environment.packages)
        {
            if (candidate.name == name)
            {
                return candidate;
            }
        }
        throw std::logic_error("no package " + name);
    }

    // Another artifact of a package: another build, rebuilt (another sha256).
    inline void rebuild(model::InstalledEnvironment& environment, const std::string& name,
                        const std::string& build)
    {
        auto& rebuilt = package(environment, name);
        rebuilt.build = build;
        rebuilt.sha256 = std::string(64, '0');
    }
}

#endif
