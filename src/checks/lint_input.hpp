// An environment file with every spec parsed once, for the lint rules and for diff. The only
// place in checks that calls the conda (specs) and pip (pypi) parsers for lint.
#ifndef ENVCHECK_CHECKS_LINT_INPUT_HPP
#define ENVCHECK_CHECKS_LINT_INPUT_HPP

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "checks/lint.hpp"
#include "formats/environment_yaml.hpp"
#include "model/cuda_version.hpp"
#include "specs/version_spec.hpp"
#include "util/error.hpp"

namespace envcheck::checks
{
    // One conda dependency.
    struct CondaSpec
    {
        const formats::EnvDependency* entry = nullptr;
        std::optional<util::ParseError> error; // set when the text is not a MatchSpec
        std::string name;                      // lowercase
        std::string channel;                   // "" when the spec names none
        std::string version;                   // the version spec as written; "" for any
        std::string build;                     // the build matcher as written; "" for any
        std::size_t version_offset = 0;        // offsets into entry->text
        std::size_t build_offset = 0;
        std::string canonical;           // conda's canonical form, for comparing two specs
        specs::VersionSpec version_spec; // `version`, parsed; free when the spec has none
        // What the parser accepted with a caveat (conda ignores part of the spec, or rattler,
        // pixi or mamba would reject it); offsets into entry->text.
        std::vector<specs::SpecWarning> warnings;

        // The position of byte `offset` of the spec's text in the file.
        [[nodiscard]] auto position_at(std::size_t offset) const -> formats::TextPosition;
        [[nodiscard]] auto version_position() const -> formats::TextPosition;
        [[nodiscard]] auto build_position() const -> formats::TextPosition;
    };

    enum class PipKind
    {
        requirement, // a PEP 508 requirement by name ("rich==13.7.1")
        url,         // a requirement from an archive URL ("name @ https://...", "https://...whl")
        vcs,         // from version control ("git+https://...@ref")
        path,        // a local directory or archive ("./pkg", "-e .")
        option,      // a pip option line ("--extra-index-url URL", "-r file")
        invalid,     // none of the above
    };

    // One line of a pip: sub-list.
    struct PipSpec
    {
        const formats::EnvPipLine* entry = nullptr;
        PipKind kind = PipKind::invalid;
        bool editable = false;
        std::optional<util::ParseError> error; // why a line is invalid
        std::string suggestion;                // for an unknown option: the closest known one
        std::string name;                      // PEP 503-normalized; "" when unknown
        std::string specifier;                 // "==2.3.1+cu121", ">=1.26,<2"; "" for any
        std::vector<std::string> extras;       // "jax[cuda12]" -> {"cuda12"}, lowercase
        std::size_t specifier_offset = 0;      // offset into entry->text
        std::string option;                    // for options: "--extra-index-url"
        std::string option_value;              // and its value
        std::string url;                       // for url and vcs lines
        bool has_hash = false;                 // --hash=... or a #sha256= fragment
        bool has_commit = false;               // a VCS ref that is a full commit hash
        std::string canonical;                 // normalized form, for comparing two lines

        [[nodiscard]] auto position_at(std::size_t offset) const -> formats::TextPosition;
    };

    // A statement about which CUDA version the environment uses: a CUDA package's version
    // (cudatoolkit, cuda-version, pytorch-cuda, cuda-cudart, ...), a build string's CUDA tag
    // (conda-forge's cuda118 is CUDA 11.8 or newer within 11.x; the pytorch channel's
    // py3.9_cuda11.8_... is 11.8), or from PyPI: a wheel's local version (+cu121), a PyTorch
    // wheel index (/whl/cu121), torch's and tensorflow[and-cuda]'s default CUDA per release,
    // the nvidia-*-cu12 and cuda-toolkit wheels, jax[cuda12], cupy-cuda12x.
    // Which packages a claim pins, so that only claims that can meet on one package are
    // compared: cudatoolkit (monolithic) and the split cuda-* packages of the nvidia channel
    // lived side by side up to CUDA 11 (cuda-version ties everything together from 12 on), and
    // PyPI's wheels are another world from conda's.
    enum class CudaStack
    {
        conda_any,   // cuda-version, and every conda claim for CUDA 12 or newer
        toolkit,     // cudatoolkit, conda-forge build strings (cuda112), up to 11.x
        split,       // cuda, cuda-*, pytorch-cuda, up to 11.x
        loose,       // the pytorch channel's build strings (cuda11.3) up to 11.x: either
        pip_runtime, // PyPI: torch and tensorflow[and-cuda] releases, +cuXYZ torch wheels,
                     // the PyTorch index, nvidia-cuda-runtime-cuNN, cuda-toolkit
        pip_other,   // PyPI: other nvidia-*-cuNN, cupy-cuda12x, jax[cuda12]
    };

    struct CudaClaim
    {
        std::string source;    // as the user wrote it: "pytorch-cuda=12.1"
        std::string cuda_spec; // a conda version spec over CUDA versions: "12.1", "11.8.*"
        formats::TextPosition position;
        std::string selector;    // the entry's platform selector; "" for every platform
        specs::VersionSpec spec; // cuda_spec, parsed
        std::optional<model::CudaVersion> lowest; // lowest_cuda(spec)
        // The CUDA release the environment gets, which the driver rules judge: the lowest the
        // claim admits, or for an open range over a published table (pytorch-cuda, torch and
        // tensorflow from PyPI, the CUDA runtime wheels) the newest, which a solver picks.
        std::optional<model::CudaVersion> runtime;
        std::string runtime_note; // how the solver gets there, when it picks: "pip picks ..."
        CudaStack stack = CudaStack::conda_any;
    };

    // Whether two claims can pin one package, so that different CUDA versions conflict.
    [[nodiscard]] auto claims_meet(const CudaClaim& a, const CudaClaim& b) -> bool;

    struct LintInput
    {
        const formats::EnvironmentFile* file = nullptr;
        LintOptions options;
        std::vector<CondaSpec> conda;
        std::vector<PipSpec> pip;
        std::vector<CudaClaim> cuda_claims;
    };

    [[nodiscard]] auto make_lint_input(const formats::EnvironmentFile& file,
                                       const LintOptions& options) -> LintInput;

    enum class Satisfiable
    {
        yes,
        no,
        unknown, // globs, regexes and other forms the interval reasoning does not cover
    };

    // Whether some version satisfies all the conda version specs at once (AND).
    [[nodiscard]] auto conda_satisfiable(std::span<const std::string> version_specs) -> Satisfiable;
    [[nodiscard]] auto conda_satisfiable(std::span<const specs::VersionSpec> version_specs)
      -> Satisfiable;
    // The same for PEP 440 specifiers.
    [[nodiscard]] auto pip_satisfiable(std::span<const std::string> specifiers) -> Satisfiable;

    // The lowest CUDA release (of those the driver table knows) that `cuda_spec` admits.
    [[nodiscard]] auto lowest_cuda(std::string_view cuda_spec) -> std::optional<model::CudaVersion>;
    [[nodiscard]] auto lowest_cuda(const specs::VersionSpec& cuda_spec)
      -> std::optional<model::CudaVersion>;

    // Pieces of the CUDA claims, also used by diff on package sets.
    // Whether a conda package's version is a CUDA version (cudatoolkit 11.8.0, cuda-version 12.4,
    // pytorch-cuda 12.1, cuda-cudart 12.4.127, ...).
    [[nodiscard]] auto is_cuda_package(std::string_view conda_name) -> bool;
    // The CUDA version a build string names: "cuda118py39h..." -> "11.8", "cuda12*" -> "12",
    // "py3.9_cuda11.8_cudnn8.7.0_0" -> "11.8"; "" when none.
    [[nodiscard]] auto cuda_in_build(std::string_view build) -> std::string;
    // The CUDA version a PyTorch wheel's local version or index URL names: "2.3.1+cu121" and
    // ".../whl/cu121" -> "12.1"; "" when none.
    [[nodiscard]] auto cuda_in_wheel_tag(std::string_view text) -> std::string;

    // The CUDA a build string asks for, as a conda version spec over CUDA versions:
    // conda-forge's "cuda112py39h..." requires CUDA 11.2 or newer within 11.x (">=11.2,<12"),
    // the pytorch channel's "py3.9_cuda11.8_cudnn8.7.0_0" exactly 11.8 ("11.8.*"), "cuda12*"
    // any 12.x ("12.*"); "" when the build names none.
    [[nodiscard]] auto cuda_build_spec(std::string_view build) -> std::string;

    // Whether two platform selectors ("linux", "win", "osx", "linux64", "unix", "" for all) can
    // both hold on one platform; unknown selectors are assumed to.
    [[nodiscard]] auto selectors_overlap(std::string_view a, std::string_view b) -> bool;

    // Anaconda's channels: defaults, anaconda, pkgs/main, pkgs/r, and their URLs.
    [[nodiscard]] auto is_anaconda_channel(std::string_view channel) -> bool;

    // Adds a finding under `rule_id` (a row of lint_rules()) with the row's severity and, when
    // `fix` is empty, its fix.
    void add_finding(Findings& findings, std::string_view rule_id, std::string message,
                     formats::TextPosition position, std::string fix = {});
}

#endif
