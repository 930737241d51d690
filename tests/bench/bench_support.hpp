// What the CPU benchmarks share: reading their options, timing a piece of work over repeated
// runs, running the Python peer each is compared with, and naming the machine a result comes
// from. The GPU benchmarks' helpers are in bench_cuda_support.cuh.
#ifndef ENVCHECK_TESTS_BENCH_BENCH_SUPPORT_HPP
#define ENVCHECK_TESTS_BENCH_BENCH_SUPPORT_HPP

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace envcheck::bench
{
    // One "--name value" option of a bench's command line: what its value sets.
    struct Flag
    {
        std::string_view name;
        std::function<void(const std::string& value)> set;
    };

    // Applies the command line's "--name value" pairs in order (a last name without its value is
    // ignored); returns the first name that `flags` lacks, after which nothing is applied.
    [[nodiscard]] auto read_flags(int argc, char** argv, const std::vector<Flag>& flags)
      -> std::optional<std::string>;

    // The seconds each of `runs` calls of `work` took, in the order they ran.
    template<class Work>
    auto run_seconds(int runs, Work&& work) -> std::vector<double>
    {
        std::vector<double> seconds;
        for (int i = 0; i < runs; ++i)
        {
            const auto start = std::chrono::steady_clock::now();
            work();
            seconds.push_back(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        return seconds;
    }

    // The middle sample, the upper one of an even count: what the Python peers report
    // (samples[len(samples) // 2]), so that a ratio compares like with like.
    inline auto median(std::vector<double> samples) -> double
    {
        std::sort(samples.begin(), samples.end());
        return samples[samples.size() / 2];
    }

    template<class Work>
    auto median_seconds(int runs, Work&& work) -> double
    {
        return median(run_seconds(runs, std::forward<Work>(work)));
    }

    // Runs `python` (a path, or a name looked up on $PATH) with `arguments` and returns what it
    // printed, or "unavailable: why" (not found, failed: the first `error_characters` of its
    // stderr), so that a bench without its peer still prints its own figures.
    [[nodiscard]] auto run_python(const std::string& python,
                                  const std::vector<std::string>& arguments,
                                  std::chrono::seconds timeout, std::size_t error_characters = 300)
      -> std::string;

    // Writes `script` to work/peer.py and runs it as run_python does, `arguments` after it.
    [[nodiscard]] auto run_python_script(const std::string& python, const std::string& script,
                                         const std::filesystem::path& work,
                                         const std::vector<std::string>& arguments,
                                         std::chrono::seconds timeout,
                                         std::size_t error_characters = 300) -> std::string;

    // The CPU's model name from /proc/cpuinfo, or "unknown CPU".
    [[nodiscard]] auto cpu_model() -> std::string;
}

#endif
