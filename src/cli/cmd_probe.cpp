// envcheck probe: facts about this machine (or a root directory), gathered without needing a
// working CUDA: src/system reads the files and probes NVML and the CUDA driver in watched child
// processes; src/report renders text or JSON (schemas/probe.schema.json).
//
// Exit codes: 0 the report was written (whatever it says); 2 bad usage (--root is not a
// directory) or the report could not be written.
#include "cli/cmd_probe.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "cli/output.hpp"
#include "gpu/build_info.hpp"
#include "report/probe_json.hpp"
#include "report/probe_text.hpp"
#include "system/machine_probe.hpp"

namespace envcheck::cli
{
    void add_root_option(CLI::App& app, std::string& root)
    {
        app
          .add_option("--root", root,
                      "Read /proc, /sys, /dev, the library directories and ld.so.conf under this "
                      "directory (an "
                      "unpacked image, a mounted node root) and load nothing")
          ->option_text("DIR");
    }

    void add_format_option(CLI::App& app, ReportFormat& format)
    {
        const std::map<std::string, ReportFormat> formats{ { "text", ReportFormat::text },
                                                           { "json", ReportFormat::json } };
        app.add_option("--format", format, "Report format: text or json")
          ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case))
          ->option_text("text|json");
    }

    auto probe_this_machine(const std::string& root, double driver_timeout_seconds,
                            const system::Environment& environment)
      -> util::Result<model::MachineFacts>
    {
        std::error_code error;
        if (root.empty() || !std::filesystem::is_directory(root, error))
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::usage, "--root '" + root + "' is not a directory"));
        }
        system::ProbeOptions options;
        options.root = root;
        options.environment = environment;
        options.driver_timeout =
          std::chrono::milliseconds(static_cast<long long>(driver_timeout_seconds * 1000.0));
        auto facts = system::probe_machine(options);
        const auto build = gpu::build_info();
        facts.runtime.cuda_enabled = build.cuda_enabled;
        facts.runtime.runtime = build.runtime;
        facts.runtime.sass_architectures = build.sass_architectures;
        facts.runtime.ptx_architectures = build.ptx_architectures;
        return facts;
    }

    namespace
    {
        struct ProbeOptions
        {
            std::string root = "/";
            ReportFormat format = ReportFormat::text;
            std::string output;
            double timeout_seconds = 20.0;
        };

        auto run_probe(const ProbeOptions& options) -> int
        {
            auto facts = probe_this_machine(options.root, options.timeout_seconds);
            if (!facts)
            {
                return report_error(facts.error());
            }
            const auto rendered = options.format == ReportFormat::json
                                    ? report::render_probe_json(*facts)
                                    : report::render_probe_text(*facts);
            return emit(rendered, options.output);
        }
    }

    auto setup_probe(CLI::App& app) -> Run
    {
        auto options = std::make_shared<ProbeOptions>();
        add_root_option(app, options->root);
        add_format_option(app, options->format);
        app.add_option("-o,--output", options->output,
                       "Write the report to this file (atomically) instead of stdout");
        app
          .add_option("--timeout", options->timeout_seconds,
                      "Seconds NVML and the CUDA driver may take before the probe gives up on them "
                      "(default 20)")
          ->check(CLI::PositiveNumber);
        return [options] { return run_probe(*options); };
    }
}
