// envcheck's lock (`envcheck lock`, schemas/lock.schema.json) as JSON text, both ways, and the
// entry point that reads any supported lock: ours, conda-lock.yml, pixi.lock, @EXPLICIT,
// uv.lock or pylock.toml, told apart by content (the TOML locks by file name first). The
// formats are rows of a registry (lock_formats()): the file names each is written to, and its
// reader.
//
// The default lock of an environment file sits beside it: environment.yml ->
// environment.lock.json (<stem>.lock.json).
#ifndef ENVCHECK_FORMATS_LOCK_HPP
#define ENVCHECK_FORMATS_LOCK_HPP

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/conda_lock.hpp"
#include "model/lock.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    inline constexpr int lock_schema_version = 1;

    // Deterministic: keys in schema order, packages as model::sort_packages orders them, two
    // spaces of indentation, a final newline; unknown values are null.
    [[nodiscard]] auto render_lock(const model::Lock& lock) -> std::string;

    [[nodiscard]] auto parse_lock(std::string_view text, std::string_view file_name)
      -> util::Result<model::Lock>;

    // A row of the lock-format registry.
    struct LockFormatInfo
    {
        model::LockFormat format;
        std::string_view description; // "a uv.lock"
        // The names files of this format go by (globs on the base name): how a project's locks
        // are found, and how uv.lock and pylock.toml are told from other TOML.
        std::span<const std::string_view> file_names;
        // Text -> the lock of one selection (platform, environment, categories, python).
        util::Result<model::Lock> (*read)(std::string_view text, std::string_view file_name,
                                          const LockSelection& selection);
    };

    [[nodiscard]] auto lock_formats() -> std::span<const LockFormatInfo>;
    [[nodiscard]] auto lock_format_info(model::LockFormat format) -> const LockFormatInfo&;
    // The format a file's base name says it holds ("uv.lock", "pylock.dev.toml"), if any.
    // uv.lock and pylock.toml: which packages apply depends on markers, and so on the python
    // they are read for (LockSelection::python_version).
    [[nodiscard]] auto selects_by_python(model::LockFormat format) -> bool;

    [[nodiscard]] auto lock_format_by_file_name(std::string_view file_name)
      -> std::optional<model::LockFormat>;

    // Which format `text` is in. Files that are not locks (a `conda list --export` list, a
    // plain spec list) are refused with ErrorKind::unsupported and what they look like.
    [[nodiscard]] auto detect_lock_format(std::string_view text, std::string_view file_name)
      -> util::Result<model::LockFormat>;

    // Whether the text is a `conda list --export` list: its first line that is not a comment
    // reads name=version=build.
    [[nodiscard]] auto is_export_list(std::string_view text) -> bool;

    // Reads any supported lock; `selection` picks the platform (and the pixi environment).
    [[nodiscard]] auto parse_any_lock(std::string_view text, std::string_view file_name,
                                      const LockSelection& selection) -> util::Result<model::Lock>;

    // What a lock holds, every platform and environment read.
    struct LockOutline
    {
        model::LockFormat format = model::LockFormat::envcheck;
        std::string format_version;
        std::vector<std::string> platforms;    // conda subdirs; pixi.lock v7: platform names
        std::vector<std::string> environments; // pixi.lock
        std::vector<std::string> categories;   // conda-lock
        std::size_t packages = 0;              // summed over platforms and environments
    };

    // Reads every platform (and pixi environment) of a lock as parse_any_lock would, and
    // returns the outline, or the first error any of them gives: how lint checks a lock.
    [[nodiscard]] auto outline_lock(std::string_view text, std::string_view file_name)
      -> util::Result<LockOutline>;

    // "envs/environment.yml" -> "envs/environment.lock.json"; "" -> "environment.lock.json".
    [[nodiscard]] auto default_lock_path(std::string_view environment_file) -> std::string;

    // Whether two locks record the same environment and machine: everything but created_at and
    // envcheck_version.
    [[nodiscard]] auto same_content(const model::Lock& a, const model::Lock& b) -> bool;
}

#endif
