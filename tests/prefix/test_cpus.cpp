#include <filesystem>
#include <fstream>
#include <optional>
#include <sched.h>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "prefix/cpus.hpp"
#include "prefix/parallel.hpp"
#include "tests/catch.hpp"
#include "tests/temp_dir.hpp"

using namespace envcheck;

namespace
{
    namespace fs = std::filesystem;

    // A root with the files of `files` (path relative to it, content), removed afterwards.
    struct Root
    {
        tests::TempDir dir;

        explicit Root(const std::vector<std::pair<std::string, std::string>>& files)
        {
            for (const auto& [name, content] : files)
            {
                fs::create_directories((dir.path() / name).parent_path());
                std::ofstream(dir.path() / name) << content;
            }
        }
    };

    TEST_CASE("cpu.max: a quota in whole CPUs, rounded down, at least one", "[prefix][cpus]")
    {
        const std::pair<const char*, std::optional<unsigned>> cases[] = {
            { "max 100000\n", std::nullopt },           // no quota
            { "max\n", std::nullopt },                  //
            { "200000 100000\n", 2U },                  // two CPUs
            { "150000 100000", 1U },                    // one and a half: one
            { "50000 100000\n", 1U },                   // half a CPU: still one thread
            { "400000 50000", 8U },                     // a shorter period
            { "300000", 3U },                           // the period left at its default
            { "0 100000", std::nullopt },               // not a quota
            { "-1 100000", std::nullopt },              //
            { "200000 0", std::nullopt },               //
            { "", std::nullopt },                       //
            { "two 100000", std::nullopt },             //
            { "200000 100000 7", std::nullopt },        //
            { "99999999999999999999 1", std::nullopt }, // overflows: unreadable
        };
        for (const auto& [text, cpus] : cases)
        {
            INFO(text);
            CHECK(prefix::cpus_of_cpu_max(text) == cpus);
        }
    }

    TEST_CASE("cgroup v1: cfs_quota_us over cfs_period_us", "[prefix][cpus]")
    {
        CHECK(prefix::cpus_of_cfs_quota("-1\n", "100000\n") == std::nullopt);
        CHECK(prefix::cpus_of_cfs_quota("400000\n", "100000\n") == 4U);
        CHECK(prefix::cpus_of_cfs_quota("50000", "100000") == 1U);
        CHECK(prefix::cpus_of_cfs_quota("", "100000") == std::nullopt);
        CHECK(prefix::cpus_of_cfs_quota("400000", "") == std::nullopt);
    }

    TEST_CASE("usable CPUs: the affinity bounded by the cgroup's quota and its ancestors'",
              "[prefix][cpus]")
    {
        struct Case
        {
            const char* what;
            std::vector<std::pair<std::string, std::string>> files;
            unsigned affinity;
            unsigned usable;
        };
        const std::string scope = "sys/fs/cgroup/kubepods.slice/pod1/container";
        const Case cases[] = {
            { "no /proc/self/cgroup: the affinity", {}, 8, 8 },
            { "v2 without a quota",
              { { "proc/self/cgroup", "0::/kubepods.slice/pod1/container\n" },
                { scope + "/cpu.max", "max 100000\n" } },
              8,
              8 },
            { "v2: the container's quota",
              { { "proc/self/cgroup", "0::/kubepods.slice/pod1/container\n" },
                { scope + "/cpu.max", "200000 100000\n" } },
              8,
              2 },
            { "v2: a parent's smaller quota",
              { { "proc/self/cgroup", "0::/kubepods.slice/pod1/container\n" },
                { scope + "/cpu.max", "400000 100000\n" },
                { "sys/fs/cgroup/kubepods.slice/pod1/cpu.max", "300000 100000\n" } },
              8,
              3 },
            { "v2: a quota above the affinity",
              { { "proc/self/cgroup", "0::/kubepods.slice/pod1/container\n" },
                { scope + "/cpu.max", "1600000 100000\n" } },
              4,
              4 },
            { "v2 in a cgroup namespace: the mount's own cpu.max",
              { { "proc/self/cgroup", "0::/\n" }, { "sys/fs/cgroup/cpu.max", "300000 100000" } },
              16,
              3 },
            { "v2: a path the mount does not have (no cgroup namespace): its root's quota",
              { { "proc/self/cgroup", "0::/docker/abc\n" },
                { "sys/fs/cgroup/cpu.max", "200000 100000" } },
              16,
              2 },
            { "v2: a path with '..' is not what the kernel writes: no bound",
              { { "proc/self/cgroup", "0::/../etc\n" }, { "sys/fs/cgroup/cpu.max", "1 100000" } },
              16,
              16 },
            { "v1: the cpu controller's quota",
              { { "proc/self/cgroup", "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/"
                                      "abc\n1:name=systemd:/docker/abc\n" },
                { "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_quota_us", "150000\n" },
                { "sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.cfs_period_us", "50000\n" } },
              8,
              3 },
            { "v1 without a quota",
              { { "proc/self/cgroup", "4:cpu,cpuacct:/\n" },
                { "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n" },
                { "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n" } },
              8,
              8 },
            { "hybrid: the smaller of v1's and v2's",
              { { "proc/self/cgroup", "4:cpu,cpuacct:/a\n0::/b\n" },
                { "sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_quota_us", "500000\n" },
                { "sys/fs/cgroup/cpu,cpuacct/a/cpu.cfs_period_us", "100000\n" },
                { "sys/fs/cgroup/b/cpu.max", "600000 100000\n" } },
              8,
              5 },
            { "lines that are not cgroups are passed over",
              { { "proc/self/cgroup", "garbage\n\n0:/x\n0::/\n" },
                { "sys/fs/cgroup/cpu.max", "200000 100000" } },
              8,
              2 },
            { "one CPU: no quota is read", { { "proc/self/cgroup", "0::/\n" } }, 1, 1 },
            { "an affinity of none counts as one", {}, 0, 1 },
        };
        for (const auto& each : cases)
        {
            INFO(each.what);
            const Root root(each.files);
            CHECK(prefix::usable_cpus_under(root.dir.string(), each.affinity) == each.usable);
        }
    }

    TEST_CASE("usable CPUs follow the thread's affinity mask (taskset, a cpuset)", "[prefix][cpus]")
    {
        // On a thread of its own, pinned to the one CPU it runs on.
        bool pinned = false;
        unsigned counted = 0;
        unsigned mask = 0;
        std::thread(
          [&]
          {
              cpu_set_t one;
              CPU_ZERO(&one);
              CPU_SET(::sched_getcpu(), &one);
              pinned = ::sched_setaffinity(0, sizeof one, &one) == 0;
              counted = prefix::count_usable_cpus();
              mask = prefix::affinity_cpus();
          })
          .join();
        REQUIRE(pinned);
        CHECK(counted == 1);
        CHECK(mask == 1);
        // The process's own: at least one, at most the machine's.
        CHECK(prefix::usable_cpus() >= 1);
        CHECK(prefix::usable_cpus() <= std::max(1U, std::thread::hardware_concurrency()));
        CHECK(prefix::worker_count(0, 1000) == prefix::usable_cpus());
        CHECK(prefix::worker_count(0, 1) == 1);
        CHECK(prefix::worker_count(7, 1000) == 7);
    }
}
