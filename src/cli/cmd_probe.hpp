// What `doctor` shares with `probe`: the --root and --format options, and probing the machine
// (the system adapter, plus the CUDA runtime this envcheck embeds). Defined in cmd_probe.cpp.
#ifndef ENVCHECK_CLI_CMD_PROBE_HPP
#define ENVCHECK_CLI_CMD_PROBE_HPP

#include <string>

#include "model/machine.hpp"
#include "system/environment.hpp"
#include "util/result.hpp"

namespace CLI
{
    class App;
}

namespace envcheck::cli
{
    enum class ReportFormat
    {
        text,
        json,
    };

    void add_root_option(CLI::App& app, std::string& root);
    void add_format_option(CLI::App& app, ReportFormat& format);

    // Probes `root` ("/": this machine, with NVML and the CUDA driver; else files only). Fails
    // with ErrorKind::usage when root is not a directory.
    [[nodiscard]] auto probe_this_machine(
      const std::string& root, double driver_timeout_seconds,
      const system::Environment& environment = system::read_environment())
      -> util::Result<model::MachineFacts>;
}

#endif
