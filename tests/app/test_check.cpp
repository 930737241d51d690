#include <algorithm>
#include <string>
#include <vector>

#include "app/check.hpp"
#include "app/lock.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto check(FakeWorld& world, const app::CheckRequest& request = {}) -> app::CheckOutcome
    {
        auto outcome = app::run_check(request, world.ports);
        INFO((outcome ? std::string() : outcome.error().to_string()));
        REQUIRE(outcome.has_value());
        return *outcome;
    }

    auto check_error(FakeWorld& world, const app::CheckRequest& request) -> util::Error
    {
        auto outcome = app::run_check(request, world.ports);
        REQUIRE_FALSE(outcome.has_value());
        return outcome.error();
    }

    // Locks the project's environment as `envcheck lock` does: with the GPU unless no_gpu.
    void lock(FakeWorld& world, bool no_gpu = true)
    {
        app::LockRequest request;
        request.no_gpu = no_gpu;
        const auto locked = app::run_lock(request, world.ports);
        REQUIRE(locked.has_value());
        REQUIRE(locked->status == app::LockStatus::written);
    }

    auto statuses(const std::vector<model::PackageFinding>& findings) -> std::vector<std::string>
    {
        std::vector<std::string> out;
        for (const auto& finding : findings)
        {
            out.push_back(finding.name + " " + std::string(model::to_string(finding.status)));
        }
        return out;
    }

    auto outcome_status(const std::vector<model::CheckOutcome>& outcomes, const std::string& id)
      -> std::string
    {
        for (const auto& outcome : outcomes)
        {
            if (outcome.id == id)
            {
                return std::string(model::to_string(outcome.status));
            }
        }
        return "absent";
    }

    const std::string no_lock_note =
      "no lock beside it (./environment.lock.json): package identity, machine and performance "
      "not checked; `envcheck lock` writes one";
}

TEST_CASE("run_check with no arguments in a project directory", "[app][check]")
{
    FakeWorld world;
    tests::make_project(world);

    SECTION("the environment file alone")
    {
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(outcome.check.notes == std::vector<std::string>{ "using ./environment.yml",
                                                               no_lock_note,
                                                               "environment from $CONDA_PREFIX" });
        CHECK(outcome.check.environment_file == "environment.yml");
        CHECK_FALSE(outcome.check.lock_file.has_value());
        CHECK(outcome.check.prefix == "/envs/train");
        CHECK(statuses(outcome.check.packages) ==
              std::vector<std::string>{ "hello ok", "python ok" });
        // Nothing to compare a machine with: neither the machine nor the GPU was asked.
        CHECK(world.machine.probes.empty());
        CHECK(world.smoke.runs.empty());
    }

    SECTION("and the lock beside it")
    {
        lock(world);
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(outcome.check.notes ==
              std::vector<std::string>{ "using ./environment.yml",
                                        "using the lock beside it: ./environment.lock.json",
                                        "environment from $CONDA_PREFIX" });
        CHECK(outcome.check.lock_file == "environment.lock.json");
        CHECK(outcome.check.lock_format == "envcheck");
        CHECK(outcome.check.count(model::PackageStatus::ok) == 6);
        // A lock made without the GPU records the driver and GPUs as unknown: they are not
        // probed, and their checks are skipped.
        CHECK(world.machine.probes.empty());
        CHECK(outcome_status(outcome.check.machine, "machine.platform") == "pass");
        CHECK(outcome_status(outcome.check.machine, "machine.glibc") == "pass");
        CHECK(outcome_status(outcome.check.machine, "machine.driver_version") == "skip");
    }

    SECTION("only a lock, without an environment file")
    {
        lock(world);
        world.files.files.erase("environment.yml");
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(outcome.check.notes ==
              std::vector<std::string>{ "using the lock beside it: ./environment.lock.json",
                                        "environment from $CONDA_PREFIX" });
    }
}

TEST_CASE("run_check drift", "[app][check]")
{
    FakeWorld world;
    tests::make_project(world);
    lock(world);
    auto& installed = world.prefixes.environments["/envs/train"];

    SECTION("another build: the spec still holds, the lock does not")
    {
        tests::rebuild(installed, "hello", "h1_1");
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.check.count(model::PackageStatus::changed) == 1);
        CHECK(outcome.check.count(model::PackageStatus::unsatisfied) == 0);
        CHECK_FALSE(outcome.fleet.features.lock_matches.value());
    }

    SECTION("another version: neither holds")
    {
        tests::rebuild(installed, "hello", "h0_0");
        tests::package(installed, "hello").version = "2.0";
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.check.count(model::PackageStatus::unsatisfied) == 1);
        const auto& hello = outcome.check.packages.front();
        CHECK(hello.name == "hello");
        CHECK(hello.notes == std::vector<std::string>{ "lock: installed 2.0 h0_0, locked 1.0 "
                                                       "h0_0 (sha256 differs)" });
    }

    SECTION("a package installed after locking")
    {
        auto extra = tests::package(installed, "hello");
        extra.name = "extra-tool";
        installed.packages.push_back(extra);
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.check.count(model::PackageStatus::extra) == 1);
    }

    SECTION("a package removed after locking")
    {
        std::erase_if(installed.packages, [](const auto& p) { return p.name == "six"; });
        CHECK(check(world).check.count(model::PackageStatus::missing) == 1);
    }

    SECTION("a record that cannot be read is drift, not an error")
    {
        installed.problems.push_back(util::make_error(util::ErrorKind::parse, "bad JSON"));
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::findings);
        CHECK(outcome.check.problems.size() == 1);
    }

    SECTION("the environment file changed after locking")
    {
        world.files.files["environment.yml"] = std::string(tests::demo_environment_yml) + "\n";
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(outcome.check.notes.back() ==
              "environment.yml changed after the lock was written (sha256 differs): re-lock once "
              "the environment matches it");
    }

    SECTION("another platform")
    {
        app::CheckRequest request;
        request.lock = "environment.lock.json";
        auto text = world.files.files["environment.lock.json"];
        text.replace(text.find("\"linux-64\""), 10, "\"osx-arm64\"");
        world.files.files["environment.lock.json"] = text;
        const auto outcome = check(world, request);
        CHECK(outcome_status(outcome.check.machine, "machine.platform") == "fail");
        CHECK(outcome.verdict() == app::Verdict::findings);
    }
}

TEST_CASE("run_check errors: every input is read before anything is compared", "[app][check]")
{
    FakeWorld world;
    tests::make_project(world);
    world.files.files["broken.lock.json"] = "{\"schema_version\": 1,\n \"packages\": [}\n";

    struct Case
    {
        std::string name;
        std::string env;
        std::string lock;
        std::vector<std::string> tolerances;
        util::ErrorKind kind;
        std::string message; // a part of it
        std::string file;
        std::size_t line;
    };
    const std::vector<Case> cases{
        { "a lock that does not parse",
          "",
          "broken.lock.json",
          {},
          util::ErrorKind::parse,
          "",
          "broken.lock.json",
          2 },
        { "a lock that is not there",
          "",
          "nope.json",
          {},
          util::ErrorKind::io,
          "No such file",
          "nope.json",
          0 },
        { "an environment file with an error",
          "bad.yml",
          "",
          {},
          util::ErrorKind::parse,
          "",
          "bad.yml",
          2 },
        { "a tolerance out of range",
          "",
          "",
          { "150%" },
          util::ErrorKind::usage,
          "'150%' is not an allowed drop between 0 and 1",
          "",
          0 },
        { "a tolerance for something that is not a metric",
          "",
          "",
          { "Bandwidth=5%" },
          util::ErrorKind::usage,
          "'Bandwidth' is not a metric",
          "",
          0 },
        { "a tolerance for a metric the lock has no baseline for",
          "",
          "environment.lock.json",
          { "matmul-shared.tuned_tflops=5%" },
          util::ErrorKind::usage,
          "--perf-tolerance: the lock has no baseline for 'matmul-shared.tuned_tflops'",
          "",
          0 },
    };
    world.files.files["bad.yml"] = "dependencies:\n\t- numpy\n";
    lock(world);
    for (const auto& item : cases)
    {
        INFO(item.name);
        app::CheckRequest request;
        request.env = item.env;
        request.lock = item.lock;
        request.perf_tolerances = item.tolerances;
        if (item.env.empty() && item.lock.empty())
        {
            request.env = "environment.yml";
        }
        const auto error = check_error(world, request);
        CHECK(error.kind == item.kind);
        CHECK(error.message.find(item.message) != std::string::npos);
        CHECK(error.where.file == item.file);
        CHECK(error.where.line == item.line);
    }
    // The machine was not probed for any of them. (The environment is read while the inputs are,
    // so each read it once; an input's error still wins over anything the environment says.)
    // lock()'s, and one for each case whose error comes from reading an input (the first two
    // tolerance cases fail before anything is read).
    CHECK(world.prefixes.reads.size() == 1 + 4);
    CHECK(world.machine.probes.empty());
}

TEST_CASE("run_check usage errors", "[app][check]")
{
    SECTION("nothing to check against")
    {
        FakeWorld world;
        world.environment["CONDA_PREFIX"] = "/envs/train";
        const auto error = check_error(world, {});
        CHECK(error.kind == util::ErrorKind::usage);
        CHECK(error.message ==
              "nothing to check against: no --env or --lock, and no ./environment.yml or lock "
              "here (environment.lock.json, pixi.lock, conda-lock.yml, uv.lock, pylock.toml)");
    }

    SECTION("no environment")
    {
        FakeWorld world;
        tests::make_project(world);
        world.environment.clear();
        CHECK(check_error(world, {}).message == "no environment to read");
    }

    SECTION("a directory that is not an environment")
    {
        FakeWorld world;
        tests::make_project(world);
        app::CheckRequest request;
        request.selection.prefix = "/tmp";
        CHECK(check_error(world, request).kind == util::ErrorKind::io);
    }
}

TEST_CASE("run_check performance against the lock's baselines", "[app][check]")
{
    FakeWorld world;
    tests::make_project(world);
    lock(world, /*no_gpu=*/false); // measures 55 GB/s on the healthy H200
    world.smoke.runs.clear();
    world.machine.probes.clear();
    const std::string fix =
      "run on the locked machine, or pass --no-gpu to check the packages only";

    SECTION("as locked")
    {
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(outcome_status(outcome.check.performance, "perf.bandwidth.h2d_pinned_gbps") ==
              "pass");
        CHECK(outcome_status(outcome.check.machine, "machine.driver_version") == "pass");
        CHECK(outcome_status(outcome.check.machine, "machine.gpus") == "pass");
        REQUIRE(world.smoke.runs.size() == 1);
        CHECK(world.smoke.runs[0].mode == model::SmokeMode::quick);
        CHECK_FALSE(world.smoke.runs[0].device.has_value()); // every GPU
        CHECK_FALSE(world.smoke.runs[0].progress);
        CHECK(world.machine.probes.size() == 1);
        CHECK(outcome.fleet.features.driver_version == "580.65.06");
        CHECK(outcome.fleet.features.gpu_model == "NVIDIA H200");
        CHECK(outcome.fleet.features.lock_matches == true);
    }

    SECTION("half as fast fails, unless the tolerance allows it")
    {
        world.smoke.report = tests::smoke_report(27.5);
        const auto outcome = check(world);
        CHECK(outcome.verdict() == app::Verdict::findings);
        REQUIRE(outcome.check.performance.size() == 1);
        CHECK(outcome.check.performance[0].message.find("dropped at least 50% in two") !=
              std::string::npos);

        app::CheckRequest tolerant;
        tolerant.perf_tolerances = { "bandwidth.h2d_pinned_gbps=60%" };
        CHECK(check(world, tolerant).verdict() == app::Verdict::clean);
    }

    SECTION("a drop is measured again before it fails: once is a transient, twice fails")
    {
        world.smoke.report = tests::smoke_report(27.5);
        world.smoke.later_reports = { tests::smoke_report(54.8) };
        const auto transient = check(world);
        CHECK(transient.verdict() == app::Verdict::clean);
        REQUIRE(world.smoke.runs.size() == 2);
        CHECK(world.smoke.runs[1].probes == std::vector<std::string>{ "bandwidth" });
        CHECK(world.smoke.runs[1].device == 0); // the GPU it dropped on
        REQUIRE(transient.check.performance.size() == 1);
        CHECK(transient.check.performance[0].message ==
              "bandwidth.h2d_pinned_gbps within tolerance when measured again (55 GB/s locked, "
              "54.8 GB/s now, 27.5 GB/s at first; tolerance 4%)");
        CHECK(transient.check.performance[0].metrics.at("measured_at_first") == 27.5);
        CHECK(std::find(transient.check.notes.begin(), transient.check.notes.end(),
                        "GPU 0: " + transient.check.performance[0].message +
                          ", a transient drop") != transient.check.notes.end());

        world.smoke.runs.clear();
        world.smoke.later_reports = { tests::smoke_report(30.0) };
        const auto lasting = check(world);
        CHECK(lasting.verdict() == app::Verdict::findings);
        REQUIRE(lasting.check.performance.size() == 1);
        CHECK(lasting.check.performance[0].message.starts_with(
          "bandwidth.h2d_pinned_gbps dropped at least 45% in two measurements (55 GB/s locked, "
          "30 GB/s now, 27.5 GB/s at first; tolerance 4%)"));
        CHECK(lasting.check.performance[0].metrics.at("measured") == 30.0);
    }

    SECTION("as locked, one run: nothing to measure again")
    {
        world.smoke.report = tests::smoke_report(54.0);
        CHECK(check(world).verdict() == app::Verdict::clean);
        CHECK(world.smoke.runs.size() == 1);
    }

    SECTION("no GPU to measure on")
    {
        world.smoke.report = tests::no_gpu_report();
        const auto outcome = check(world);
        REQUIRE(outcome.check.performance.size() == 1);
        const auto& perf = outcome.check.performance[0];
        CHECK(perf.id == "perf");
        CHECK(perf.status == model::Status::fail);
        CHECK(perf.message ==
              "the lock records performance baselines, but no GPU could be probed: no NVIDIA "
              "driver (libcuda.so.1 not found)");
        CHECK(perf.fix == fix);
    }

    SECTION("the locked GPU is not on this machine")
    {
        world.smoke.report.devices[0].device.index = 1;
        const auto outcome = check(world);
        CHECK(outcome.check.performance[0].message ==
              "GPU 0 (NVIDIA H200) has a baseline but is not on this machine");
    }

    SECTION("--no-gpu: neither probed nor measured")
    {
        app::CheckRequest request;
        request.no_gpu = true;
        request.perf_tolerances = { "20%", "bandwidth.h2d_pinned_gbps=5%" };
        const auto outcome = check(world, request);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(outcome.check.notes.back() ==
              "--no-gpu: the lock's performance baselines were not measured");
        CHECK(world.smoke.runs.empty());
        CHECK(world.machine.probes.empty());
        CHECK(outcome_status(outcome.check.machine, "machine.driver_version") == "skip");
    }

    SECTION("the hardware gates run with the machine part, gpu.count against the lock's GPUs")
    {
        auto outcome = check(world);
        CHECK(outcome_status(outcome.check.machine, "gpu.count") == "pass");
        CHECK(outcome_status(outcome.check.machine, "gpu.ecc-uncorrectable") == "skip");
        world.machine.facts.nvml.gpus.at(0).ecc_enabled = true;
        world.machine.facts.nvml.gpus.at(0).ecc_uncorrected_volatile = 1;
        outcome = check(world);
        CHECK(outcome_status(outcome.check.machine, "gpu.ecc-uncorrectable") == "fail");
        CHECK(outcome.verdict() == app::Verdict::findings);
    }

    SECTION("nobody else computes: the go-ahead comes as soon as NVML has answered")
    {
        world.smoke.spared.clear();
        world.smoke.early_go.clear();
        const auto outcome = check(world);
        REQUIRE(world.smoke.spared.size() == 1);
        CHECK(world.smoke.spared[0].empty());
        CHECK(world.smoke.early_go == std::vector<bool>{ true });
        CHECK(outcome.verdict() == app::Verdict::clean);
    }

    SECTION("a GPU other processes compute on is not measured")
    {
        world.machine.facts.nvml.gpus.at(0).compute_processes = 1;
        world.machine.facts.nvml.gpus.at(0).compute_process_ids = { 777 };
        const auto probed = world.machine.probes.size();
        world.smoke.spared.clear();
        world.smoke.early_go.clear();
        auto outcome = check(world);
        // The child was started before the machine was probed; its go-ahead spares the GPU.
        CHECK(world.smoke.probes_before_start.back() == probed);
        CHECK(world.machine.probes.size() == probed + 1);
        REQUIRE(world.smoke.spared.size() == 1);
        CHECK(world.smoke.spared[0] ==
              std::map<int, std::string>{
                { 0, "GPU 0 is busy: 1 compute process of others (pid 777) holds it; skipped so "
                     "as not to disturb them (--even-if-busy runs it anyway)" } });
        // Not on NVML's word alone: which CUDA ordinal is busy takes the CUDA driver's devices.
        CHECK(world.smoke.early_go == std::vector<bool>{ false });
        REQUIRE(outcome.check.performance.size() == 1);
        const auto& perf = outcome.check.performance[0];
        CHECK(perf.status == model::Status::skip);
        CHECK(perf.message == "GPU 0 is busy: 1 compute process of others (pid 777) holds it; "
                              "skipped so as not to disturb them (--even-if-busy runs it anyway)");
        CHECK(outcome.verdict() == app::Verdict::clean);

        app::CheckRequest anyway;
        anyway.even_if_busy = true;
        outcome = check(world, anyway);
        REQUIRE(world.smoke.spared.size() == 2);
        CHECK(world.smoke.spared[1].empty());
        // Given as the run started: nothing to wait for.
        CHECK(world.smoke.early_go == std::vector<bool>{ false, false });
        CHECK(world.smoke.probes_before_start.back() == probed + 1);
        CHECK(outcome_status(outcome.check.performance, "perf.bandwidth.h2d_pinned_gbps") ==
              "pass");
    }

    SECTION("an older driver")
    {
        world.machine.facts.nvml.driver_version = "570.10.01";
        world.machine.facts.kernel.version = "570.10.01";
        const auto outcome = check(world);
        CHECK(outcome_status(outcome.check.machine, "machine.driver_version") == "fail");
        CHECK(outcome.verdict() == app::Verdict::findings);
    }
}

TEST_CASE("run_check --deep", "[app][check]")
{
    FakeWorld world;
    world.prefixes.directories["/envs/fixture"] = tests::FixturePrefixes::conda_basic();
    world.prefixes.directories["/envs/venv"] = tests::test_data("prefixes/venv-basic");
    world.files.files["environment.yml"] = tests::demo_environment_yml;
    app::CheckRequest request;
    request.env = "environment.yml";
    request.deep = true;
    request.jobs = 2;

    SECTION("a conda prefix: every record's files")
    {
        request.selection.prefix = "/envs/fixture";
        const auto outcome = check(world, request);
        REQUIRE(world.prefixes.reads.size() == 1);
        CHECK(world.prefixes.reads[0].files);
        CHECK(world.prefixes.reads[0].threads == 2);
        CHECK(outcome.check.deep);
        CHECK(outcome.check.deep_summary.files_checked > 0);
        // The fixture's broken record and dist-info, and (deep) a RECORD with a hash that is not
        // one and a dist-info without RECORD.
        CHECK(outcome.check.problems.size() == 4);
        CHECK(outcome.verdict() == app::Verdict::findings);
    }

    SECTION("a venv: a distribution without a RECORD cannot be verified, and says so")
    {
        world.files.files.erase("environment.yml");
        request.selection.prefix = "/envs/venv";
        request.env.clear();
        request.lock = "venv.lock.json";
        app::LockRequest locking;
        locking.selection.prefix = "/envs/venv";
        locking.output = "venv.lock.json";
        locking.no_gpu = true;
        REQUIRE(app::run_lock(locking, world.ports).has_value());
        const auto outcome = check(world, request);
        CHECK(outcome.check.files.empty());
        CHECK(outcome.check.deep_summary.files_checked == 0);
        std::vector<std::string> problems;
        for (const auto& problem : outcome.check.problems)
        {
            problems.push_back(problem.to_string());
        }
        CHECK(problems ==
              std::vector<std::string>{
                "lib/python3.12/site-packages/Tiny_Pkg-2.0.dist-info/RECORD: no readable RECORD, "
                "its files cannot be verified: cannot open: No such file or directory",
                "lib/python3.12/site-packages/pip-24.0.dist-info/RECORD: no readable RECORD, its "
                "files cannot be verified: cannot open: No such file or directory" });
        CHECK(outcome.verdict() == app::Verdict::findings);
    }
}

TEST_CASE("run_check fleet view", "[app][check]")
{
    FakeWorld world;
    tests::make_project(world);
    const auto outcome = check(world);
    REQUIRE(outcome.fleet.runs.size() == 1);
    const auto& run = outcome.fleet.runs[0];
    CHECK(run.command == "check");
    CHECK(run.duration_seconds == Approx(0.5)); // one tick of the fixed clock
    CHECK(run.finished_unix_seconds == Approx(1796094526.0));
    CHECK(outcome.fleet.features.lock_matches == true);
    CHECK_FALSE(outcome.fleet.features.driver_version.has_value()); // not probed

    // A report that does not read the run (text, json, html) does not have it made; the node's
    // features stay.
    app::CheckRequest without_runs;
    without_runs.fleet_runs = false;
    const auto reported = check(world, without_runs);
    CHECK(reported.fleet.runs.empty());
    CHECK(reported.fleet.features.lock_matches == true);
    CHECK(reported.check.packages.size() == outcome.check.packages.size());
}

TEST_CASE("run_check of an environment file against a lock, nothing installed", "[app][check]")
{
    FakeWorld world; // no environment selected or active
    world.files.files["environment.yml"] =
      "name: demo\nchannels: [conda-forge]\ndependencies:\n  - numpy>=1.26\n  - scipy\n"
      "  - pytest=7\n  - pip:\n      - requests==2.32.3\n";
    world.files.files["explicit.txt"] =
      "# platform: linux-64\n@EXPLICIT\n"
      "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda\n"
      "https://conda.anaconda.org/conda-forge/noarch/pytest-8.3.4-pyhd8ed1ab_1.conda\n";
    app::CheckRequest request;
    request.env = "environment.yml";
    request.lock = "explicit.txt";

    SECTION("every spec against the locked packages, which are called locked")
    {
        const auto outcome = check(world, request);
        CHECK(outcome.check.prefix.empty());
        CHECK(statuses(outcome.check.packages) ==
              std::vector<std::string>{ "numpy ok", "scipy missing", "pytest unsatisfied",
                                        "requests missing" });
        CHECK(outcome.check.packages[1].reason == "no locked package matches 'scipy'");
        CHECK(outcome.check.packages[2].reason.starts_with("locked 8.3.4"));
        CHECK(outcome.verdict() == app::Verdict::findings);
    }

    SECTION("an active environment is checked instead, unless --no-prefix")
    {
        world.environment["CONDA_PREFIX"] = "/envs/train";
        world.prefixes.environments["/envs/train"] = tests::FixturePrefixes::readable_conda_basic();
        CHECK(check(world, request).check.prefix == "/envs/train");
        request.no_prefix = true;
        const auto outcome = check(world, request);
        CHECK(outcome.check.prefix.empty());
        CHECK(outcome.check.packages.size() == 4);
    }

    SECTION("--no-prefix needs both files, and no --deep")
    {
        request.no_prefix = true;
        request.deep = true;
        CHECK(check_error(world, request).kind == util::ErrorKind::usage);
        request.deep = false;
        request.lock.clear();
        CHECK(check_error(world, request).kind == util::ErrorKind::usage);
    }
}

TEST_CASE("run_check with the configuration's [check]", "[app][check]")
{
    FakeWorld world;
    tests::make_project(world);
    const config::Source source{ config::Source::Kind::file, "/work/project/.envcheck.toml", 4,
                                 13 };

    // The configuration's gpu-count reaches the gates as the policy's expected count
    // (cli::hardware_gate_policy); without a lock, check probes the GPUs for it.
    SECTION("an expected GPU count: the machine shows as many GPUs (one, the healthy H200)")
    {
        app::CheckRequest request;
        request.hardware.expected_gpu_count = 1;
        const auto outcome = check(world, request);
        CHECK(outcome_status(outcome.check.machine, "gpu.count") == "pass");
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(world.machine.probes.size() == 1);
    }

    SECTION("an expected GPU count: fewer GPUs than expected fail, naming the expectation")
    {
        app::CheckRequest request;
        request.hardware.expected_gpu_count = 8;
        request.hardware.expected_gpu_count_from = "check.gpu-count in " + source.to_string();
        const auto outcome = check(world, request);
        CHECK(outcome_status(outcome.check.machine, "gpu.count") == "fail");
        CHECK(outcome.verdict() == app::Verdict::findings);
        const auto& machine = outcome.check.machine;
        const auto found = std::find_if(machine.begin(), machine.end(),
                                        [](const auto& item) { return item.id == "gpu.count"; });
        REQUIRE(found != machine.end());
        CHECK(found->message.find("1 of 8 GPUs visible") != std::string::npos);
        CHECK(found->message.find("check.gpu-count in /work/project/.envcheck.toml:4:13") !=
              std::string::npos);
    }

    SECTION("an expected GPU count with --no-gpu: not checked, and said so")
    {
        app::CheckRequest request;
        request.no_gpu = true;
        request.hardware.expected_gpu_count = 8;
        const auto outcome = check(world, request);
        CHECK(outcome.verdict() == app::Verdict::clean);
        CHECK(world.machine.probes.empty());
        CHECK(outcome.check.notes.back() == "--no-gpu: the expected GPU count (8) was not checked");
    }

    SECTION("tolerances: a configured metric the lock has no baseline for is unused")
    {
        lock(world);
        app::CheckRequest request;
        request.config.tolerances["bandwidth.h2d_pinned_gbps"] = { 0.05, source };
        CHECK(check(world, request).verdict() == app::Verdict::clean);
    }
}

TEST_CASE("run_check: a configured tolerance allows a drop; --perf-tolerance overrides it",
          "[app][check]")
{
    FakeWorld world;
    tests::make_project(world);
    lock(world, /*no_gpu=*/false); // measures 55 GB/s on the healthy H200
    world.smoke.report = tests::smoke_report(27.5);
    const config::Source source{ config::Source::Kind::file, ".envcheck.toml", 3, 1 };
    app::CheckRequest request;
    request.config.tolerances["bandwidth.h2d_pinned_gbps"] = { 0.6, source };
    CHECK(check(world, request).verdict() == app::Verdict::clean);
    request.perf_tolerances = { "bandwidth.h2d_pinned_gbps=5%" };
    CHECK(check(world, request).verdict() == app::Verdict::findings);
}

TEST_CASE("run_check finds the locks users already have", "[app][check]")
{
    FakeWorld world;
    tests::make_project(world);
    const auto notes_have = [](const app::CheckOutcome& outcome, const std::string& note)
    {
        const auto& notes = outcome.check.notes;
        INFO(note);
        return std::find(notes.begin(), notes.end(), note) != notes.end();
    };

    SECTION("pixi.lock beside environment.yml")
    {
        world.files.files["pixi.lock"] = tests::read_test_file("locks/sources.pixi.lock");
        const auto outcome = check(world);
        CHECK(outcome.check.environment_file == "environment.yml");
        CHECK(outcome.check.lock_file == "pixi.lock");
        CHECK(outcome.check.lock_format == "pixi");
        CHECK(notes_have(outcome, "using the lock beside it: ./pixi.lock"));
    }

    SECTION("conda-lock.yml beside environment.yml")
    {
        world.files.files["conda-lock.yml"] =
          tests::read_test_file("locks/categories.conda-lock.yml");
        const auto outcome = check(world);
        CHECK(outcome.check.lock_file == "conda-lock.yml");
        CHECK(outcome.check.lock_format == "conda-lock");
    }

    SECTION("two locks: envcheck's is used, the other is named")
    {
        lock(world);
        world.files.files["pixi.lock"] = tests::read_test_file("locks/sources.pixi.lock");
        const auto outcome = check(world);
        CHECK(outcome.check.lock_file == "environment.lock.json");
        CHECK(notes_have(outcome, "also here, not used: ./pixi.lock (the first of "
                                  "environment.lock.json, pixi.lock, conda-lock.yml, uv.lock, "
                                  "pylock.toml is used; --lock picks another)"));
    }

    SECTION("without environment.yml, pyproject.toml is the spec beside a lock")
    {
        world.files.files.erase("environment.yml");
        world.files.files["pyproject.toml"] =
          "[project]\nname = \"demo\"\nversion = \"1.0\"\ndependencies = [\"six\"]\n";
        world.files.files["conda-lock.yml"] =
          tests::read_test_file("locks/categories.conda-lock.yml");
        const auto outcome = check(world);
        CHECK(outcome.check.environment_file == "pyproject.toml");
        CHECK(outcome.check.lock_file == "conda-lock.yml");
    }

    SECTION("pixi's default environment when none is activated")
    {
        world.environment.clear();
        world.files.directories.insert(".pixi/envs/default");
        world.prefixes.environments[".pixi/envs/default"] =
          tests::FixturePrefixes::readable_conda_basic();
        const auto outcome = check(world);
        CHECK(outcome.check.prefix == ".pixi/envs/default");
        CHECK(notes_have(outcome, "environment from ./.pixi/envs/default (pixi's default "
                                  "environment; none is activated)"));
        CHECK(outcome.verdict() == app::Verdict::clean);
    }

    SECTION("an activated environment wins over pixi's")
    {
        world.files.directories.insert(".pixi/envs/default");
        CHECK(check(world).check.prefix == "/envs/train");
    }
}
