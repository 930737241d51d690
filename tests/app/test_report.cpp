#include <string>
#include <vector>

#include "app/report.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto report_of(FakeWorld& world, const app::ReportRequest& request = {})
      -> report::BugReportView
    {
        auto outcome = app::run_report(request, world.ports);
        INFO((outcome ? std::string() : outcome.error().to_string()));
        REQUIRE(outcome.has_value());
        CHECK(outcome->verdict() == app::Verdict::clean);
        return outcome->view;
    }

    auto pip(std::string name, std::string version) -> model::Package
    {
        model::Package package;
        package.manager = model::Manager::pip;
        package.name = std::move(name);
        package.version = std::move(version);
        return package;
    }

    auto conda(std::string name, std::string version, std::string build) -> model::Package
    {
        model::Package package;
        package.name = std::move(name);
        package.version = std::move(version);
        package.build = std::move(build);
        package.channel = "https://conda.anaconda.org/conda-forge";
        return package;
    }

    // A venv at /envs/ml with torch 2.7.0+cu128 and the cuDNN wheel, activated.
    void with_torch_venv(FakeWorld& world)
    {
        model::InstalledEnvironment environment;
        environment.prefix = "/envs/ml";
        environment.kind = model::PrefixKind::venv;
        environment.python_version = "3.12.3";
        environment.site_packages = { "lib/python3.12/site-packages" };
        environment.packages = { pip("nvidia-cudnn-cu12", "9.1.0.70"), pip("torch", "2.7.0+cu128"),
                                 pip("numpy", "2.1.0") };
        world.prefixes.environments["/envs/ml"] = environment;
        world.environment["VIRTUAL_ENV"] = "/envs/ml";
    }

    auto library(std::string name, std::string file, std::string path, std::string via,
                 std::string source = "", std::optional<std::string> version = std::nullopt)
      -> model::LoadableLibrary
    {
        model::LoadableLibrary found;
        found.library = std::move(name);
        found.file.name = std::move(file);
        found.file.path = path;
        found.file.real_path = std::move(path);
        found.file.found_via = std::move(via);
        found.file.version = std::move(version);
        found.source = std::move(source);
        return found;
    }
}

TEST_CASE("run_report without an environment or a GPU says what it could not collect",
          "[app][report]")
{
    FakeWorld world;
    world.machine.facts = tests::machine_without_gpu();
    const auto view = report_of(world);
    CHECK_FALSE(view.environment.value);
    CHECK(view.environment.text() == "could not collect: no environment to read");
    CHECK(view.frameworks.empty());
    CHECK(view.gpus.empty());
    CHECK(view.gpus_why_none == "libnvidia-ml.so.1: cannot open shared object file");
    REQUIRE(view.doctor_verdict.value);
    CHECK(view.doctor_verdict.value->starts_with("broken at "));
    CHECK_FALSE(view.doctor_message.empty());
    CHECK_FALSE(view.smoke_source.value);
    // One machine probe: the doctor's, whose facts the report shows.
    CHECK(world.machine.probes.size() == 1);
    // The loader's view without an environment: LD_LIBRARY_PATH and the system only.
    REQUIRE(world.machine.lookups.size() == 1);
    CHECK(world.machine.lookups[0].environment_dirs.empty());
    CHECK(world.machine.lookups[0].names ==
          std::vector<std::string>{ "libcudart", "libcublas", "libcudnn", "libnccl" });
    REQUIRE(view.libraries.size() == 4);
    for (const auto& row : view.libraries)
    {
        CHECK_FALSE(row.loaded);
    }
}

TEST_CASE("run_report of a venv with torch: its CUDA build, the wheels' library directories, "
          "shadowing by LD_LIBRARY_PATH",
          "[app][report]")
{
    FakeWorld world;
    with_torch_venv(world);
    world.files.files["/envs/ml/lib/python3.12/site-packages/torch/version.py"] =
      "__version__ = '2.7.0+cu128'\ndebug = False\ncuda: Optional[str] = '12.8'\n"
      "git_version = 'abc'\nhip: Optional[str] = None\n";
    const std::string wheel_lib = "/envs/ml/lib/python3.12/site-packages/nvidia/cudnn/lib";
    world.machine.libraries = {
        library("libcudnn", "libcudnn.so.9", "/opt/old/libcudnn.so.9", "LD_LIBRARY_PATH", "",
                "9.0.0"),
        library("libcudnn", "libcudnn.so.9", wheel_lib + "/libcudnn.so.9", "environment",
                "pip nvidia-cudnn-cu12 9.1.0.70"),
        library("libcudnn", "libcudnn.so.8", "/usr/lib/x86_64-linux-gnu/libcudnn.so.8", "default",
                "", "8.9.7"),
        library("libcudart", "libcudart.so.12", "/usr/local/cuda/lib64/libcudart.so.12",
                "ld.so.conf", "", "12.4.127"),
    };
    const auto view = report_of(world);

    CHECK(view.environment.text() == "/envs/ml");
    CHECK(view.located_by == "$VIRTUAL_ENV");
    CHECK(view.kind == "venv");
    CHECK(view.python.text() == "3.12.3");
    CHECK(view.pip_packages == 3);
    CHECK(view.conda_packages == 0);
    REQUIRE(view.frameworks.size() == 1);
    CHECK(view.frameworks[0].name == "torch");
    CHECK(view.frameworks[0].version == "2.7.0+cu128");
    CHECK(view.frameworks[0].cuda_build.text() == "12.8");
    CHECK(view.frameworks[0].cuda_build_from == "torch/version.py");

    // The directories the wheels' RUNPATH names, in its order, each with its package.
    REQUIRE(world.machine.lookups.size() == 1);
    const auto& dirs = world.machine.lookups[0].environment_dirs;
    REQUIRE(dirs.size() == 3);
    CHECK(dirs[0].path == wheel_lib);
    CHECK(dirs[0].source == "pip nvidia-cudnn-cu12 9.1.0.70");
    CHECK(dirs[1].path == "/envs/ml/lib/python3.12/site-packages/nvidia/cu13/lib");
    CHECK(dirs[2].path == "/envs/ml/lib/python3.12/site-packages/torch/lib");

    // libcudart, libcublas, libcudnn (two file names), libnccl, in that order.
    REQUIRE(view.libraries.size() == 5);
    CHECK(view.libraries[0].file == "libcudart.so.12");
    CHECK(view.libraries[1].library == "libcublas");
    CHECK_FALSE(view.libraries[1].loaded);
    const auto& cudnn9 = view.libraries[2];
    CHECK(cudnn9.file == "libcudnn.so.9");
    CHECK(cudnn9.loaded->file.path == "/opt/old/libcudnn.so.9");
    REQUIRE(cudnn9.passed_over.size() == 1);
    CHECK(cudnn9.passed_over[0].file.found_via == "environment");
    CHECK(cudnn9.environment_shadowed); // pytorch#80637
    const auto& cudnn8 = view.libraries[3];
    CHECK(cudnn8.file == "libcudnn.so.8");
    CHECK_FALSE(cudnn8.environment_shadowed);
    CHECK(view.libraries[4].library == "libnccl");
}

TEST_CASE("run_report: the environment's own copy first is not shadowed", "[app][report]")
{
    FakeWorld world;
    with_torch_venv(world);
    world.machine.libraries = {
        library("libcudnn", "libcudnn.so.9", "/envs/ml/x/libcudnn.so.9", "environment", "pip x"),
        library("libcudnn", "libcudnn.so.9", "/usr/lib/libcudnn.so.9", "default"),
    };
    const auto view = report_of(world);
    REQUIRE(view.libraries.size() == 4);
    CHECK(view.libraries[2].loaded->file.found_via == "environment");
    CHECK(view.libraries[2].passed_over.size() == 1);
    CHECK_FALSE(view.libraries[2].environment_shadowed);
}

TEST_CASE("run_report of a conda environment: channels redacted, the prefix's lib searched",
          "[app][report]")
{
    FakeWorld world;
    model::InstalledEnvironment environment;
    environment.prefix = "/envs/train";
    environment.kind = model::PrefixKind::conda;
    auto torch = conda("pytorch", "2.5.1", "cuda126_py312h1234567_300");
    torch.channel = "https://bob:hunter2@conda.example.com/t/tk-SECRET-123/ml";
    environment.packages = { torch, conda("cupy", "13.3.0", "py312h7d3d2ed_2"),
                             conda("python", "3.12.7", "hc5c86c4_0_cpython") };
    world.prefixes.environments["/envs/train"] = environment;
    app::ReportRequest request;
    request.selection.prefix = "/envs/train";
    const auto view = report_of(world, request);
    CHECK(view.located_by == "--prefix");
    CHECK(view.conda_packages == 3);
    REQUIRE(view.channels.size() == 2);
    CHECK(view.channels[0] == "https://<redacted>@conda.example.com/t/<redacted>/ml");
    CHECK(view.channels[1] == "https://conda.anaconda.org/conda-forge");
    REQUIRE(view.frameworks.size() == 2);
    CHECK(view.frameworks[0].name == "torch");
    CHECK(view.frameworks[0].cuda_build.text() == "12.6");
    CHECK(view.frameworks[0].cuda_build_from == "conda build cuda126_py312h1234567_300");
    CHECK(view.frameworks[1].name == "cupy");
    CHECK(view.frameworks[1].cuda_build.text().starts_with("could not collect: "));
    REQUIRE(world.machine.lookups.size() == 1);
    REQUIRE(world.machine.lookups[0].environment_dirs.size() == 1);
    CHECK(world.machine.lookups[0].environment_dirs[0].path == "/envs/train/lib");
    CHECK(world.machine.lookups[0].environment_dirs[0].source == "conda prefix");
}

TEST_CASE("run_report: a named environment or lock that cannot be read is an error",
          "[app][report]")
{
    FakeWorld world;
    app::ReportRequest request;
    request.selection.name = "missing";
    CHECK_FALSE(app::run_report(request, world.ports));

    request = {};
    request.lock_file = "nowhere.lock.json";
    const auto outcome = app::run_report(request, world.ports);
    REQUIRE_FALSE(outcome);
    CHECK(outcome.error().kind == util::ErrorKind::io);
}

TEST_CASE("run_report: the smoke figures are a lock's baselines, with their age", "[app][report]")
{
    FakeWorld world;
    world.files.files["sample.lock.json"] = tests::read_test_file("locks/sample.lock.json");
    world.clock.now = 1796068920 + 3 * 86400; // the lock was written at 2026-11-30T20:00:00Z
    app::ReportRequest request;
    request.lock_file = "sample.lock.json";
    const auto view = report_of(world, request);
    CHECK(view.smoke_source.text() ==
          "sample.lock.json, recorded 2026-11-30T20:00:00Z (3 days ago)");
    REQUIRE(view.smoke.size() == 1);
    CHECK(view.smoke[0].name == "NVIDIA H200");
    REQUIRE(view.smoke[0].metrics.size() == 1);
    CHECK(view.smoke[0].metrics[0].name == "bandwidth.h2d_pinned_gbps");
    CHECK(view.smoke[0].metrics[0].value == 55.125);
    CHECK(view.smoke[0].metrics[0].unit == "GB/s");
}

TEST_CASE("cuda_build_of reads versions, names and builds, never guesses", "[app][report]")
{
    struct Case
    {
        model::Package package;
        std::optional<std::string> cuda;
    };
    const std::vector<Case> cases{
        { pip("torch", "2.7.0+cu128"), "12.8" },
        { pip("torch", "2.1.0+cu118"), "11.8" },
        { pip("torch", "2.7.0+cpu"), "none (CPU build)" },
        { pip("torch", "2.5.1+rocm6.2"), "none (ROCm 6.2 build)" },
        { pip("torch", "2.7.0"), std::nullopt },
        { pip("cupy-cuda12x", "13.3.0"), "12.x" },
        { pip("jax-cuda12-plugin", "0.4.35"), "12" },
        { pip("tensorflow", "2.18.0"), std::nullopt },
        { conda("pytorch", "2.5.1", "cuda126_py312h1234567_300"), "12.6" },
        { conda("pytorch", "2.1.2", "py3.11_cuda12.1_cudnn8.9.2_0"), "12.1" },
        { conda("jaxlib", "0.4.35", "cuda12py312h0123456_200"), "12" },
        { conda("pytorch", "2.5.1", "cpu_mkl_py312h0123456_100"), "none (CPU build)" },
        { conda("cupy", "13.3.0", "py312h7d3d2ed_2"), std::nullopt },
    };
    for (const auto& c : cases)
    {
        CAPTURE(c.package.name, c.package.version, c.package.build);
        const auto build = app::cuda_build_of(c.package);
        CHECK((build ? std::optional(build->cuda) : std::nullopt) == c.cuda);
    }
}

TEST_CASE("cuda_build_from_torch_version_py", "[app][report]")
{
    const std::vector<std::pair<std::string, std::optional<std::string>>> cases{
        { "cuda: Optional[str] = '12.8'\n", "12.8" },
        { "__version__ = '2.0.1'\ncuda = \"11.7\"\n", "11.7" },
        { "cuda: Optional[str] = None\nhip = '6.2'\n", "none (a CPU or ROCm build)" },
        { "cudnn = '9'\n", std::nullopt },
        { "cuda = some_function()\n", std::nullopt },
        { "", std::nullopt },
    };
    for (const auto& [text, cuda] : cases)
    {
        CAPTURE(text);
        const auto build = app::cuda_build_from_torch_version_py(text);
        CHECK((build ? std::optional(build->cuda) : std::nullopt) == cuda);
    }
}
