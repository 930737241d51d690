#include <algorithm>
#include <vector>

#include "kernels/bandwidth.cuh"
#include "kernels/detail/cuda_support.cuh"
#include "kernels/detail/timing.cuh"
#include "kernels/detail/vector_access.cuh"
#include "kernels/hbm.cuh"

namespace envcheck::kernels
{
    namespace
    {
        using detail::check;
        using detail::Hint;

        constexpr int hbm_threads = 256;
        constexpr int read_unroll = 8;  // 128 bytes in flight per thread before the first use
        constexpr int write_unroll = 4; // stores need no latency hiding, only issue rate

        // Word w of the write pattern: one multiply-xor, so that the kernel stays store-bound.
        __host__ __device__ inline auto write_word(std::uint32_t seed, std::size_t w)
          -> std::uint32_t
        {
            return static_cast<std::uint32_t>(w) * 0x9E3779B1u ^ seed;
        }

        __device__ __forceinline__ auto xor4(uint4 a, uint4 b) -> uint4
        {
            return make_uint4(a.x ^ b.x, a.y ^ b.y, a.z ^ b.z, a.w ^ b.w);
        }

        // Grid-stride over 16-byte vectors, read_unroll loads in flight, all XORed together; one
        // XOR per block out (the reduction's few bytes are not counted).
        __global__ void __launch_bounds__(hbm_threads)
          hbm_read_kernel(const uint4* __restrict__ data, std::size_t count,
                          uint4* __restrict__ block_xors)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x;
            uint4 acc = make_uint4(0, 0, 0, 0);
            for (; i + (read_unroll - 1) * stride < count; i += read_unroll * stride)
            {
                uint4 v[read_unroll];
#pragma unroll
                for (int u = 0; u < read_unroll; ++u)
                {
                    v[u] = detail::load<Hint::prefetch256>(data + i + u * stride);
                }
#pragma unroll
                for (int u = 0; u < read_unroll; ++u)
                {
                    acc = xor4(acc, v[u]);
                }
            }
            for (; i < count; i += stride)
            {
                acc = xor4(acc, detail::load<Hint::prefetch256>(data + i));
            }
#pragma unroll
            for (int offset = 16; offset > 0; offset /= 2)
            {
                acc.x ^= __shfl_xor_sync(0xFFFFFFFFu, acc.x, offset);
                acc.y ^= __shfl_xor_sync(0xFFFFFFFFu, acc.y, offset);
                acc.z ^= __shfl_xor_sync(0xFFFFFFFFu, acc.z, offset);
                acc.w ^= __shfl_xor_sync(0xFFFFFFFFu, acc.w, offset);
            }
            __shared__ uint4 warp_xors[hbm_threads / 32];
            if (threadIdx.x % 32 == 0)
            {
                warp_xors[threadIdx.x / 32] = acc;
            }
            __syncthreads();
            if (threadIdx.x == 0)
            {
                uint4 block = warp_xors[0];
                for (int w = 1; w < hbm_threads / 32; ++w)
                {
                    block = xor4(block, warp_xors[w]);
                }
                block_xors[blockIdx.x] = block;
            }
        }

        // The reference for the read: the same XOR, word by word, one atomic per thread.
        __global__ void reference_xor_kernel(const std::uint32_t* __restrict__ words,
                                             std::size_t count, std::uint32_t* result)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            const std::size_t first = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x;
            // Word w belongs to component w % 4 of the 16-byte XOR; the stride is a multiple of 4,
            // so each thread stays on one component.
            std::uint32_t x = 0;
            for (std::size_t w = first; w < count; w += stride)
            {
                x ^= words[w];
            }
            if (x != 0)
            {
                atomicXor(result + first % 4, x);
            }
        }

        __global__ void __launch_bounds__(hbm_threads)
          hbm_write_kernel(uint4* __restrict__ data, std::size_t count, std::uint32_t seed)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x;
            const auto vector_of = [seed](std::size_t v)
            {
                const std::size_t w = 4 * v;
                return make_uint4(write_word(seed, w), write_word(seed, w + 1),
                                  write_word(seed, w + 2), write_word(seed, w + 3));
            };
            for (; i + (write_unroll - 1) * stride < count; i += write_unroll * stride)
            {
#pragma unroll
                for (int u = 0; u < write_unroll; ++u)
                {
                    detail::store<Hint::streaming>(data + i + u * stride,
                                                   vector_of(i + u * stride));
                }
            }
            for (; i < count; i += stride)
            {
                detail::store<Hint::streaming>(data + i, vector_of(i));
            }
        }

        __global__ void count_write_mismatches_kernel(const std::uint32_t* __restrict__ words,
                                                      std::size_t count, std::uint32_t seed,
                                                      unsigned long long* result)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            unsigned long long local = 0;
            for (std::size_t w = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x; w < count;
                 w += stride)
            {
                local += words[w] == write_word(seed, w) ? 0 : 1;
            }
            if (local != 0)
            {
                atomicAdd(result, local);
            }
        }

        // A persistent grid: as many blocks as fit on the device at once.
        template<class Kernel>
        auto resident_blocks(Kernel kernel, int& blocks) -> CudaStatus
        {
            int sms = 0;
            if (auto status = detail::multiprocessor_count(sms); !status.ok())
            {
                return status;
            }
            int per_sm = 0;
            if (auto status = check(
                  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, hbm_threads, 0),
                  "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
                !status.ok())
            {
                return status;
            }
            blocks = sms * std::max(per_sm, 1);
            return {};
        }

        // Blocks for the verification kernels: a fixed stride that is a multiple of 4 words.
        constexpr int check_blocks = 1024;

        auto read_reference(const void* data, std::size_t bytes, cudaStream_t stream,
                            std::uint32_t (&reference)[4]) -> CudaStatus
        {
            detail::DeviceBuffer<std::uint32_t> result;
            if (auto status = result.allocate(4); !status.ok())
            {
                return status;
            }
            if (auto status = check(cudaMemsetAsync(result.get(), 0, result.bytes(), stream),
                                    "cudaMemsetAsync");
                !status.ok())
            {
                return status;
            }
            reference_xor_kernel<<<check_blocks, hbm_threads, 0, stream>>>(
              static_cast<const std::uint32_t*>(data), bytes / 4, result.get());
            if (auto status = detail::check_launch("reference_xor_kernel"); !status.ok())
            {
                return status;
            }
            return detail::copy_to_host(reference, result.get(), sizeof(reference), stream);
        }

        auto count_write_mismatches(const void* data, std::size_t bytes, std::uint32_t seed,
                                    cudaStream_t stream, std::size_t& mismatches) -> CudaStatus
        {
            detail::DeviceBuffer<unsigned long long> result;
            if (auto status = result.allocate(1); !status.ok())
            {
                return status;
            }
            if (auto status = check(cudaMemsetAsync(result.get(), 0, result.bytes(), stream),
                                    "cudaMemsetAsync");
                !status.ok())
            {
                return status;
            }
            count_write_mismatches_kernel<<<check_blocks, hbm_threads, 0, stream>>>(
              static_cast<const std::uint32_t*>(data), bytes / 4, seed, result.get());
            if (auto status = detail::check_launch("count_write_mismatches_kernel"); !status.ok())
            {
                return status;
            }
            unsigned long long count = 0;
            if (auto status = detail::copy_to_host(&count, result.get(), sizeof(count), stream);
                !status.ok())
            {
                return status;
            }
            mismatches = static_cast<std::size_t>(count);
            return {};
        }

        auto peak_gbps(double& peak) -> CudaStatus
        {
            int device = 0;
            int clock_khz = 0;
            int bus_bits = 0;
            if (auto status = check(cudaGetDevice(&device), "cudaGetDevice"); !status.ok())
            {
                return status;
            }
            if (auto status =
                  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, device),
                        "cudaDeviceGetAttribute(MemoryClockRate)");
                !status.ok())
            {
                return status;
            }
            if (auto status =
                  check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device),
                        "cudaDeviceGetAttribute(GlobalMemoryBusWidth)");
                !status.ok())
            {
                return status;
            }
            peak = hbm_peak_gbps(clock_khz, bus_bits);
            return {};
        }

        auto hbm(const HbmPlan& plan, HbmRun& run) -> CudaStatus
        {
            run.bytes = plan.bytes;
            if (!hbm_size_ok(plan.bytes) || plan.repeats < 1)
            {
                return check(cudaErrorInvalidValue, "run_hbm (bytes: a positive multiple of 16)");
            }
            if (auto status = peak_gbps(run.peak_gbps); !status.ok())
            {
                return status;
            }
            const std::size_t words = plan.bytes / 4;
            detail::StreamOwner stream;
            detail::DeviceBuffer<std::uint32_t> source;
            detail::DeviceBuffer<std::uint32_t> destination;
            detail::DeviceBuffer<uint4> block_xors;
            int read_blocks = 0;
            if (auto status = stream.create(); !status.ok())
            {
                return status;
            }
            if (auto status = source.allocate(words); !status.ok())
            {
                return status;
            }
            if (auto status = destination.allocate(words); !status.ok())
            {
                return status;
            }
            if (auto status = hbm_read_blocks(read_blocks); !status.ok())
            {
                return status;
            }
            if (auto status = block_xors.allocate(static_cast<std::size_t>(read_blocks));
                !status.ok())
            {
                return status;
            }
            if (auto status =
                  detail::fill_random_words(source.get(), words, plan.seed, stream.get());
                !status.ok())
            {
                return status;
            }
            for (const HbmKernel kernel : hbm_kernels)
            {
                HbmMeasurement measurement;
                measurement.kernel = kernel;
                // The written buffer starts poisoned: a pass that skips words leaves them.
                if (kernel != HbmKernel::read)
                {
                    if (auto status = check(cudaMemsetAsync(destination.get(), 0xFF,
                                                            destination.bytes(), stream.get()),
                                            "cudaMemsetAsync");
                        !status.ok())
                    {
                        return status;
                    }
                }
                const auto launch = [&]() -> CudaStatus
                {
                    switch (kernel)
                    {
                        case HbmKernel::read:
                            return launch_hbm_read(source.get(), plan.bytes, block_xors.get(),
                                                   stream.get());
                        case HbmKernel::write:
                            return launch_hbm_write(destination.get(), plan.bytes, plan.seed,
                                                    stream.get());
                        case HbmKernel::copy:
                            return launch_copy_kernel(source.get(), destination.get(), plan.bytes,
                                                      stream.get(), hbm_copy_kernel);
                        case HbmKernel::memcpy:
                            return check(cudaMemcpyAsync(destination.get(), source.get(),
                                                         plan.bytes, cudaMemcpyDeviceToDevice,
                                                         stream.get()),
                                         "cudaMemcpyAsync(DeviceToDevice)");
                    }
                    return check(cudaErrorInvalidValue, "run_hbm (kernel)");
                };
                if (auto status = detail::time_launches(stream.get(), launch, plan.min_warmup_ms,
                                                        plan.repeats, measurement.times_ms);
                    !status.ok())
                {
                    return status;
                }
                detail::median_and_spread(measurement.times_ms, measurement.median_ms,
                                          measurement.spread);
                measurement.gbps =
                  gigabytes_per_second(hbm_bytes_moved(kernel, plan.bytes), measurement.median_ms);
                if (kernel == HbmKernel::read)
                {
                    std::vector<uint4> xors(static_cast<std::size_t>(read_blocks));
                    if (auto status = detail::copy_to_host(xors.data(), block_xors.get(),
                                                           block_xors.bytes(), stream.get());
                        !status.ok())
                    {
                        return status;
                    }
                    std::uint32_t measured[4] = { 0, 0, 0, 0 };
                    for (const uint4& x : xors)
                    {
                        measured[0] ^= x.x;
                        measured[1] ^= x.y;
                        measured[2] ^= x.z;
                        measured[3] ^= x.w;
                    }
                    std::uint32_t reference[4] = {};
                    if (auto status =
                          read_reference(source.get(), plan.bytes, stream.get(), reference);
                        !status.ok())
                    {
                        return status;
                    }
                    measurement.verified = std::equal(measured, measured + 4, reference);
                }
                else
                {
                    const auto counted =
                      kernel == HbmKernel::write
                        ? count_write_mismatches(destination.get(), plan.bytes, plan.seed,
                                                 stream.get(), measurement.mismatches)
                        : detail::count_pattern_mismatches(destination.get(), words, plan.seed,
                                                           stream.get(), measurement.mismatches);
                    if (!counted.ok())
                    {
                        return counted;
                    }
                    measurement.verified = measurement.mismatches == 0;
                }
                run.measurements.push_back(std::move(measurement));
            }
            return {};
        }
    }

    auto hbm_read_blocks(int& blocks) -> CudaStatus
    {
        return resident_blocks(hbm_read_kernel, blocks);
    }

    auto launch_hbm_read(const void* data, std::size_t bytes, void* block_xors, Stream stream)
      -> CudaStatus
    {
        if (!hbm_size_ok(bytes))
        {
            return check(cudaErrorInvalidValue, "launch_hbm_read (bytes: a multiple of 16)");
        }
        int blocks = 0;
        if (auto status = hbm_read_blocks(blocks); !status.ok())
        {
            return status;
        }
        hbm_read_kernel<<<blocks, hbm_threads, 0, stream>>>(
          static_cast<const uint4*>(data), bytes / 16, static_cast<uint4*>(block_xors));
        return detail::check_launch("hbm_read_kernel");
    }

    auto launch_hbm_write(void* data, std::size_t bytes, std::uint32_t seed, Stream stream)
      -> CudaStatus
    {
        if (!hbm_size_ok(bytes))
        {
            return check(cudaErrorInvalidValue, "launch_hbm_write (bytes: a multiple of 16)");
        }
        int blocks = 0;
        if (auto status = resident_blocks(hbm_write_kernel, blocks); !status.ok())
        {
            return status;
        }
        hbm_write_kernel<<<blocks, hbm_threads, 0, stream>>>(static_cast<uint4*>(data), bytes / 16,
                                                             seed);
        return detail::check_launch("hbm_write_kernel");
    }

    auto run_hbm(const HbmPlan& plan) -> HbmRun
    {
        HbmRun run;
        run.status = hbm(plan, run);
        return run;
    }
}
