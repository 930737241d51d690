// The python a universal lock (uv.lock, pylock.toml) selects its packages for when no
// environment is installed (diff, export --lock, check --env --lock): --python, else the python3
// on PATH, else none, so that the lowest version requires-python allows is assumed
// (formats/python_lock.hpp). Locks that do not select by python markers are read as they are.
#ifndef ENVCHECK_APP_MARKER_PYTHON_HPP
#define ENVCHECK_APP_MARKER_PYTHON_HPP

#include <optional>
#include <string>
#include <string_view>

#include "app/ports.hpp"
#include "formats/conda_lock.hpp"

namespace envcheck::app
{
    class MarkerPython
    {
    public:
        // `requested`: --python ("3.11" or "3.11.7"); empty: ask the python3 on PATH.
        MarkerPython(std::string requested, Frameworks& frameworks);

        // Sets selection.python_version and python_source for a lock in `text` that selects by
        // python markers; leaves other locks' selections alone. PATH's python3 is asked at
        // most once.
        void apply(std::string_view text, std::string_view file_name,
                   formats::LockSelection& selection);

    private:
        std::string m_requested;
        Frameworks& m_frameworks;
        std::optional<std::optional<std::string>> m_path_python; // asked: its answer
    };

    // "3", "3.11", "3.11.7": digits, at most three parts; usage error otherwise (--python).
    [[nodiscard]] auto check_python_version(const std::string& text) -> util::Result<void>;
}

#endif
