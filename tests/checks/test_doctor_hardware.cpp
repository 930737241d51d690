// The hardware gates (checks/doctor_hardware.hpp) over NvmlGpu and kernel-log fixtures: a
// healthy H200 passes every gate; each case breaks one fact at a time.
#include <functional>

#include "checks/doctor_hardware.hpp"
#include "tests/catch.hpp"
#include "tests/checks/doctor_fixture.hpp"

namespace
{
    // A substring matcher under Catch2 v2 (Contains) and v3 (ContainsSubstring) alike.
    auto has_text(const std::string& text)
    {
#if defined(CATCH_VERSION_MAJOR) && CATCH_VERSION_MAJOR >= 3
        return Catch::Matchers::ContainsSubstring(text);
#else
        return Catch::Matchers::Contains(text);
#endif
    }
}

using namespace envcheck;
using envcheck::model::Status;

namespace
{
    // The doctor fixture's machine with every health fact NVML gives for a healthy, idle H200
    // on an 18-link NVSwitch board, and a readable kernel log without Xid lines.
    auto healthy_hardware() -> model::MachineFacts
    {
        auto machine = envcheck::tests::healthy_machine();
        auto& gpu = machine.nvml.gpus.front();
        gpu.pcie_generation_current = 5;
        gpu.pcie_generation_max = 5;
        gpu.pcie_width_current = 16;
        gpu.pcie_width_max = 16;
        gpu.clock_event_reasons = 0x1; // gpu_idle
        gpu.ecc_enabled = true;
        gpu.ecc_uncorrected_volatile = 0;
        gpu.ecc_uncorrected_aggregate = 0;
        gpu.remapped_rows_correctable = 0;
        gpu.remapped_rows_uncorrectable = 0;
        gpu.remapping_pending = false;
        gpu.remapping_failed = false;
        gpu.persistence_mode = true;
        gpu.nvlink_links = 18;
        machine.kernel_log.source = "/dev/kmsg";
        machine.kernel_log.readable = true;
        return machine;
    }

    auto gate(const model::MachineFacts& machine, std::string_view id,
              checks::HardwareGatePolicy policy = {},
              std::optional<std::vector<model::LockedGpu>> locked = std::nullopt)
      -> model::CheckOutcome
    {
        const checks::DoctorInput input{ machine, std::nullopt, std::move(policy),
                                         std::move(locked) };
        for (auto& outcome : checks::run_hardware_gates(input))
        {
            if (outcome.id == id)
            {
                return outcome;
            }
        }
        FAIL("no gate " << id);
        return {};
    }

    auto with_gpu(const std::function<void(model::NvmlGpu&)>& change) -> model::MachineFacts
    {
        auto machine = healthy_hardware();
        change(machine.nvml.gpus.front());
        return machine;
    }

    auto with_log(std::string_view text) -> model::MachineFacts
    {
        auto machine = healthy_hardware();
        model::add_xid_events(text, machine.kernel_log);
        return machine;
    }

    auto locked_gpu(int index, std::string uuid, std::string bus) -> model::LockedGpu
    {
        return { index, "NVIDIA H200", std::move(uuid), std::move(bus), "9.0", std::nullopt };
    }

    TEST_CASE("hardware gates: the gate rows", "[checks][doctor][hardware]")
    {
        const std::vector<std::string_view> ids{
            "gpu.xid",       "gpu.ecc-uncorrectable", "gpu.row-remapping",    "gpu.retired-pages",
            "gpu.pcie-link", "gpu.throttle-hardware", "gpu.persistence-mode", "gpu.count",
            "gpu.nvlink",
        };
        const auto outcomes = checks::run_hardware_gates({ healthy_hardware(), std::nullopt });
        REQUIRE(outcomes.size() == ids.size());
        for (std::size_t i = 0; i < ids.size(); ++i)
        {
            CHECK(outcomes[i].id == ids[i]);
            CHECK(outcomes[i].labels.at("stage") == "hardware health");
        }
    }

    TEST_CASE("hardware gates: a healthy GPU passes, what is not known skips",
              "[checks][doctor][hardware]")
    {
        const auto machine = healthy_hardware();
        for (const auto* id :
             { "gpu.xid", "gpu.ecc-uncorrectable", "gpu.row-remapping", "gpu.pcie-link",
               "gpu.throttle-hardware", "gpu.persistence-mode", "gpu.nvlink" })
        {
            CAPTURE(id);
            CHECK(gate(machine, id).status == Status::pass);
        }
        // Hopper remaps rows: no page retirement; no lock and no --expect-gpus: no count.
        CHECK(gate(machine, "gpu.retired-pages").status == Status::skip);
        CHECK(gate(machine, "gpu.count").status == Status::skip);
        // And the whole doctor still passes with the gates in it.
        CHECK(checks::run_doctor({ machine, std::nullopt }).passed());
    }

    TEST_CASE("hardware gates: without NVML they skip with the reason",
              "[checks][doctor][hardware]")
    {
        auto root = healthy_hardware();
        root.live = false;
        root.nvml = {};
        auto failed = healthy_hardware();
        failed.nvml.init_result = 9;
        for (const auto* id : { "gpu.ecc-uncorrectable", "gpu.row-remapping", "gpu.retired-pages",
                                "gpu.throttle-hardware", "gpu.persistence-mode", "gpu.nvlink" })
        {
            CAPTURE(id);
            const auto under_root = gate(root, id);
            CHECK(under_root.status == Status::skip);
            CHECK_THAT(under_root.message, has_text("--root"));
            const auto no_answer = gate(failed, id);
            CHECK(no_answer.status == Status::skip);
            CHECK_THAT(no_answer.message, has_text("nvml.init"));
        }
    }

    TEST_CASE("gpu.xid", "[checks][doctor][hardware]")
    {
        struct Case
        {
            const char* name;
            std::string log;
            Status status;
            const char* says;
        };
        const std::vector<Case> cases{
            { "no Xid", "6,1,2,-;nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver\n",
              Status::pass, "no fatal Xid" },
            { "fatal Xid 79, named by GPU",
              "4,812,993,-;NVRM: Xid (PCI:0000:17:00): 79, pid=1234, name=python, GPU has fallen "
              "off the bus.\n",
              Status::fail,
              "Xid 79 on GPU 0 (0000:17:00): pid=1234, name=python, GPU has fallen "
              "off the bus" },
            { "dmesg form, repeated",
              "[  12.5] NVRM: Xid (PCI:0000:17:00): 48, pid='<unknown>', name=<unknown>, An "
              "uncorrectable double bit error\n[  13.0] NVRM: Xid (PCI:0000:17:00): 48, x\n",
              Status::fail, "Xid 48 on GPU 0 (0000:17:00) x2" },
            { "application Xid is noted, not failed",
              "Dec 02 kernel: NVRM: Xid (PCI:0000:17:00): 13, pid=99, Graphics Exception\n",
              Status::pass, "not in the fatal list: Xid 13 on GPU 0 (0000:17:00)" },
            { "a GPU NVML does not know is named by its bus",
              "NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n", Status::fail,
              "Xid 79 on 0000:3b:00" },
            { "not an Xid line", "NVRM: Xid (PCI:0000:17:00): x79\nNVRM: Xid PCI 79\n",
              Status::pass, "no fatal Xid" },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.name);
            const auto outcome = gate(with_log(c.log), "gpu.xid");
            CHECK(outcome.status == c.status);
            CHECK_THAT(outcome.message, has_text(c.says));
            CHECK(outcome.fix.empty() == (c.status == Status::pass));
        }
    }

    TEST_CASE("gpu.xid: the fatal list is the policy's", "[checks][doctor][hardware]")
    {
        const auto machine = with_log("NVRM: Xid (PCI:0000:17:00): 13, Graphics Exception\n"
                                      "NVRM: Xid (PCI:0000:17:00): 79, fallen off the bus\n");
        checks::HardwareGatePolicy only_13;
        only_13.fatal_xids = { 13 };
        const auto outcome = gate(machine, "gpu.xid", only_13);
        CHECK(outcome.status == Status::fail);
        CHECK_THAT(outcome.message, has_text("Xid 13 on GPU 0"));
        CHECK_THAT(outcome.message, has_text("not in the fatal list: Xid 79 on GPU 0"));
        checks::HardwareGatePolicy none;
        none.fatal_xids = {};
        CHECK(gate(machine, "gpu.xid", none).status == Status::pass);
    }

    TEST_CASE("gpu.xid: an unreadable kernel log skips with the reason and the fix",
              "[checks][doctor][hardware]")
    {
        auto machine = healthy_hardware();
        machine.kernel_log.readable = false;
        machine.kernel_log.error = "Operation not permitted";
        const auto outcome = gate(machine, "gpu.xid");
        CHECK(outcome.status == Status::skip);
        CHECK_THAT(outcome.message, has_text("/dev/kmsg"));
        CHECK_THAT(outcome.message, has_text("Operation not permitted"));
        CHECK_THAT(outcome.fix, has_text("dmesg_restrict"));
    }

    TEST_CASE("parse_xid_list", "[checks][doctor][hardware]")
    {
        CHECK(checks::parse_xid_list("79, 48,79 ,94").value() == std::vector<int>{ 48, 79, 94 });
        for (const auto* bad : { "", "48,", "x", "0", "48;79", "100000", "-1" })
        {
            CAPTURE(bad);
            CHECK_FALSE(checks::parse_xid_list(bad).has_value());
        }
        // NVIDIA's Xid catalog: reset, reboot or a hardware workflow is fatal; restarting the
        // application, or nothing, is not.
        const auto defaults = checks::default_fatal_xids();
        const auto fatal = [&](int xid)
        { return std::find(defaults.begin(), defaults.end(), xid) != defaults.end(); };
        for (const int xid : { 46, 48, 62, 64, 74, 79, 95, 109, 119, 120, 140, 143, 144, 158 })
        {
            CAPTURE(xid);
            CHECK(fatal(xid));
        }
        for (const int xid : { 13, 31, 43, 45, 63, 92, 94, 154 })
        {
            CAPTURE(xid);
            CHECK_FALSE(fatal(xid));
        }
    }

    TEST_CASE("add_xid_events bounds what it keeps", "[model][hardware]")
    {
        std::string text;
        for (std::size_t i = 0; i < model::max_xid_events + 5; ++i)
        {
            text += "NVRM: Xid (PCI:0000:17:00): 13, \x01\xff" + std::string(500, 'a') + "\n";
        }
        model::KernelLogFacts log;
        model::add_xid_events(text, log);
        CHECK(log.xids.size() == model::max_xid_events);
        CHECK(log.truncated);
        CHECK(log.xids.front().message.size() == 200);
        CHECK(log.xids.front().message.substr(0, 3) == "??a");
    }

    TEST_CASE("gpu per-GPU gates: fail, warn and skip", "[checks][doctor][hardware]")
    {
        struct Case
        {
            const char* id;
            std::function<void(model::NvmlGpu&)> change;
            Status status;
            const char* says;
        };
        const std::vector<Case> cases{
            { "gpu.ecc-uncorrectable", [](auto& g) { g.ecc_uncorrected_volatile = 3; },
              Status::fail, "GPU 0 (00000000:17:00.0): 3 since the driver loaded" },
            { "gpu.ecc-uncorrectable", [](auto& g) { g.ecc_uncorrected_aggregate = 7; },
              Status::warn, "7 in its life" },
            { "gpu.ecc-uncorrectable",
              [](auto& g)
              {
                  g.ecc_enabled = false;
                  g.ecc_uncorrected_volatile.reset();
                  g.ecc_uncorrected_aggregate.reset();
              },
              Status::skip, "ECC is off on GPU 0" },
            { "gpu.row-remapping", [](auto& g) { g.remapping_failed = true; }, Status::fail,
              "row remapping failed" },
            { "gpu.row-remapping", [](auto& g) { g.remapping_pending = true; }, Status::fail,
              "pending" },
            { "gpu.row-remapping",
              [](auto& g)
              {
                  g.remapping_pending.reset();
                  g.remapping_failed.reset();
              },
              Status::skip, "gpu.retired-pages" },
            { "gpu.retired-pages",
              [](auto& g)
              {
                  g.retired_pages_pending = true;
                  g.retired_pages_double_bit = 1;
              },
              Status::fail, "page retirement pending" },
            { "gpu.retired-pages",
              [](auto& g)
              {
                  g.retired_pages_pending = false;
                  g.retired_pages_double_bit = 40;
                  g.retired_pages_single_bit = 20;
              },
              Status::warn, "60 pages" },
            { "gpu.retired-pages",
              [](auto& g)
              {
                  g.retired_pages_pending = false;
                  g.retired_pages_double_bit = 2;
              },
              Status::pass, "no page retirement pending" },
            // PCIe: a lower generation at idle is power saving; under load it fails.
            { "gpu.pcie-link", [](auto& g) { g.pcie_generation_current = 1; }, Status::pass,
              "power saving" },
            { "gpu.pcie-link",
              [](auto& g)
              {
                  g.pcie_generation_current = 3;
                  g.clock_event_reasons = 0;
              },
              Status::fail, "gen 3 of 5, x16 of x16 under load" },
            { "gpu.pcie-link",
              [](auto& g)
              {
                  g.pcie_width_current = 8;
                  g.clock_event_reasons = 0x4; // sw_power_cap: working
              },
              Status::fail, "x8 of x16 under load" },
            { "gpu.pcie-link", [](auto& g) { g.pcie_width_current = 8; }, Status::warn,
              "x8 of x16 at idle" },
            { "gpu.throttle-hardware", [](auto& g) { g.clock_event_reasons = 0x1 | 0x8 | 0x80; },
              Status::fail, "hw_slowdown, hw_power_brake_slowdown" },
            { "gpu.throttle-hardware", [](auto& g) { g.clock_event_reasons = 0x20; }, Status::warn,
              "sw_thermal_slowdown" },
            { "gpu.throttle-hardware", [](auto& g) { g.clock_event_reasons = 0x1 | 0x2 | 0x4; },
              Status::pass, "no hardware clock slowdown" },
            { "gpu.throttle-hardware", [](auto& g) { g.clock_event_reasons.reset(); }, Status::skip,
              "do not report" },
            { "gpu.persistence-mode", [](auto& g) { g.persistence_mode = false; }, Status::warn,
              "persistence mode is off: GPU 0" },
            { "gpu.persistence-mode", [](auto& g) { g.persistence_mode.reset(); }, Status::skip,
              "do not report" },
            { "gpu.nvlink",
              [](auto& g) {
                  g.nvlink_links_down = { 3, 7 };
              },
              Status::fail, "2 of 18 links down (3, 7)" },
            { "gpu.nvlink", [](auto& g) { g.nvlink_links = 0; }, Status::skip,
              "no GPU reports NVLink" },
            { "gpu.nvlink", [](auto& g) { g.nvlink_links.reset(); }, Status::skip,
              "no GPU reports NVLink" },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.id, c.says);
            const auto outcome = gate(with_gpu(c.change), c.id);
            CHECK(outcome.status == c.status);
            CHECK_THAT(outcome.message, has_text(c.says));
            CHECK(outcome.fix.empty() == (c.status == Status::pass || c.status == Status::skip));
        }
    }

    TEST_CASE("gpu.nvlink: every link down is a missing bridge only without NVSwitch",
              "[checks][doctor][hardware]")
    {
        auto pcie_card = with_gpu(
          [](auto& g)
          {
              g.nvlink_links = 4;
              g.nvlink_links_down = { 0, 1, 2, 3 };
          });
        CHECK(gate(pcie_card, "gpu.nvlink").status == Status::warn);
        auto nvswitch = pcie_card;
        nvswitch.pci.devices.push_back(
          { "0000:05:00.0", 0x10de, 0x22a3, 0x068000, "nvidia", {}, {}, {}, {}, {} });
        CHECK(gate(nvswitch, "gpu.nvlink").status == Status::fail);
    }

    TEST_CASE("gpu.count", "[checks][doctor][hardware]")
    {
        auto eight = healthy_hardware();
        auto& gpus = eight.nvml.gpus;
        std::vector<model::LockedGpu> locked;
        for (int i = 0; i < 8; ++i)
        {
            if (i > 0)
            {
                gpus.push_back(gpus.front());
            }
            gpus.back().index = i;
            gpus.back().uuid = "GPU-" + std::to_string(i);
            gpus.back().pci_bus_id = "00000000:" + std::to_string(10 + i) + ":00.0";
            locked.push_back(locked_gpu(i, "GPU-" + std::to_string(i),
                                        "00000000:" + std::to_string(10 + i) + ":00.0"));
        }
        CHECK(gate(eight, "gpu.count", {}, locked).status == Status::pass);
        auto seven = eight;
        seven.nvml.gpus.erase(seven.nvml.gpus.begin() + 3);
        SECTION("the same machine: the missing GPU by UUID")
        {
            const auto outcome = gate(seven, "gpu.count", {}, locked);
            CHECK(outcome.status == Status::fail);
            CHECK_THAT(outcome.message, has_text("7 of 8 locked GPUs visible"));
            CHECK_THAT(outcome.message, has_text("missing: GPU 3 (GPU-3, 00000000:13:00.0)"));
        }
        SECTION("another node of the same board: by PCI bus id, whatever its spelling")
        {
            auto other = locked;
            for (auto& gpu : other)
            {
                gpu.uuid = "GPU-elsewhere-" + std::to_string(gpu.index);
                gpu.pci_bus_id = gpu.pci_bus_id->substr(4); // "0000:1d:00.0" style
            }
            CHECK(gate(eight, "gpu.count", {}, other).status == Status::pass);
            const auto outcome = gate(seven, "gpu.count", {}, other);
            CHECK(outcome.status == Status::fail);
            CHECK_THAT(outcome.message, has_text("missing: GPU 3"));
        }
        SECTION("--expect-gpus, without a lock")
        {
            checks::HardwareGatePolicy policy;
            policy.expected_gpu_count = 8;
            CHECK(gate(seven, "gpu.count", policy).status == Status::fail);
            CHECK_THAT(gate(seven, "gpu.count", policy).message,
                       has_text("7 of 8 GPUs visible (NVML; --expect-gpus)"));
            CHECK(gate(eight, "gpu.count", policy).status == Status::pass);
            policy.expected_gpu_count = 4;
            CHECK(gate(eight, "gpu.count", policy).status == Status::warn);
        }
        SECTION("under --root: the GPUs on the PCI bus")
        {
            auto root = eight;
            root.live = false;
            root.nvml = {};
            root.cuda = {};
            checks::HardwareGatePolicy policy;
            policy.expected_gpu_count = 2;
            const auto outcome = gate(root, "gpu.count", policy);
            CHECK(outcome.status == Status::fail);
            CHECK_THAT(outcome.message, has_text("1 of 2 GPUs visible"));
        }
        SECTION("nothing answered: skip")
        {
            auto silent = eight;
            silent.nvml.init_result = 9;
            silent.cuda.init_result = 100;
            checks::HardwareGatePolicy policy;
            policy.expected_gpu_count = 8;
            CHECK(gate(silent, "gpu.count", policy).status == Status::skip);
        }
    }

    TEST_CASE("gpu.pcie-link under --root reads sysfs", "[checks][doctor][hardware]")
    {
        auto root = healthy_hardware();
        root.live = false;
        root.nvml = {};
        auto& device = root.pci.devices.front();
        device.current_link_speed = "2.5 GT/s PCIe";
        device.max_link_speed = "32.0 GT/s PCIe";
        device.current_link_width = 16;
        device.max_link_width = 16;
        auto outcome = gate(root, "gpu.pcie-link");
        CHECK(outcome.status == Status::pass);
        CHECK_THAT(outcome.message, has_text("power saving"));
        device.current_link_width = 4;
        outcome = gate(root, "gpu.pcie-link");
        CHECK(outcome.status == Status::warn);
        CHECK_THAT(outcome.message, has_text("0000:17:00.0: x4 of x16"));
        device.current_link_width.reset();
        CHECK(gate(root, "gpu.pcie-link").status == Status::skip);
    }
}
