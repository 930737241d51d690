// How a use case reaches the world. A use case (src/app/<name>.hpp) takes a request of values
// and a Ports; everything it needs from outside the process (files, URLs, stdin, installed
// environments, the machine, the GPU, Slurm, the network, the clock, the process environment)
// comes through one of these interfaces. The adapters implement them for a real run
// (src/host/ports.cpp); tests/app implements them with fakes: an in-memory file map, canned
// machine facts and smoke reports, a fixed clock (ninja's DiskInterface and VirtualFileSystem).
//
// This header holds only interfaces and the value types they exchange; it includes pure modules
// alone, as the rest of src/app does (tests/layers/check_layers.py enforces it).
#ifndef ENVCHECK_APP_PORTS_HPP
#define ENVCHECK_APP_PORTS_HPP

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/slurm_node.hpp"
#include "model/environment.hpp"
#include "model/machine.hpp"
#include "model/smoke.hpp"
#include "util/for_each_index.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    // The process environment, read once per run (same shape as system::Environment).
    using Environment = std::map<std::string, std::string>;

    // Files, stdin and URLs.
    class Files
    {
    public:
        virtual ~Files() = default;
        // An environment file or lock: a local path, "-" (stdin), /dev/fd/N, or an http(s):// or
        // file:// URL, fetched with the transfer options the command was given.
        [[nodiscard]] virtual auto read_input(const std::string& path_or_url)
          -> util::Result<std::string> = 0;
        // Whether `text` names a URL read_input fetches rather than a local path.
        [[nodiscard]] virtual auto is_url(const std::string& text) const -> bool = 0;
        // A local file ("-" is stdin); never a URL.
        [[nodiscard]] virtual auto read_file(const std::string& path)
          -> util::Result<std::string> = 0;
        [[nodiscard]] virtual auto is_regular_file(const std::string& path) const -> bool = 0;
        [[nodiscard]] virtual auto is_directory(const std::string& path) const -> bool = 0;
        [[nodiscard]] virtual auto exists(const std::string& path) const -> bool = 0;
        // Writes `content` to `path` atomically: replacing what is there, or (create_new) only
        // when nothing is, the check and the creation one step (two writers: one wins). A
        // non-regular path (/dev/stdout, a pipe) is written through, never renamed over.
        enum class WriteMode
        {
            replace,
            create_new,
        };
        [[nodiscard]] virtual auto write_atomic(const std::string& path, std::string_view content,
                                                WriteMode mode) -> util::Result<void> = 0;
        // Whether two paths name the same file (export must not overwrite its input).
        [[nodiscard]] virtual auto same_file(const std::string& a, const std::string& b) const
          -> bool = 0;
        // Appends to `path`, creating it; best effort (a job summary, never data).
        virtual void append(const std::string& path, std::string_view content) = 0;
        // The working directory, absolute.
        [[nodiscard]] virtual auto current_directory() const -> std::string = 0;
        // `path` relative to the directory that holds `file` (both relative to the working
        // directory or absolute), '/'-separated; `path` itself when it has no relative form.
        [[nodiscard]] virtual auto relative_to_directory_of(const std::string& path,
                                                            const std::string& file) const
          -> std::string = 0;
    };

    // Installed environments: conda prefixes and venvs.
    struct PrefixSelection
    {
        std::string prefix; // --prefix
        std::string name;   // -n NAME
    };

    struct LocatedEnvironment
    {
        std::string path;
        std::string how; // "--prefix", "$CONDA_PREFIX", "-n ml (~/.conda/environments.txt)"
    };

    struct PrefixReadOptions
    {
        bool files = false;   // also every record's files (check --deep)
        unsigned threads = 0; // 0: one per CPU the process may use
    };

    struct VerifiedFiles
    {
        std::vector<model::FileFinding> findings; // sorted by package, then path
        model::DeepSummary summary;
    };

    class Prefixes
    {
    public:
        virtual ~Prefixes() = default;
        // --prefix, else -n NAME as conda looks it up, else $VIRTUAL_ENV, then $CONDA_PREFIX
        // (the process environment of the run). Fails with ErrorKind::usage saying where it
        // looked.
        [[nodiscard]] virtual auto locate(const PrefixSelection& selection)
          -> util::Result<LocatedEnvironment> = 0;
        // Fails only when `prefix` is not an environment at all; unreadable records are
        // InstalledEnvironment::problems.
        [[nodiscard]] virtual auto read(const std::string& prefix, const PrefixReadOptions& options)
          -> util::Result<model::InstalledEnvironment> = 0;
        // Every installed file against what its package installed (check --deep).
        // conda records' paths_data and pip distributions' RECORD; with `untracked`, also the
        // files in pip distributions' directories that nothing lists.
        [[nodiscard]] virtual auto verify(const std::string& prefix,
                                          const std::vector<model::PackageFiles>& packages,
                                          unsigned threads, bool untracked) -> VerifiedFiles = 0;
    };

    // Called with NVML's facts as soon as NVML has answered, while the CUDA driver is still being
    // asked: a pending smoke run's early go-ahead (machine_state.hpp, early_go_ahead).
    using NvmlHeard = std::function<void(const model::NvmlFacts&)>;

    // The machine: OS, driver, GPUs.
    struct MachineProbeRequest
    {
        std::string root = "/";                            // another root is read from files only
        std::chrono::milliseconds driver_timeout{ 20000 }; // NVML and cuInit, each
        // The variables the probe reads instead of the process's (slurm-health: the node's).
        std::optional<Environment> environment;
        NvmlHeard nvml_heard; // live root only
    };

    // A directory of an environment that its frameworks' RUNPATH names, and what put it there.
    struct LibraryDirectory
    {
        std::string path;
        std::string source; // "pip nvidia-cudnn-cu12 9.1.0.70", "conda prefix"
    };

    struct LibraryLookupRequest
    {
        std::string root = "/"; // the system's directories are read under it
        std::vector<LibraryDirectory> environment_dirs; // in the order the loader reads them
        std::vector<std::string> names;                 // "libcudnn", "libcublas", ...
    };

    class Machine
    {
    public:
        virtual ~Machine() = default;
        // The conda platform (subdir) envcheck runs on: "linux-64", "linux-aarch64", ...
        [[nodiscard]] virtual auto platform() const -> std::string = 0;
        // The OS facts alone (glibc, kernel), from files: cheap.
        [[nodiscard]] virtual auto os() -> model::OsFacts = 0;
        // Every fact: files under the root, NVML and the CUDA driver (live root only) in watched
        // child processes, and the CUDA runtime this envcheck embeds. The root must be a
        // directory.
        [[nodiscard]] virtual auto probe(const MachineProbeRequest& request)
          -> model::MachineFacts = 0;
        [[nodiscard]] virtual auto hostname() -> std::string = 0;
        // Where the dynamic loader would find each library for a framework of the environment
        // (LD_LIBRARY_PATH of the run, the environment's directories, the system's): every
        // candidate in the loader's order, from names and links alone, nothing loaded.
        [[nodiscard]] virtual auto find_libraries(const LibraryLookupRequest& request)
          -> std::vector<model::LoadableLibrary> = 0;
    };

    // The GPU probe kernels (envcheck smoke), run in a watched child process.
    struct SmokeProbeInfo
    {
        std::string id;
        std::string description;
        std::string requirement; // empty: any device
    };

    struct SmokeRunRequest
    {
        model::SmokeMode mode = model::SmokeMode::quick;
        std::optional<int> device = 0;   // nullopt: every device
        std::vector<std::string> probes; // ids in registry order; empty: all of them
        std::chrono::milliseconds probe_timeout{ 30000 };
        bool progress = false; // show each probe as it runs (a terminal's stderr, when it is one)
    };

    // A smoke run whose child is already loading the driver (cuInit, the device count): the
    // caller probes the machine meanwhile, then says which GPUs to leave alone.
    class PendingSmoke
    {
    public:
        virtual ~PendingSmoke() = default;
        // The go-ahead, now: CUDA ordinal -> why (described, every probe skipped with it; no
        // context made there). The first one stands: a later go() or proceed() sends none.
        virtual void go(const std::map<int, std::string>& spared) = 0;
        // go(spared), then the report, once the probes are done.
        [[nodiscard]] virtual auto proceed(const std::map<int, std::string>& spared)
          -> model::SmokeReport = 0;
    };

    class GpuSmoke
    {
    public:
        virtual ~GpuSmoke() = default;
        // The probe registry in run order; empty when envcheck was built without CUDA.
        [[nodiscard]] virtual auto probes() const -> std::vector<SmokeProbeInfo> = 0;
        // Starts the child now; it opens no device before proceed().
        [[nodiscard]] virtual auto start(const SmokeRunRequest& request)
          -> std::unique_ptr<PendingSmoke> = 0;
        // start() and proceed() sparing none.
        [[nodiscard]] auto run(const SmokeRunRequest& request) -> model::SmokeReport
        {
            return start(request)->proceed({});
        }
    };

    // An environment's own python, asked whether its frameworks see the GPU.
    class Frameworks
    {
    public:
        virtual ~Frameworks() = default;
        // The frameworks the check knows how to ask ("torch", "jax", "tensorflow").
        [[nodiscard]] virtual auto known() const -> std::vector<std::string> = 0;
        // <prefix>/bin/python (or python3); empty when there is none.
        [[nodiscard]] virtual auto find_python(const std::string& prefix) -> std::string = 0;
        // The version ("3.12.3") of the python3 on PATH: what a universal lock's markers are
        // read for when no environment is installed. nullopt when there is none or it fails.
        [[nodiscard]] virtual auto path_python_version() -> std::optional<std::string> = 0;
        // Always facts: a python that cannot start, crashes or times out is recorded in them.
        [[nodiscard]] virtual auto check(const std::string& python, const std::string& framework,
                                         std::chrono::milliseconds timeout)
          -> model::FrameworkFacts = 0;
    };

    // Channels' repodata.json, through the on-disk cache (lint --check-channels).
    struct RepodataCacheOptions
    {
        std::string directory; // empty: $XDG_CACHE_HOME/envcheck, else ~/.cache/envcheck
        bool offline = false;  // answer from the cache alone
    };

    class RepodataSource
    {
    public:
        virtual ~RepodataSource() = default;
        // The body; nullopt when the channel does not publish it (HTTP 404, no such file).
        [[nodiscard]] virtual auto fetch(const std::string& url)
          -> util::Result<std::optional<std::string>> = 0;
    };

    class Repodata
    {
    public:
        virtual ~Repodata() = default;
        // Opens (and creates) the cache. Fails when no cache directory can be used.
        [[nodiscard]] virtual auto open(const RepodataCacheOptions& options)
          -> util::Result<std::unique_ptr<RepodataSource>> = 0;
    };

    // Slurm's scontrol.
    struct ScontrolCall
    {
        std::string program = "scontrol";
        std::chrono::milliseconds timeout{ 10000 };
    };

    class Slurm
    {
    public:
        virtual ~Slurm() = default;
        [[nodiscard]] virtual auto show_node(const std::string& node, const ScontrolCall& call)
          -> util::Result<formats::SlurmNode> = 0;
        [[nodiscard]] virtual auto drain_node(const std::string& node, const std::string& reason,
                                              const ScontrolCall& call) -> util::Result<void> = 0;
        [[nodiscard]] virtual auto resume_node(const std::string& node, const ScontrolCall& call)
          -> util::Result<void> = 0;
    };

    class Clock
    {
    public:
        virtual ~Clock() = default;
        // Wall-clock time, whole seconds since the Unix epoch.
        [[nodiscard]] virtual auto unix_seconds() -> std::int64_t = 0;
        // A monotonic clock, for durations.
        [[nodiscard]] virtual auto monotonic_seconds() -> double = 0;
    };

    // Threads for work whose items are independent (the use cases and pure modules start none):
    // run(i) for every i in [0, count) on up to `threads` threads (0: one per CPU the process
    // may use), returning when all have run.
    class Workers
    {
    public:
        virtual ~Workers() = default;
        virtual void for_each(std::size_t count, unsigned threads, const util::IndexWork& run) = 0;
    };

    struct Ports
    {
        Files& files;
        Prefixes& prefixes;
        Machine& machine;
        GpuSmoke& smoke;
        Frameworks& frameworks;
        Repodata& repodata;
        Slurm& slurm;
        Clock& clock;
        Workers& workers;
        const Environment& environment;
    };

    // A variable of the process environment; empty when it is not set.
    [[nodiscard]] auto variable(const Environment& environment, const std::string& name)
      -> std::string;
}

#endif
