#include <nlohmann/json.hpp>

#include "report/bug_report.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"

using namespace envcheck;
using report::Collected;

namespace
{
    auto library(std::string file, std::string path, std::string real_path, std::string via,
                 std::string source, std::optional<std::string> version) -> model::LoadableLibrary
    {
        model::LoadableLibrary found;
        found.library = file.substr(0, file.find(".so"));
        found.file.name = std::move(file);
        found.file.path = std::move(path);
        found.file.real_path = std::move(real_path);
        found.file.found_via = std::move(via);
        found.file.version = std::move(version);
        found.source = std::move(source);
        return found;
    }

    // An H200 machine with a venv whose cuDNN wheel LD_LIBRARY_PATH shadows.
    auto full_view() -> report::BugReportView
    {
        report::BugReportView view;
        view.envcheck_version = "0.1.0";
        view.os = Collected::known("Ubuntu 24.04.1 LTS");
        view.kernel = Collected::known("6.8.0-60-generic");
        view.glibc = Collected::known("2.39");
        view.architecture = Collected::known("x86_64");
        view.container = "no";
        view.cpu = Collected::known("INTEL(R) XEON(R) PLATINUM 8568Y+");
        view.cpu_count = Collected::known("192");
        view.memory = Collected::known("2048.0 GiB");
        view.driver_version = Collected::known("580.65.06");
        view.cuda_driver_version = Collected::known("13.0");
        view.gpus = { { 0, "NVIDIA H200", Collected::known("140.4 GiB"), Collected::known("9.0"),
                        "00000000:17:00.0" } };
        view.environment = Collected::known("/home/ada/venvs/ml");
        view.located_by = "$VIRTUAL_ENV";
        view.kind = "venv";
        view.python = Collected::known("3.12.3");
        view.pip_packages = 41;
        view.frameworks = {
            { "torch", "torch", "pip", "2.7.0+cu128", Collected::known("12.8"),
              "torch/version.py" },
            { "tensorflow", "tensorflow", "pip", "2.18.0",
              Collected::unknown("neither its version, its name nor its build names a CUDA "
                                 "version"),
              "" },
        };
        const std::string site = "/home/ada/venvs/ml/lib/python3.12/site-packages";
        report::BugReportLibrary cudnn{
            "libcudnn",
            "libcudnn.so.9",
            library("libcudnn.so.9", "/opt/cudnn/lib/libcudnn.so.9",
                    "/opt/cudnn/lib/libcudnn.so.9.0.0", "LD_LIBRARY_PATH", "", "9.0.0"),
            { library("libcudnn.so.9", site + "/nvidia/cudnn/lib/libcudnn.so.9",
                      site + "/nvidia/cudnn/lib/libcudnn.so.9", "environment",
                      "pip nvidia-cudnn-cu12 9.1.0.70", std::nullopt) },
            true
        };
        report::BugReportLibrary cudart{ "libcudart",
                                         "libcudart.so.12",
                                         library("libcudart.so.12",
                                                 "/usr/local/cuda/lib64/libcudart.so.12",
                                                 "/usr/local/cuda-12.4/lib64/libcudart.so.12.4.127",
                                                 "ld.so.conf", "", "12.4.127"),
                                         {},
                                         false };
        report::BugReportLibrary nccl{ "libnccl", "", std::nullopt, {}, false };
        view.libraries = { cudart, cudnn, nccl };
        view.doctor_verdict = Collected::known("CUDA usable");
        view.smoke_source =
          Collected::known("env.lock.json, recorded 2026-11-30T20:00:00Z (3 days ago)");
        view.smoke = { { 0,
                         "NVIDIA H200",
                         { { "bandwidth.h2d_pinned_gbps", 55.125, "GB/s" },
                           { "matmul.fp16_tflops", 612.3456, "TFLOP/s" } } } };
        view.variables = { { "LD_LIBRARY_PATH", "/opt/cudnn/lib", false },
                           { "PIP_INDEX_URL", "https://<redacted>@pypi.example.com/simple",
                             true } };
        return view;
    }

    // Nothing known: no environment, no GPU, the doctor could not run.
    auto empty_view() -> report::BugReportView
    {
        report::BugReportView view;
        view.envcheck_version = "0.1.0";
        for (auto* field :
             { &view.os, &view.kernel, &view.glibc, &view.architecture, &view.cpu, &view.cpu_count,
               &view.memory, &view.driver_version, &view.cuda_driver_version })
        {
            *field = Collected::unknown("not read in this test");
        }
        view.container = "no";
        view.gpus_why_none = "libnvidia-ml.so.1: cannot open shared object file";
        view.environment = Collected::unknown("no environment to read");
        view.libraries = { { "libcudnn", "", std::nullopt, {}, false } };
        view.doctor_verdict = Collected::unknown("/envs/x: not an environment");
        view.smoke_source = Collected::unknown("no --lock given");
        return view;
    }
}

TEST_CASE("render_bug_report_markdown golden", "[report][bug_report]")
{
    tests::check_golden("report/bug-report.md", report::render_bug_report_markdown(full_view()));
    tests::check_golden("report/bug-report-empty.md",
                        report::render_bug_report_markdown(empty_view()));
}

TEST_CASE("render_bug_report_json golden", "[report][bug_report]")
{
    tests::check_golden("report/bug-report.json", report::render_bug_report_json(full_view()));
    const auto empty = nlohmann::json::parse(report::render_bug_report_json(empty_view()));
    CHECK(empty["environment"]["prefix"]["could_not_collect"] == "no environment to read");
    CHECK(empty["doctor"]["verdict"]["could_not_collect"] == "/envs/x: not an environment");
    CHECK(empty["driver"]["gpus"].empty());
}

TEST_CASE("render_bug_report_markdown is one fenced block, whatever the values hold",
          "[report][bug_report]")
{
    auto view = full_view();
    view.frameworks[0].version = "2.7.0```\n## not a heading";
    const auto text = report::render_bug_report_markdown(view);
    // The fence is longer than any run of backticks inside.
    CHECK(text.starts_with("````text\n"));
    CHECK(text.ends_with("\n````\n"));
}

TEST_CASE("format_age", "[report][bug_report]")
{
    CHECK(report::format_age(-5) == "0 seconds");
    CHECK(report::format_age(1) == "1 second");
    CHECK(report::format_age(59) == "59 seconds");
    CHECK(report::format_age(3600) == "1 hour");
    CHECK(report::format_age(3 * 86400 + 7200) == "3 days");
}
