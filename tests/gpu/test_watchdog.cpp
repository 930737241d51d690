// The watchdog runs real child processes: a child that hangs is killed at the deadline, one that
// crashes is reported with its signal, and output arrives line by line as it is written.
#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "gpu/watchdog.hpp"
#include "tests/catch.hpp"

using namespace std::chrono_literals;
using envcheck::gpu::ChildEnd;
using envcheck::gpu::ChildLimits;
using envcheck::gpu::LineWriter;
using envcheck::gpu::run_watched;

namespace
{
    // Dies of a real SIGSEGV, whatever handler a sanitizer installed.
    [[noreturn]] void crash_with_sigsegv()
    {
        struct sigaction action = {};
        action.sa_handler = SIG_DFL;
        sigaction(SIGSEGV, &action, nullptr);
        raise(SIGSEGV);
        _exit(99);
    }

    [[noreturn]] void hang_forever()
    {
        while (true)
        {
            pause();
        }
    }

    auto short_limits() -> ChildLimits
    {
        return ChildLimits{ 300ms, 10000ms };
    }

    TEST_CASE("run_watched", "[gpu][watchdog]")
    {
        std::vector<std::string> lines;
        const auto collect = [&](std::string_view line) { lines.emplace_back(line); };

        SECTION("lines arrive in order and the exit status is kept")
        {
            const auto report = run_watched(
              [](LineWriter& out)
              {
                  out.write_line("first");
                  out.write_line("");
                  out.write_line("third, after an empty one");
                  return 7;
              },
              short_limits(), collect);
            CHECK(report.end == ChildEnd::exited);
            CHECK(report.exit_code == 7);
            CHECK(lines == std::vector<std::string>{ "first", "", "third, after an empty one" });
            CHECK(report.unterminated.empty());
            CHECK(report.describe(short_limits()) == "exited with status 7");
        }
        SECTION("long lines survive many pipe reads")
        {
            const std::string big(200000, 'x');
            const auto report =
              run_watched([&](LineWriter& out) { return out.write_line(big) ? 0 : 1; },
                          short_limits(), collect);
            CHECK(report.end == ChildEnd::exited);
            CHECK(report.exit_code == 0);
            REQUIRE(lines.size() == 1);
            CHECK(lines[0] == big);
        }
        SECTION("a child that keeps writing is not stopped by the idle timeout")
        {
            const auto report = run_watched(
              [](LineWriter& out)
              {
                  for (int i = 0; i < 6; ++i)
                  {
                      std::this_thread::sleep_for(100ms);
                      out.write_line("tick");
                  }
                  return 0;
              },
              ChildLimits{ 400ms, 10000ms }, collect);
            CHECK(report.end == ChildEnd::exited);
            CHECK(lines.size() == 6);
        }
    }

    TEST_CASE("run_watched negative", "[gpu][watchdog]")
    {
        std::vector<std::string> lines;
        const auto collect = [&](std::string_view line) { lines.emplace_back(line); };

        SECTION("a child that hangs is killed at the idle deadline")
        {
            const auto report = run_watched(
              [](LineWriter& out) -> int
              {
                  out.write_line("started");
                  hang_forever();
              },
              short_limits(), collect);
            CHECK(report.end == ChildEnd::timed_out);
            CHECK(lines == std::vector<std::string>{ "started" });
            CHECK(report.describe(short_limits()).find("without progress") != std::string::npos);
        }
        SECTION("a child that talks forever is killed at the total deadline")
        {
            const ChildLimits limits{ 1000ms, 500ms };
            const auto report = run_watched(
              [](LineWriter& out)
              {
                  while (out.write_line("still here"))
                  {
                      std::this_thread::sleep_for(20ms);
                  }
                  return 0;
              },
              limits, collect);
            CHECK(report.end == ChildEnd::timed_out);
            CHECK(report.describe(limits).find("in all") != std::string::npos);
        }
        SECTION("a child that crashes is reported with its signal")
        {
            const auto report = run_watched(
              [](LineWriter& out) -> int
              {
                  out.write_line("before the crash");
                  crash_with_sigsegv();
              },
              short_limits(), collect);
            CHECK(report.end == ChildEnd::signaled);
            CHECK(report.signal == SIGSEGV);
            CHECK(report.describe(short_limits()) == "was killed by signal 11 (SIGSEGV)");
            CHECK(lines == std::vector<std::string>{ "before the crash" });
        }
        SECTION("a child that throws exits with status 3")
        {
            const auto report =
              run_watched([](LineWriter&) -> int { throw std::runtime_error("boom"); },
                          short_limits(), collect);
            CHECK(report.end == ChildEnd::exited);
            CHECK(report.exit_code == 3);
        }
    }
}
