// What the two Python lock readers (formats/uv_lock.hpp, formats/pylock.hpp) share: the marker
// environment a lock is read for, marker evaluation with positions, the artifact that stands
// for a package with several wheels, index options, and the note on what was left out. Pure.
#ifndef ENVCHECK_FORMATS_PYTHON_LOCK_HPP
#define ENVCHECK_FORMATS_PYTHON_LOCK_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/conda_lock.hpp"
#include "formats/toml_document.hpp"
#include "model/lock.hpp"
#include "pypi/marker.hpp"
#include "util/result.hpp"

namespace envcheck::formats::python_lock
{
    // An error at a TOML value's position.
    [[nodiscard]] auto error_at(util::ErrorKind kind, std::string_view file_name,
                                const TomlValue& where, std::string message, std::string hint = {})
      -> util::Error;

    // The environment the lock is read for: LockSelection's platform (a conda subdir) and python
    // version (with its source, when it is not an installed environment's, said in a note).
    // Without a python version, the lowest version that `requires_python` allows, said in a
    // note; without either, python markers never match.
    struct Target
    {
        pypi::MarkerEnvironment markers;
        std::string description; // "linux-64, python 3.11.7"
    };

    [[nodiscard]] auto target_for(const LockSelection& selection, std::string_view requires_python,
                                  std::string_view file_name, std::vector<std::string>& notes)
      -> util::Result<Target>;

    // Evaluates a marker string; an empty marker is true. Errors point into the string.
    [[nodiscard]] auto evaluate(const TomlValue& marker, const pypi::MarkerEnvironment& markers,
                                std::string_view file_name) -> util::Result<bool>;

    struct Artifact
    {
        std::string url; // a URL, or a path as the lock writes it
        std::string filename;
        std::string sha256; // lowercase hex, "" when the lock records none
        std::optional<std::uint64_t> size;
    };

    // "sha256:<hex>" (uv.lock) -> "<hex>"; other algorithms -> "".
    [[nodiscard]] auto sha256_of_hash(std::string_view hash) -> std::string;

    // The artifact a package's hash and URL are taken from: its only wheel, else its pure-Python
    // wheel (*-none-any.whl), else its sdist, else its first wheel.
    [[nodiscard]] auto representative(const std::vector<Artifact>& wheels,
                                      const std::optional<Artifact>& sdist)
      -> std::optional<Artifact>;

    // Adds "--index-url"/"--extra-index-url"/"--find-links" for an index a package comes from,
    // once; PyPI's own index adds nothing.
    void add_index(model::Lock& lock, std::string_view index, bool find_links);

    // "uv.lock: left out for linux-64, python 3.11.7: winonly 0.1.0 (sys_platform == 'win32')".
    [[nodiscard]] auto left_out_note(std::string_view file_name, const Target& target,
                                     const std::vector<std::string>& left_out) -> std::string;

    // How a uv.lock or pylock.toml reading ends: the notes on what the markers left out and on
    // the optional packages, and both package lists sorted.
    void finish(model::Lock& lock, std::string_view file_name, const Target& target,
                const std::vector<std::string>& left_out);
}

#endif
