#include "model/lock.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <tuple>
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
        // A prefix's records come in file-name order, and a lock's packages as this sorted them,
        // which is nearly always this order: then no key is made and nothing moves (issue 19:
        // making 5,000 keys to find that out was most of sorting).
        if (std::is_sorted(packages.begin(), packages.end(), package_key_less))
        {
            return;
        }
        // Each key made once, and the packages moved once: a comparison that made two keys was
        // most of sorting 10,000 records (tests/bench/RESULTS.md, "check: scaling").
        struct Entry
        {
            bool pip = false; // conda first
            std::string key;
            std::size_t index = 0;
        };
        std::vector<Entry> order;
        order.reserve(packages.size());
        for (std::size_t i = 0; i < packages.size(); ++i)
        {
            order.push_back(
              Entry{ packages[i].manager != Manager::conda, package_key(packages[i]), i });
        }
        const auto by_key = [](const Entry& a, const Entry& b)
        { return std::tie(a.pip, a.key) < std::tie(b.pip, b.key); };
        std::stable_sort(order.begin(), order.end(), by_key);
        std::vector<Package> sorted;
        sorted.reserve(packages.size());
        for (const auto& entry : order)
        {
            sorted.push_back(std::move(packages[entry.index]));
        }
        packages = std::move(sorted);
    }
}
