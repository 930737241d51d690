// What a file given to `envcheck lint` is, from its name and text: an environment file (lint
// lints it), a lock (conda-lock.yml, pixi.lock, @EXPLICIT, envcheck's), or conda YAML that is no
// environment at all (conda_build_config.yaml, .condarc, a recipe, conda-forge.yml). A hook
// pattern that picks up conda-lock.yml must not fail every commit with
// env.missing-dependencies: lint says what such a file is and which command reads it (info,
// exit 0), and reads a lock as a lock, so that a lock that does not read is still an error.
#ifndef ENVCHECK_FORMATS_FILE_KIND_HPP
#define ENVCHECK_FORMATS_FILE_KIND_HPP

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/environment_yaml.hpp"

namespace envcheck::formats
{
    enum class FileKind
    {
        environment,        // environment.yml (CEP 24): what lint reads
        lock,               // any lock envcheck reads (formats/lock.hpp)
        export_list,        // `conda list --export`: name=version=build lines
        spec_list,          // a plain list of specs for `conda create --file`
        conda_build_config, // conda-build's variant configuration
        condarc,            // conda's configuration (.condarc, .mambarc)
        recipe,             // a conda-build or rattler-build recipe (meta.yaml, recipe.yaml)
        conda_smithy,       // conda-forge.yml, conda-smithy's feedstock configuration
    };

    struct FileIdentity
    {
        FileKind kind = FileKind::environment;
        std::string what;    // "a conda-lock lock", "conda-build's variant configuration"
        std::string readers; // which command reads it: "envcheck check --lock, diff, export"
    };

    // Locks are told by content (formats/lock.hpp's detect_lock_format), configuration files by
    // their name first and then by their keys; anything else is an environment file.
    [[nodiscard]] auto identify_file(std::string_view text, std::string_view file_name)
      -> FileIdentity;

    // Lint's findings for a file that is not an environment file: `file.lock` or
    // `file.not-environment` (info) naming what it is and what reads it, and for a lock that
    // does not read, `file.lock-unreadable` (error) at the reader's position. nullopt for an
    // environment file, which lint lints as usual.
    [[nodiscard]] auto lint_non_environment(std::string_view text, std::string_view file_name)
      -> std::optional<std::vector<EnvDiagnostic>>;

    // What lint reports for a requirements file or pyproject.toml that does not read (lint
    // lints the others as the pip section of an environment file).
    inline constexpr std::string_view pip_file_unreadable_rule = "file.pip-unreadable";

    // The rules lint_non_environment and lint's pip files report under, for `lint --list-rules`.
    [[nodiscard]] auto file_kind_rules() -> std::span<const LoaderRule>;
}

#endif
