// Options several commands declare alike: the transfer options of the commands that read
// environment files and locks (--ca-bundle, --connect-timeout, --download-timeout,
// --max-download; main owns one TransferOptions per run and the real ports read URLs with it),
// which environment (--prefix, -n), which root (--root) and the hardware gates' policy.
#ifndef ENVCHECK_CLI_OPTIONS_HPP
#define ENVCHECK_CLI_OPTIONS_HPP

#include <optional>
#include <string>
#include <vector>

#include "app/ports.hpp"
#include "checks/doctor.hpp"
#include "config/config.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
    struct TransferOptions
    {
        double connect_timeout_seconds = 10.0;
        double download_timeout_seconds = 300.0;
        double max_download_mib = 1024.0;
        std::string ca_bundle;
    };

    void add_input_options(CLI::App& app, TransferOptions& options);
    void add_prefix_options(CLI::App& app, app::PrefixSelection& selection);

    // --python X.Y[.Z]: the python a uv.lock or pylock.toml is read for without an installed
    // environment (app/marker_python.hpp).
    void add_python_option(CLI::App& app, std::string& python);
    void add_root_option(CLI::App& app, std::string& root);
    // --fatal-xids LIST and --expect-gpus N: the hardware gates' policy (doctor, check,
    // slurm-health), as the command line gives it.
    struct HardwareGateOptions
    {
        std::optional<std::vector<int>> fatal_xids;
        std::optional<int> expected_gpu_count;
    };
    void add_hardware_gate_options(CLI::App& app, HardwareGateOptions& options);
    // The policy the gates run with: the command line's values, else the configuration's
    // [check] fatal-xids and gpu-count, else the defaults.
    [[nodiscard]] auto hardware_gate_policy(const HardwareGateOptions& options,
                                            const config::CheckConfig& configured)
      -> checks::HardwareGatePolicy;
}

#endif
