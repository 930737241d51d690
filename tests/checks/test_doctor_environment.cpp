#include "checks/doctor_environment.hpp"
#include "tests/catch.hpp"
#include "tests/checks/doctor_fixture.hpp"

using namespace envcheck;
using namespace envcheck::checks;
using envcheck::model::CudaVersion;
using envcheck::model::Manager;
using envcheck::model::Status;

namespace
{
    auto conda(std::string name, std::string version, std::string build = "") -> model::Package
    {
        model::Package package;
        package.manager = Manager::conda;
        package.name = std::move(name);
        package.version = std::move(version);
        package.build = std::move(build);
        return package;
    }

    auto pip(std::string name, std::string version) -> model::Package
    {
        model::Package package;
        package.manager = Manager::pip;
        package.name = std::move(name);
        package.version = std::move(version);
        return package;
    }

    auto torch_facts(bool gpu) -> model::FrameworkFacts
    {
        model::FrameworkFacts facts;
        facts.framework = "torch";
        facts.python = "/opt/env/bin/python";
        facts.installed = true;
        facts.version = gpu ? "2.11.0+cu130" : "2.11.0+cpu";
        if (gpu)
        {
            facts.cuda_build = "13.0";
        }
        facts.gpu_build = gpu;
        facts.cuda_available = gpu;
        facts.device_count = gpu ? 1 : 0;
        if (gpu)
        {
            facts.arch_list = { "sm_75",  "sm_80",  "sm_86",      "sm_90",
                                "sm_100", "sm_120", "compute_120" };
            facts.devices = { { "NVIDIA H200", "9.0" } };
            facts.operation_ok = true;
            facts.operation = "sum(2*arange(1024)) on cuda:0 = 1047552";
        }
        return facts;
    }

    auto input_with(std::vector<model::Package> packages,
                    std::vector<model::FrameworkFacts> frameworks = {}) -> DoctorInput
    {
        DoctorEnvironment environment;
        environment.source = "--prefix /opt/env";
        environment.packages = std::move(packages);
        environment.framework_check_ran = !frameworks.empty();
        environment.frameworks = std::move(frameworks);
        return DoctorInput{ envcheck::tests::healthy_machine(), environment };
    }

    // A machine whose driver is `version`, known from its kernel module and NVML only.
    auto with_driver(DoctorInput input, const std::string& version, CudaVersion cuda) -> DoctorInput
    {
        input.machine.kernel.version = version;
        input.machine.nvml.driver_version = version;
        input.machine.nvml.cuda_driver_version = cuda;
        input.machine.cuda.driver_version.reset();
        return input;
    }

    TEST_CASE("cuda_version_from_tag", "[checks][doctor_environment]")
    {
        const std::pair<std::string_view, CudaVersion> cases[] = {
            { "py3.10_cuda11.8_cudnn8.7.0_0", { 11, 8 } },
            { "py3.12_cuda12.4_cudnn9.1.0_0", { 12, 4 } },
            { "cuda126_generic_py312_h1a2b3c4_200", { 12, 6 } },
            { "cuda118_py310h0123456_1", { 11, 8 } },
            { "cuda12py312h5e8d4f1_0", { 12, 0 } },
            { "cuda120py311hdead_201", { 12, 0 } },
            { "cu124", { 12, 4 } },
            { "cu130", { 13, 0 } },
            { "cu92", { 9, 2 } },
            { "CUDA11.2", { 11, 2 } },
        };
        for (const auto& [text, version] : cases)
        {
            CAPTURE(text);
            CHECK(cuda_version_from_tag(text) == version);
        }
        for (const std::string_view text :
             { "py3.10_cpu_0", "cpu_generic_py312_h0", "cudnn8", "", "cuda" })
        {
            CAPTURE(text);
            CHECK_FALSE(cuda_version_from_tag(text));
        }
    }

    TEST_CASE("cuda_runtime_requirements", "[checks][doctor_environment]")
    {
        const auto requirements = cuda_runtime_requirements(
          { conda("pytorch-cuda", "11.8"), conda("cuda-version", "12.4"),
            conda("cudatoolkit", "11.3.1"), conda("cuda-cudart", "12.6.77"),
            conda("pytorch", "2.1.0", "py3.10_cuda11.8_cudnn8.7.0_0"),
            conda("jaxlib", "0.4.23", "cuda120py311h0_201"), conda("numpy", "1.26.4", "py310h0_0"),
            pip("nvidia-cuda-runtime-cu12", "12.4.127"), pip("nvidia-cuda-runtime", "13.0.96"),
            pip("torch", "2.5.1+cu124"), pip("jax-cuda13-plugin", "0.11.2"),
            pip("torchvision", "0.20.1+cu124") },
          { torch_facts(true) });
        std::vector<std::pair<std::string, std::string>> found;
        for (const auto& requirement : requirements)
        {
            found.emplace_back(requirement.cuda.to_string(), requirement.source);
        }
        const std::vector<std::pair<std::string, std::string>> expected{
            { "11.8", "pytorch-cuda 11.8" },
            { "12.4", "cuda-version 12.4" },
            { "11.3", "cudatoolkit 11.3.1" },
            { "12.6", "cuda-cudart 12.6.77" },
            { "11.8", "pytorch 2.1.0 (py3.10_cuda11.8_cudnn8.7.0_0)" },
            { "12.0", "jaxlib 0.4.23 (cuda120py311h0_201)" },
            { "12.4", "nvidia-cuda-runtime-cu12 12.4.127" },
            { "13.0", "nvidia-cuda-runtime 13.0.96" },
            { "12.4", "torch 2.5.1+cu124" },
            { "13.0", "jax-cuda13-plugin 0.11.2" },
            { "13.0", "torch 2.11.0+cu130 built for CUDA 13.0" },
        };
        CHECK(found == expected);
        CHECK(cuda_runtime_requirements(
                { conda("pytorch", "2.1.0", "py3.10_cpu_0"), pip("torch", "2.3.0+cpu") }, {})
                .empty());
    }

    TEST_CASE("framework_builds", "[checks][doctor_environment]")
    {
        SECTION("CPU-only builds")
        {
            const auto builds = framework_builds(
              { conda("pytorch", "2.1.0", "py3.10_cpu_0"), conda("cpuonly", "2.0", "0"),
                pip("tensorflow-cpu", "2.16.1"), pip("jaxlib", "0.4.30"),
                conda("pytorch-cpu", "2.4.0", "cpu_generic_py312_h0") },
              {});
            REQUIRE(builds.size() == 5);
            for (const auto& build : builds)
            {
                CAPTURE(build.package);
                CHECK(build.cpu_only);
                CHECK_FALSE(build.reason.empty());
            }
            CHECK(builds[0].reason == "build string 'py3.10_cpu_0'");
            CHECK(builds[3].reason == "jaxlib from PyPI without a jax-cudaNN-plugin");
        }
        SECTION("GPU builds")
        {
            const auto builds = framework_builds(
              { conda("pytorch", "2.5.1", "py3.12_cuda12.4_cudnn9.1.0_0"), pip("torch", "2.5.1"),
                pip("jaxlib", "0.11.2"), pip("jax-cuda13-plugin", "0.11.2"),
                conda("tensorflow", "2.17.0", "cuda120py312h0_0") },
              {});
            REQUIRE(builds.size() == 4);
            for (const auto& build : builds)
            {
                CAPTURE(build.package);
                CHECK_FALSE(build.cpu_only);
            }
        }
        SECTION("the framework's own answer wins")
        {
            const auto builds =
              framework_builds({ pip("torch", "2.11.0") }, { torch_facts(false) });
            REQUIRE(builds.size() == 1);
            CHECK(builds[0].cpu_only);
            CHECK(builds[0].reason == "torch.version.cuda is None");
        }
    }

    TEST_CASE("arch_supported", "[checks][doctor_environment]")
    {
        const std::vector<std::string> cu130{ "sm_75",  "sm_80",  "sm_86",      "sm_90",
                                              "sm_100", "sm_120", "compute_120" };
        const std::vector<std::string> cu126{ "sm_50", "sm_60", "sm_70", "sm_75",
                                              "sm_80", "sm_86", "sm_90" };
        struct Case
        {
            int major;
            int minor;
            const std::vector<std::string>* archs;
            bool supported;
        };
        const Case cases[] = {
            { 9, 0, &cu130, true },   // H100/H200: sm_90
            { 8, 9, &cu130, true },   // L4/RTX 4090: sm_86 SASS runs on 8.9
            { 12, 0, &cu130, true },  // RTX 5090
            { 12, 1, &cu130, true },  // sm_120 SASS on 12.1
            { 7, 0, &cu130, false },  // V100 on a CUDA 13 build
            { 6, 1, &cu130, false },  // GTX 1080
            { 6, 1, &cu126, true },   // sm_60 SASS covers 6.1
            { 12, 0, &cu126, false }, // new GPU on an old wheel: no sm_120, no PTX
            { 10, 0, &cu126, false },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.major, c.minor);
            CHECK(arch_supported(c.major, c.minor, *c.archs) == c.supported);
        }
        // PTX is JIT-compiled for newer GPUs; arch-specific SASS runs on its own GPU only.
        CHECK(arch_supported(12, 0, { "compute_90" }));
        CHECK_FALSE(arch_supported(8, 0, { "compute_90" }));
        CHECK(arch_supported(9, 0, { "sm_90a" }));
        CHECK_FALSE(arch_supported(10, 0, { "sm_90a" }));
        CHECK_FALSE(arch_supported(9, 0, { "garbage", "sm_", "sm_x" }));
    }

    TEST_CASE("parse_visible_devices", "[checks][doctor_environment]")
    {
        const std::vector<std::string> uuids{ "GPU-8a7c2b1e-0000", "GPU-99887766-1111" };
        auto devices = parse_visible_devices("0,1", 2, uuids);
        CHECK(devices.visible == std::vector<std::string>{ "0", "1" });
        CHECK_FALSE(devices.first_invalid);
        devices = parse_visible_devices("1, 0", 2, uuids);
        CHECK(devices.visible == std::vector<std::string>{ "1", "0" });
        devices = parse_visible_devices("", 2, uuids);
        CHECK(devices.visible.empty());
        CHECK(devices.first_invalid == "");
        devices = parse_visible_devices("-1", 2, uuids);
        CHECK(devices.visible.empty());
        CHECK(devices.invalid_reason == "is neither a GPU index nor a GPU-/MIG- UUID");
        devices = parse_visible_devices("0,2,1", 2, uuids);
        CHECK(devices.visible == std::vector<std::string>{ "0" });
        CHECK(devices.first_invalid == "2");
        devices = parse_visible_devices("0,0", 2, uuids);
        CHECK(devices.invalid_reason == "repeats an earlier entry");
        devices = parse_visible_devices("GPU-9988", 2, uuids);
        CHECK(devices.visible == std::vector<std::string>{ "GPU-9988" });
        devices = parse_visible_devices("GPU-0000", 2, uuids);
        CHECK(devices.invalid_reason == "matches no GPU's UUID");
        devices = parse_visible_devices("MIG-a,MIG-b", std::nullopt, {});
        CHECK(devices.mig_entries == 2);
        devices = parse_visible_devices("7", std::nullopt, {}); // unknown GPU count: accepted
        CHECK(devices.visible == std::vector<std::string>{ "7" });
    }

    TEST_CASE("env.driver-supports-runtime", "[checks][doctor_environment]")
    {
        SECTION("no environment")
        {
            DoctorInput input{ envcheck::tests::healthy_machine(), std::nullopt };
            CHECK(check_driver_supports_runtime(input).status == Status::skip);
        }
        SECTION("no CUDA runtime in it")
        {
            CHECK(check_driver_supports_runtime(input_with({ conda("numpy", "1.26.4") })).status ==
                  Status::skip);
        }
        SECTION("pytorch-cuda 11.8 on a driver that supports 11.4: minor-version compatibility")
        {
            const auto outcome = check_driver_supports_runtime(
              with_driver(input_with({ conda("pytorch-cuda", "11.8") }), "470.82.01", { 11, 4 }));
            CHECK(outcome.status == Status::warn);
            CHECK(outcome.message.find("minor-version compatibility") != std::string::npos);
            CHECK(outcome.fix.find("520.61.05") != std::string::npos);
        }
        SECTION("cuda-version 12.4 on driver 535: minor-version compatibility")
        {
            const auto outcome = check_driver_supports_runtime(
              with_driver(input_with({ conda("cuda-version", "12.4") }), "535.104.05", { 12, 2 }));
            CHECK(outcome.status == Status::warn);
        }
        SECTION("pytorch-cuda 12.4 on a driver that supports 11.4: too old")
        {
            const auto outcome = check_driver_supports_runtime(
              with_driver(input_with({ conda("pytorch-cuda", "12.4") }), "470.82.01", { 11, 4 }));
            CHECK(outcome.status == Status::fail);
            CHECK(outcome.message.find("CUDA 12.4 (pytorch-cuda 12.4)") != std::string::npos);
            CHECK(outcome.message.find("the driver 470.82.01 (CUDA 11.4)") != std::string::npos);
            CHECK(outcome.fix.find("550.54.14") != std::string::npos);
            CHECK(outcome.fix.find("525.60.13") != std::string::npos);
        }
        SECTION("a CUDA 13 wheel on a CUDA 12 driver")
        {
            const auto outcome = check_driver_supports_runtime(
              with_driver(input_with({ pip("torch", "2.9.0+cu130") }), "570.148.08", { 12, 8 }));
            CHECK(outcome.status == Status::fail);
        }
        SECTION("the live driver's own answer: torch built for 13.0 on CUDA 13.0")
        {
            const auto outcome = check_driver_supports_runtime(
              input_with({ pip("torch", "2.11.0") }, { torch_facts(true) }));
            CHECK(outcome.status == Status::pass);
            CHECK(outcome.message == "the driver 580.65.06 (CUDA 13.0) runs the environment's CUDA "
                                     "13.0 (torch 2.11.0+cu130 built for CUDA 13.0)");
        }
        SECTION("the worst requirement decides")
        {
            const auto outcome = check_driver_supports_runtime(with_driver(
              input_with({ conda("cuda-version", "11.8"), conda("cudatoolkit", "12.6") }),
              "535.104.05", { 12, 2 }));
            CHECK(outcome.status == Status::warn);
            CHECK(outcome.message.find("CUDA 12.6 (cudatoolkit 12.6)") != std::string::npos);
        }
        SECTION("a release the table does not know")
        {
            const auto outcome =
              check_driver_supports_runtime(input_with({ conda("cuda-version", "12.7") }));
            CHECK(outcome.status == Status::warn);
        }
    }

    TEST_CASE("env.framework-gpu-build", "[checks][doctor_environment]")
    {
        auto outcome = check_framework_gpu_build(
          input_with({ conda("pytorch", "2.1.0", "py3.10_cpu_0"), conda("cpuonly", "2.0") }));
        CHECK(outcome.status == Status::fail);
        CHECK(outcome.message.find("pytorch 2.1.0 (py3.10_cpu_0): build string 'py3.10_cpu_0'") !=
              std::string::npos);
        CHECK(outcome.fix.find("conda remove cpuonly") != std::string::npos);
        outcome = check_framework_gpu_build(input_with({ pip("torch", "2.3.0+cpu") }));
        CHECK(outcome.status == Status::fail);
        CHECK(outcome.fix.find("download.pytorch.org/whl/cu") != std::string::npos);
        outcome =
          check_framework_gpu_build(input_with({ pip("jax", "0.4.30"), pip("jaxlib", "0.4.30") }));
        CHECK(outcome.status == Status::fail);
        CHECK(outcome.fix.find("jax[cuda12]") != std::string::npos);
        outcome = check_framework_gpu_build(input_with({ pip("tensorflow-cpu", "2.16.1") }));
        CHECK(outcome.status == Status::fail);
        outcome = check_framework_gpu_build(
          input_with({ conda("pytorch", "2.5.1", "py3.12_cuda12.4_cudnn9.1.0_0") }));
        CHECK(outcome.status == Status::pass);
        CHECK(check_framework_gpu_build(input_with({ conda("numpy", "2.0") })).status ==
              Status::skip);
    }

    TEST_CASE("env.framework-arch-support", "[checks][doctor_environment]")
    {
        SECTION("the GPU's architecture is in torch's list")
        {
            const auto outcome = check_framework_arch_support(
              input_with({ pip("torch", "2.11.0") }, { torch_facts(true) }));
            CHECK(outcome.status == Status::pass);
            CHECK(outcome.message.find("covers GPU 0 NVIDIA H200 (compute capability 9.0)") !=
                  std::string::npos);
        }
        SECTION("a new GPU on an old wheel")
        {
            auto facts = torch_facts(true);
            facts.arch_list = { "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86" };
            const auto outcome =
              check_framework_arch_support(input_with({ pip("torch", "2.4.0+cu121") }, { facts }));
            CHECK(outcome.status == Status::fail);
            CHECK(outcome.message.find("no kernel image") != std::string::npos);
        }
        SECTION("a Volta GPU and a CUDA 13 build, without an architecture list")
        {
            auto input = input_with({ pip("torch", "2.9.0+cu130") });
            input.machine.nvml.gpus[0].compute_capability_major = 7;
            input.machine.nvml.gpus[0].compute_capability_minor = 0;
            const auto outcome = check_framework_arch_support(input);
            CHECK(outcome.status == Status::fail);
            CHECK(outcome.message.find("predates Turing") != std::string::npos);
        }
        SECTION("nothing known")
        {
            CHECK(
              check_framework_arch_support(input_with({ pip("torch", "2.5.1+cu124") })).status ==
              Status::skip);
        }
    }

    TEST_CASE("framework.runtime-check", "[checks][doctor_environment]")
    {
        SECTION("torch runs on the GPU")
        {
            const auto outcome = check_framework_runtime(
              input_with({ pip("torch", "2.11.0") }, { torch_facts(true) }));
            CHECK(outcome.status == Status::pass);
            CHECK(outcome.message == "torch 2.11.0+cu130 (CUDA 13.0): 1 GPU (NVIDIA H200 9.0), "
                                     "sum(2*arange(1024)) on cuda:0 = 1047552");
        }
        SECTION("a CPU-only torch")
        {
            CHECK(check_framework_runtime(
                    input_with({ pip("torch", "2.11.0") }, { torch_facts(false) }))
                    .status == Status::fail);
        }
        SECTION("torch sees no GPU")
        {
            auto facts = torch_facts(true);
            facts.cuda_available = false;
            facts.device_count = 0;
            const auto outcome =
              check_framework_runtime(input_with({ pip("torch", "2.11.0") }, { facts }));
            CHECK(outcome.status == Status::fail);
            CHECK(outcome.message.find("sees no GPU") != std::string::npos);
        }
        SECTION("a wrong result")
        {
            auto facts = torch_facts(true);
            facts.operation_ok = false;
            CHECK(
              check_framework_runtime(input_with({ pip("torch", "2.11.0") }, { facts })).status ==
              Status::fail);
        }
        SECTION("a timeout, while jax works")
        {
            auto torch = torch_facts(true);
            torch.timed_out = true;
            torch.error = "the torch check timed out after 180 s";
            model::FrameworkFacts jax;
            jax.framework = "jax";
            jax.installed = true;
            jax.version = "0.11.2";
            jax.gpu_build = true;
            jax.cuda_available = true;
            jax.device_count = 1;
            jax.devices = { { "NVIDIA H200", "9.0" } };
            jax.operation_ok = true;
            jax.operation = "ok";
            const auto outcome =
              check_framework_runtime(input_with({ pip("torch", "2.11.0") }, { torch, jax }));
            CHECK(outcome.status == Status::fail);
            CHECK(outcome.message.find("timed out after 180 s") != std::string::npos);
            CHECK(outcome.message.find("while jax 0.11.2") != std::string::npos);
        }
        SECTION("nothing installed, or not run")
        {
            model::FrameworkFacts absent;
            absent.framework = "torch";
            CHECK(check_framework_runtime(input_with({}, { absent })).status == Status::skip);
            auto input = input_with({ pip("torch", "2.11.0") });
            input.environment->framework_check_skipped = "--root: nothing is run";
            const auto outcome = check_framework_runtime(input);
            CHECK(outcome.status == Status::skip);
            CHECK(outcome.message == "--root: nothing is run");
        }
    }
}
