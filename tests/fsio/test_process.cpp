#include <chrono>
#include <csignal>
#include <fstream>
#include <iterator>
#include <thread>

#include "fsio/process.hpp"
#include "tests/catch.hpp"

using namespace envcheck::fsio;
using namespace std::chrono_literals;

namespace
{
    auto zombie(int pid) -> bool
    {
        std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
        const std::string text((std::istreambuf_iterator<char>(stat)),
                               std::istreambuf_iterator<char>());
        const auto close = text.rfind(')');
        return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
    }

    TEST_CASE("run_process captures output and exit status", "[fsio][process]")
    {
        auto result = run_process({ "/bin/sh", "-c", "echo out; echo err >&2; exit 3" });
        REQUIRE(result);
        CHECK(result->exit_code == 3);
        CHECK(result->out == "out\n");
        CHECK(result->err == "err\n");
        CHECK_FALSE(result->succeeded());
        CHECK(result->describe() == "exited with status 3");
    }

    TEST_CASE("run_process passes arguments without a shell", "[fsio][process]")
    {
        auto result = run_process({ "/bin/echo", "a b", "$HOME", ";", "|" });
        REQUIRE(result);
        CHECK(result->out == "a b $HOME ; |\n");
    }

    TEST_CASE("run_process kills at the deadline", "[fsio][process]")
    {
        ProcessOptions options;
        options.timeout = 300ms;
        auto result = run_process({ "/bin/sh", "-c", "sleep 30 & sleep 30" }, options);
        REQUIRE(result);
        CHECK(result->timed_out);
        CHECK_FALSE(result->exit_code);
        CHECK(result->seconds < 10.0);
    }

    TEST_CASE("run_process leaves no orphans and does not wait for them", "[fsio][process]")
    {
        // The shell exits at once; its background child keeps stdout open and would live on.
        ProcessOptions options;
        options.timeout = 20s;
        const auto started = std::chrono::steady_clock::now();
        auto result = run_process({ "/bin/sh", "-c", "sleep 300 & echo $!" }, options);
        REQUIRE(result);
        CHECK(result->succeeded());
        CHECK(std::chrono::steady_clock::now() - started < 10s);
        const auto pid = std::stoi(result->out);
        bool gone = false;
        for (int i = 0; i < 200 && !gone; ++i)
        {
            gone = ::kill(pid, 0) != 0 || zombie(pid);
            std::this_thread::sleep_for(10ms);
        }
        CHECK(gone);
    }

    TEST_CASE("run_process feeds stdin while it reads the outputs", "[fsio][process]")
    {
        // The program writes 1 MiB before it reads its stdin: writing all of stdin first
        // would wait on it forever.
        ProcessOptions options;
        options.timeout = 20s;
        options.stdin_text = std::string(1 << 20, 'i');
        auto result = run_process({ "/bin/sh", "-c", "head -c 1048576 /dev/zero; wc -c" }, options);
        REQUIRE(result);
        CHECK_FALSE(result->timed_out);
        CHECK(result->out.size() == (1 << 20) + 8);
        CHECK(result->out.ends_with("1048576\n"));
    }

    TEST_CASE("run_process reports a signal", "[fsio][process]")
    {
        auto result = run_process({ "/bin/sh", "-c", "kill -SEGV $$" });
        REQUIRE(result);
        CHECK(result->signal == 11);
        CHECK(result->describe().find("signal 11") != std::string::npos);
    }

    TEST_CASE("run_process environment, stdin and working directory", "[fsio][process]")
    {
        ProcessOptions options;
        options.environment = std::map<std::string, std::string>{ { "ONLY", "this" } };
        options.stdin_text = "from stdin";
        options.working_directory = "/tmp";
        auto result = run_process({ "/bin/sh", "-c", "echo $ONLY $HOME; cat; pwd" }, options);
        REQUIRE(result);
        CHECK(result->out == "this\nfrom stdin/tmp\n");
    }

    TEST_CASE("run_process negative: a missing program is an error", "[fsio][process]")
    {
        auto result = run_process({ "/nonexistent/program" });
        REQUIRE_FALSE(result);
        CHECK(result.error().message.find("/nonexistent/program") != std::string::npos);
        CHECK(result.error().message.find("No such file") != std::string::npos);
    }

    TEST_CASE("find_program", "[fsio][process]")
    {
        CHECK(find_program("sh", "/nonexistent:/bin:/usr/bin") == "/bin/sh");
        CHECK(find_program("no-such-program-envcheck", "/bin:/usr/bin").empty());
        CHECK(find_program("/bin/sh", "").empty() == false);
    }
}
