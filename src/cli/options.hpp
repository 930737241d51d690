// Options several commands declare alike: the transfer options of the commands that read
// environment files and locks (--ca-bundle, --connect-timeout, --download-timeout,
// --max-download; main owns one TransferOptions per run and the real ports read URLs with it),
// which environment (--prefix, -n), which root (--root) and the hardware gates' policy.
#ifndef ENVCHECK_CLI_OPTIONS_HPP
#define ENVCHECK_CLI_OPTIONS_HPP

#include <optional>
#include <string>
#include <vector>

#include "app/hardware_gates.hpp"
#include "app/ports.hpp"
#include "host/ports.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
    using TransferOptions = host::TransferOptions;

    void add_input_options(CLI::App& app, TransferOptions& options);
    void add_prefix_options(CLI::App& app, app::PrefixSelection& selection);

    // Which part of a lock is read: --platform, --environment (pixi.lock), --category
    // (conda-lock) and --python X.Y[.Z] (uv.lock, pylock.toml without an installed environment:
    // app/marker_python.hpp).
    void add_lock_part_options(CLI::App& app, std::string& platform, std::string& environment,
                               std::vector<std::string>& categories, std::string& python);
    void add_root_option(CLI::App& app, std::string& root);
    // --fatal-xids LIST and --expect-gpus N (doctor, check, slurm-health).
    void add_hardware_gate_options(CLI::App& app, app::HardwareGateOptions& options);
}

#endif
