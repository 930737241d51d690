#include "app/marker_python.hpp"
#include "checks/doctor_hardware.hpp"
#include "cli/commands.hpp"

namespace envcheck::cli
{
    void add_input_options(CLI::App& app, TransferOptions& options)
    {
        app
          .add_option("--ca-bundle", options.ca_bundle,
                      "For https:// inputs: trust these PEM CAs instead of the system's (TLS is "
                      "always verified)")
          ->check(CLI::ExistingFile);
        app
          .add_option("--connect-timeout", options.connect_timeout_seconds,
                      "For URL inputs: seconds to connect (default 10)")
          ->check(CLI::PositiveNumber);
        app
          .add_option("--download-timeout", options.download_timeout_seconds,
                      "For URL inputs: seconds for the whole transfer (default 300)")
          ->check(CLI::PositiveNumber);
        app
          .add_option("--max-download", options.max_download_mib,
                      "For URL inputs: the largest body in MiB (default 1024)")
          ->check(CLI::PositiveNumber);
    }

    void add_lock_part_options(CLI::App& app, std::string& platform, std::string& environment,
                               std::vector<std::string>& categories, std::string& python)
    {
        app.add_option("--platform", platform,
                       "The platform of a multi-platform lock (default: this machine's, e.g. "
                       "linux-64)");
        app.add_option("--environment", environment,
                       "The pixi.lock environment (default: default)");
        app.add_option("--category", categories,
                       "conda-lock: read only this category (main, dev, an extra); repeat for "
                       "more (default: every category, as conda-lock install does)");
        app
          .add_option("--python", python,
                      "Without an installed environment: the python whose markers select a "
                      "uv.lock's or pylock.toml's packages (default: the python3 on PATH)")
          ->check(
            [](const std::string& text)
            {
                const auto valid = app::check_python_version(text);
                return valid ? std::string() : valid.error().message;
            })
          ->option_text("X.Y[.Z]");
    }

    void add_prefix_options(CLI::App& app, app::PrefixSelection& selection)
    {
        auto* prefix = app.add_option(
          "-p,--prefix", selection.prefix,
          "The environment's directory (a conda prefix or a venv); default $VIRTUAL_ENV, "
          "else $CONDA_PREFIX");
        auto* name = app.add_option(
          "-n,--name", selection.name,
          "A conda environment by name (envs directories, ~/.conda/environments.txt)");
        prefix->excludes(name);
    }

    void add_root_option(CLI::App& app, std::string& root)
    {
        app
          .add_option("--root", root,
                      "Read /proc, /sys, /dev, the library directories and ld.so.conf under this "
                      "directory (an unpacked image, a mounted node root) and load nothing")
          ->option_text("DIR");
    }

    void add_driver_timeout_option(CLI::App& app, double& seconds)
    {
        app
          .add_option("--timeout", seconds,
                      "Seconds NVML and cuInit may take before they count as hung (default 20)")
          ->check(CLI::PositiveNumber);
    }

    void add_hardware_gate_options(CLI::App& app, app::HardwareGateOptions& options)
    {
        app
          .add_option_function<std::string>(
            "--fatal-xids",
            [&options](const std::string& text)
            {
                auto xids = checks::parse_xid_list(text);
                if (!xids)
                {
                    throw CLI::ValidationError("--fatal-xids", xids.error().message);
                }
                options.fatal_xids = std::move(*xids);
            },
            "The Xids that fail gpu.xid, comma-separated (replaces the default list: README "
            "\"Hardware gates\")")
          ->option_text("LIST");
        app
          .add_option_function<int>(
            "--expect-gpus", [&options](const int& count) { options.expected_gpu_count = count; },
            "The number of GPUs this machine must show (gpu.count; a lock's GPUs take "
            "precedence)")
          ->check(CLI::Range(0, 1 << 20))
          ->option_text("N");
    }
}
