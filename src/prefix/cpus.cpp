#include "prefix/cpus.hpp"

#include <algorithm>
#include <sched.h>
#include <thread>
#include <vector>

#include "fsio/files.hpp"
#include "util/strings.hpp"

namespace envcheck::prefix
{
    namespace
    {
        // /proc/self/cgroup and the quota files are a line or a few; anything larger is not one.
        constexpr std::size_t cgroup_file_limit = std::size_t{ 1 } << 16;

        auto read_small(const std::string& path) -> std::optional<std::string>
        {
            auto text = fsio::read_file(path, cgroup_file_limit);
            return text ? std::optional(std::move(*text)) : std::nullopt;
        }

        auto whole_cpus(long long quota, long long period) -> std::optional<unsigned>
        {
            if (quota <= 0 || period <= 0)
            {
                return std::nullopt;
            }
            const long long cpus = quota / period;
            return static_cast<unsigned>(std::clamp<long long>(cpus, 1, 1 << 20));
        }

        // One cgroup of /proc/self/cgroup: "hierarchy-id:controllers:path".
        struct CgroupLine
        {
            std::string_view id;
            std::string_view controllers;
            std::string_view path;
        };

        auto cgroup_lines(std::string_view text) -> std::vector<CgroupLine>
        {
            std::vector<CgroupLine> lines;
            for (const auto line : util::split_lines(text))
            {
                const auto first = line.find(':');
                const auto second =
                  first == std::string_view::npos ? first : line.find(':', first + 1);
                if (second == std::string_view::npos)
                {
                    continue;
                }
                lines.push_back(CgroupLine{ line.substr(0, first),
                                            line.substr(first + 1, second - first - 1),
                                            line.substr(second + 1) });
            }
            return lines;
        }

        auto has_cpu_controller(std::string_view controllers) -> bool
        {
            for (const auto controller : util::split(controllers, ','))
            {
                if (controller == "cpu")
                {
                    return true;
                }
            }
            return false;
        }

        // The smallest quota of `read_quota(directory)` over the directories from
        // base + `path` up to `base` itself (a child cgroup may not exceed its ancestors').
        template<class ReadQuota>
        auto smallest_quota(const std::string& base, std::string_view path,
                            const ReadQuota& read_quota) -> std::optional<unsigned>
        {
            std::vector<std::string_view> parts;
            for (const auto part : util::split(path, '/'))
            {
                if (part.empty() || part == ".")
                {
                    continue;
                }
                if (part == "..")
                {
                    return std::nullopt; // not what the kernel writes
                }
                parts.push_back(part);
            }
            std::optional<unsigned> smallest;
            while (true)
            {
                std::string directory = base;
                for (const auto part : parts)
                {
                    directory.append("/").append(part);
                }
                if (const auto quota = read_quota(directory))
                {
                    smallest = std::min(smallest.value_or(*quota), *quota);
                }
                if (parts.empty())
                {
                    return smallest;
                }
                parts.pop_back();
            }
        }

        auto v2_quota(const std::string& root, std::string_view path) -> std::optional<unsigned>
        {
            return smallest_quota(root + "/sys/fs/cgroup", path,
                                  [](const std::string& directory) -> std::optional<unsigned>
                                  {
                                      const auto text = read_small(directory + "/cpu.max");
                                      return text ? cpus_of_cpu_max(*text) : std::nullopt;
                                  });
        }

        auto v1_quota(const std::string& root, const CgroupLine& line) -> std::optional<unsigned>
        {
            const auto read_quota = [](const std::string& directory) -> std::optional<unsigned>
            {
                const auto quota = read_small(directory + "/cpu.cfs_quota_us");
                if (!quota || util::trim(*quota) == "-1")
                {
                    return std::nullopt; // no quota: its period is not read (start-up time)
                }
                const auto period = read_small(directory + "/cpu.cfs_period_us");
                return period ? cpus_of_cfs_quota(*quota, *period) : std::nullopt;
            };
            // Mounted by its controllers' names ("cpu,cpuacct"), or as "cpu" (a link to it).
            for (const std::string_view mount : { line.controllers, std::string_view("cpu") })
            {
                std::string base = root;
                base.append("/sys/fs/cgroup/").append(mount);
                if (fsio::path_kind(base) == fsio::PathKind::directory)
                {
                    return smallest_quota(base, line.path, read_quota);
                }
            }
            return std::nullopt;
        }
    }

    auto cpus_of_cpu_max(std::string_view text) -> std::optional<unsigned>
    {
        const auto fields = util::split(util::trim(text), ' ');
        if (fields.size() > 2 || fields[0] == "max")
        {
            return std::nullopt;
        }
        // The period defaults to 100 ms where only the quota is written.
        const auto quota = util::parse_int(fields[0]);
        const auto period = fields.size() == 2 ? util::parse_int(fields[1]) : 100'000LL;
        return quota && period ? whole_cpus(*quota, *period) : std::nullopt;
    }

    auto cpus_of_cfs_quota(std::string_view quota, std::string_view period)
      -> std::optional<unsigned>
    {
        const auto quota_us = util::parse_int(util::trim(quota));
        const auto period_us = util::parse_int(util::trim(period));
        return quota_us && period_us ? whole_cpus(*quota_us, *period_us) : std::nullopt;
    }

    auto usable_cpus_under(const std::string& root, unsigned affinity) -> unsigned
    {
        affinity = std::max(1u, affinity);
        if (affinity == 1)
        {
            return 1; // no quota makes it fewer
        }
        const auto cgroups = read_small(root + "/proc/self/cgroup");
        if (!cgroups)
        {
            return affinity;
        }
        std::optional<unsigned> bound;
        for (const auto& line : cgroup_lines(*cgroups))
        {
            const auto quota = line.id == "0" && line.controllers.empty()
                                 ? v2_quota(root, line.path)
                               : has_cpu_controller(line.controllers) ? v1_quota(root, line)
                                                                      : std::nullopt;
            if (quota)
            {
                bound = std::min(bound.value_or(*quota), *quota);
            }
        }
        return std::min(affinity, bound.value_or(affinity));
    }

    auto affinity_cpus() -> unsigned
    {
        cpu_set_t allowed;
        CPU_ZERO(&allowed);
        const unsigned affinity =
          ::sched_getaffinity(0, sizeof allowed, &allowed) == 0
            ? static_cast<unsigned>(CPU_COUNT(&allowed))
            : std::thread::hardware_concurrency(); // more CPUs than a cpu_set_t holds
        return std::max(1U, affinity);
    }

    auto count_usable_cpus() -> unsigned
    {
        return usable_cpus_under("", affinity_cpus());
    }

    auto usable_cpus() -> unsigned
    {
        static const unsigned cpus = count_usable_cpus();
        return cpus;
    }
}
