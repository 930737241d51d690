// How a pure module has independent items of work run: fn(i) for every i in [0, count), in any
// order and possibly at once, returning when all have run. The caller chooses: a use case hands
// its Workers port (app/ports.hpp), which runs them on threads; tests and callers without threads
// hand for_each_index_serially. Pure modules never start threads themselves.
#ifndef ENVCHECK_UTIL_FOR_EACH_INDEX_HPP
#define ENVCHECK_UTIL_FOR_EACH_INDEX_HPP

#include <cstddef>
#include <functional>

namespace envcheck::util
{
    using IndexWork = std::function<void(std::size_t index)>;
    using ForEachIndex = std::function<void(std::size_t count, const IndexWork& work)>;

    inline void for_each_index_serially(std::size_t count, const IndexWork& work)
    {
        for (std::size_t index = 0; index < count; ++index)
        {
            work(index);
        }
    }

    // Below this many items of a few microseconds each (a spec text judged, a package compared)
    // starting threads costs more than they save (bench_check_scaling).
    inline constexpr std::size_t items_worth_threads = 1024;

    // for_each over `count` items that each hold `weight` of those small items, or serially when
    // all of them together are fewer than items_worth_threads.
    inline void for_each_if_worth(const ForEachIndex& for_each, std::size_t count,
                                  std::size_t weight, const IndexWork& work)
    {
        if (count * weight < items_worth_threads)
        {
            for_each_index_serially(count, work);
            return;
        }
        for_each(count, work);
    }

    // for_each_if_worth over [0, count) cut into runs of `run_length` items (the last one
    // shorter): work(begin, end) for each run, when an item is too small to be a task alone or
    // a run shares something (a cache) that its items must not share with other threads.
    inline void for_each_run(const ForEachIndex& for_each, std::size_t count,
                             std::size_t run_length,
                             const std::function<void(std::size_t begin, std::size_t end)>& work)
    {
        for_each_if_worth(for_each, (count + run_length - 1) / run_length, run_length,
                          [&](std::size_t run)
                          {
                              const std::size_t begin = run * run_length;
                              work(begin, begin + run_length < count ? begin + run_length : count);
                          });
    }
}

#endif
