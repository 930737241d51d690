#include <csignal>
#include <thread>
#include <unistd.h>

#include "system/child.hpp"
#include "tests/catch.hpp"

using namespace envcheck::system;
using namespace std::chrono_literals;

namespace
{
    TEST_CASE("run_in_child", "[system][child]")
    {
        SECTION("lines and the exit status")
        {
            const auto result = run_in_child(
              [](const LineWriter& write_line)
              {
                  write_line("first");
                  write_line(std::string(10000, 'x')); // longer than one pipe read
                  write_line("last");
                  return 7;
              },
              10s);
            CHECK_FALSE(result.timed_out);
            CHECK(result.exit_code == 7);
            REQUIRE(result.lines.size() == 3);
            CHECK(result.lines[0] == "first");
            CHECK(result.lines[1].size() == 10000);
            CHECK(result.lines[2] == "last");
            CHECK(result.describe(10s) == "exited with 7");
        }
        SECTION("a hang becomes a timeout, with the lines written before it")
        {
            const auto result = run_in_child(
              [](const LineWriter& write_line)
              {
                  write_line("before");
                  ::pause(); // like cuInit on a wedged GPU
                  return 0;
              },
              300ms);
            CHECK(result.timed_out);
            CHECK(result.lines == std::vector<std::string>{ "before" });
            CHECK(result.describe(300ms) == "timed out after 0.3 s");
        }
        SECTION("a crash becomes a signal")
        {
            const auto result = run_in_child(
              [](const LineWriter&)
              {
                  std::signal(SIGSEGV, SIG_DFL); // the child inherits the test runner's handler
                  std::raise(SIGSEGV);
                  return 0;
              },
              10s);
            CHECK_FALSE(result.timed_out);
            CHECK(result.signal == SIGSEGV);
            CHECK(result.describe(10s).starts_with("was killed by signal 11"));
        }
        SECTION("an exception in the child")
        {
            const auto result =
              run_in_child([](const LineWriter&) -> int { throw std::runtime_error("boom"); }, 10s);
            CHECK(result.exit_code == 3);
        }
    }

    TEST_CASE("format_seconds", "[system][child]")
    {
        CHECK(format_seconds(20000ms) == "20");
        CHECK(format_seconds(500ms) == "0.5");
        CHECK(format_seconds(1250ms) == "1.3");
    }
}
