// envcheck's configuration: `.envcheck.toml`, or `[tool.envcheck]` in pyproject.toml (README
// "Configuration"; schemas/config.schema.json). Pure: the file's text comes in, a Config value
// comes out in which every setting carries where it came from (the file's line and column, or
// the command line), so that `envcheck config` can say it and an error can point at it.
//
// Unknown keys, wrong types, unknown rule ids and unknown doctor check ids are errors
// (ErrorKind::usage, exit 2) with the file, line and column and, for a typo, the closest id.
#ifndef ENVCHECK_CONFIG_CONFIG_HPP
#define ENVCHECK_CONFIG_CONFIG_HPP

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/severity.hpp"
#include "util/result.hpp"

namespace envcheck::config
{
    // Where a setting came from.
    struct Source
    {
        enum class Kind
        {
            file,         // a configuration file: file, line, column
            command_line, // an option: `file` holds its name, "--format"
        };

        Kind kind = Kind::file;
        std::string file;
        std::size_t line = 0; // 1-based
        std::size_t column = 0;

        // "envcheck.toml:3:10", "--format".
        [[nodiscard]] auto to_string() const -> std::string;
    };

    template<class T>
    struct Setting
    {
        T value{};
        Source source;
    };

    // A rule's severity as configured; nullopt is "off" (its findings are suppressed).
    using RuleSeverity = std::optional<model::Severity>;

    struct PerFileIgnore
    {
        std::string glob; // '*' matches any run of characters, '/' included
        std::vector<Setting<std::string>> rules;
        Source source;
    };

    struct LintConfig
    {
        std::vector<Setting<std::string>> ignore;              // rule ids, every file
        std::map<std::string, Setting<RuleSeverity>> severity; // rule id -> severity
        std::vector<PerFileIgnore> per_file_ignores;           // in file order
    };

    struct DoctorConfig
    {
        std::vector<Setting<std::string>> skip; // doctor check ids
    };

    struct CheckConfig
    {
        // metric id ("bandwidth.h2d_pinned_gbps") -> the allowed drop, a fraction in (0, 1).
        std::map<std::string, Setting<double>> tolerances;
        std::optional<Setting<int>> gpu_count; // the GPUs a node must show
        // NVIDIA Xid codes that fail gpu.xid (replacing the default list); --fatal-xids
        // overrides.
        std::optional<Setting<std::vector<int>>> fatal_xids;
    };

    struct Config
    {
        std::string file; // the file read; empty when none was found
        LintConfig lint;
        DoctorConfig doctor;
        CheckConfig check;
        // "default" or a command name -> report format; checked against the command's formats
        // when that command runs.
        std::map<std::string, Setting<std::string>> formats;

        // The format configured for `command`: its own key, else "default"; nullptr when none.
        [[nodiscard]] auto format_for(std::string_view command) const
          -> const Setting<std::string>*;
    };

    // The format the configuration sets for `command` (format_for), which must be one of the
    // command's `allowed` formats (ErrorKind::usage at its line); nullopt when none is set.
    [[nodiscard]] auto configured_format(const Config& config, std::string_view command,
                                         const std::vector<std::string>& allowed)
      -> util::Result<std::optional<std::string>>;

    // The ids a configuration may name: an unknown one is an error.
    struct KnownIds
    {
        std::vector<std::string> rules;         // lint rule ids (--list-rules)
        std::vector<std::string> doctor_checks; // doctor check ids (doctor --list)
        std::vector<std::string> commands;      // the commands, for [format]
    };

    // The text of `.envcheck.toml` (every table at the top level).
    [[nodiscard]] auto parse_config(std::string_view text, std::string_view file_name,
                                    const KnownIds& known) -> util::Result<Config>;

    // The text of pyproject.toml: its [tool.envcheck] table; nullopt when it has none.
    [[nodiscard]] auto parse_pyproject_config(std::string_view text, std::string_view file_name,
                                              const KnownIds& known)
      -> util::Result<std::optional<Config>>;

    // Whether `path` (relative to the configuration file's directory, '/'-separated) matches a
    // per-file glob: a glob with a '/' matches the whole path, one without the file name.
    [[nodiscard]] auto glob_matches(std::string_view glob, std::string_view path) -> bool;

    // The configuration's keys, as `envcheck config` and the README document them.
    struct KeyInfo
    {
        std::string_view key; // "lint.ignore"
        std::string_view type;
        std::string_view description;
    };
    [[nodiscard]] auto config_keys() -> std::vector<KeyInfo>;
}

#endif
