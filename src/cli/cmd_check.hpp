// What `lock`, `check` and `export` share: choosing the environment (--prefix, -n,
// $CONDA_PREFIX), loading an environment file, the machine part of a lock, and the GPU
// performance baselines. Defined in cmd_check.cpp.
#ifndef ENVCHECK_CLI_CMD_CHECK_HPP
#define ENVCHECK_CLI_CMD_CHECK_HPP

#include <optional>
#include <string>
#include <vector>

#include "formats/environment_yaml.hpp"
#include "model/lock.hpp"
#include "model/machine.hpp"
#include "prefix/locate.hpp"
#include "system/environment.hpp"
#include "util/result.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
    // The project files `check` (and `lock`) use when none are named.
    inline constexpr const char* default_environment_file = "environment.yml";

    struct PrefixSelection
    {
        std::string prefix;
        std::string name;
    };

    void add_prefix_options(CLI::App& app, PrefixSelection& selection);

    [[nodiscard]] auto locate_environment(const PrefixSelection& selection,
                                          const system::Environment& variables)
      -> util::Result<prefix::LocatedPrefix>;

    struct LoadedEnvironmentFile
    {
        std::string path;
        std::string sha256; // of the bytes
        formats::EnvironmentFile file;
    };

    // Parses environment-file text; one that loads with error diagnostics fails
    // (ErrorKind::parse) with the first of them.
    [[nodiscard]] auto parse_environment_text(const std::string& text, const std::string& path)
      -> util::Result<formats::EnvironmentFile>;

    // Reads and parses an environment file; one that loads with error diagnostics fails
    // (ErrorKind::parse) with the first of them.
    [[nodiscard]] auto load_environment_file(const std::string& path)
      -> util::Result<LoadedEnvironmentFile>;

    struct MachineState
    {
        model::LockedMachine machine;
        std::optional<model::MachineFacts> facts;
    };

    // The machine as a lock records it. `probe_gpu` false (--no-gpu) reads files only: the
    // driver and the GPUs stay unknown.
    [[nodiscard]] auto current_machine(bool probe_gpu, const std::optional<std::string>& python,
                                       const system::Environment& variables) -> MachineState;

    // One baseline per GPU from a quick smoke run; nullopt (with the reason in `why_not`) when
    // no GPU could be probed.
    [[nodiscard]] auto record_performance(std::string& why_not)
      -> std::optional<std::vector<model::PerfBaseline>>;

    // `envcheck check` with no arguments: ./environment.yml, the lock beside it, $CONDA_PREFIX.
    [[nodiscard]] auto run_default_check() -> int;

    // The current time, RFC 3339 UTC.
    [[nodiscard]] auto now_rfc3339() -> std::string;
}

#endif
