// One CUDA device as the CUDA driver API describes it (cuDeviceGet*, gpu-anchors.md §5.2): the one
// device type of envcheck. `probe` reports it, `smoke` runs its probes on it and sizes their work
// by it, `doctor` reads its compute mode. Both read it with the same driver calls
// (src/driver/cuda_driver.hpp), in a child process. An attribute the driver did not answer (an
// older driver lacks newer ones) stays std::nullopt, never a guess.
#ifndef ENVCHECK_MODEL_GPU_DEVICE_HPP
#define ENVCHECK_MODEL_GPU_DEVICE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace envcheck::model
{
    enum class ComputeMode
    {
        default_mode,      // shared by any number of processes
        exclusive_thread,  // deprecated by NVIDIA
        prohibited,        // no process may create a context
        exclusive_process, // one process at a time
    };

    [[nodiscard]] auto to_string(ComputeMode mode) -> std::string_view;
    [[nodiscard]] auto parse_compute_mode(std::string_view text) -> std::optional<ComputeMode>;
    // NVML's nvmlComputeMode_t and CUDA's CUcomputemode share their numbering.
    [[nodiscard]] auto compute_mode_from_code(int code) -> std::optional<ComputeMode>;

    struct GpuDevice
    {
        int index = 0; // the CUDA device ordinal (after CUDA_VISIBLE_DEVICES)
        std::string name;
        std::string uuid;       // "GPU-..." (MIG devices report their own)
        std::string pci_bus_id; // "0000:17:00.0"
        std::optional<std::uint64_t> memory_bytes;
        std::optional<int> compute_capability_major;
        std::optional<int> compute_capability_minor;
        std::optional<int> multiprocessors;
        std::optional<int> shared_memory_per_block;
        std::optional<int> shared_memory_per_block_optin;
        std::optional<int> shared_memory_per_multiprocessor;
        std::optional<int> reserved_shared_memory_per_block;
        std::optional<int> registers_per_block;
        std::optional<int> registers_per_multiprocessor;
        std::optional<std::uint64_t> l2_cache_bytes;
        std::optional<int> max_threads_per_block;
        std::optional<int> max_threads_per_multiprocessor;
        std::optional<int> warp_size;
        std::optional<bool> concurrent_kernels;
        std::optional<int> async_engine_count; // copy engines; 2 or more overlap H2D with D2H
        std::optional<bool> unified_addressing;
        std::optional<int> memory_bus_width_bits;
        std::optional<int> sm_clock_mhz;     // peak
        std::optional<int> memory_clock_mhz; // peak
        std::optional<ComputeMode> compute_mode;
        std::optional<bool> ecc_enabled;

        // "9.0"; nullopt when the driver did not say.
        [[nodiscard]] auto compute_capability() const -> std::optional<std::string>;
        // "sm_90"; nullopt when the driver did not say.
        [[nodiscard]] auto architecture() const -> std::optional<std::string>;
        auto operator==(const GpuDevice&) const -> bool = default;
    };
}

#endif
