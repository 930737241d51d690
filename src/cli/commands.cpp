// The command table: one row per subcommand, in the order `envcheck --help` lists them.
#include "cli/commands.hpp"

#include "app/environment_file.hpp"

namespace envcheck::cli
{
    namespace
    {
        constexpr std::array<Command, 11> table{ {
          { "lint", "Check environment.yml files: syntax, conflicts, reproducibility, CUDA stack",
            setup_lint },
          { "diff",
            "Compare two environment files: packages added, removed, re-pinned; risky changes",
            setup_diff },
          { "smoke",
            "Run the GPU probe kernels (hello, matmul, bank conflicts, overlap, bandwidth)",
            setup_smoke },
          { "probe",
            "Report this machine: OS, PCI, kernel driver, device nodes, NVML, CUDA driver, runtime",
            setup_probe },
          { "doctor",
            "Find why CUDA is not available: every link from hardware to framework, with fixes",
            setup_doctor },
          { "report",
            "One block for a bug report: machine, driver, GPUs, frameworks and their CUDA "
            "builds, the NVIDIA libraries they would load, the doctor's verdict",
            setup_report },
          { "lock",
            "Write the lock of an installed environment: packages, machine, performance baselines",
            setup_lock },
          { "check",
            "Check an installed environment against its environment file and lock (--deep: every "
            "file)",
            setup_check },
          { "export",
            "Export a lock or an environment as @EXPLICIT, a pinned environment.yml or "
            "requirements.txt",
            setup_export },
          { "slurm-health",
            "Slurm HealthCheckProgram/Prolog: drain a node whose checks fail, resume it when they "
            "pass",
            setup_slurm_health },
          { "config",
            "Print the effective configuration (.envcheck.toml, [tool.envcheck]) and where each "
            "value came from",
            setup_config },
        } };
    }

    auto commands() -> std::span<const Command>
    {
        return table;
    }

    auto formatted_commands() -> std::vector<std::string>
    {
        return { "lint", "smoke", "doctor", "check", "slurm-health", "config" };
    }

    auto run_default(app::Ports& ports, const app::LoadedConfig& config) -> int
    {
        if (!app::find_project_files(ports.files).empty())
        {
            return run_default_check(ports, config);
        }
        return run_default_probe(ports);
    }
}
