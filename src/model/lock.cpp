#include "model/lock.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace envcheck::model
{
    namespace
    {
        constexpr std::array<std::pair<LockFormat, std::string_view>, 6> format_names{ {
          { LockFormat::envcheck, "envcheck" },
          { LockFormat::conda_lock, "conda-lock" },
          { LockFormat::pixi, "pixi" },
          { LockFormat::explicit_, "explicit" },
          { LockFormat::uv, "uv" },
          { LockFormat::pylock, "pylock" },
        } };
    }

    auto to_string(LockFormat format) -> std::string_view
    {
        for (const auto& [value, name] : format_names)
        {
            if (value == format)
            {
                return name;
            }
        }
        return "envcheck";
    }

    auto parse_lock_format(std::string_view text) -> std::optional<LockFormat>
    {
        for (const auto& [value, name] : format_names)
        {
            if (name == text)
            {
                return value;
            }
        }
        return std::nullopt;
    }

    void sort_packages(std::vector<Package>& packages)
    {
        std::stable_sort(packages.begin(), packages.end(),
                         [](const Package& a, const Package& b)
                         {
                             if (a.manager != b.manager)
                             {
                                 return a.manager == Manager::conda;
                             }
                             return package_key(a) < package_key(b);
                         });
    }
}
