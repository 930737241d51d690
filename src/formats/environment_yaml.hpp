// environment.yml (CEP 24) as text -> a structured environment file whose every element keeps
// its line and column. Pure: libyaml's event parser (formats/yaml_document.hpp) runs on the text,
// and yaml-cpp where libyaml fails or cannot judge, so that YAML errors read as they always have;
// nothing here reads a file.
//
// What the loader accepts is what conda accepts (conda/env/env.py): the keys `name`, `prefix`,
// `channels`, `dependencies` (MatchSpec strings plus the `pip:` subsection) and `variables`.
// schemas/environment.schema.json describes the same structure for other tools.
//
// Two kinds of problems:
//  - The text is not a loadable environment file at all (YAML syntax, tabs in indentation,
//    merge-conflict markers, Jinja templates, invalid UTF-8, an empty file, several documents,
//    duplicate keys, a top level that is not a mapping): loading fails with one error that has a
//    rule id and a position. yaml-cpp accepts duplicate keys, conflict markers inside block
//    scalars and Jinja flow mappings without complaint, so those are found here, not by it.
//  - The file loads but parts of it are wrong or unusual (a number where a string belongs, an
//    unknown key, an unknown subsection): the element is left out and a diagnostic with
//    severity "error", "warning" or "info" is recorded. Consumers that act on the file (lock,
//    check) must refuse it when has_errors() is true.
#ifndef ENVCHECK_FORMATS_ENVIRONMENT_YAML_HPP
#define ENVCHECK_FORMATS_ENVIRONMENT_YAML_HPP

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/severity.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    // 1-based; 0 = unknown.
    struct TextPosition
    {
        std::size_t line = 0;
        std::size_t column = 0;

        auto operator==(const TextPosition&) const -> bool = default;
    };

    struct EnvString
    {
        std::string value;
        TextPosition position; // of the value's first character (after an opening quote)

        auto operator==(const EnvString&) const -> bool = default;
    };

    // A conda MatchSpec string, as written.
    struct EnvDependency
    {
        std::string text;
        TextPosition position;
        // The platform selector the entry carries, without brackets: conda-lock's comment
        // selector ("- cudatoolkit  # [linux]" -> "linux") or micromamba's dict selector
        // ("- sel(linux): cudatoolkit" -> "linux"); empty when none.
        std::string selector;

        auto operator==(const EnvDependency&) const -> bool = default;
    };

    // One line of a pip: sub-list, as written.
    struct EnvPipLine
    {
        std::string text;
        TextPosition position;
        std::string selector; // a comment selector, as for EnvDependency

        auto operator==(const EnvPipLine&) const -> bool = default;
    };

    struct EnvVariable
    {
        EnvString name;
        EnvString value;

        auto operator==(const EnvVariable&) const -> bool = default;
    };

    struct EnvDiagnostic
    {
        model::Severity severity = model::Severity::error;
        std::string rule; // a stable id, e.g. "yaml.duplicate-key"
        std::string message;
        TextPosition position;
        std::string fix; // one line: what to do about it

        auto operator==(const EnvDiagnostic&) const -> bool = default;
    };

    struct EnvironmentFile
    {
        std::optional<EnvString> name;
        std::optional<EnvString> prefix;
        std::vector<EnvString> channels; // empty + has_channels=false when the key is absent
        bool has_channels = false;
        std::vector<EnvDependency> dependencies; // conda entries only
        std::vector<EnvPipLine> pip;             // entries of every pip: sub-list
        std::vector<EnvVariable> variables;
        std::vector<EnvDiagnostic> diagnostics; // findings that don't stop loading

        bool has_dependencies = false;      // the `dependencies` key is present
        TextPosition channels_position;     // of the `channels` key
        TextPosition dependencies_position; // of the `dependencies` key
        TextPosition pip_position;          // of the first `pip:` subsection key

        auto operator==(const EnvironmentFile&) const -> bool = default;
    };

    // A rule the loader reports under; `envcheck lint --list-rules` lists them with lint's own.
    struct LoaderRule
    {
        std::string_view id;
        model::Severity severity = model::Severity::error;
        std::string_view description;
        std::string_view fix;
    };

    [[nodiscard]] auto loader_rules() -> std::span<const LoaderRule>;

    // The largest environment file read (yaml.too-large beyond): real ones are a few KiB.
    inline constexpr std::size_t environment_file_size_limit = std::size_t{ 8 } << 20;

    // Fails (util::ErrorKind::parse, with file/line/column in util::Error::where and the fix in
    // util::Error::hint) only when the text is not a loadable environment file at all;
    // `file_name` is used in positions and messages.
    [[nodiscard]] auto parse_environment_yaml(std::string_view text, std::string_view file_name)
      -> util::Result<EnvironmentFile>;

    // The same, with the failure as a diagnostic that carries its rule id, so that lint reports
    // it like any other finding.
    [[nodiscard]] auto load_environment_yaml(std::string_view text)
      -> util::Result<EnvironmentFile, EnvDiagnostic>;

    // The two readings behind load_environment_yaml, which the differential test and the fuzz
    // target compare (the same checks of the text come first in both): libyaml's, or nullopt
    // where it leaves the file to yaml-cpp; and yaml-cpp's, the only one before libyaml.
    [[nodiscard]] auto read_environment_yaml_with_libyaml(std::string_view text)
      -> std::optional<util::Result<EnvironmentFile, EnvDiagnostic>>;
    [[nodiscard]] auto read_environment_yaml_with_yaml_cpp(std::string_view text)
      -> util::Result<EnvironmentFile, EnvDiagnostic>;

    // Whether any diagnostic has severity "error": the file loaded, but not all of it could.
    [[nodiscard]] auto has_errors(const EnvironmentFile& file) -> bool;
}

#endif
