// The one child runner, with real child processes: lines arrive as they are written, a hang is
// killed at its deadline, a crash is reported with its signal, and none of the child's stdout,
// grandchildren or unbounded output reaches the parent.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "fsio/child.hpp"
#include "tests/catch.hpp"

using namespace std::chrono_literals;
using envcheck::fsio::ChildEnd;
using envcheck::fsio::ChildJob;
using envcheck::fsio::ChildLimits;
using envcheck::fsio::LineWriter;
using envcheck::fsio::run_child;
using envcheck::fsio::run_children;
using envcheck::fsio::RunningChild;

namespace
{
    using Clock = std::chrono::steady_clock;

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

    auto idle_limits(std::chrono::milliseconds idle) -> ChildLimits
    {
        ChildLimits limits;
        limits.total = 20s;
        limits.idle = idle;
        return limits;
    }

    auto total_limits(std::chrono::milliseconds total) -> ChildLimits
    {
        ChildLimits limits;
        limits.total = total;
        return limits;
    }

    auto seconds_since(Clock::time_point start) -> double
    {
        return std::chrono::duration<double>(Clock::now() - start).count();
    }

    // Whether `pid` is still a process (a zombie counts as gone: it has ended).
    auto alive(pid_t pid) -> bool
    {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
        const auto close = text.rfind(')');
        return !text.empty() && close != std::string::npos && close + 2 < text.size() &&
               text[close + 2] != 'Z' && text[close + 2] != 'X';
    }

    TEST_CASE("run_child", "[fsio][child]")
    {
        std::vector<std::string> lines;
        const auto collect = [&](std::string_view line) { lines.emplace_back(line); };

        SECTION("lines arrive in order and the exit status is kept")
        {
            const auto report = run_child(
              [](LineWriter& out)
              {
                  out.write_line("first");
                  out.write_line("");
                  out.write_line("third, after an empty one");
                  return 7;
              },
              idle_limits(2s), collect);
            CHECK(report.end == ChildEnd::exited);
            CHECK(report.exit_code == 7);
            CHECK_FALSE(report.clean());
            CHECK(lines == std::vector<std::string>{ "first", "", "third, after an empty one" });
            CHECK(report.unterminated.empty());
            CHECK(report.describe(idle_limits(2s)) == "exited with status 7");
        }
        SECTION("long lines survive many pipe reads")
        {
            const std::string big(200000, 'x');
            const auto report =
              run_child([&](LineWriter& out) { return out.write_line(big) ? 0 : 1; },
                        idle_limits(2s), collect);
            CHECK(report.clean());
            REQUIRE(lines.size() == 1);
            CHECK(lines[0] == big);
        }
        SECTION("a child that keeps writing is not stopped by the idle timeout")
        {
            const auto report = run_child(
              [](LineWriter& out)
              {
                  for (int i = 0; i < 6; ++i)
                  {
                      std::this_thread::sleep_for(100ms);
                      out.write_line("tick");
                  }
                  return 0;
              },
              idle_limits(400ms), collect);
            CHECK(report.clean());
            CHECK(lines.size() == 6);
        }
        SECTION("what the child prints goes to the report, never to the parent's stdout")
        {
            char path[] = "/tmp/envcheck-test-stdout-XXXXXX";
            const int capture = mkstemp(path);
            REQUIRE(capture >= 0);
            std::fflush(stdout);
            const int saved = dup(STDOUT_FILENO);
            dup2(capture, STDOUT_FILENO);
            const auto report = run_child(
              [](LineWriter& out)
              {
                  std::printf("a driver's banner on stdout\n");
                  [[maybe_unused]] auto n = write(STDOUT_FILENO, "raw stdout\n", 11);
                  std::fprintf(stderr, "and on stderr\n");
                  out.write_line("the real line");
                  return 0;
              },
              idle_limits(2s), collect);
            std::fflush(stdout);
            dup2(saved, STDOUT_FILENO);
            close(saved);
            const auto size = lseek(capture, 0, SEEK_END);
            close(capture);
            unlink(path);
            CHECK(size == 0);
            CHECK(report.clean());
            CHECK(lines == std::vector<std::string>{ "the real line" });
            CHECK(report.output.find("raw stdout\n") != std::string::npos);
            CHECK(report.output.find("a driver's banner on stdout\n") != std::string::npos);
            CHECK(report.output.find("and on stderr\n") != std::string::npos);
            // printf's buffer is flushed when the child ends, after the unbuffered writes.
            CHECK(report.output_tail(1000) ==
                  "raw stdout and on stderr a driver's banner on stdout");
        }
        SECTION("only the last bytes of the child's output are kept")
        {
            ChildLimits limits = idle_limits(2s);
            limits.max_output_bytes = 1000;
            const auto report = run_child(
              [](LineWriter&)
              {
                  for (int i = 0; i < 20000; ++i)
                  {
                      std::printf("line %d\n", i);
                  }
                  return 0;
              },
              limits, collect);
            CHECK(report.clean());
            CHECK(report.output.size() == 1000);
            CHECK(report.output.ends_with("line 19999\n"));
            CHECK(report.output_tail(10) == "...line 19999");
        }
    }

    TEST_CASE("run_child negative", "[fsio][child]")
    {
        std::vector<std::string> lines;
        const auto collect = [&](std::string_view line) { lines.emplace_back(line); };

        SECTION("a child that hangs is killed at the idle deadline")
        {
            const auto report = run_child(
              [](LineWriter& out) -> int
              {
                  out.write_line("started");
                  hang_forever();
              },
              idle_limits(300ms), collect);
            CHECK(report.end == ChildEnd::idle_timeout);
            CHECK(report.timed_out());
            CHECK(lines == std::vector<std::string>{ "started" });
            CHECK(report.describe(idle_limits(300ms)) ==
                  "was stopped after 0.3 s without progress (SIGKILL)");
        }
        SECTION("a child that talks forever is killed at the total deadline")
        {
            ChildLimits limits = idle_limits(1000ms);
            limits.total = 500ms;
            const auto report = run_child(
              [](LineWriter& out)
              {
                  while (out.write_line("still here"))
                  {
                      std::this_thread::sleep_for(20ms);
                  }
                  return 0;
              },
              limits, collect);
            CHECK(report.end == ChildEnd::total_timeout);
            CHECK(report.describe(limits) == "timed out after 0.5 s");
        }
        SECTION("a child that crashes is reported with its signal")
        {
            const auto report = run_child(
              [](LineWriter& out) -> int
              {
                  out.write_line("before the crash");
                  crash_with_sigsegv();
              },
              idle_limits(2s), collect);
            CHECK(report.end == ChildEnd::signaled);
            CHECK(report.signal == SIGSEGV);
            CHECK(report.describe(idle_limits(2s)) == "was killed by signal 11 (SIGSEGV)");
            CHECK(lines == std::vector<std::string>{ "before the crash" });
        }
        SECTION("a child that throws exits with status 3 and says why on its stderr")
        {
            const auto report =
              run_child([](LineWriter&) -> int { throw std::runtime_error("boom"); },
                        idle_limits(2s), collect);
            CHECK(report.end == ChildEnd::exited);
            CHECK(report.exit_code == 3);
            CHECK(report.output == "envcheck: child process: boom\n");
        }
        SECTION("a grandchild holding the pipes neither delays the parent nor outlives the child")
        {
            const auto start = Clock::now();
            const auto report = run_child(
              [](LineWriter& out)
              {
                  const pid_t grandchild = fork();
                  if (grandchild == 0)
                  {
                      hang_forever(); // holds the line and output pipes open
                  }
                  out.write_line(std::to_string(grandchild));
                  return 0;
              },
              total_limits(20s), collect);
            CHECK(report.clean());
            CHECK(seconds_since(start) < 10.0);
            REQUIRE(lines.size() == 1);
            const pid_t grandchild = std::stoi(lines[0]);
            bool gone = false;
            for (int i = 0; i < 200 && !gone; ++i)
            {
                gone = !alive(grandchild);
                std::this_thread::sleep_for(10ms);
            }
            CHECK(gone);
        }
        SECTION("a line longer than the bound stops the child")
        {
            ChildLimits limits = idle_limits(5s);
            limits.max_line_bytes = 1 << 20;
            const auto report = run_child(
              [](LineWriter& out)
              {
                  out.write_line(std::string(3 << 20, 'x'));
                  return 0;
              },
              limits, collect);
            CHECK(report.end == ChildEnd::too_much_output);
            CHECK(report.describe(limits) ==
                  "wrote a line longer than 1 MiB and was stopped (SIGKILL)");
            CHECK(lines.empty());
        }
        SECTION("more lines than the bound stop the child, whatever it meant to write")
        {
            ChildLimits limits = idle_limits(5s);
            limits.max_lines_bytes = 2 << 20;
            std::size_t received = 0;
            const auto report = run_child(
              [](LineWriter& out)
              {
                  const std::string device(1000, 'd');
                  for (int i = 0; i < 2147483647 && out.write_line(device); ++i)
                  {
                  }
                  return 0;
              },
              limits, [&](std::string_view line) { received += line.size() + 1; });
            CHECK(report.end == ChildEnd::too_much_output);
            CHECK(report.describe(limits) == "wrote more than 2 MiB and was stopped (SIGKILL)");
            CHECK(received <= std::size_t{ 2 } << 20);
        }
    }

    TEST_CASE("run_children: several children under one watch", "[fsio][child]")
    {
        std::vector<std::string> first;
        std::vector<std::string> second;
        SECTION("two hanging children end at their own deadlines, not one after the other")
        {
            const auto start = Clock::now();
            const std::vector<ChildJob> jobs{
                { [](LineWriter& out) -> int
                  {
                      out.write_line("one");
                      hang_forever();
                  },
                  total_limits(2s),
                  [&](std::string_view line) { first.emplace_back(line); },
                  {} },
                { [](LineWriter& out) -> int
                  {
                      out.write_line("two");
                      hang_forever();
                  },
                  total_limits(2s),
                  [&](std::string_view line) { second.emplace_back(line); },
                  {} },
            };
            const auto reports = run_children(jobs);
            const double elapsed = seconds_since(start);
            REQUIRE(reports.size() == 2);
            CHECK(reports[0].end == ChildEnd::total_timeout);
            CHECK(reports[1].end == ChildEnd::total_timeout);
            CHECK(first == std::vector<std::string>{ "one" });
            CHECK(second == std::vector<std::string>{ "two" });
            CHECK(elapsed >= 2.0);
            CHECK(elapsed < 3.9); // one after the other would take 4 s
        }
        SECTION("one that finishes does not wait for one that hangs, nor the other way round")
        {
            const std::vector<ChildJob> jobs{
                { [](LineWriter& out)
                  {
                      out.write_line("done");
                      return 0;
                  },
                  total_limits(5s),
                  [&](std::string_view line) { first.emplace_back(line); },
                  {} },
                { [](LineWriter&) -> int { crash_with_sigsegv(); },
                  total_limits(5s),
                  [&](std::string_view line) { second.emplace_back(line); },
                  {} },
            };
            const auto reports = run_children(jobs);
            CHECK(reports[0].clean());
            CHECK(first == std::vector<std::string>{ "done" });
            CHECK(reports[1].end == ChildEnd::signaled);
            CHECK(second.empty());
        }
    }

    TEST_CASE("RunningChild: started now, told later, watched to its end", "[fsio][child]")
    {
        std::vector<std::string> lines;
        const auto collect = [&](std::string_view line) { lines.emplace_back(line); };
        // Echoes the first line of its stdin, or says it read end of file.
        const auto echo = [](LineWriter& out)
        {
            out.write_line("waiting");
            std::string line;
            char c = 0;
            while (::read(STDIN_FILENO, &c, 1) == 1 && c != '\n')
            {
                line += c;
            }
            out.write_line(line.empty() ? "eof" : "got " + line);
            return 0;
        };

        SECTION("a line sent after the start reaches its stdin")
        {
            RunningChild child(ChildJob{ echo, idle_limits(5s), collect, {} });
            CHECK(child.send_line("go 0,1"));
            const auto report = child.finish();
            CHECK(report.clean());
            CHECK(report.end == ChildEnd::exited);
            CHECK(lines == std::vector<std::string>{ "waiting", "got go 0,1" });
        }
        SECTION("finish without a line: the child reads end of file")
        {
            RunningChild child(ChildJob{ echo, idle_limits(5s), collect, {} });
            CHECK(child.finish().clean());
            CHECK(lines == std::vector<std::string>{ "waiting", "eof" });
        }
        SECTION("the time it waited for the parent is not idle time")
        {
            RunningChild child(ChildJob{ echo, idle_limits(1s), collect, {} });
            std::this_thread::sleep_for(1500ms); // the parent busy elsewhere, past the idle limit
            CHECK(child.send_line("late"));
            const auto report = child.finish();
            CHECK(report.clean());
            CHECK(lines == std::vector<std::string>{ "waiting", "got late" });
        }
        SECTION("after its final line it is released, not waited for")
        {
            pid_t pid = 0;
            const auto start = Clock::now();
            RunningChild child(ChildJob{ [](LineWriter& out)
                                         {
                                             out.write_line(std::to_string(::getpid()));
                                             out.write_line("finish");
                                             ::sleep(5); // a driver's slow teardown
                                             return 0;
                                         },
                                         idle_limits(10s),
                                         [&](std::string_view line)
                                         {
                                             if (line != "finish")
                                             {
                                                 pid = std::stoi(std::string(line));
                                             }
                                         },
                                         [](std::string_view line) { return line == "finish"; } });
            const auto report = child.finish();
            CHECK(seconds_since(start) < 2.0);
            CHECK(report.end == ChildEnd::released);
            CHECK(report.clean());
            CHECK(report.describe(idle_limits(10s)) == "finished");
            // Its group was killed: it does not linger for its 5 s.
            REQUIRE(pid > 0);
            for (int i = 0; i < 100 && alive(pid); ++i)
            {
                std::this_thread::sleep_for(10ms);
            }
            CHECK_FALSE(alive(pid));
        }
        SECTION("one never finished is stopped when it goes out of scope")
        {
            const auto start = Clock::now();
            {
                RunningChild child(ChildJob{ [](LineWriter&) -> int { hang_forever(); },
                                             idle_limits(10s),
                                             [](std::string_view) {},
                                             {} });
                std::this_thread::sleep_for(100ms);
            }
            CHECK(seconds_since(start) < 3.0); // killed, not waited for 10 s
        }
    }

    TEST_CASE("format_seconds", "[fsio][child]")
    {
        CHECK(envcheck::fsio::format_seconds(20000ms) == "20 s");
        CHECK(envcheck::fsio::format_seconds(500ms) == "0.5 s");
        CHECK(envcheck::fsio::format_seconds(1250ms) == "1.3 s");
    }
}
