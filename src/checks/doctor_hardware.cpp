#include "checks/doctor_hardware.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "checks/doctor_machine.hpp"
#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        // nvmlClocksEventReasons bits (model/machine.cpp names them).
        constexpr std::uint64_t reason_gpu_idle = 0x1;
        constexpr std::uint64_t reason_hw_slowdown = 0x8;
        constexpr std::uint64_t reason_sw_thermal = 0x20;
        constexpr std::uint64_t reason_hw_thermal = 0x40;
        constexpr std::uint64_t reason_hw_power_brake = 0x80;
        constexpr std::uint64_t hardware_reasons =
          reason_hw_slowdown | reason_hw_thermal | reason_hw_power_brake;

        // NVIDIA's dynamic page retirement guide: a board with this many retired pages is
        // eligible for RMA.
        constexpr int retired_pages_rma = 60;

        constexpr std::size_t listed = 4; // GPUs named in a message before "and N more"

        const std::string reset_fix =
          "drain the node, then reset the GPU (nvidia-smi -r -i <index>, with nothing running on "
          "it) or reboot; if it comes back, replace the GPU (RMA)";

        auto join_limited(const std::vector<std::string>& items) -> std::string
        {
            if (items.size() <= listed)
            {
                return util::join(items, "; ");
            }
            std::vector<std::string> head(items.begin(),
                                          items.begin() + static_cast<std::ptrdiff_t>(listed));
            return util::join(head, "; ") + " and " + std::to_string(items.size() - listed) +
                   " more";
        }

        auto gpu_name(const model::NvmlGpu& gpu) -> std::string
        {
            return "GPU " + std::to_string(gpu.index) +
                   (gpu.pci_bus_id.empty() ? "" : " (" + gpu.pci_bus_id + ")");
        }

        auto skip_with_fix(std::string message, std::string fix) -> model::CheckOutcome
        {
            auto outcome = skip(std::move(message));
            outcome.fix = std::move(fix);
            return outcome;
        }

        // Why the NVML-based gates cannot judge; nullopt when NVML answered with GPUs.
        auto nvml_unavailable(const model::MachineFacts& machine)
          -> std::optional<model::CheckOutcome>
        {
            if (!machine.nvml.attempted)
            {
                return skip(machine.live ? "NVML was not asked"
                                         : "--root: NVML is not loaded, so the GPUs' health is "
                                           "not known");
            }
            if (!machine.nvml.initialized())
            {
                return skip("NVML did not answer (see nvml.init)");
            }
            if (machine.nvml.gpus.empty())
            {
                return skip("NVML reports no GPU");
            }
            return std::nullopt;
        }

        // "0000:17:00.0", "00000000:17:00.0" and "0000:17:00" name the same GPU: compare
        // domain, bus and device as numbers.
        auto bus_key(std::string_view text) -> std::string
        {
            std::vector<std::string> parts;
            std::string part;
            for (const char c : text)
            {
                if (c == ':' || c == '.')
                {
                    parts.push_back(part);
                    part.clear();
                }
                else
                {
                    part += c;
                }
            }
            parts.push_back(part);
            if (parts.size() < 3)
            {
                return util::to_lower(text);
            }
            std::string key;
            for (std::size_t i = 0; i < 3; ++i)
            {
                unsigned long number = 0;
                const auto& item = parts[i];
                const auto [end, error] =
                  std::from_chars(item.data(), item.data() + item.size(), number, 16);
                if (error != std::errc{} || end != item.data() + item.size())
                {
                    return util::to_lower(text);
                }
                key += std::to_string(number) + ":";
            }
            return key;
        }

        auto gpu_at_bus(const model::MachineFacts& machine, std::string_view bus)
          -> const model::NvmlGpu*
        {
            const auto key = bus_key(bus);
            for (const auto& gpu : machine.nvml.gpus)
            {
                if (!gpu.pci_bus_id.empty() && bus_key(gpu.pci_bus_id) == key)
                {
                    return &gpu;
                }
            }
            return nullptr;
        }

        // One visible GPU, as gpu.count compares it with the lock.
        struct VisibleGpu
        {
            std::string uuid;
            std::string pci_bus_id;
        };

        auto visible_gpus(const model::MachineFacts& machine, std::string& source)
          -> std::optional<std::vector<VisibleGpu>>
        {
            std::vector<VisibleGpu> gpus;
            if (machine.nvml.initialized())
            {
                source = "NVML";
                for (const auto& gpu : machine.nvml.gpus)
                {
                    gpus.push_back({ gpu.uuid, gpu.pci_bus_id });
                }
                return gpus;
            }
            if (machine.cuda.initialized())
            {
                source = "the CUDA driver";
                for (const auto& device : machine.cuda.devices)
                {
                    gpus.push_back({ device.uuid, device.pci_bus_id });
                }
                return gpus;
            }
            if (!machine.live && machine.pci.sysfs_visible)
            {
                source = "the PCI bus (--root)";
                for (const auto& device : machine.pci.devices)
                {
                    if (device.vendor_id == model::nvidia_vendor_id && device.is_gpu())
                    {
                        gpus.push_back({ {}, device.address });
                    }
                }
                return gpus;
            }
            return std::nullopt;
        }

        auto locked_name(const model::LockedGpu& gpu) -> std::string
        {
            std::string text = "GPU " + std::to_string(gpu.index);
            std::vector<std::string> ids;
            if (gpu.uuid)
            {
                ids.push_back(*gpu.uuid);
            }
            if (gpu.pci_bus_id)
            {
                ids.push_back(*gpu.pci_bus_id);
            }
            return ids.empty() ? text : text + " (" + util::join(ids, ", ") + ")";
        }

        auto count_against(std::size_t visible, std::size_t expected, const std::string& source,
                           const std::string& expectation) -> model::CheckOutcome
        {
            const std::string seen = std::to_string(visible) + " of " + std::to_string(expected) +
                                     " GPUs visible (" + source + "; " + expectation + ")";
            if (visible < expected)
            {
                return fail(seen,
                            "find the missing GPUs: nvidia-smi -L, the kernel log (Xid 79: fallen "
                            "off the bus), lspci -d 10de:; reseat or replace them, or reboot");
            }
            if (visible > expected)
            {
                return warn(seen + ": more than expected",
                            "update the expectation (re-lock, or --expect-gpus)");
            }
            return pass(seen);
        }

        auto link_speed(const std::optional<std::string>& text) -> std::optional<double>
        {
            if (!text)
            {
                return std::nullopt;
            }
            double value = 0.0;
            const auto [end, error] =
              std::from_chars(text->data(), text->data() + text->size(), value);
            if (error != std::errc{} || end == text->data())
            {
                return std::nullopt;
            }
            return value;
        }

        // Under --root (or without NVML): the link as sysfs shows it, without knowing whether
        // the GPU is busy: a slower link may be the idle power-saving state, a narrower one is
        // worth a look.
        auto pcie_from_sysfs(const model::MachineFacts& machine) -> model::CheckOutcome
        {
            std::vector<std::string> narrow;
            std::vector<std::string> slow;
            int known = 0;
            for (const auto& device : machine.pci.devices)
            {
                if (device.vendor_id != model::nvidia_vendor_id || !device.is_gpu())
                {
                    continue;
                }
                if (device.current_link_width && device.max_link_width)
                {
                    ++known;
                    if (*device.current_link_width < *device.max_link_width)
                    {
                        narrow.push_back(device.address + ": x" +
                                         std::to_string(*device.current_link_width) + " of x" +
                                         std::to_string(*device.max_link_width));
                    }
                }
                const auto current = link_speed(device.current_link_speed);
                const auto maximum = link_speed(device.max_link_speed);
                if (current && maximum && *current < *maximum)
                {
                    slow.push_back(device.address + ": " + *device.current_link_speed + " of " +
                                   *device.max_link_speed);
                }
            }
            if (known == 0)
            {
                return skip("neither NVML nor sysfs gives the GPUs' PCIe links");
            }
            const std::string note =
              slow.empty() ? ""
                           : "; slower than the maximum (sysfs, the GPU's load unknown: at idle "
                             "that is power saving): " +
                               join_limited(slow);
            if (!narrow.empty())
            {
                return warn("PCIe link narrower than its maximum (sysfs): " + join_limited(narrow) +
                              note,
                            "reseat the GPU or its riser; check the slot's bifurcation in the "
                            "BIOS; re-check under load with NVML (envcheck doctor on the node)");
            }
            return pass("PCIe links at full width on " + std::to_string(known) + " GPU" +
                        (known == 1 ? "" : "s") + " (sysfs)" + note);
        }

        auto count_text(std::uint64_t value) -> std::string
        {
            return std::to_string(value);
        }
    }

    auto default_fatal_xids() -> std::vector<int>
    {
        // The Xids whose immediate action in NVIDIA's Xid catalog (Ampere and newer, as
        // NVIDIA/NVSentinel's xiderrorsmapping.csv carries it) is a GPU reset, a reboot or a
        // hardware workflow (ECC DBE, NVLink). RESTART_APP and IGNORE ones (13, 31, 43, 63, 92,
        // 94, 154, ...) are the application's or informational.
        return { 46,  48,  62,  64,  74,  79,  95,  109, 110, 119, 120, 136, 140,
                 143, 144, 145, 146, 147, 148, 149, 150, 155, 156, 158, 160 };
    }

    auto parse_xid_list(std::string_view text) -> util::Result<std::vector<int>>
    {
        std::vector<int> xids;
        for (const auto& raw : util::split(text, ','))
        {
            const auto item = util::trim(raw);
            int number = 0;
            const auto [end, error] =
              std::from_chars(item.data(), item.data() + item.size(), number);
            if (item.empty() || error != std::errc{} || end != item.data() + item.size() ||
                number < 1 || number > 9999)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::usage,
                  "fatal Xids: '" + std::string(item) + "' is not an Xid number (1 to 9999)", {},
                  "give a comma-separated list, e.g. 48,79,94,95"));
            }
            if (std::find(xids.begin(), xids.end(), number) == xids.end())
            {
                xids.push_back(number);
            }
        }
        std::sort(xids.begin(), xids.end());
        return xids;
    }

    auto check_gpu_xid(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& log = input.machine.kernel_log;
        if (!log.readable)
        {
            return skip_with_fix(
              "cannot read the kernel log (" + log.source + "): " + log.error,
              input.machine.live
                ? "run as root, or allow reading it: sysctl kernel.dmesg_restrict=0 (a container "
                  "needs /dev/kmsg mounted and CAP_SYSLOG)"
                : "put a capture of the node's kernel log (cat /dev/kmsg, dmesg or journalctl -k "
                  "since boot) at <root>/dev/kmsg");
        }
        const auto& fatal = input.hardware.fatal_xids;
        // (bus, xid) -> count, and the first message of each.
        std::map<std::pair<std::string, int>, std::pair<int, std::string>> seen;
        for (const auto& event : log.xids)
        {
            auto& entry = seen[{ event.pci_bus_id, event.xid }];
            if (entry.first++ == 0)
            {
                entry.second = event.message;
                while (!entry.second.empty() && entry.second.back() == '.')
                {
                    entry.second.pop_back(); // the list's separators follow
                }
            }
        }
        std::vector<std::string> failing;
        std::vector<std::string> other;
        for (const auto& [key, entry] : seen)
        {
            const auto& [bus, xid] = key;
            std::string where = bus;
            if (const auto* gpu = gpu_at_bus(input.machine, bus))
            {
                where = "GPU " + std::to_string(gpu->index) + " (" + bus + ")";
            }
            std::string text = "Xid " + std::to_string(xid) + " on " + where;
            if (entry.first > 1)
            {
                text += " x" + std::to_string(entry.first);
            }
            if (std::find(fatal.begin(), fatal.end(), xid) != fatal.end())
            {
                failing.push_back(text + (entry.second.empty() ? "" : ": " + entry.second));
            }
            else
            {
                other.push_back(text);
            }
        }
        const std::string truncated = log.truncated ? " (more Xid lines than " +
                                                        std::to_string(model::max_xid_events) +
                                                        "; the first ones were read)"
                                                    : "";
        const std::string also =
          other.empty() ? "" : "; not in the fatal list: " + join_limited(other);
        if (!failing.empty())
        {
            return fail("fatal Xid errors in the kernel log since boot: " + join_limited(failing) +
                          also + truncated,
                        reset_fix + "; which Xids are fatal: --fatal-xids");
        }
        return pass("no fatal Xid in " + log.source + " since boot" + also + truncated);
    }

    auto check_gpu_ecc_uncorrectable(const DoctorInput& input) -> model::CheckOutcome
    {
        if (auto unavailable = nvml_unavailable(input.machine))
        {
            return *unavailable;
        }
        std::vector<std::string> volatile_errors;
        std::vector<std::string> aggregate_errors;
        std::vector<std::string> ecc_off;
        int judged = 0;
        for (const auto& gpu : input.machine.nvml.gpus)
        {
            if (gpu.ecc_enabled && !*gpu.ecc_enabled)
            {
                ecc_off.push_back(gpu_name(gpu));
                continue;
            }
            if (!gpu.ecc_uncorrected_volatile && !gpu.ecc_uncorrected_aggregate)
            {
                continue;
            }
            ++judged;
            if (gpu.ecc_uncorrected_volatile.value_or(0) > 0)
            {
                volatile_errors.push_back(gpu_name(gpu) + ": " +
                                          count_text(*gpu.ecc_uncorrected_volatile) +
                                          " since the driver loaded");
            }
            else if (gpu.ecc_uncorrected_aggregate.value_or(0) > 0)
            {
                aggregate_errors.push_back(gpu_name(gpu) + ": " +
                                           count_text(*gpu.ecc_uncorrected_aggregate) +
                                           " in its life");
            }
        }
        const std::string off = ecc_off.empty() ? "" : "; ECC is off on " + join_limited(ecc_off);
        if (!volatile_errors.empty())
        {
            return fail("uncorrectable ECC errors: " + join_limited(volatile_errors) + off,
                        reset_fix);
        }
        if (!aggregate_errors.empty())
        {
            return warn("uncorrectable ECC errors in the past, none since the driver loaded: " +
                          join_limited(aggregate_errors) + off,
                        "watch gpu.row-remapping and gpu.retired-pages; replace the GPU (RMA) "
                        "if the errors return");
        }
        if (judged == 0)
        {
            return skip(ecc_off.empty() ? "the GPUs do not report ECC error counts"
                                        : "ECC is off on " + join_limited(ecc_off));
        }
        return pass("no uncorrectable ECC error on " + std::to_string(judged) + " GPU" +
                    (judged == 1 ? "" : "s") + off);
    }

    auto check_gpu_row_remapping(const DoctorInput& input) -> model::CheckOutcome
    {
        if (auto unavailable = nvml_unavailable(input.machine))
        {
            return *unavailable;
        }
        std::vector<std::string> failed;
        std::vector<std::string> pending;
        int judged = 0;
        int remapped = 0;
        for (const auto& gpu : input.machine.nvml.gpus)
        {
            if (!gpu.remapping_failed && !gpu.remapping_pending)
            {
                continue;
            }
            ++judged;
            remapped += gpu.remapped_rows_uncorrectable.value_or(0) +
                        gpu.remapped_rows_correctable.value_or(0);
            if (gpu.remapping_failed.value_or(false))
            {
                failed.push_back(gpu_name(gpu));
            }
            else if (gpu.remapping_pending.value_or(false))
            {
                pending.push_back(gpu_name(gpu));
            }
        }
        if (!failed.empty())
        {
            return fail("row remapping failed (no spare rows left): " + join_limited(failed),
                        "drain the node and replace the GPU (RMA): its memory has errors it can "
                        "no longer remap");
        }
        if (!pending.empty())
        {
            return fail("row remapping pending (takes effect at the next GPU reset): " +
                          join_limited(pending),
                        "drain the node, then reset the GPU (nvidia-smi -r -i <index>) or reboot");
        }
        if (judged == 0)
        {
            return skip("the GPUs do not remap rows (before Ampere: see gpu.retired-pages)");
        }
        return pass("no row remapping pending or failed on " + std::to_string(judged) + " GPU" +
                    (judged == 1 ? "" : "s") + " (" + std::to_string(remapped) + " rows remapped)");
    }

    auto check_gpu_retired_pages(const DoctorInput& input) -> model::CheckOutcome
    {
        if (auto unavailable = nvml_unavailable(input.machine))
        {
            return *unavailable;
        }
        std::vector<std::string> pending;
        std::vector<std::string> many;
        int judged = 0;
        for (const auto& gpu : input.machine.nvml.gpus)
        {
            if (!gpu.retired_pages_pending && !gpu.retired_pages_double_bit &&
                !gpu.retired_pages_single_bit)
            {
                continue;
            }
            ++judged;
            const int retired =
              gpu.retired_pages_double_bit.value_or(0) + gpu.retired_pages_single_bit.value_or(0);
            if (gpu.retired_pages_pending.value_or(false))
            {
                pending.push_back(gpu_name(gpu));
            }
            if (retired >= retired_pages_rma)
            {
                many.push_back(gpu_name(gpu) + ": " + std::to_string(retired) + " pages");
            }
        }
        if (!pending.empty())
        {
            return fail("page retirement pending (takes effect when the driver reloads): " +
                          join_limited(pending),
                        "drain the node, then reset the GPU (nvidia-smi -r -i <index>) or reboot");
        }
        if (!many.empty())
        {
            return warn("retired pages at NVIDIA's RMA threshold (" +
                          std::to_string(retired_pages_rma) + "): " + join_limited(many),
                        "plan to replace the GPU (RMA)");
        }
        if (judged == 0)
        {
            return skip("the GPUs do not retire pages (Ampere and later remap rows: see "
                        "gpu.row-remapping)");
        }
        return pass("no page retirement pending on " + std::to_string(judged) + " GPU" +
                    (judged == 1 ? "" : "s"));
    }

    auto check_gpu_pcie_link(const DoctorInput& input) -> model::CheckOutcome
    {
        if (nvml_unavailable(input.machine))
        {
            return pcie_from_sysfs(input.machine);
        }
        std::vector<std::string> degraded;
        std::vector<std::string> narrow_idle;
        std::vector<std::string> slow_idle;
        int judged = 0;
        for (const auto& gpu : input.machine.nvml.gpus)
        {
            if (!gpu.pcie_generation_current || !gpu.pcie_generation_max ||
                !gpu.pcie_width_current || !gpu.pcie_width_max)
            {
                continue;
            }
            ++judged;
            // A GPU at idle lowers its link's generation to save power (DCGM checks the link
            // only at P0): below the maximum is trouble only while it works.
            const bool idle = gpu.clock_event_reasons
                                ? (*gpu.clock_event_reasons & reason_gpu_idle) != 0
                                : gpu.compute_processes.value_or(0) == 0;
            const bool slow = *gpu.pcie_generation_current < *gpu.pcie_generation_max;
            const bool narrow = *gpu.pcie_width_current < *gpu.pcie_width_max;
            const std::string link = gpu_name(gpu) + ": gen " +
                                     std::to_string(*gpu.pcie_generation_current) + " of " +
                                     std::to_string(*gpu.pcie_generation_max) + ", x" +
                                     std::to_string(*gpu.pcie_width_current) + " of x" +
                                     std::to_string(*gpu.pcie_width_max);
            if ((slow || narrow) && !idle)
            {
                degraded.push_back(link + " under load");
            }
            else if (narrow)
            {
                narrow_idle.push_back(link + " at idle");
            }
            else if (slow)
            {
                slow_idle.push_back(link);
            }
        }
        if (judged == 0)
        {
            return pcie_from_sysfs(input.machine);
        }
        const std::string fix = "reseat the GPU or its riser, check the slot's bifurcation and "
                                "PCIe generation in the BIOS; replace the riser or the GPU if it "
                                "stays down";
        const std::string note =
          slow_idle.empty()
            ? ""
            : "; at idle below the maximum generation (power saving, not a fault): " +
                join_limited(slow_idle);
        if (!degraded.empty())
        {
            return fail("PCIe link below its maximum: " + join_limited(degraded) + note, fix);
        }
        if (!narrow_idle.empty())
        {
            return warn("PCIe link narrower than its maximum: " + join_limited(narrow_idle) + note +
                          " (re-check under load)",
                        fix);
        }
        return pass("PCIe links at their maximum on " + std::to_string(judged) + " GPU" +
                    (judged == 1 ? "" : "s") + note);
    }

    auto check_gpu_throttle_hardware(const DoctorInput& input) -> model::CheckOutcome
    {
        if (auto unavailable = nvml_unavailable(input.machine))
        {
            return *unavailable;
        }
        std::vector<std::string> hardware;
        std::vector<std::string> thermal;
        int judged = 0;
        for (const auto& gpu : input.machine.nvml.gpus)
        {
            if (!gpu.clock_event_reasons)
            {
                continue;
            }
            ++judged;
            const auto reasons = *gpu.clock_event_reasons;
            if ((reasons & hardware_reasons) != 0)
            {
                hardware.push_back(
                  gpu_name(gpu) + ": " +
                  util::join(model::clock_event_reason_names(reasons & hardware_reasons), ", "));
            }
            if ((reasons & reason_sw_thermal) != 0)
            {
                thermal.push_back(gpu_name(gpu));
            }
        }
        if (judged == 0)
        {
            return skip("the GPUs do not report why their clocks are held down");
        }
        if (!hardware.empty())
        {
            return fail("clocks held down by hardware: " + join_limited(hardware),
                        "hw_slowdown and hw_thermal_slowdown: check cooling (fans, airflow, inlet "
                        "temperature) and the power supply; hw_power_brake_slowdown: the "
                        "chassis' power brake signal (PSU or power capping); replace the GPU if "
                        "it persists on an idle, cool GPU");
        }
        if (!thermal.empty())
        {
            return warn("clocks held down because the GPU runs hot (sw_thermal_slowdown): " +
                          join_limited(thermal),
                        "check cooling: fans, airflow, inlet temperature (nvidia-smi -q -d "
                        "TEMPERATURE)");
        }
        return pass("no hardware clock slowdown on " + std::to_string(judged) + " GPU" +
                    (judged == 1 ? "" : "s") +
                    " (idle, application clocks and power caps are not faults)");
    }

    auto check_gpu_persistence_mode(const DoctorInput& input) -> model::CheckOutcome
    {
        if (auto unavailable = nvml_unavailable(input.machine))
        {
            return *unavailable;
        }
        std::vector<std::string> off;
        int judged = 0;
        for (const auto& gpu : input.machine.nvml.gpus)
        {
            if (!gpu.persistence_mode)
            {
                continue;
            }
            ++judged;
            if (!*gpu.persistence_mode)
            {
                off.push_back(gpu_name(gpu));
            }
        }
        if (judged == 0)
        {
            return skip("the GPUs do not report persistence mode (Windows and WSL have none)");
        }
        if (!off.empty())
        {
            return warn("persistence mode is off: " + join_limited(off) +
                          " (each CUDA start re-initializes the GPU: slower starts, and "
                          "settings reset when no process holds it)",
                        "sudo systemctl enable --now nvidia-persistenced (or: sudo nvidia-smi "
                        "-pm 1)");
        }
        return pass("persistence mode on, " + std::to_string(judged) + " GPU" +
                    (judged == 1 ? "" : "s"));
    }

    auto check_gpu_count(const DoctorInput& input) -> model::CheckOutcome
    {
        const bool from_lock = input.locked_gpus && !input.locked_gpus->empty();
        if (!from_lock && !input.hardware.expected_gpu_count)
        {
            return skip("no expected GPU count: pass --lock (a lock that records the GPUs) or "
                        "--expect-gpus N");
        }
        std::string source;
        const auto visible = visible_gpus(input.machine, source);
        if (!visible)
        {
            return skip("neither NVML nor the CUDA driver answered: the visible GPUs are not "
                        "known");
        }
        if (!from_lock)
        {
            return count_against(visible->size(),
                                 static_cast<std::size_t>(*input.hardware.expected_gpu_count),
                                 source, input.hardware.expected_gpu_count_from);
        }
        const auto& locked = *input.locked_gpus;
        // The same machine: match by UUID. Another node of the same kind: its GPUs have other
        // UUIDs but, on the same board, the same PCI bus ids.
        std::set<std::string> uuids;
        std::set<std::string> buses;
        for (const auto& gpu : *visible)
        {
            if (!gpu.uuid.empty())
            {
                uuids.insert(gpu.uuid);
            }
            if (!gpu.pci_bus_id.empty())
            {
                buses.insert(bus_key(gpu.pci_bus_id));
            }
        }
        const bool same_machine = std::any_of(locked.begin(), locked.end(),
                                              [&](const model::LockedGpu& gpu)
                                              { return gpu.uuid && uuids.contains(*gpu.uuid); });
        const bool same_board =
          std::any_of(locked.begin(), locked.end(),
                      [&](const model::LockedGpu& gpu)
                      { return gpu.pci_bus_id && buses.contains(bus_key(*gpu.pci_bus_id)); });
        std::vector<std::string> missing;
        if (same_machine || same_board)
        {
            for (const auto& gpu : locked)
            {
                const bool present = same_machine
                                       ? gpu.uuid && uuids.contains(*gpu.uuid)
                                       : gpu.pci_bus_id && buses.contains(bus_key(*gpu.pci_bus_id));
                if (!present)
                {
                    missing.push_back(locked_name(gpu));
                }
            }
        }
        if (!missing.empty())
        {
            return fail(std::to_string(locked.size() - missing.size()) + " of " +
                          std::to_string(locked.size()) + " locked GPUs visible (" + source +
                          "); missing: " + join_limited(missing),
                        "find the missing GPUs: nvidia-smi -L, the kernel log (Xid 79: fallen "
                        "off the bus), lspci -d 10de:; reseat or replace them, or reboot");
        }
        return count_against(visible->size(), locked.size(), source,
                             same_machine ? "the lock's GPUs, by UUID"
                             : same_board ? "the lock's GPUs, by PCI bus id"
                                          : "the lock's GPU count");
    }

    auto check_gpu_nvlink(const DoctorInput& input) -> model::CheckOutcome
    {
        if (auto unavailable = nvml_unavailable(input.machine))
        {
            return *unavailable;
        }
        std::vector<std::string> down;
        std::vector<std::string> all_down;
        int with_nvlink = 0;
        int links_up = 0;
        for (const auto& gpu : input.machine.nvml.gpus)
        {
            if (gpu.nvlink_links.value_or(0) == 0)
            {
                continue;
            }
            ++with_nvlink;
            const int links = *gpu.nvlink_links;
            const int inactive = static_cast<int>(gpu.nvlink_links_down.size());
            links_up += links - inactive;
            if (inactive == 0)
            {
                continue;
            }
            std::vector<std::string> numbers;
            for (const int link : gpu.nvlink_links_down)
            {
                numbers.push_back(std::to_string(link));
            }
            const std::string text = gpu_name(gpu) + ": " + std::to_string(inactive) + " of " +
                                     std::to_string(links) + " links down (" +
                                     util::join(numbers, ", ") + ")";
            (inactive == links ? all_down : down).push_back(text);
        }
        if (with_nvlink == 0)
        {
            return skip("no GPU reports NVLink links");
        }
        const std::string fix = "drain the node; check Fabric Manager (fabric-manager), "
                                "nvidia-smi nvlink -s and the kernel log (Xid 74); reset the GPU "
                                "or reboot; reseat the NVLink bridge or replace the baseboard "
                                "if links stay down";
        // Some links up and some down is a broken link. Every link down, on a board without
        // NVSwitch where no other GPU has a link up, is a PCIe card without its bridge.
        if (!down.empty() ||
            (!all_down.empty() && (input.machine.pci.has_nvswitch() || links_up > 0)))
        {
            auto both = down;
            both.insert(both.end(), all_down.begin(), all_down.end());
            return fail("NVLink links down: " + join_limited(both), fix);
        }
        if (!all_down.empty())
        {
            return warn("no NVLink link is up: " + join_limited(all_down) +
                          " (a PCIe card without its NVLink bridge?)",
                        "fit the NVLink bridge if the GPUs should be linked; " + fix);
        }
        return pass(std::to_string(links_up) + " NVLink links up on " +
                    std::to_string(with_nvlink) + " GPU" + (with_nvlink == 1 ? "" : "s"));
    }

    auto busy_reason(const model::MachineFacts& machine, int cuda_ordinal)
      -> std::optional<std::string>
    {
        const model::NvmlGpu* found = nullptr;
        const auto device =
          std::find_if(machine.cuda.devices.begin(), machine.cuda.devices.end(),
                       [&](const model::GpuDevice& d) { return d.index == cuda_ordinal; });
        for (const auto& gpu : machine.nvml.gpus)
        {
            const bool identified = device != machine.cuda.devices.end() &&
                                    (!device->uuid.empty() || !device->pci_bus_id.empty());
            const bool same = identified
                                ? (!device->uuid.empty() && device->uuid == gpu.uuid) ||
                                    (!device->pci_bus_id.empty() && !gpu.pci_bus_id.empty() &&
                                     bus_key(device->pci_bus_id) == bus_key(gpu.pci_bus_id))
                                : gpu.index == cuda_ordinal;
            if (same)
            {
                found = &gpu;
                break;
            }
        }
        if (found == nullptr || found->compute_processes.value_or(0) <= 0)
        {
            return std::nullopt;
        }
        std::vector<std::string> pids;
        for (const auto pid : found->compute_process_ids)
        {
            pids.push_back(std::to_string(pid));
        }
        const int count = *found->compute_processes;
        return "GPU " + std::to_string(cuda_ordinal) + " is busy: " + std::to_string(count) +
               " compute process" + (count == 1 ? "" : "es") + " of others" +
               (pids.empty() ? "" : " (pid " + util::join(pids, ", ") + ")") +
               (count == 1 ? " holds it" : " hold it") +
               "; skipped so as not to disturb them (--even-if-busy runs it anyway)";
    }

    auto any_gpu_busy(const model::NvmlFacts& nvml) -> bool
    {
        return std::any_of(nvml.gpus.begin(), nvml.gpus.end(),
                           [](const model::NvmlGpu& gpu)
                           { return gpu.compute_processes.value_or(0) > 0; });
    }

    auto run_hardware_gates(const DoctorInput& input) -> std::vector<model::CheckOutcome>
    {
        std::vector<model::CheckOutcome> outcomes;
        for (const auto& check : doctor_checks())
        {
            if (check.stage != hardware_gate_stage)
            {
                continue;
            }
            auto outcome = check.run(input);
            outcome.id = std::string(check.id);
            outcome.labels["stage"] = std::string(check.stage);
            outcomes.push_back(std::move(outcome));
        }
        return outcomes;
    }
}
