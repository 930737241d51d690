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

    TEST_CASE("to_label_value", "[report][fleet]")
    {
        CHECK(report::to_label_value("NVIDIA H200") == "NVIDIA-H200");
        CHECK(report::to_label_value("9.0") == "9.0");
        CHECK(report::to_label_value("--x--") == "x");
        CHECK(report::to_label_value("...") == "");
        CHECK(report::to_label_value(std::string(100, 'a')).size() == 63);
        CHECK(report::to_label_value(std::string(62, 'a') + "-b") == std::string(62, 'a'));
    }
}
