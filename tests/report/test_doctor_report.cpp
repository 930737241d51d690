#include "report/doctor_report.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"

using namespace envcheck;
using envcheck::model::Status;
using envcheck::tests::check_golden;

namespace
{
    auto outcome(std::string id, std::string stage, Status status, std::string message,
                 std::string fix = {}) -> model::CheckOutcome
    {
        model::CheckOutcome result;
        result.id = std::move(id);
        result.status = status;
        result.message = std::move(message);
        result.fix = std::move(fix);
        result.labels["stage"] = std::move(stage);
        return result;
    }

    auto failing() -> report::DoctorView
    {
        return { { outcome("pci.nvidia-present", "hardware", Status::pass,
                           "1 NVIDIA GPU on the PCI bus: 0000:17:00.0 (10de:2335)"),
                   outcome("kernel.module-loaded", "kernel", Status::fail,
                           "the NVIDIA kernel module is not loaded: no "
                           "/proc/driver/nvidia/version, no /sys/module/nvidia",
                           "install the NVIDIA driver for the running kernel and load it with "
                           "`sudo modprobe nvidia`"),
                   outcome("kernel.nouveau-bound", "kernel", Status::pass, "nouveau is not loaded"),
                   outcome("devnodes.present", "device nodes", Status::skip,
                           "skipped: kernel.module-loaded failed"),
                   outcome("cuda.visible-devices", "devices", Status::warn,
                           "CUDA_VISIBLE_DEVICES='0,x': reading stops at 'x'",
                           "unset CUDA_VISIBLE_DEVICES") },
                 std::nullopt };
    }

    auto passing() -> report::DoctorView
    {
        auto metrics = outcome("cuda.device-count", "devices", Status::pass,
                               "1 CUDA device: 0: NVIDIA H200 (9.0)");
        metrics.metrics["devices"] = 1;
        return { { outcome("pci.nvidia-present", "hardware", Status::pass,
                           "1 NVIDIA GPU on the PCI bus: 0000:17:00.0 (10de:2335)"),
                   outcome("fabric-manager", "devices", Status::skip,
                           "no NVSwitch on this machine: Fabric Manager is not needed"),
                   metrics },
                 std::string("--prefix /opt/torch/.venv") };
    }

    TEST_CASE("render_doctor_text", "[report][doctor]")
    {
        check_golden("doctor/fail.txt", report::render_doctor_text(failing()));
        check_golden("doctor/pass.txt", report::render_doctor_text(passing()));
    }

    TEST_CASE("render_doctor_json", "[report][doctor]")
    {
        check_golden("doctor/fail.json", report::render_doctor_json(failing()));
        check_golden("doctor/pass.json", report::render_doctor_json(passing()));
        const auto json = report::doctor_json(failing());
        CHECK(json["verdict"] == "fail");
        CHECK(json["first_broken_link"] == "kernel.module-loaded");
        CHECK(json["checks"][2]["fix"].is_null());
        CHECK(report::doctor_json(passing())["verdict"] == "pass");
        CHECK(report::doctor_json(passing())["first_broken_link"].is_null());
    }

    TEST_CASE("first_broken_link", "[report][doctor]")
    {
        CHECK(report::first_broken_link(passing()) == nullptr);
        const auto view = failing();
        REQUIRE(report::first_broken_link(view) != nullptr);
        CHECK(report::first_broken_link(view)->id == "kernel.module-loaded");
        CHECK(report::first_broken_link(report::DoctorView{}) == nullptr);
    }
}
