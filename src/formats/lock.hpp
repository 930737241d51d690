// envcheck's lock (`envcheck lock`, schemas/lock.schema.json) as JSON text, both ways, and the
// entry point that reads any supported lock: ours, conda-lock.yml, pixi.lock or @EXPLICIT,
// told apart by content.
//
// The default lock of an environment file sits beside it: environment.yml ->
// environment.lock.json (<stem>.lock.json).
#ifndef ENVCHECK_FORMATS_LOCK_HPP
#define ENVCHECK_FORMATS_LOCK_HPP

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
