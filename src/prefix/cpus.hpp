// How many CPUs this process may keep busy, which sizes parallel_for's threads and the helpers
// it keeps: the CPUs of its affinity mask (taskset, a Slurm job's or a container's cpuset),
// bounded by its cgroup's CPU quota (a Kubernetes limit, systemd's CPUQuota), as Rust's
// std::thread::available_parallelism counts them. The machine's CPU count is not it: a job
// given 4 CPUs of a 128-core node that started a thread per core would take turns with itself,
// and a helper spinning under a quota spends the quota.
#ifndef ENVCHECK_PREFIX_CPUS_HPP
#define ENVCHECK_PREFIX_CPUS_HPP

#include <optional>
#include <string>
#include <string_view>

namespace envcheck::prefix
{
    // cgroup v2's cpu.max ("200000 100000": a quota and its period in microseconds): the quota
    // in whole CPUs, rounded down, at least 1; nullopt for "max" (no quota) or unreadable text.
    [[nodiscard]] auto cpus_of_cpu_max(std::string_view text) -> std::optional<unsigned>;

    // cgroup v1's cpu.cfs_quota_us ("-1": no quota) and cpu.cfs_period_us, the same way.
    [[nodiscard]] auto cpus_of_cfs_quota(std::string_view quota, std::string_view period)
      -> std::optional<unsigned>;

    // `affinity` (at least 1) bounded by the smallest CPU quota of the cgroup that `root`'s
    // /proc/self/cgroup names and of its ancestors, read under root/sys/fs/cgroup (v2; v1's cpu
    // controller under cpu,cpuacct/ or cpu/). What cannot be read sets no bound. `root` is ""
    // (the machine's) but in tests.
    [[nodiscard]] auto usable_cpus_under(const std::string& root, unsigned affinity) -> unsigned;

    // The CPUs of the calling thread's affinity mask (a system call, no file read), at least 1.
    [[nodiscard]] auto affinity_cpus() -> unsigned;

    // This process's usable CPUs, counted now (the calling thread's affinity mask).
    [[nodiscard]] auto count_usable_cpus() -> unsigned;

    // count_usable_cpus() at the first call, for the rest of the process.
    [[nodiscard]] auto usable_cpus() -> unsigned;
}

#endif
