// What `envcheck smoke` measured, as plain values: the devices, each probe's outcome and
// metrics, and why nothing ran when no GPU was usable. Also the baseline a lock stores for
// "performs as locked" and the machine facts that explain a drop (PerfContext), which the
// checks module compares (checks/perf.hpp) and the report module renders.
#ifndef ENVCHECK_MODEL_SMOKE_HPP
#define ENVCHECK_MODEL_SMOKE_HPP

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/check_result.hpp"
#include "model/cuda_version.hpp"
#include "model/gpu_device.hpp"

namespace envcheck::model
{
    enum class SmokeMode
    {
        quick, // one size per probe, under 0.5 s of GPU time on an H200; what `check` runs
        full,  // size sweeps, under 10 s
    };

    [[nodiscard]] auto to_string(SmokeMode mode) -> std::string_view;
    [[nodiscard]] auto parse_smoke_mode(std::string_view text) -> std::optional<SmokeMode>;

    enum class MetricDirection
    {
        higher_is_better, // throughput, bandwidth, efficiency: compared with a baseline
        lower_is_better,  // times: compared with a baseline
        informational,    // errors, ratios that explain: reported, never compared
    };

    [[nodiscard]] auto to_string(MetricDirection direction) -> std::string_view;
    [[nodiscard]] auto parse_metric_direction(std::string_view text)
      -> std::optional<MetricDirection>;

    struct Metric
    {
        std::string name; // snake_case, unit as suffix: "tuned_tflops", "h2d_pinned_gbps"
        double value = 0.0;
        std::string unit;    // "TFLOP/s", "GB/s", "ms", "x", "" (a plain number)
        double spread = 0.0; // (max - min) / median over the repeats; 0 for one sample
        int samples = 1;
        MetricDirection direction = MetricDirection::informational;

        auto operator==(const Metric&) const -> bool = default;
    };

    struct ProbeResult
    {
        std::string id; // the probe registry's id: "hello", "matmul-shared", ...
        Status status = Status::skip;
        std::string message; // what was seen, or why it failed or was skipped
        std::vector<Metric> metrics;
        double duration_seconds = 0.0; // wall time of the probe, host work included
        std::optional<int> cuda_error; // the cudaError_t behind a fail or error, if any

        [[nodiscard]] auto metric(std::string_view name) const -> const Metric*;
        auto operator==(const ProbeResult&) const -> bool = default;
    };

    struct DeviceSmoke
    {
        GpuDevice device;
        std::vector<ProbeResult> probes;

        auto operator==(const DeviceSmoke&) const -> bool = default;
    };

    // Why probes did or did not run.
    enum class GpuAvailability
    {
        available,            // probes ran (each may still fail)
        built_without_cuda,   // this binary has no kernels
        no_driver,            // libcuda.so.1 cannot be loaded
        no_usable_device,     // the runtime found no device it can use (see cuda_error)
        no_such_device,       // --device named an ordinal this machine does not have
        probe_process_failed, // the probe child died or hung before it reported a device
    };

    [[nodiscard]] auto to_string(GpuAvailability availability) -> std::string_view;
    [[nodiscard]] auto parse_gpu_availability(std::string_view text)
      -> std::optional<GpuAvailability>;

    struct CudaError
    {
        int code = 0;
        std::string name;    // "cudaErrorNoDevice"
        std::string message; // "no CUDA-capable device is detected"

        auto operator==(const CudaError&) const -> bool = default;
    };

    struct SmokeReport
    {
        SmokeMode mode = SmokeMode::quick;
        GpuAvailability availability = GpuAvailability::available;
        std::string diagnosis; // why no probe ran; empty when availability is `available`
        std::optional<CudaError> cuda_error;     // cudaGetDeviceCount's failure, when that is why
        std::optional<CudaVersion> driver_cuda;  // the newest CUDA the driver supports
        std::optional<CudaVersion> runtime_cuda; // the CUDA runtime built into envcheck
        std::vector<DeviceSmoke> devices;
        double duration_seconds = 0.0;

        // True when probes ran and none failed or errored.
        [[nodiscard]] auto passed() const -> bool;
        // The measurements of the GPU with this index; null when it was not measured.
        [[nodiscard]] auto device(int index) const -> const DeviceSmoke*;
        [[nodiscard]] auto device(int index) -> DeviceSmoke*;
        auto operator==(const SmokeReport&) const -> bool = default;
    };

    // The common CheckRun shape (one outcome per device and probe, id "smoke.<probe>", labels
    // gpu/gpu_name/gpu_uuid), for the fleet report formats.
    [[nodiscard]] auto to_check_run(const SmokeReport& report) -> CheckRun;

    // ------------------------------------------------------------------------------------
    // Performs as locked
    // ------------------------------------------------------------------------------------

    // One compared metric of a locked baseline: its value with the spread of its repeats, so that
    // a later comparison knows how noisy it is.
    struct BaselineMetric
    {
        std::string probe; // "bandwidth"
        std::string name;  // "h2d_pinned_gbps"
        double value = 0.0;
        double spread = 0.0;
        int samples = 1;
        std::string unit;
        MetricDirection direction = MetricDirection::higher_is_better;
        // Why the metric is reported but never fails a check (its spread was above
        // stable_spread when it was locked); empty: compared against its tolerance.
        std::string informational;

        // "bandwidth.h2d_pinned_gbps": the key tolerances are overridden by.
        [[nodiscard]] auto key() const -> std::string;
        auto operator==(const BaselineMetric&) const -> bool = default;
    };

    // The metrics of one device, with the device they came from.
    struct PerfBaseline
    {
        int device_index = 0;
        std::string device_name;
        std::string device_uuid;
        std::string pci_bus_id;
        SmokeMode mode = SmokeMode::quick;
        std::vector<BaselineMetric> metrics;

        auto operator==(const PerfBaseline&) const -> bool = default;
    };

    // The largest spread a compared metric may have: a metric noisier than 3% could not show a
    // 5% drop apart from its own noise, so a lock records it as informational.
    inline constexpr double stable_spread = 0.03;

    // The baseline a lock stores for one device from independent runs of the same probes on it
    // (one run or several): every higher- or lower-is-better metric of the probes that passed in
    // every run. Its value is the median over the runs; its spread the spread between the runs
    // (one run: the spread of its repeats); its samples all the runs' together.
    // A metric whose spread is above stable_spread is recorded as informational, with why.
    [[nodiscard]] auto make_baseline(std::span<const DeviceSmoke> runs, SmokeMode mode)
      -> PerfBaseline;

    // The machine facts that explain a drop, read when the metrics were measured (the lead fills
    // it from the system probe: NVML, sysfs). Unknown facts stay nullopt / empty.
    struct PerfContext
    {
        std::string gpu_name;
        std::optional<int> pcie_generation_current;
        std::optional<int> pcie_generation_max;
        std::optional<int> pcie_width_current;
        std::optional<int> pcie_width_max;
        std::optional<int> sm_clock_mhz_current;
        std::optional<int> sm_clock_mhz_max;
        // NVML clock-event reasons in snake_case: "sw_power_cap", "hw_slowdown",
        // "hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown",
        // "applications_clocks_setting", "sync_boost", "display_clock_setting", "gpu_idle".
        std::vector<std::string> clock_event_reasons;
        std::optional<std::uint64_t> ecc_corrected_volatile;
        std::optional<std::uint64_t> ecc_uncorrected_volatile;
        std::optional<int> other_compute_processes; // compute processes on the GPU besides ours
    };
}

#endif
