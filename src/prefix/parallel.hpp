// Runs fn(i) for i in [0, count) on up to `threads` threads (0: one per CPU this process may
// use, cpus.hpp), handing out indices one at a time so that a few large items (multi-MB
// records, big files) do not leave a thread idle. An exception thrown by fn(i) is caught in its
// thread (it would otherwise end the process through std::terminate) and returned as that
// item's failure. The threads beside the caller are the process's helpers (parallel.cpp),
// started once; more than they are, threads of their own.
#ifndef ENVCHECK_PREFIX_PARALLEL_HPP
#define ENVCHECK_PREFIX_PARALLEL_HPP

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "prefix/cpus.hpp"

namespace envcheck::prefix
{
    // Starts the helpers now rather than at the first parallel_for: a thread takes a while to
    // start running on an idle CPU of a VM, which is better spent before the work is there.
    void start_helpers();

    namespace detail
    {
        // Runs `work` on the calling thread and on up to `helpers` others; returns when every
        // one of them has returned from it.
        void run_with_helpers(std::size_t helpers, const std::function<void()>& work);
    }

    [[nodiscard]] inline auto worker_count(unsigned requested, std::size_t items) -> std::size_t
    {
        const std::size_t wanted = requested == 0 ? usable_cpus() : requested;
        return std::max<std::size_t>(1, std::min(wanted, items));
    }

    // An item whose fn threw: its index and the exception's message.
    struct ItemFailure
    {
        std::size_t index = 0;
        std::string what;
    };

    template<class Fn>
    auto parallel_for(std::size_t count, unsigned threads, Fn&& fn) -> std::vector<ItemFailure>
    {
        std::atomic<std::size_t> next{ 0 };
        std::mutex failures_mutex;
        std::vector<ItemFailure> failures;
        const auto work = [&]
        {
            for (std::size_t i = next.fetch_add(1); i < count; i = next.fetch_add(1))
            {
                std::string what;
                try
                {
                    fn(i);
                    continue;
                }
                catch (const std::exception& error)
                {
                    what = error.what();
                }
                catch (...)
                {
                    what = "an unknown exception";
                }
                const std::scoped_lock lock(failures_mutex);
                failures.push_back(ItemFailure{ i, std::move(what) });
            }
        };
        detail::run_with_helpers(worker_count(threads, count) - 1, work);
        std::sort(failures.begin(), failures.end(),
                  [](const ItemFailure& a, const ItemFailure& b) { return a.index < b.index; });
        return failures;
    }
}

#endif
