#include "formats/file_kind.hpp"

#include <algorithm>
#include <array>

#include "formats/explicit.hpp"
#include "formats/lock.hpp"
#include "formats/yaml_document.hpp"
#include "util/strings.hpp"

namespace envcheck::formats
{
    namespace
    {
        constexpr std::string_view lock_rule = "file.lock";
        constexpr std::string_view unreadable_rule = "file.lock-unreadable";
        constexpr std::string_view other_rule = "file.not-environment";

        constexpr std::array<LoaderRule, 4> rules{ {
          { lock_rule, model::Severity::info,
            "A lock (conda-lock.yml, pixi.lock, @EXPLICIT, envcheck's, uv.lock, pylock.toml), "
            "which check, diff and export read; lint reads it as a lock, not as an environment "
            "file.",
            "Lint the environment file the lock was made from; the pre-commit hooks leave locks "
            "out." },
          { unreadable_rule, model::Severity::error,
            "A lock that does not read: its format version, its YAML or TOML, or an entry is "
            "wrong.",
            "Fix the lock at the position shown, or write it again with its tool (conda-lock, "
            "pixi lock, uv lock, envcheck lock)." },
          { pip_file_unreadable_rule, model::Severity::error,
            "A requirements file or pyproject.toml that does not read: its TOML, a dependency list "
            "that is not an array of strings, a NUL byte or text that is not UTF-8.",
            "Fix the file at the position shown." },
          { other_rule, model::Severity::info,
            "conda YAML that is no environment file: conda_build_config.yaml, .condarc, a recipe, "
            "conda-forge.yml, a spec or `conda list --export` list.",
            "Leave it out of lint, which reads conda environment files." },
        } };

        // conda's configuration keys (conda config --describe), the ones seen in .condarc files.
        constexpr std::array<std::string_view, 40> condarc_keys{ "add_pip_as_python_dependency",
                                                                 "allow_conda_downgrades",
                                                                 "always_yes",
                                                                 "anaconda_upload",
                                                                 "auto_activate_base",
                                                                 "auto_activate",
                                                                 "auto_update_conda",
                                                                 "changeps1",
                                                                 "channel_alias",
                                                                 "channel_priority",
                                                                 "channel_settings",
                                                                 "channels",
                                                                 "conda_build",
                                                                 "create_default_packages",
                                                                 "custom_channels",
                                                                 "custom_multichannels",
                                                                 "default_channels",
                                                                 "default_threads",
                                                                 "envs_dirs",
                                                                 "experimental_solver",
                                                                 "allowlist_channels",
                                                                 "whitelist_channels",
                                                                 "notify_outdated_conda",
                                                                 "offline",
                                                                 "pinned_packages",
                                                                 "pip_interop_enabled",
                                                                 "pkgs_dirs",
                                                                 "proxy_servers",
                                                                 "remote_connect_timeout_secs",
                                                                 "remote_max_retries",
                                                                 "remote_read_timeout_secs",
                                                                 "report_errors",
                                                                 "repodata_threads",
                                                                 "show_channel_urls",
                                                                 "solver",
                                                                 "ssl_verify",
                                                                 "use_only_tar_bz2",
                                                                 "verbosity",
                                                                 "auto_stack",
                                                                 "env_prompt" };

        // Keys of conda_build_config.yaml that no environment file has.
        constexpr std::array<std::string_view, 14> variant_keys{ "zip_keys",
                                                                 "pin_run_as_build",
                                                                 "c_compiler",
                                                                 "cxx_compiler",
                                                                 "fortran_compiler",
                                                                 "cuda_compiler",
                                                                 "cuda_compiler_version",
                                                                 "c_stdlib",
                                                                 "c_stdlib_version",
                                                                 "target_platform",
                                                                 "MACOSX_DEPLOYMENT_TARGET",
                                                                 "c_compiler_version",
                                                                 "cxx_compiler_version",
                                                                 "channel_targets" };

        constexpr std::array<std::string_view, 5> environment_keys{ "name", "prefix", "channels",
                                                                    "dependencies", "variables" };

        template<std::size_t N>
        auto among(const std::array<std::string_view, N>& list, std::string_view item) -> bool
        {
            return std::find(list.begin(), list.end(), item) != list.end();
        }

        auto basename(std::string_view path) -> std::string_view
        {
            const auto slash = path.find_last_of("/\\");
            return slash == std::string_view::npos ? path : path.substr(slash + 1);
        }

        auto yaml_extension(std::string_view name) -> bool
        {
            return name.ends_with(".yml") || name.ends_with(".yaml");
        }

        // A line that starts a top-level `dependencies:` key: such a .yml is an environment
        // file, and lint reads it next, so it is not parsed here too (issue 19: the second parse
        // was a tenth of linting a large file).
        auto has_top_level_dependencies(std::string_view text) -> bool
        {
            constexpr std::string_view key = "dependencies";
            const auto lines = util::split_lines(text);
            return std::any_of(lines.begin(), lines.end(),
                               [&](std::string_view line) {
                                   return line.starts_with(key) &&
                                          util::trim_left(line.substr(key.size())).starts_with(':');
                               });
        }

        auto identity(FileKind kind, std::string what, std::string readers) -> FileIdentity
        {
            return FileIdentity{ kind, std::move(what), std::move(readers) };
        }

        auto by_name(std::string_view name) -> std::optional<FileIdentity>
        {
            const std::string lower = util::to_lower(name);
            if (lower == "conda_build_config.yaml" || lower == "conda_build_config.yml")
            {
                return identity(FileKind::conda_build_config, "conda-build's variant configuration",
                                "conda-build and rattler-build read it");
            }
            if (lower == ".condarc" || lower == "condarc" || lower == ".mambarc" ||
                lower.ends_with(".condarc") || lower == ".condarc.yml" ||
                lower == ".condarc.yaml" || lower == "condarc.yml" || lower == "condarc.yaml")
            {
                return identity(FileKind::condarc, "conda's configuration",
                                "conda and mamba read it as settings");
            }
            if (lower == "meta.yaml" || lower == "meta.yml" || lower == "recipe.yaml" ||
                lower == "recipe.yml")
            {
                return identity(FileKind::recipe, "a conda package recipe",
                                "conda-build (meta.yaml) or rattler-build (recipe.yaml) reads it");
            }
            if (lower == "conda-forge.yml" || lower == "conda-forge.yaml")
            {
                return identity(FileKind::conda_smithy, "conda-smithy's feedstock configuration",
                                "conda-smithy reads it");
            }
            return std::nullopt;
        }

        // Locks by content, stricter than detect_lock_format (which decides only between lock
        // formats): an environment file in flow style also starts with '{', a recipe also has a
        // top-level `package:`.
        auto is_lock(std::string_view text, std::string_view file_name) -> bool
        {
            const auto format = detect_lock_format(text, file_name);
            if (!format)
            {
                return false;
            }
            switch (*format)
            {
                case model::LockFormat::envcheck:
                    return text.find("\"schema_version\"") != std::string_view::npos;
                case model::LockFormat::explicit_:
                case model::LockFormat::uv:     // by file name, or `version` and [[package]]
                case model::LockFormat::pylock: // by file name, or `lock-version`
                    return true;
                case model::LockFormat::pixi:
                case model::LockFormat::conda_lock:
                {
                    const auto document = yaml::parse(text, "");
                    if (!document)
                    {
                        return false;
                    }
                    const yaml::Node root = document->root();
                    if (*format == model::LockFormat::pixi)
                    {
                        return root.get("environments").is_mapping() &&
                               !root.get("version").is_null();
                    }
                    return root.get("package").is_sequence() || root.get("metadata").is_mapping();
                }
            }
            return false;
        }

        auto by_content(std::string_view text, std::string_view name) -> std::optional<FileIdentity>
        {
            if (is_export_list(text))
            {
                return identity(FileKind::export_list,
                                "a `conda list --export` list (name=version=build lines)",
                                "conda create --file reads it; it records no URLs or hashes, so "
                                "`conda list --explicit --sha256` or `envcheck lock` would write a "
                                "lock");
            }
            if (yaml_extension(name) && has_top_level_dependencies(text))
            {
                return std::nullopt;
            }
            const auto document = yaml::parse(text, name);
            if (!document)
            {
                return std::nullopt; // lint reports the YAML error
            }
            const yaml::Node root = document->root();
            if (root.is_scalar() && !yaml_extension(name))
            {
                return identity(FileKind::spec_list, "a list of package specs",
                                "conda create --file and mamba create --file read it");
            }
            if (!root.is_mapping() || root.get("dependencies").exists())
            {
                return std::nullopt;
            }
            bool all_condarc = root.size() > 0;
            bool only_channels = true;
            bool environment_key = false;
            bool variant_key = false;
            for (std::size_t i = 0; i < root.size(); ++i)
            {
                const auto key = root.key(i).text();
                all_condarc = all_condarc && among(condarc_keys, key);
                only_channels = only_channels && key == "channels";
                environment_key = environment_key || among(environment_keys, key);
                variant_key = variant_key || among(variant_keys, key);
            }
            if (all_condarc && !only_channels)
            {
                return by_name(".condarc");
            }
            if (root.get("package").is_mapping() &&
                (root.get("requirements").exists() || root.get("build").exists() ||
                 root.get("source").exists()))
            {
                return by_name("meta.yaml");
            }
            if (variant_key && !environment_key)
            {
                return by_name("conda_build_config.yaml");
            }
            return std::nullopt;
        }

        auto lock_description(const LockOutline& outline) -> std::string
        {
            std::string what(lock_format_info(outline.format).description);
            std::vector<std::string> facts;
            if (!outline.format_version.empty())
            {
                facts.push_back("version " + outline.format_version);
            }
            if (!outline.environments.empty())
            {
                facts.push_back("environments " + util::join(outline.environments, ", "));
            }
            if (!outline.platforms.empty())
            {
                facts.push_back(util::join(outline.platforms, ", "));
            }
            if (!outline.categories.empty())
            {
                facts.push_back("categories " + util::join(outline.categories, ", "));
            }
            facts.push_back(std::to_string(outline.packages) + " package entries");
            return what + " (" + util::join(facts, "; ") + ")";
        }
    }

    auto identify_file(std::string_view text, std::string_view file_name) -> FileIdentity
    {
        if (text.starts_with("\xEF\xBB\xBF"))
        {
            text.remove_prefix(3);
        }
        if (is_lock(text, file_name))
        {
            return identity(FileKind::lock, "a lock",
                            "envcheck check --lock, diff and export --lock read it");
        }
        const auto name = basename(file_name);
        if (auto named = by_name(name))
        {
            return *named;
        }
        if (auto known = by_content(text, name))
        {
            return *known;
        }
        return identity(FileKind::environment, "an environment file", "envcheck lint reads it");
    }

    auto lint_non_environment(std::string_view text, std::string_view file_name)
      -> std::optional<std::vector<EnvDiagnostic>>
    {
        const FileIdentity file = identify_file(text, file_name);
        if (file.kind == FileKind::environment)
        {
            return std::nullopt;
        }
        const std::string name(basename(file_name).empty() ? std::string_view("the input")
                                                           : basename(file_name));
        const auto row = [](std::string_view id) {
            return *std::find_if(rules.begin(), rules.end(),
                                 [&](const auto& r) { return r.id == id; });
        };
        if (file.kind != FileKind::lock)
        {
            const auto& rule = row(other_rule);
            return std::vector<EnvDiagnostic>{ EnvDiagnostic{
              rule.severity,
              std::string(rule.id),
              name + " is " + file.what + ", not an environment file: " + file.readers,
              { 1, 1 },
              std::string(rule.fix) } };
        }
        auto outline = outline_lock(text, file_name);
        if (!outline)
        {
            const auto& rule = row(unreadable_rule);
            const auto& error = outline.error();
            return std::vector<EnvDiagnostic>{ EnvDiagnostic{
              rule.severity,
              std::string(rule.id),
              "a lock that envcheck cannot read: " + error.message,
              { std::max<std::size_t>(error.where.line, 1),
                std::max<std::size_t>(error.where.column, 1) },
              error.hint.empty() ? std::string(rule.fix) : error.hint } };
        }
        const auto& rule = row(lock_rule);
        return std::vector<EnvDiagnostic>{ EnvDiagnostic{
          rule.severity,
          std::string(rule.id),
          name + " is " + lock_description(*outline) + ", not an environment file: " + file.readers,
          { 1, 1 },
          std::string(rule.fix) } };
    }

    auto file_kind_rules() -> std::span<const LoaderRule>
    {
        return rules;
    }
}
