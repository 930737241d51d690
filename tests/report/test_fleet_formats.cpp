#include "report/fleet_formats.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"
#include "util/strings.hpp"

using namespace envcheck;

namespace
{
    // A doctor run and a smoke run with every status, awkward characters and metrics.
    auto sample_runs() -> std::vector<model::CheckRun>
    {
        model::CheckRun doctor;
        doctor.command = "doctor";
        doctor.duration_seconds = 0.25;
        doctor.finished_unix_seconds = 1796068920;
        doctor.outcomes = {
            { "pci.nvidia-present",
              model::Status::pass,
              "1 NVIDIA GPU on the PCI bus (0000:18:00.0)",
              "",
              {},
              {} },
            { "kernel.module-matches-userspace",
              model::Status::fail,
              "kernel module 550.90.07 but libcuda.so.1 is 550.107.02 <mismatch> & \"quotes\"",
              "reboot, or reload the nvidia modules: rmmod nvidia_uvm nvidia; modprobe nvidia",
              {},
              {} },
            { "fabric-manager", model::Status::skip, "no NVSwitch on this machine", "", {}, {} },
            { "devnodes.permissions",
              model::Status::warn,
              "/dev/nvidia-uvm-tools is not readable | by others",
              "",
              {},
              {} },
            { "framework.runtime-check",
              model::Status::error,
              "timed out after 30 s\nwhile importing torch",
              "",
              {},
              {} },
        };
        model::CheckRun smoke;
        smoke.command = "smoke";
        smoke.duration_seconds = 0.5;
        smoke.finished_unix_seconds = 1796068921;
        smoke.outcomes = {
            { "bandwidth",
              model::Status::pass,
              "pinned h2d 55.1 GB/s",
              "",
              { { "h2d_pinned_gbps", 55.125 }, { "d2d_memcpy_gbps", 4251.0 } },
              { { "gpu", "0" }, { "uuid", "GPU-1234" } } },
        };
        return { doctor, smoke };
    }

    TEST_CASE("render_junit golden", "[report][fleet]")
    {
        tests::check_golden("report/fleet.junit.xml", report::render_junit(sample_runs()));
    }

    TEST_CASE("render_prometheus golden", "[report][fleet]")
    {
        const auto text = report::render_prometheus(sample_runs());
        tests::check_golden("report/fleet.prom", text);
        // The textfile collector skips a whole file that carries sample timestamps: every sample
        // line must be exactly "name{labels} value".
        for (const auto line : util::split_lines(text))
        {
            if (line.empty() || line.front() == '#')
            {
                continue;
            }
            const auto close = line.rfind('}');
            REQUIRE(close != std::string_view::npos);
            CAPTURE(line);
            CHECK(line.substr(close + 1).find(' ', 1) == std::string_view::npos);
        }
    }

    TEST_CASE("render_nfd golden", "[report][fleet]")
    {
        report::NodeFeatures features;
        features.cuda_usable = true;
        features.driver_version = "580.95.05";
        features.cuda_driver_version = "13.0";
        features.compute_capability = "9.0";
        features.gpu_model = "NVIDIA H200";
        features.gpu_count = 1;
        features.lock_matches = false;
        report::NfdOptions options;
        options.now_unix_seconds = 1796068920;
        options.expiry_seconds = 600;
        tests::check_golden("report/fleet.nfd",
                            report::render_nfd(sample_runs(), features, options));
    }

    TEST_CASE("render_markdown and github golden", "[report][fleet]")
    {
        tests::check_golden("report/fleet.md", report::render_markdown(sample_runs()));
        tests::check_golden("report/fleet.github",
                            report::render_github_annotations(sample_runs()));
    }

    auto run_of(std::string command, std::vector<model::CheckOutcome> outcomes) -> model::CheckRun
    {
        model::CheckRun run;
        run.command = std::move(command);
        run.outcomes = std::move(outcomes);
        return run;
    }

    auto outcome(std::string id, model::Status status, std::string message) -> model::CheckOutcome
    {
        return { std::move(id), status, std::move(message), "", {}, {} };
    }

    TEST_CASE("render_npd golden: one line per case, at most 80 bytes", "[report][fleet][npd]")
    {
        const std::string long_message =
          "kernel module 550.90.07 but libcuda.so.1 is 550.107.02: the user-space driver does "
          "not belong to the loaded module";
        struct Case
        {
            std::string name;
            std::vector<model::CheckRun> runs;
            report::NpdStatus status;
        };
        const std::vector<Case> cases{
            { "problem, error and warn: the failed id first", sample_runs(),
              report::NpdStatus::problem },
            { "ok with warnings and skips",
              { run_of("doctor", { outcome("pci.nvidia-present", model::Status::pass, "1 GPU"),
                                   outcome("fabric-manager", model::Status::skip, "no NVSwitch"),
                                   outcome("devnodes.permissions", model::Status::warn, "x") }) },
              report::NpdStatus::ok },
            { "two runs ok",
              { run_of("doctor", { outcome("a", model::Status::pass, "") }),
                run_of("smoke", { outcome("hello", model::Status::pass, "") }) },
              report::NpdStatus::ok },
            { "several failures: the first id and how many more",
              { run_of("doctor", { outcome("nvml.init", model::Status::fail, "NVML timed out"),
                                   outcome("cuda.init", model::Status::fail, "cuInit hung") }),
                run_of("smoke", { outcome("matmul", model::Status::fail, "wrong result") }) },
              report::NpdStatus::problem },
            { "an error alone is unknown, not a node problem",
              { run_of(
                "smoke",
                { outcome("hello", model::Status::pass, ""),
                  outcome("matmul", model::Status::error,
                          "the probe child was killed by signal 9 (SIGKILL)\nlast words") }) },
              report::NpdStatus::unknown },
            { "nothing ran is unknown", { run_of("doctor", {}) }, report::NpdStatus::unknown },
            { "a long message is cut with ...",
              { run_of("doctor", { outcome("kernel.module-matches-userspace", model::Status::fail,
                                           long_message) }) },
              report::NpdStatus::problem },
            { "credentials in a URL are redacted before the cut",
              { run_of("check", { outcome("lock.channel", model::Status::fail,
                                          "https://bob:hunter2@conda.example.com/t/tk-123/ml "
                                          "is not the lock's channel") }) },
              report::NpdStatus::problem },
        };
        std::string all;
        for (const auto& c : cases)
        {
            CAPTURE(c.name);
            CHECK(report::npd_status(c.runs) == c.status);
            const auto line = report::render_npd(c.runs);
            CHECK(line.size() <= report::npd_default_max_length + 1);
            CHECK(line.back() == '\n');
            CHECK(line.find('\n') == line.size() - 1);
            CHECK(line.find("hunter2") == std::string::npos);
            CHECK(line.find("tk-123") == std::string::npos);
            all += c.name + "\n  " + line;
        }
        tests::check_golden("report/fleet.npd", all);
    }

    TEST_CASE("render_npd: the check id survives any max_output_length", "[report][fleet][npd]")
    {
        const std::vector<model::CheckRun> runs{ run_of(
          "doctor",
          { outcome("driver.libcuda-found", model::Status::fail,
                    "libcuda.so.1: no such file in any of the loader's 14 directories "
                    "(ldconfig cache, LD_LIBRARY_PATH, /usr/lib/x86_64-linux-gnu) ™") }) };
        for (std::size_t limit = 24; limit <= 200; ++limit)
        {
            CAPTURE(limit);
            const auto line = report::render_npd(runs, limit);
            CHECK(line.size() <= limit + 1);
            CHECK(line.starts_with("driver.libcuda-found"));
            // Cut on a UTF-8 boundary: the multi-byte ™ is whole or absent.
            CHECK(!util::find_invalid_utf8(line));
        }
    }

    TEST_CASE("to_label_value", "[report][fleet]")
    {
        CHECK(report::to_label_value("NVIDIA H200") == "NVIDIA-H200");
        CHECK(report::to_label_value("9.0") == "9.0");
        CHECK(report::to_label_value("--x--") == "x");
        CHECK(report::to_label_value("...") == "");
        CHECK(report::to_label_value(std::string(100, 'a')).size() == 63);
        CHECK(report::to_label_value(std::string(62, 'a') + "-b") == std::string(62, 'a'));
    }

    TEST_CASE("fleet_formats: each row renders what its function renders", "[report][fleet]")
    {
        report::NodeFeatures features;
        features.gpu_count = 2;
        const report::FleetFormatOptions options{ 1796068920, 600, 40 };
        const auto runs = sample_runs();
        const auto rendered = [&](std::string_view name)
        {
            const auto* row = report::find_fleet_format(name);
            REQUIRE(row != nullptr);
            return row->render(runs, features, options);
        };
        CHECK(rendered("junit") == report::render_junit(runs));
        CHECK(rendered("prometheus") == report::render_prometheus(runs));
        CHECK(
          rendered("nfd") ==
          report::render_nfd(runs, features, report::NfdOptions{ "envcheck.io", 1796068920, 600 }));
        CHECK(rendered("markdown") == report::render_markdown(runs));
        CHECK(rendered("github") == report::render_github_annotations(runs));
        CHECK(rendered("npd") == report::render_npd(runs, 40));
        std::vector<std::string_view> names;
        for (const auto& row : report::fleet_formats())
        {
            names.push_back(row.name);
        }
        CHECK(names == std::vector<std::string_view>{ "junit", "prometheus", "nfd", "markdown",
                                                      "github", "npd" });
        CHECK(report::find_fleet_format("text") == nullptr);
    }
}
