#include "prefix/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <pthread.h>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace envcheck::prefix
{
    namespace
    {
        // Threads started once and kept for the process's life, which take part in every
        // parallel_for beside its caller. Issue 19: a std::thread started per parallel_for began
        // 0.05 to 3 ms late on a 2-vCPU VM (the idle vCPU has to be woken by the host), and a
        // check starts eight of them: at 5,000 records a tenth of the wall time was one core
        // waiting for the other. A helper that has just finished spins for a while before it
        // sleeps, which keeps its CPU awake for the next job; a sleeping helper is woken.
        class HelperPool
        {
        public:
            // The pool, started on first use; nullptr in a child forked from this process (it
            // has none of the threads) and where no helper could be started.
            static auto get() -> HelperPool*
            {
                static HelperPool* const pool = make();
                return forked_child.load(std::memory_order_relaxed) ? nullptr : pool;
            }

            // A job's share of the helpers: up to `wanted` of them run `work` once each.
            struct Job
            {
                const std::function<void()>* work = nullptr;
                std::size_t slots = 0;  // helpers that may still take it
                std::size_t active = 0; // helpers running it now
            };

            // Offers `job` to the helpers; returns how many may take it (at most the pool's
            // size). finish(job) must follow before `job` goes out of scope.
            auto post(Job& job, std::size_t wanted) -> std::size_t
            {
                const std::scoped_lock lock(m_mutex);
                job.slots = std::min(wanted, m_size);
                m_open.push_back(&job);
                signal();
                return job.slots;
            }

            // Takes `job` back from the helpers that have not started it, and waits for those
            // that have, meanwhile taking part in the jobs they post (a helper reading the
            // records while this thread waits for it posts the records' own job).
            void finish(Job& job)
            {
                std::unique_lock lock(m_mutex);
                job.slots = 0;
                std::erase(m_open, &job);
                while (job.active > 0)
                {
                    if (Job* other = claimable())
                    {
                        run(*other, lock);
                        continue;
                    }
                    await_event(lock, caller_spin);
                }
            }

        private:
            // Few: helpers spin, and a machine's CPUs may be shared with other jobs (a Slurm
            // allocation, a container's quota); threads beyond them are started as needed.
            static constexpr std::size_t most_helpers = 3;
            // How long a thread spins for the next event before it sleeps: a helper long
            // enough to bridge the serial steps between one parallel_for and the next (the
            // longest in check, 1.5 ms, joins the records); a caller waiting for its helpers
            // briefly, leaving their CPUs to them (bench_check_scaling, RESULTS.md "helpers").
            static constexpr std::chrono::microseconds helper_spin{ 2000 };
            static constexpr std::chrono::microseconds caller_spin{ 150 };

            static inline std::atomic<bool> forked_child{ false };
            // Helpers started, and those of them that have begun serving.
            static inline std::atomic<std::size_t> helpers_started{ 0 };
            static inline std::atomic<std::size_t> helpers_serving{ 0 };

            static auto make() -> HelperPool*
            {
                // One per usable CPU but the caller's (cpus.hpp): spinning helpers beyond them
                // would take turns with the caller, or spend a cgroup's quota. The affinity
                // mask is a system call; the quota is read by the first helper (first_helper),
                // off the thread that runs the command (0.06 to 0.08 ms of `envcheck --version`).
                const std::size_t expected =
                  std::min<std::size_t>(affinity_cpus() - 1, most_helpers);
                if (expected == 0)
                {
                    return nullptr;
                }
                // The child of a fork has the pool's memory but not its threads. Before the
                // fork, every helper has finished starting: a thread still starting may hold
                // an allocator's lock the child would wait for forever (ASan's own allocator
                // takes no part in fork, unlike glibc's and jemalloc's); a serving helper
                // allocates nothing while it waits for a job.
                ::pthread_atfork(
                  []
                  {
                      while (helpers_serving.load(std::memory_order_acquire) <
                             helpers_started.load(std::memory_order_acquire))
                      {
                          std::this_thread::yield();
                      }
                  },
                  nullptr, [] { forked_child.store(true, std::memory_order_relaxed); });
                // Kept until the process ends (a helper may be asleep in m_event then): never
                // destroyed, reachable through the static pointer. Jobs are offered to the
                // helpers expected before they run: a share no helper takes is run by its
                // caller (finish).
                auto* pool = new HelperPool();
                pool->m_size = expected;
                if (!pool->start(&HelperPool::first_helper))
                {
                    delete pool; // no thread has it
                    return nullptr;
                }
                return pool;
            }

            // Starts a helper running `role`; false when no thread could be started.
            auto start(void (HelperPool::*role)()) -> bool
            {
                helpers_started.fetch_add(1, std::memory_order_release);
                try
                {
                    std::thread(role, this).detach();
                    return true;
                }
                catch (const std::system_error&)
                {
                    helpers_started.fetch_sub(1, std::memory_order_release);
                    return false;
                }
            }

            // The first helper: counts the usable CPUs (the cgroup's quota may allow fewer
            // than the affinity mask), starts the other helpers, and serves; where only one
            // CPU is usable it takes no new job, asleep for the rest of the process.
            [[noreturn]] void first_helper()
            {
                const std::size_t size = std::min<std::size_t>(usable_cpus() - 1, most_helpers);
                std::size_t started = size > 0 ? 1 : 0;
                while (started < size && start(&HelperPool::serve))
                {
                    ++started;
                }
                std::unique_lock lock(m_mutex);
                m_size = started;
                if (started > 0)
                {
                    lock.unlock();
                    serve();
                }
                // Shares offered to it before the pool was sized are still run: their callers
                // may count on two items running at once.
                while (Job* job = claimable())
                {
                    run(*job, lock);
                }
                lock.unlock();
                helpers_serving.fetch_add(1, std::memory_order_release);
                while (true)
                {
                    std::this_thread::sleep_for(std::chrono::hours(24));
                }
            }

            // The first open job a helper may still take, or nullptr (m_mutex held).
            auto claimable() -> Job*
            {
                for (Job* job : m_open)
                {
                    if (job->slots > 0)
                    {
                        return job;
                    }
                }
                return nullptr;
            }

            // Something to look at: a job posted or a job's last share done (m_mutex held).
            void signal()
            {
                m_events.fetch_add(1, std::memory_order_release);
                m_event.notify_all();
            }

            // Returns, m_mutex held again, after the next signal: spinning for up to `spin`,
            // which keeps this CPU awake for what comes soon, then asleep.
            void await_event(std::unique_lock<std::mutex>& lock, std::chrono::microseconds spin)
            {
                const std::uint64_t seen = m_events.load(std::memory_order_relaxed);
                lock.unlock();
                const auto until = std::chrono::steady_clock::now() + spin;
                for (unsigned round = 1; m_events.load(std::memory_order_acquire) == seen; ++round)
                {
#if defined(__x86_64__) || defined(__i386__)
                    _mm_pause();
#endif
                    // Now and then: give way to a runnable thread on this CPU, and look at the
                    // clock.
                    if (round % 64 == 0)
                    {
                        std::this_thread::yield();
                        if (std::chrono::steady_clock::now() >= until)
                        {
                            break;
                        }
                    }
                }
                lock.lock();
                m_event.wait(lock,
                             [&] { return m_events.load(std::memory_order_relaxed) != seen; });
            }

            [[noreturn]] void serve()
            {
                helpers_serving.fetch_add(1, std::memory_order_release);
                std::unique_lock lock(m_mutex);
                while (true)
                {
                    if (Job* job = claimable())
                    {
                        run(*job, lock);
                        continue;
                    }
                    await_event(lock, helper_spin);
                }
            }

            // Runs one share of `job` (m_mutex held by `lock` before and after).
            void run(Job& job, std::unique_lock<std::mutex>& lock)
            {
                --job.slots;
                ++job.active;
                lock.unlock();
                (*job.work)(); // parallel_for's loop, which catches its items' exceptions
                lock.lock();
                if (--job.active == 0)
                {
                    signal();
                }
            }

            std::size_t m_size = 0; // helpers: expected (make), then started (first_helper)
            std::mutex m_mutex;
            std::condition_variable m_event;          // threads asleep in await_event
            std::vector<Job*> m_open;                 // jobs posted and not yet finished
            std::atomic<std::uint64_t> m_events{ 0 }; // signals so far
        };
    }

    void start_helpers()
    {
        (void)HelperPool::get();
    }

    namespace detail
    {
        void run_with_helpers(std::size_t helpers, const std::function<void()>& work)
        {
            HelperPool* const pool = helpers > 0 ? HelperPool::get() : nullptr;
            HelperPool::Job job{ &work, 0, 0 };
            // Taken back from the helpers however this returns (a thread below that cannot be
            // started throws).
            struct Posted
            {
                HelperPool* pool;
                HelperPool::Job& job;
                ~Posted()
                {
                    if (pool != nullptr)
                    {
                        pool->finish(job);
                    }
                }
            } posted{ pool, job };
            const std::size_t pooled = pool != nullptr ? pool->post(job, helpers) : 0;
            // More than the pool holds (--jobs above the helpers, or a forked child): the rest
            // on threads of their own, joined before the job is taken back.
            std::vector<std::jthread> started;
            started.reserve(helpers - pooled);
            for (std::size_t i = pooled; i < helpers; ++i)
            {
                started.emplace_back(work);
            }
            work();
        }
    }
}
