#include <functional>

#include "checks/doctor.hpp"
#include "tests/catch.hpp"
#include "tests/checks/doctor_fixture.hpp"

using namespace envcheck;
using envcheck::model::Status;
using envcheck::tests::healthy_machine;
using envcheck::tests::status_of;

namespace
{
    auto run(const model::MachineFacts& machine) -> checks::DoctorReport
    {
        return checks::run_doctor(checks::DoctorInput{ machine, std::nullopt });
    }

    TEST_CASE("doctor_checks ids", "[checks][doctor]")
    {
        // Stable: fleet tooling routes alerts by them (README "Doctor checks").
        const std::vector<std::string_view> expected{
            "pci.nvidia-present",
            "wsl.driver",
            "kernel.module-loaded",
            "kernel.nouveau-bound",
            "kernel.module-matches-userspace",
            "container.gpu-passed-through",
            "devnodes.present",
            "devnodes.permissions",
            "driver.libcuda-found",
            "driver.libcuda-stub",
            "driver.compat-misuse",
            "nvml.init",
            "cuda.init",
            "cuda.visible-devices",
            "cuda.device-count",
            "cuda.compute-mode",
            "fabric-manager",
            "mig.configuration",
            "env.driver-supports-runtime",
            "env.framework-gpu-build",
            "env.framework-arch-support",
            "framework.runtime-check",
            "gpu.xid",
            "gpu.ecc-uncorrectable",
            "gpu.row-remapping",
            "gpu.retired-pages",
            "gpu.pcie-link",
            "gpu.throttle-hardware",
            "gpu.persistence-mode",
            "gpu.count",
            "gpu.nvlink",
        };
        std::vector<std::string_view> ids;
        for (const auto& check : checks::doctor_checks())
        {
            ids.push_back(check.id);
            CHECK_FALSE(check.description.empty());
            CHECK_FALSE(check.stage.empty());
            // A check only waits for links that come before it in walk order.
            for (const auto& dependency : check.after)
            {
                if (!dependency.empty())
                {
                    CAPTURE(check.id, dependency);
                    REQUIRE(checks::find_doctor_check(dependency) != nullptr);
                    CHECK(checks::find_doctor_check(dependency) < &check);
                }
            }
        }
        CHECK(ids == expected);
        CHECK(checks::find_doctor_check("nope") == nullptr);
    }

    TEST_CASE("run_doctor on a healthy machine", "[checks][doctor]")
    {
        const auto report = run(healthy_machine());
        CHECK(report.passed());
        CHECK_FALSE(report.first_broken_link);
        REQUIRE(report.outcomes.size() == checks::doctor_checks().size());
        for (const auto& outcome : report.outcomes)
        {
            CAPTURE(outcome.id, outcome.message);
            CHECK(outcome.labels.at("stage").size() > 0);
            CHECK_FALSE(model::is_failure(outcome.status));
            CHECK_FALSE(outcome.message.empty());
        }
        CHECK(status_of(report, "pci.nvidia-present") == Status::pass);
        CHECK(status_of(report, "nvml.init") == Status::pass);
        CHECK(status_of(report, "cuda.init") == Status::pass);
        CHECK(status_of(report, "cuda.device-count") == Status::pass);
        CHECK(status_of(report, "cuda.compute-mode") == Status::pass);
        CHECK(status_of(report, "mig.configuration") == Status::pass);
        CHECK(status_of(report, "fabric-manager") == Status::skip);
        CHECK(status_of(report, "env.driver-supports-runtime") == Status::skip);
    }

    TEST_CASE("run_doctor on a machine without a GPU", "[checks][doctor]")
    {
        auto machine = healthy_machine();
        machine.pci.devices.clear();
        machine.nvml.library.reset();
        machine.nvml.init_result.reset();
        machine.nvml.gpus.clear();
        machine.nvml.device_count.reset();
        machine.nvml.load_error = "libnvidia-ml.so.1: cannot open shared object file";
        machine.cuda = {};
        machine.cuda.attempted = true;
        machine.cuda.load_error = "libcuda.so.1: cannot open shared object file";
        const auto report = run(machine);
        CHECK_FALSE(report.passed());
        CHECK(report.first_broken_link == "pci.nvidia-present");
        const auto* pci = report.outcome("pci.nvidia-present");
        CHECK(pci->message == "no NVIDIA device on the PCI bus");
        CHECK_FALSE(pci->fix.empty());
        // Never cudart's misleading "CUDA driver version is insufficient".
        for (const auto& outcome : report.outcomes)
        {
            CHECK(outcome.message.find("insufficient") == std::string::npos);
            if (outcome.id != "pci.nvidia-present")
            {
                CAPTURE(outcome.id);
                CHECK(outcome.status == Status::skip);
            }
        }
        CHECK(report.outcome("cuda.init")->message == "skipped: pci.nvidia-present failed");
    }

    TEST_CASE("run_doctor skips what depends on a failed link", "[checks][doctor]")
    {
        auto machine = healthy_machine();
        machine.kernel.version.reset();
        machine.kernel.modules = { { "nvidia", false, {} }, { "nouveau", false, {} } };
        machine.nvml.init_result = 9; // NVML_ERROR_DRIVER_NOT_LOADED
        machine.cuda.init_result = 100;
        machine.cuda.device_count.reset();
        const auto report = run(machine);
        CHECK(report.first_broken_link == "kernel.module-loaded");
        CHECK(status_of(report, "kernel.module-loaded") == Status::fail);
        // Transitively: devnodes.present waits for the module, nvml.init for devnodes.permissions.
        CHECK(report.outcome("devnodes.present")->message ==
              "skipped: kernel.module-loaded failed");
        CHECK(report.outcome("nvml.init")->message == "skipped: kernel.module-loaded failed");
        CHECK(report.outcome("cuda.device-count")->message ==
              "skipped: kernel.module-loaded failed");
        // Checks that do not need the module still run.
        CHECK(status_of(report, "kernel.nouveau-bound") == Status::pass);
        CHECK(status_of(report, "driver.libcuda-found") == Status::pass);
    }

    // One broken link at a time: the check that must catch it, and its status.
    struct Breakage
    {
        std::string name;
        std::function<void(model::MachineFacts&)> apply;
        std::string id;
        Status status;
        std::string message_part;
    };

    TEST_CASE("doctor machine checks", "[checks][doctor]")
    {
        const std::vector<Breakage> cases{
            { "driver reports GPUs though sysfs hides them",
              [](auto& m)
              {
                  m.pci.sysfs_visible = false;
                  m.pci.devices.clear();
              },
              "pci.nvidia-present", Status::pass, "the driver reports 1 GPU" },
            { "sandboxed kernel: no /proc/driver/nvidia, but NVML answers",
              [](auto& m)
              {
                  m.kernel.version.reset();
                  m.kernel.modules.clear();
              },
              "kernel.module-loaded", Status::pass, "the driver answers (NVML)" },
            { "GPU bound to nouveau", [](auto& m) { m.pci.devices[0].driver = "nouveau"; },
              "kernel.nouveau-bound", Status::fail, "driven by nouveau" },
            { "nouveau loaded beside nvidia", [](auto& m) { m.kernel.modules[2].loaded = true; },
              "kernel.nouveau-bound", Status::warn, "nouveau module is loaded" },
            { "NVML reports the version mismatch", [](auto& m) { m.nvml.init_result = 18; },
              "kernel.module-matches-userspace", Status::fail, "Driver/library version mismatch" },
            { "loaded libcuda newer than the module",
              [](auto& m) { m.cuda.library->version = "580.82.07"; },
              "kernel.module-matches-userspace", Status::fail, "libcuda.so.1 is 580.82.07" },
            { "device node blocked by the cgroup",
              [](auto& m)
              {
                  m.device_nodes[2].openable = false;
                  m.device_nodes[2].open_error = "Operation not permitted";
              },
              "devnodes.permissions", Status::fail, "the device cgroup blocks them" },
            { "read-only MIG capability nodes are not required",
              [](auto& m)
              {
                  m.device_nodes.push_back(
                    { "/dev/nvidia-caps/nvidia-cap1", true, true, 0400u, 0u, 0u, false, {}, {} });
              },
              "devnodes.permissions", Status::pass, "3 device nodes are readable" },
            { "device node not accessible", [](auto& m) { m.device_nodes[0].accessible = false; },
              "devnodes.permissions", Status::fail, "/dev/nvidiactl (mode 0666" },
            { "libcuda cannot be loaded",
              [](auto& m)
              {
                  m.cuda.library.reset();
                  m.cuda.init_result.reset();
                  m.cuda.load_error =
                    "libcuda.so.1: cannot open shared object file: No such file or directory";
              },
              "driver.libcuda-found", Status::fail, "cannot be loaded" },
            { "cuInit says stub", [](auto& m) { m.cuda.init_result = 34; }, "driver.libcuda-stub",
              Status::fail, "CUDA_ERROR_STUB_LIBRARY" },
            { "a stub comes first in the search path",
              [](auto& m)
              {
                  model::LibraryFile stub{ "libcuda.so.1",
                                           "/usr/local/cuda/lib64/stubs/libcuda.so",
                                           "/usr/local/cuda/lib64/stubs/libcuda.so",
                                           "LD_LIBRARY_PATH",
                                           {},
                                           105872,
                                           true,
                                           false };
                  m.libraries.libcuda.insert(m.libraries.libcuda.begin(), stub);
              },
              "driver.libcuda-stub", Status::warn, "a stub comes first" },
            { "cuda-compat on a GeForce",
              [](auto& m)
              {
                  m.cuda.library->compat = true;
                  m.cuda.library->path = "/usr/local/cuda-13.0/compat/libcuda.so.1";
                  m.nvml.gpus[0].brand = 5;
              },
              "driver.compat-misuse", Status::fail, "does not support it" },
            { "cuInit 804", [](auto& m) { m.cuda.init_result = 804; }, "driver.compat-misuse",
              Status::fail, "COMPAT_NOT_SUPPORTED_ON_DEVICE" },
            { "cuInit 803", [](auto& m) { m.cuda.init_result = 803; }, "driver.compat-misuse",
              Status::fail, "SYSTEM_DRIVER_MISMATCH" },
            { "NVML hangs",
              [](auto& m)
              {
                  m.nvml = {};
                  m.nvml.attempted = true;
                  m.nvml.failure = { true, "nvmlInit_v2",
                                     "the NVML probe timed out after 20 s in nvmlInit_v2" };
              },
              "nvml.init", Status::fail, "timed out after 20 s in nvmlInit_v2" },
            { "NVML library missing while CUDA works",
              [](auto& m)
              {
                  m.nvml = {};
                  m.nvml.attempted = true;
                  m.nvml.load_error = "libnvidia-ml.so.1: cannot open shared object file";
              },
              "nvml.init", Status::warn, "CUDA works without it" },
            { "NVML blocked by cgroups", [](auto& m) { m.nvml.init_result = 17; }, "nvml.init",
              Status::fail, "NVML_ERROR_OPERATING_SYSTEM" },
            { "GPU fallen off the bus",
              [](auto& m)
              { m.nvml.gpus[0].errors = { "nvmlDeviceGetMemoryInfo: NVML_ERROR_GPU_IS_LOST" }; },
              "nvml.init", Status::fail, "GPU_IS_LOST" },
            { "cuInit hangs",
              [](auto& m)
              {
                  m.cuda.init_result.reset();
                  m.cuda.failure = { true, "cuInit",
                                     "the CUDA driver probe timed out after 20 s in cuInit" };
              },
              "cuda.init", Status::fail, "timed out after 20 s in cuInit" },
            { "cuInit unknown error (UVM)", [](auto& m) { m.cuda.init_result = 999; }, "cuda.init",
              Status::fail, "nvidia_uvm" },
            { "cuInit no device, hidden by CUDA_VISIBLE_DEVICES",
              [](auto& m)
              {
                  m.cuda.init_result = 100;
                  m.environment = { { "CUDA_VISIBLE_DEVICES", "", false } };
              },
              "cuda.init", Status::fail, "hides every GPU" },
            { "cuInit not ready: Fabric Manager", [](auto& m) { m.cuda.init_result = 802; },
              "cuda.init", Status::fail, "Fabric Manager" },
            { "CUDA_VISIBLE_DEVICES=-1",
              [](auto& m) {
                  m.environment = { { "CUDA_VISIBLE_DEVICES", "-1", false } };
              },
              "cuda.visible-devices", Status::fail, "makes no GPU visible" },
            { "CUDA_VISIBLE_DEVICES beyond the GPUs",
              [](auto& m) {
                  m.environment = { { "CUDA_VISIBLE_DEVICES", "1", false } };
              },
              "cuda.visible-devices", Status::fail, "beyond the 1 GPU(s)" },
            { "CUDA_VISIBLE_DEVICES with a bad second entry",
              [](auto& m) {
                  m.environment = { { "CUDA_VISIBLE_DEVICES", "0,foo", false } };
              },
              "cuda.visible-devices", Status::warn, "reading stops at 'foo'" },
            { "CUDA_VISIBLE_DEVICES by UUID prefix",
              [](auto& m) {
                  m.environment = { { "CUDA_VISIBLE_DEVICES", "GPU-8a7c2b1e", false } };
              },
              "cuda.visible-devices", Status::pass, "1 GPU visible" },
            { "no CUDA device", [](auto& m) { m.cuda.device_count = 0; }, "cuda.device-count",
              Status::fail, "finds no device" },
            { "CUDA sees fewer GPUs than NVML", [](auto& m) { m.nvml.device_count = 2; },
              "cuda.device-count", Status::warn, "NVML sees 2" },
            { "compute mode prohibited",
              [](auto& m) { m.nvml.gpus[0].compute_mode = model::ComputeMode::prohibited; },
              "cuda.compute-mode", Status::fail, "PROHIBITED" },
            { "exclusive process, taken",
              [](auto& m)
              {
                  m.nvml.gpus[0].compute_mode = model::ComputeMode::exclusive_process;
                  m.nvml.gpus[0].compute_processes = 1;
              },
              "cuda.compute-mode", Status::fail, "already used by 1 process" },
            { "exclusive process, free",
              [](auto& m) { m.nvml.gpus[0].compute_mode = model::ComputeMode::exclusive_process; },
              "cuda.compute-mode", Status::warn, "one process at a time" },
            { "fabric not started on an NVSwitch system",
              [](auto& m)
              {
                  m.nvml.gpus[0].fabric_state = model::FabricState::not_started;
                  m.pci.devices.push_back(
                    { "0000:05:00.0", 0x10de, 0x22a3, 0x068000, {}, {}, {}, {}, {}, {} });
              },
              "fabric-manager", Status::fail, "GPU 0 not_started" },
            { "fabric in progress without a visible NVSwitch",
              [](auto& m) { m.nvml.gpus[0].fabric_state = model::FabricState::in_progress; },
              "fabric-manager", Status::warn, "in_progress" },
            { "fabric completed",
              [](auto& m) { m.nvml.gpus[0].fabric_state = model::FabricState::completed; },
              "fabric-manager", Status::pass, "initialized on 1 GPU" },
            { "MIG without instances",
              [](auto& m)
              {
                  m.nvml.gpus[0].mig_enabled = true;
                  m.nvml.gpus[0].mig_pending = true;
                  m.nvml.gpus[0].mig_devices = 0;
              },
              "mig.configuration", Status::fail, "no MIG devices" },
            { "MIG change pending", [](auto& m) { m.nvml.gpus[0].mig_pending = true; },
              "mig.configuration", Status::warn, "pending" },
            { "MIG with instances",
              [](auto& m)
              {
                  m.nvml.gpus[0].mig_enabled = true;
                  m.nvml.gpus[0].mig_pending = true;
                  m.nvml.gpus[0].mig_devices = 7;
              },
              "mig.configuration", Status::pass, "with 7 MIG devices" },
            { "container without GPUs",
              [](auto& m)
              {
                  m.container.markers = { "/.dockerenv" };
                  m.device_nodes = { { "/dev/nvidiactl", false, false, {}, {}, {}, {}, {}, {} } };
              },
              "container.gpu-passed-through", Status::fail, "started without GPU access" },
            { "container without the compute capability",
              [](auto& m)
              {
                  m.container.markers = { "/.dockerenv" };
                  m.environment = { { "NVIDIA_DRIVER_CAPABILITIES", "utility", false } };
              },
              "container.gpu-passed-through", Status::warn, "lacks 'compute'" },
        };
        for (const auto& breakage : cases)
        {
            SECTION(breakage.name)
            {
                auto machine = healthy_machine();
                breakage.apply(machine);
                const auto report = run(machine);
                const auto* outcome = report.outcome(breakage.id);
                REQUIRE(outcome != nullptr);
                INFO(outcome->message);
                CHECK(outcome->status == breakage.status);
                CHECK(outcome->message.find(breakage.message_part) != std::string::npos);
                if (model::is_failure(outcome->status) || outcome->status == Status::warn)
                {
                    CHECK_FALSE(outcome->fix.empty());
                }
            }
        }
    }

    TEST_CASE("doctor under --root skips what needs a loaded driver", "[checks][doctor]")
    {
        auto machine = healthy_machine();
        machine.live = false;
        machine.nvml = {};
        machine.cuda = {};
        const auto report = run(machine);
        CHECK(report.passed());
        for (const auto* id :
             { "nvml.init", "cuda.init", "cuda.device-count", "mig.configuration" })
        {
            CAPTURE(id);
            CHECK(status_of(report, id) == Status::skip);
        }
        CHECK(status_of(report, "driver.libcuda-found") == Status::pass);
        CHECK(status_of(report, "kernel.module-matches-userspace") == Status::pass);
    }

    // A driver child that never reported (its library hung or crashed) is named as the broken
    // link, with the step it stopped in; it is never diagnosed as a container without GPUs
    // (which drained Slurm nodes with "start the container with --gpus all").
    TEST_CASE("doctor names a driver probe that hung or crashed", "[checks][doctor]")
    {
        struct Case
        {
            const char* name;
            std::function<void(model::MachineFacts&)> apply;
            const char* broken;
            const char* message;
            const char* fix_part;
        };
        const auto in_container = [](model::MachineFacts& m)
        { m.container.markers = { "/.dockerenv" }; };
        const std::vector<Case> cases{
            { "libcuda crashes while it loads",
              [&](auto& m)
              {
                  in_container(m);
                  m.cuda = {};
                  m.cuda.attempted = true;
                  m.cuda.failure = { false, "dlopen libcuda.so.1",
                                     "the CUDA driver probe was killed by signal 11 (SIGSEGV) in "
                                     "dlopen libcuda.so.1" };
              },
              "driver.libcuda-found",
              "the CUDA driver probe was killed by signal 11 (SIGSEGV) in dlopen libcuda.so.1",
              "reinstall the NVIDIA driver" },
            { "libcuda hangs while it loads, NVML too",
              [&](auto& m)
              {
                  in_container(m);
                  m.cuda = {};
                  m.cuda.attempted = true;
                  m.cuda.failure = { true, "dlopen libcuda.so.1",
                                     "the CUDA driver probe timed out after 12 s in dlopen "
                                     "libcuda.so.1" };
                  m.nvml = {};
                  m.nvml.attempted = true;
                  m.nvml.failure = { true, "dlopen libnvidia-ml.so.1",
                                     "the NVML probe timed out after 12 s in dlopen "
                                     "libnvidia-ml.so.1" };
              },
              "driver.libcuda-found",
              "the CUDA driver probe timed out after 12 s in dlopen libcuda.so.1",
              "reinstall the NVIDIA driver" },
            { "cuInit hangs in a container: the library was loaded",
              [&](auto& m)
              {
                  in_container(m);
                  m.cuda.init_result.reset();
                  m.cuda.device_count.reset();
                  m.cuda.devices.clear();
                  m.cuda.failure = { true, "cuInit",
                                     "the CUDA driver probe timed out after 12 s in cuInit" };
              },
              "cuda.init", "the CUDA driver probe timed out after 12 s in cuInit", "wedged" },
        };
        for (const auto& item : cases)
        {
            SECTION(item.name)
            {
                auto machine = healthy_machine();
                item.apply(machine);
                const auto report = run(machine);
                CHECK(status_of(report, "container.gpu-passed-through") == Status::pass);
                REQUIRE(report.first_broken_link);
                CHECK(*report.first_broken_link == item.broken);
                const auto* outcome = report.outcome(item.broken);
                CHECK(outcome->message == item.message);
                CHECK(outcome->fix.find(item.fix_part) != std::string::npos);
            }
        }
    }
}
