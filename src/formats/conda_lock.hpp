// conda-lock.yml (CEP 37, `version: 1`) as text -> the lock of one platform. pixi wrote the same
// layout as its lock versions 2 and 3 (`manager: pypi` for PyPI packages); those are read too,
// as pixi locks. Files without a version key, or with another version, are refused with a
// message naming it.
//
// Categories: conda-lock files the packages of each source under a category ("main", "dev",
// one per extra; `optional: true` for all but main). Every category is read by default, each
// package keeping its category (main when it is listed under main and another);
// LockSelection::categories keeps only the packages listed under those, and the others become
// Lock::optional_packages (compared when installed, never reported missing). A note names the
// categories and how many packages each holds.
#ifndef ENVCHECK_FORMATS_CONDA_LOCK_HPP
#define ENVCHECK_FORMATS_CONDA_LOCK_HPP

#include <string>
#include <string_view>
#include <vector>

#include "formats/yaml_document.hpp"
#include "model/lock.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    struct LockSelection
    {
        // conda subdir ("linux-64"), or a pixi.lock v7 platform name ("linux-64-cuda")
        std::string platform;
        std::string environment = "default";   // pixi environments
        std::vector<std::string> categories{}; // conda-lock categories; empty: all
        // uv.lock, pylock.toml: the python whose markers select packages ("3.11.7"); empty:
        // not known (formats/python_lock.hpp says what is assumed then).
        std::string python_version{};
        // Where python_version came from ("python3 on PATH"), said in a note; empty: an
        // installed environment's own python, which needs no note.
        std::string python_source{};
    };

    [[nodiscard]] auto parse_conda_lock(std::string_view text, std::string_view file_name,
                                        const LockSelection& selection)
      -> util::Result<model::Lock>;

    // The same on a loaded document, whose root is a mapping (outline_lock reads every platform
    // of one document).
    [[nodiscard]] auto read_conda_lock(const yaml::Node& root, std::string_view file_name,
                                       const LockSelection& selection) -> util::Result<model::Lock>;
}

#endif
