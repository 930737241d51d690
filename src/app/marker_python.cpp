#include "app/marker_python.hpp"

#include <algorithm>
#include <utility>

#include "formats/lock.hpp"
#include "util/strings.hpp"

namespace envcheck::app
{
    MarkerPython::MarkerPython(std::string requested, Frameworks& frameworks)
      : m_requested(std::move(requested))
      , m_frameworks(frameworks)
    {
    }

    void MarkerPython::apply(std::string_view text, std::string_view file_name,
                             formats::LockSelection& selection)
    {
        const auto format = formats::detect_lock_format(text, file_name);
        if (!format || !formats::selects_by_python(*format))
        {
            return;
        }
        if (!m_requested.empty())
        {
            selection.python_version = m_requested;
            selection.python_source = "--python";
            return;
        }
        if (!m_path_python)
        {
            m_path_python = m_frameworks.path_python_version();
        }
        if (*m_path_python)
        {
            selection.python_version = **m_path_python;
            selection.python_source = "python3 on PATH; --python X.Y chooses another";
        }
    }

    auto check_python_version(const std::string& text) -> util::Result<void>
    {
        const auto parts = util::split(text, '.');
        const bool plain =
          !text.empty() && parts.size() <= 3 &&
          std::all_of(parts.begin(), parts.end(),
                      [](std::string_view part)
                      {
                          return !part.empty() && part.size() <= 4 &&
                                 std::all_of(part.begin(), part.end(), util::is_digit);
                      });
        if (plain)
        {
            return {};
        }
        return util::unexpected(util::make_error(util::ErrorKind::usage,
                                                 "--python '" + text + "' is not a python version",
                                                 {}, "give it as 3.11 or 3.11.7"));
    }
}
