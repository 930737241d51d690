#include <atomic>
#include <chrono>
#include <csignal>
#include <cstddef>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "prefix/parallel.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    // How many times each index was run.
    auto run_counts(std::size_t count, unsigned threads) -> std::vector<int>
    {
        std::vector<std::atomic<int>> runs(count);
        const auto failures =
          prefix::parallel_for(count, threads, [&](std::size_t i) { runs[i].fetch_add(1); });
        CHECK(failures.empty());
        std::vector<int> result;
        for (const auto& each : runs)
        {
            result.push_back(each.load());
        }
        return result;
    }

    TEST_CASE("parallel_for runs every index once, with the helpers or beyond them",
              "[prefix][parallel]")
    {
        struct Case
        {
            std::size_t count;
            unsigned threads; // 0: one per core; 64: more than the helpers, threads of their own
        };
        const Case cases[] = { { 0, 0 },   { 1, 0 },  { 1, 4 },     { 7, 1 },    { 100, 0 },
                               { 100, 2 }, { 3, 64 }, { 1000, 64 }, { 5001, 0 }, { 5001, 3 } };
        for (int round = 0; round < 20; ++round)
        {
            for (const auto& [count, threads] : cases)
            {
                CAPTURE(round, count, threads);
                CHECK(run_counts(count, threads) == std::vector<int>(count, 1));
            }
        }
    }

    TEST_CASE("parallel_for: two items can run at the same time", "[prefix][parallel]")
    {
        // Each of the two items waits for the other to start: only two threads at once pass.
        std::atomic<int> arrived{ 0 };
        std::atomic<int> met{ 0 };
        for (int round = 0; round < 20; ++round)
        {
            arrived = 0;
            met = 0;
            prefix::parallel_for(
              2, 2,
              [&](std::size_t)
              {
                  arrived.fetch_add(1);
                  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
                  while (arrived.load() < 2 && std::chrono::steady_clock::now() < until)
                  {
                      std::this_thread::yield();
                  }
                  met.fetch_add(arrived.load() == 2 ? 1 : 0);
              });
            REQUIRE(met.load() == 2);
        }
    }

    TEST_CASE("parallel_for inside parallel_for, and from several threads at once",
              "[prefix][parallel]")
    {
        constexpr std::size_t outer = 8;
        constexpr std::size_t inner = 300;
        std::vector<std::atomic<int>> runs(outer * inner);
        const auto nested = [&]
        {
            prefix::parallel_for(outer, 0,
                                 [&](std::size_t i) {
                                     prefix::parallel_for(inner, 0,
                                                          [&](std::size_t j)
                                                          { runs[i * inner + j].fetch_add(1); });
                                 });
        };
        std::vector<std::thread> callers;
        for (int caller = 0; caller < 4; ++caller)
        {
            callers.emplace_back(
              [&]
              {
                  for (int round = 0; round < 10; ++round)
                  {
                      nested();
                  }
              });
        }
        for (auto& caller : callers)
        {
            caller.join();
        }
        for (const auto& each : runs)
        {
            CHECK(each.load() == 40);
        }
    }

    TEST_CASE("parallel_for in a forked child runs on threads of its own", "[prefix][parallel]")
    {
        // The helpers are started just before the fork (some may still be starting when it
        // comes); the child has none of them.
        prefix::start_helpers();
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0)
        {
            std::atomic<std::size_t> done{ 0 };
            prefix::parallel_for(1000, 4, [&](std::size_t) { done.fetch_add(1); });
            ::_exit(done.load() == 1000 ? 0 : 1);
        }
        int status = 0;
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        pid_t waited = 0;
        while ((waited = ::waitpid(child, &status, WNOHANG)) == 0 &&
               std::chrono::steady_clock::now() < until)
        {
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        if (waited == 0)
        {
            ::kill(child, SIGKILL);
            ::waitpid(child, &status, 0);
            FAIL("the forked child's parallel_for did not finish within 20 s");
        }
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        // The parent's helpers serve on.
        CHECK(run_counts(64, 0) == std::vector<int>(64, 1));
    }
}
