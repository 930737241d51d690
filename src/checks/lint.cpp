#include "checks/lint.hpp"

#include <algorithm>
#include <array>

#include "checks/lint_input.hpp"
#include "checks/lint_rules.hpp"
#include "checks/lint_suppression.hpp"
#include "formats/file_kind.hpp"

namespace envcheck::checks
{
    namespace
    {
        constexpr model::Severity error = model::Severity::error;
        constexpr model::Severity warning = model::Severity::warning;
        constexpr model::Severity info = model::Severity::info;

        constexpr std::string_view unpinned_id = "repro.unpinned";

        const std::array<LintRule, 19> table{ {
          { "syntax.matchspec", error, "A conda dependency that does not parse as a MatchSpec.",
            "Write 'name', 'name=1.2', 'name>=1.2,<2' or 'name=1.2=build', without spaces around "
            "operators.",
            rules::matchspec_syntax },
          { "syntax.matchspec-lenient", warning,
            "A spec conda accepts with a caveat: a part it ignores (pip extras in brackets, the "
            "legacy (target=..., optional) block, a repeated key, a build with a space) or a form "
            "rattler, pixi or mamba reject.",
            "Write the spec as every tool reads it: key=value pairs in one [...] at the end, each "
            "key once, no pip extras.",
            rules::matchspec_lenient },
          { "syntax.pip-line", error,
            "A pip line that is neither a PEP 508 requirement nor a pip option pip knows.",
            "Write 'name==1.2', 'name @ URL', a VCS URL, or a pip option such as "
            "--extra-index-url.",
            rules::pip_line_syntax },
          { "duplicate.package", warning, "A package listed twice in the same section.",
            "Keep one entry per package and combine the constraints into it.",
            rules::duplicate_package },
          { "conflict.unsatisfiable", error,
            "Version constraints on one package that no version satisfies.",
            "Remove one of the contradictory pins.", rules::unsatisfiable },
          { "conflict.conda-and-pip", warning,
            "The same package from conda and from pip; pip overwrites conda's files behind its "
            "back.",
            "Install the package from one manager only, preferably conda.", rules::conda_and_pip },
          { unpinned_id, warning,
            "A package without a version: each solve may pick a different one (--strict: error).",
            "Pin a version, such as 'numpy=1.26' (conda) or 'numpy==1.26.4' (pip).",
            rules::unpinned },
          { "repro.pip-url-unpinned", warning,
            "A pip requirement from a URL without a hash, or from version control without a "
            "commit.",
            "Pin a commit ('@<40-hex sha>') or add '#sha256=<hash>' to the URL.",
            rules::pip_url_unpinned },
          { "repro.no-channels", warning,
            "No channels: the solver uses whatever the machine's .condarc lists.",
            "List the channels, such as 'channels: [conda-forge, nodefaults]'.",
            rules::no_channels },
          { "repro.defaults-mixed", warning,
            "Anaconda's channels (defaults, anaconda, pkgs/main) mixed with conda-forge, whose "
            "packages are built against different libraries.",
            "Use conda-forge with nodefaults, or defaults alone.", rules::defaults_mixed },
          { "repro.nodefaults", info,
            "Channels without 'nodefaults': conda appends the .condarc defaults.",
            "Add 'nodefaults' as the last channel.", rules::nodefaults },
          { "cuda.version-mismatch", error,
            "Two specs for one platform that pin the same CUDA packages to different versions: "
            "cudatoolkit, cuda-version, pytorch-cuda, cuda-*, CUDA build strings (conda-forge's "
            "cuda112 means 11.2 or a newer 11.x); from PyPI, the CUDA runtime wheels that +cuXYZ "
            "torch wheels, torch and tensorflow[and-cuda] releases and nvidia-cuda-runtime-cu12 "
            "pins bring.",
            "Pin one CUDA version and make every CUDA package and build agree with it.",
            rules::cuda_version_mismatch },
          { "cuda.gpu-build-with-cpuonly", error,
            "A CUDA build (a *cuda* build string, pytorch-cuda) next to cpuonly or a CPU build.",
            "Remove cpuonly for a GPU environment, or the CUDA pins for a CPU one.",
            rules::gpu_build_with_cpuonly },
          { "cuda.pytorch-cuda-needs-nvidia", error,
            "pytorch-cuda without the nvidia channel, where its CUDA libraries are published.",
            "Add 'nvidia' to channels, after 'pytorch'.", rules::pytorch_cuda_needs_nvidia },
          { "cuda.pytorch-cuda-unpublished", error,
            "A pytorch and pytorch-cuda (1.13 to 2.5) or cudatoolkit (1.0 to 1.12, pytorch from "
            "the pytorch channel) pair the pytorch channel never published together.",
            "Pick a pytorch-cuda or cudatoolkit version published for that PyTorch (see the "
            "tables in the README).",
            rules::pytorch_cuda_unpublished },
          { "cuda.pytorch-cuda-shadowed", warning,
            "pytorch-cuda with conda-forge (or Anaconda's channels) listed before 'pytorch': "
            "strict channel priority takes pytorch from there, and the pytorch-cuda stack goes "
            "unused.",
            "Write 'pytorch::pytorch', or list 'pytorch' before conda-forge.",
            rules::pytorch_cuda_shadowed },
          { "python.build-mismatch", error,
            "A build string for one Python version next to a python pin for another.",
            "Drop the build string (conda env export --no-builds) or make python match it.",
            rules::python_build_mismatch },
          { "cuda.driver-too-old", error,
            "The CUDA runtime needs a newer driver than --target-driver/--target-cuda, even with "
            "minor-version compatibility (an open range is judged by the release a solver picks "
            "from the published table).",
            "Pin an older CUDA (cuda-version, pytorch-cuda) or upgrade the fleet's driver.",
            rules::driver_too_old },
          { "cuda.driver-minor-compat", warning,
            "The CUDA runtime is newer than --target-driver/--target-cuda: it runs only under "
            "minor-version "
            "compatibility, where PTX from a newer toolkit cannot be JIT-compiled.",
            "Pin the CUDA minor the driver supports, or upgrade the driver.",
            rules::driver_minor_compat },
        } };

        auto by_position(const formats::EnvDiagnostic& a, const formats::EnvDiagnostic& b) -> bool
        {
            if (a.position.line != b.position.line)
            {
                return a.position.line < b.position.line;
            }
            if (a.position.column != b.position.column)
            {
                return a.position.column < b.position.column;
            }
            return a.rule < b.rule;
        }
    }

    auto lint_rules() -> std::span<const LintRule>
    {
        return table;
    }

    auto rule_catalog() -> std::vector<formats::LoaderRule>
    {
        std::vector<formats::LoaderRule> catalog(formats::loader_rules().begin(),
                                                 formats::loader_rules().end());
        catalog.insert(catalog.end(), formats::file_kind_rules().begin(),
                       formats::file_kind_rules().end());
        catalog.push_back(ignore_comment_rule_info());
        for (const auto& rule : table)
        {
            catalog.push_back(
              formats::LoaderRule{ rule.id, rule.severity, rule.description, rule.fix });
        }
        return catalog;
    }

    void add_finding(Findings& findings, std::string_view rule_id, std::string message,
                     formats::TextPosition position, std::string fix)
    {
        const auto* row = std::find_if(table.begin(), table.end(),
                                       [&](const LintRule& rule) { return rule.id == rule_id; });
        // Rules report under their own ids; the registry test proves every id has a row.
        const LintRule& rule = row != table.end() ? *row : table.front();
        if (position.line == 0)
        {
            position = { 1, 1 };
        }
        findings.push_back(
          formats::EnvDiagnostic{ rule.severity, std::string(rule.id), std::move(message), position,
                                  fix.empty() ? std::string(rule.fix) : std::move(fix) });
    }

    auto lint_environment(const formats::EnvironmentFile& file, const LintOptions& options)
      -> std::vector<formats::EnvDiagnostic>
    {
        std::vector<formats::EnvDiagnostic> findings = file.diagnostics;
        const LintInput input = make_lint_input(file, options);
        for (const auto& rule : table)
        {
            rule.run(input, findings);
        }
        if (options.strict)
        {
            for (auto& finding : findings)
            {
                if (finding.rule == unpinned_id)
                {
                    finding.severity = error;
                }
            }
        }
        std::stable_sort(findings.begin(), findings.end(), by_position);
        return findings;
    }

    auto lint_text(std::string_view text, const LintOptions& options)
      -> std::vector<formats::EnvDiagnostic>
    {
        auto loaded = formats::load_environment_yaml(text);
        if (!loaded)
        {
            return { loaded.error() };
        }
        return lint_environment(*loaded, options);
    }
}
