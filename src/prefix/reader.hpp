// Reads an installed environment: a conda prefix (conda-meta/*.json records, CEP 32) or a
// plain Python venv (pyvenv.cfg), plus the Python distributions in its site-packages that no
// conda record owns (pip, uv, ...). Records are read in parallel; a record or distribution that
// cannot be read is reported (file, position, reason) and the rest are still read.
#ifndef ENVCHECK_PREFIX_READER_HPP
#define ENVCHECK_PREFIX_READER_HPP

#include <string>

#include "model/environment.hpp"
#include "util/result.hpp"

namespace envcheck::prefix
{
    struct ReadOptions
    {
        bool files = false;   // also read every record's files and paths_data (check --deep)
        unsigned threads = 0; // 0: one per usable CPU (prefix/cpus.hpp)
    };

    // Fails only when `prefix` is not an environment at all (missing, not a directory, neither
    // conda-meta/ nor pyvenv.cfg): ErrorKind::io or usage.
    [[nodiscard]] auto read_prefix(const std::string& prefix, const ReadOptions& options = {})
      -> util::Result<model::InstalledEnvironment>;

    // pyvenv.cfg's Python version ("version" or "version_info" key), if it states one.
    [[nodiscard]] auto pyvenv_python_version(std::string_view pyvenv_cfg)
      -> std::optional<std::string>;
}

#endif
