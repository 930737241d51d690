// Device-memory (HBM/GDDR) bandwidth at sizes far past the L2: a read-only kernel (16-byte
// loads, XOR-reduced so that nothing is optimised away), a write-only kernel (16-byte
// evict-first stores of a cheap index pattern), the SM copy kernel (kernels/bandwidth.cuh,
// hbm_copy_kernel) and cudaMemcpyAsync device to device (the peer), each
// warmed up, event-timed, median and spread, and verified: the read's XOR against a plain
// reference kernel's, every written and copied word against its pattern. Copies count the bytes
// read plus the bytes written. The memory's peak from its clock and bus width is reported beside
// them (the datasheet figure, to rounding: the H200 reports 3201 MHz over 6016 bits, 4814 GB/s,
// against the 4.8 TB/s its datasheet states).
#ifndef ENVCHECK_KERNELS_HBM_CUH
#define ENVCHECK_KERNELS_HBM_CUH

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "kernels/bandwidth.cuh"
#include "kernels/status.cuh"

namespace envcheck::kernels
{
    enum class HbmKernel
    {
        read,   // read-only kernel
        write,  // write-only kernel
        copy,   // the SM copy kernel of kernels/bandwidth.cuh, shape hbm_copy_kernel
        memcpy, // cudaMemcpyAsync device to device
    };

    inline constexpr HbmKernel hbm_kernels[] = { HbmKernel::read, HbmKernel::write, HbmKernel::copy,
                                                 HbmKernel::memcpy };

    [[nodiscard]] inline auto to_string(HbmKernel kernel) -> std::string_view
    {
        switch (kernel)
        {
            case HbmKernel::read:
                return "read";
            case HbmKernel::write:
                return "write";
            case HbmKernel::copy:
                return "copy";
            case HbmKernel::memcpy:
                return "memcpy";
        }
        return "unknown";
    }

    // The SM copy shape the probe's copy uses: the closest to cudaMemcpyAsync at sizes far past
    // the L2 (tests/bench/RESULTS.md, "hbm").
    inline constexpr CopyKernel hbm_copy_kernel = CopyKernel::one_tile_streaming;

    // Bytes through device memory for one pass over a buffer of `bytes`: copies read and write.
    [[nodiscard]] constexpr auto hbm_bytes_moved(HbmKernel kernel, std::size_t bytes) -> double
    {
        const auto once = static_cast<double>(bytes);
        return kernel == HbmKernel::copy || kernel == HbmKernel::memcpy ? 2.0 * once : once;
    }

    // GB/s (1e9 bytes per second) for `bytes` moved in `ms`; 0 for no time.
    [[nodiscard]] constexpr auto gigabytes_per_second(double bytes, double ms) -> double
    {
        return ms > 0.0 ? bytes / (ms * 1e-3) / 1e9 : 0.0;
    }

    // The memory's peak in GB/s: two transfers per clock (cudaDevAttrMemoryClockRate counts the
    // DDR clock) over the bus. 0 when the device does not say.
    [[nodiscard]] constexpr auto hbm_peak_gbps(int memory_clock_khz, int bus_width_bits) -> double
    {
        return memory_clock_khz > 0 && bus_width_bits > 0
                 ? 2.0 * static_cast<double>(memory_clock_khz) * 1e3 *
                     static_cast<double>(bus_width_bits) / 8.0 / 1e9
                 : 0.0;
    }

    // Sizes the probe takes: whole 16-byte vectors, at least one.
    [[nodiscard]] constexpr auto hbm_size_ok(std::size_t bytes) -> bool
    {
        return bytes >= 16 && bytes % 16 == 0;
    }

    // The read kernel on the caller's buffer (for benchmarks): writes one 16-byte XOR per block
    // into `block_xors`, which must hold hbm_read_blocks() x 16 bytes.
    [[nodiscard]] auto launch_hbm_read(const void* data, std::size_t bytes, void* block_xors,
                                       Stream stream) -> CudaStatus;
    // The number of blocks launch_hbm_read uses on the current device.
    [[nodiscard]] auto hbm_read_blocks(int& blocks) -> CudaStatus;
    // The write kernel on the caller's buffer (for benchmarks).
    [[nodiscard]] auto launch_hbm_write(void* data, std::size_t bytes, std::uint32_t seed,
                                        Stream stream) -> CudaStatus;

    struct HbmPlan
    {
        std::size_t bytes = std::size_t{ 1 } << 30; // per buffer; copies use two
        int repeats = 10;
        double min_warmup_ms = 10.0;
        std::uint32_t seed = 1;
    };

    struct HbmMeasurement
    {
        HbmKernel kernel = HbmKernel::read;
        std::vector<float> times_ms; // one pass each, after warm-up
        double median_ms = 0.0;
        double spread = 0.0; // (max - min) / median of times_ms
        double gbps = 0.0;   // hbm_bytes_moved at the median time
        bool verified = false;
        std::size_t mismatches = 0; // words that differ from their pattern (write, copy, memcpy)
    };

    struct HbmRun
    {
        CudaStatus status;
        std::size_t bytes = 0;
        double peak_gbps = 0.0;                   // hbm_peak_gbps of the device; 0 if unknown
        std::vector<HbmMeasurement> measurements; // in hbm_kernels order
    };

    [[nodiscard]] auto run_hbm(const HbmPlan& plan) -> HbmRun;
}

#endif
