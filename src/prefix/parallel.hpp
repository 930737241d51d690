// Runs fn(i) for i in [0, count) on up to `threads` threads (0: one per core), handing out
// indices one at a time so that a few large items (multi-MB records, big files) do not leave a
// thread idle.
#ifndef ENVCHECK_PREFIX_PARALLEL_HPP
#define ENVCHECK_PREFIX_PARALLEL_HPP

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <thread>
#include <vector>

namespace envcheck::prefix
{
    [[nodiscard]] inline auto worker_count(unsigned requested, std::size_t items) -> std::size_t
    {
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        const std::size_t wanted = requested == 0 ? cores : requested;
        return std::max<std::size_t>(1, std::min(wanted, items));
    }

    template<class Fn>
    void parallel_for(std::size_t count, unsigned threads, Fn&& fn)
    {
        std::atomic<std::size_t> next{ 0 };
        const auto work = [&]
        {
            for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1))
            {
                fn(i);
            }
        };
        const std::size_t workers = worker_count(threads, count);
        std::vector<std::jthread> helpers;
        helpers.reserve(workers - 1);
        for (std::size_t i = 1; i < workers; ++i)
        {
            helpers.emplace_back(work);
        }
        work();
    }
}

#endif
