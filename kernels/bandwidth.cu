#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "kernels/bandwidth.cuh"
#include "kernels/detail/cuda_support.cuh"
#include "kernels/detail/vector_access.cuh"

namespace envcheck::kernels
{
    namespace
    {
        using detail::check;
        using detail::Hint;
        using detail::load;
        using detail::store;

        constexpr int copy_threads = 256;

        enum class Layout
        {
            grid_stride, // a grid-wide stride between a thread's loads; persistent grid
            tiled,       // each block on contiguous tiles of blockDim * Unroll; persistent grid
            one_tile,    // one contiguous tile per block, as many blocks as tiles
        };

        // Unroll independent 16-byte loads in flight per thread before the stores, so that a few
        // resident warps per SM keep enough bytes in flight to cover the memory latency.
        template<int Unroll, Layout L, Hint H>
        __global__ void copy_kernel(const uint4* __restrict__ source,
                                    uint4* __restrict__ destination, std::size_t count,
                                    const unsigned char* __restrict__ tail_source,
                                    unsigned char* __restrict__ tail_destination, std::size_t tail)
        {
            const std::size_t thread = threadIdx.x;
            if constexpr (L == Layout::grid_stride)
            {
                const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
                std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + thread;
                for (; i + (Unroll - 1) * stride < count; i += Unroll * stride)
                {
                    uint4 v[Unroll];
#pragma unroll
                    for (int u = 0; u < Unroll; ++u)
                    {
                        v[u] = load<H>(source + i + u * stride);
                    }
#pragma unroll
                    for (int u = 0; u < Unroll; ++u)
                    {
                        store<H>(destination + i + u * stride, v[u]);
                    }
                }
                for (; i < count; i += stride)
                {
                    store<H>(destination + i, load<H>(source + i));
                }
            }
            else
            {
                const std::size_t tile = std::size_t{ blockDim.x } * Unroll;
                const std::size_t step =
                  L == Layout::tiled ? std::size_t{ gridDim.x } * tile : count;
                std::size_t base = std::size_t{ blockIdx.x } * tile;
                for (; base + tile <= count; base += step)
                {
                    uint4 v[Unroll];
#pragma unroll
                    for (int u = 0; u < Unroll; ++u)
                    {
                        v[u] = load<H>(source + base + u * blockDim.x + thread);
                    }
#pragma unroll
                    for (int u = 0; u < Unroll; ++u)
                    {
                        store<H>(destination + base + u * blockDim.x + thread, v[u]);
                    }
                }
                // The one partial tile, if any, belongs to the block whose next tile starts in it.
                if (base < count)
                {
                    for (std::size_t i = base + thread; i < count; i += blockDim.x)
                    {
                        store<H>(destination + i, load<H>(source + i));
                    }
                }
            }
            const std::size_t t = std::size_t{ blockIdx.x } * blockDim.x + thread;
            if (t < tail)
            {
                tail_destination[t] = tail_source[t];
            }
        }

        using CopyFunction = void (*)(const uint4*, uint4*, std::size_t, const unsigned char*,
                                      unsigned char*, std::size_t);

        struct CopyShape
        {
            CopyFunction function;
            int unroll;
            Layout layout;
        };

        auto copy_shape(CopyKernel kernel) -> CopyShape
        {
            switch (kernel)
            {
                case CopyKernel::grid_stride:
                    return { copy_kernel<4, Layout::grid_stride, Hint::none>, 4,
                             Layout::grid_stride };
                case CopyKernel::tiled_streaming:
                    return { copy_kernel<8, Layout::tiled, Hint::streaming>, 8, Layout::tiled };
                case CopyKernel::grid_stride_prefetch:
                    return { copy_kernel<4, Layout::grid_stride, Hint::prefetch256>, 4,
                             Layout::grid_stride };
                case CopyKernel::tiled_prefetch:
                    return { copy_kernel<8, Layout::tiled, Hint::prefetch256>, 8, Layout::tiled };
                case CopyKernel::one_tile_prefetch:
                    return { copy_kernel<4, Layout::one_tile, Hint::prefetch256>, 4,
                             Layout::one_tile };
                case CopyKernel::one_tile_prefetch_x8:
                    return { copy_kernel<8, Layout::one_tile, Hint::prefetch256>, 8,
                             Layout::one_tile };
                case CopyKernel::one_tile_streaming:
                    return { copy_kernel<4, Layout::one_tile, Hint::streaming>, 4,
                             Layout::one_tile };
            }
            return { copy_kernel<4, Layout::grid_stride, Hint::none>, 4, Layout::grid_stride };
        }

        // Holds its stream until the host sets *flag (mapped pinned memory), or gives up after
        // timeout_cycles and says so, so that a host that never releases it cannot hang the GPU.
        __global__ void latch_kernel(const volatile int* flag, long long timeout_cycles,
                                     int* timed_out)
        {
            const long long start = clock64();
            while (*flag == 0)
            {
                if (clock64() - start > timeout_cycles)
                {
                    *timed_out = 1;
                    return;
                }
            }
        }

        auto launch_copy(const void* source, void* destination, std::size_t bytes,
                         cudaStream_t stream, CopyKernel kernel) -> CudaStatus
        {
            int sms = 0;
            if (auto status = detail::multiprocessor_count(sms); !status.ok())
            {
                return status;
            }
            const std::size_t vectors = bytes / sizeof(uint4);
            const std::size_t tail = bytes % sizeof(uint4);
            const auto* tail_source =
              static_cast<const unsigned char*>(source) + vectors * sizeof(uint4);
            auto* tail_destination =
              static_cast<unsigned char*>(destination) + vectors * sizeof(uint4);
            const CopyShape shape = copy_shape(kernel);
            const std::size_t tiles = (vectors + std::size_t{ copy_threads } * shape.unroll - 1) /
                                      (std::size_t{ copy_threads } * shape.unroll);
            // Persistent layouts: exactly one full wave (a partial second wave would leave SMs
            // idle at the end); one_tile: a block per tile.
            int per_sm = 0;
            if (auto status = check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                      &per_sm, shape.function, copy_threads, 0),
                                    "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
                !status.ok())
            {
                return status;
            }
            const std::size_t wave =
              static_cast<std::size_t>(sms) * static_cast<std::size_t>(std::max(per_sm, 1));
            const std::size_t wanted =
              shape.layout == Layout::one_tile ? tiles : std::min(tiles, wave);
            const auto blocks = static_cast<unsigned>(std::max<std::size_t>(1, wanted));
            shape.function<<<blocks, copy_threads, 0, stream>>>(
              static_cast<const uint4*>(source), static_cast<uint4*>(destination), vectors,
              tail_source, tail_destination, tail);
            return detail::check_launch("copy_kernel");
        }

        struct Buffers
        {
            detail::DeviceBuffer<std::uint32_t> device_a; // the device source (or destination)
            detail::DeviceBuffer<std::uint32_t> device_b; // the device destination
            detail::PinnedBuffer<std::uint32_t> pinned;
            std::unique_ptr<std::uint32_t[]> pageable;
            detail::PinnedBuffer<int> latch; // [0] the flag, [1] timed out; mapped
            int* latch_device = nullptr;
        };

        auto is_pinned(CopyKind kind) -> bool
        {
            return kind == CopyKind::h2d_pinned || kind == CopyKind::d2h_pinned;
        }
        auto is_pageable(CopyKind kind) -> bool
        {
            return kind == CopyKind::h2d_pageable || kind == CopyKind::d2h_pageable;
        }

        auto allocate(const BandwidthPlan& plan, Buffers& buffers) -> CudaStatus
        {
            std::size_t device_words = 1;
            std::size_t pinned_words = 0;
            std::size_t pageable_words = 0;
            for (const auto& request : plan.copies)
            {
                const std::size_t words = request.bytes / sizeof(std::uint32_t);
                device_words = std::max(device_words, words);
                if (is_pinned(request.kind))
                {
                    pinned_words = std::max(pinned_words, words);
                }
                if (is_pageable(request.kind))
                {
                    pageable_words = std::max(pageable_words, words);
                }
            }
            for (auto* buffer : { &buffers.device_a, &buffers.device_b })
            {
                if (auto status = buffer->allocate(device_words); !status.ok())
                {
                    return status;
                }
            }
            if (pinned_words > 0)
            {
                if (auto status = buffers.pinned.allocate(pinned_words); !status.ok())
                {
                    return status;
                }
            }
            if (pageable_words > 0)
            {
                // Touched now, so that first-touch page faults stay out of the timing.
                buffers.pageable = std::make_unique<std::uint32_t[]>(pageable_words);
            }
            if (auto status =
                  buffers.latch.allocate(2, cudaHostAllocMapped | cudaHostAllocPortable);
                !status.ok())
            {
                return status;
            }
            return check(cudaHostGetDevicePointer(reinterpret_cast<void**>(&buffers.latch_device),
                                                  buffers.latch.get(), 0),
                         "cudaHostGetDevicePointer");
        }

        struct Endpoints
        {
            const void* source = nullptr;
            void* destination = nullptr;
            cudaMemcpyKind direction = cudaMemcpyDefault;
        };

        auto endpoints(CopyKind kind, Buffers& buffers) -> Endpoints
        {
            switch (kind)
            {
                case CopyKind::h2d_pinned:
                    return { buffers.pinned.get(), buffers.device_b.get(), cudaMemcpyHostToDevice };
                case CopyKind::d2h_pinned:
                    return { buffers.device_a.get(), buffers.pinned.get(), cudaMemcpyDeviceToHost };
                case CopyKind::h2d_pageable:
                    return { buffers.pageable.get(), buffers.device_b.get(),
                             cudaMemcpyHostToDevice };
                case CopyKind::d2h_pageable:
                    return { buffers.device_a.get(), buffers.pageable.get(),
                             cudaMemcpyDeviceToHost };
                case CopyKind::d2d_memcpy:
                case CopyKind::d2d_kernel:
                    return { buffers.device_a.get(), buffers.device_b.get(),
                             cudaMemcpyDeviceToDevice };
            }
            return {};
        }

        auto copy_once(CopyKind kind, const Endpoints& ends, std::size_t bytes, cudaStream_t stream)
          -> CudaStatus
        {
            if (kind == CopyKind::d2d_kernel)
            {
                return launch_copy(ends.source, ends.destination, bytes, stream, probe_copy_kernel);
            }
            return check(
              cudaMemcpyAsync(ends.destination, ends.source, bytes, ends.direction, stream),
              "cudaMemcpyAsync");
        }

        // Puts the seed's pattern into the source and poisons the destination.
        auto prepare(const Endpoints& ends, std::size_t bytes, std::uint32_t seed, Buffers& buffers,
                     cudaStream_t stream) -> CudaStatus
        {
            const std::size_t words = bytes / sizeof(std::uint32_t);
            if (auto status =
                  detail::fill_random_words(buffers.device_a.get(), words, seed, stream);
                !status.ok())
            {
                return status;
            }
            if (ends.direction == cudaMemcpyHostToDevice)
            {
                // The host source gets the pattern from the device, faster than hashing on the CPU.
                if (auto status =
                      check(cudaMemcpyAsync(const_cast<void*>(ends.source), buffers.device_a.get(),
                                            bytes, cudaMemcpyDeviceToHost, stream),
                            "cudaMemcpyAsync(DeviceToHost)");
                    !status.ok())
                {
                    return status;
                }
            }
            if (auto status = check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
                !status.ok())
            {
                return status;
            }
            if (ends.direction == cudaMemcpyDeviceToHost)
            {
                std::memset(ends.destination, 0, bytes);
                return {};
            }
            return check(cudaMemsetAsync(ends.destination, 0, bytes, stream), "cudaMemsetAsync");
        }

        // After timing: the destination must hold the source's pattern. Host destinations are
        // copied back to the device and counted there.
        auto verify(const Endpoints& ends, std::size_t bytes, std::uint32_t seed, Buffers& buffers,
                    cudaStream_t stream, std::size_t& mismatches) -> CudaStatus
        {
            const std::uint32_t* device_copy = static_cast<const std::uint32_t*>(ends.destination);
            if (ends.direction == cudaMemcpyDeviceToHost)
            {
                if (auto status = check(cudaMemcpyAsync(buffers.device_b.get(), ends.destination,
                                                        bytes, cudaMemcpyHostToDevice, stream),
                                        "cudaMemcpyAsync(HostToDevice)");
                    !status.ok())
                {
                    return status;
                }
                device_copy = buffers.device_b.get();
            }
            return detail::count_pattern_mismatches(device_copy, bytes / sizeof(std::uint32_t),
                                                    seed, stream, mismatches);
        }

        auto measure(const BandwidthPlan& plan, const CopyRequest& request, Buffers& buffers,
                     cudaStream_t stream, long long latch_cycles, CopyMeasurement& measurement)
          -> CudaStatus
        {
            measurement.request = request;
            measurement.copies_per_sample = plan.copies_per_sample;
            const Endpoints ends = endpoints(request.kind, buffers);
            if (auto status = prepare(ends, request.bytes, plan.seed, buffers, stream);
                !status.ok())
            {
                return status;
            }
            for (int w = 0; w < plan.warmup_copies; ++w)
            {
                if (auto status = copy_once(request.kind, ends, request.bytes, stream);
                    !status.ok())
                {
                    return status;
                }
            }
            detail::Event start;
            detail::Event stop;
            for (auto* event : { &start, &stop })
            {
                if (auto status = event->create(); !status.ok())
                {
                    return status;
                }
            }
            const bool latched = !is_pageable(request.kind);
            volatile int* flag = buffers.latch.get();
            for (int s = 0; s < plan.samples; ++s)
            {
                if (latched)
                {
                    flag[0] = 0;
                    flag[1] = 0;
                    std::atomic_thread_fence(std::memory_order_seq_cst);
                    latch_kernel<<<1, 1, 0, stream>>>(buffers.latch_device, latch_cycles,
                                                      buffers.latch_device + 1);
                    if (auto status = detail::check_launch("latch_kernel"); !status.ok())
                    {
                        return status;
                    }
                }
                if (auto status = check(cudaEventRecord(start.get(), stream), "cudaEventRecord");
                    !status.ok())
                {
                    return status;
                }
                for (int c = 0; c < plan.copies_per_sample; ++c)
                {
                    if (auto status = copy_once(request.kind, ends, request.bytes, stream);
                        !status.ok())
                    {
                        flag[0] = 1;
                        return status;
                    }
                }
                if (auto status = check(cudaEventRecord(stop.get(), stream), "cudaEventRecord");
                    !status.ok())
                {
                    flag[0] = 1;
                    return status;
                }
                std::atomic_thread_fence(std::memory_order_seq_cst);
                flag[0] = 1;
                float ms = 0.0f;
                if (auto status = detail::elapsed_ms(start, stop, ms); !status.ok())
                {
                    return status;
                }
                measurement.latch_timed_out =
                  measurement.latch_timed_out || (latched && flag[1] != 0);
                measurement.sample_ms.push_back(ms);
            }
            return verify(ends, request.bytes, plan.seed, buffers, stream, measurement.mismatches);
        }

        auto bandwidth(const BandwidthPlan& plan, BandwidthRun& run) -> CudaStatus
        {
            Buffers buffers;
            detail::StreamOwner stream;
            if (auto status = stream.create(); !status.ok())
            {
                return status;
            }
            if (auto status = allocate(plan, buffers); !status.ok())
            {
                return status;
            }
            int device = 0;
            int clock_khz = 0;
            if (auto status = check(cudaGetDevice(&device), "cudaGetDevice"); !status.ok())
            {
                return status;
            }
            if (auto status =
                  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device),
                        "cudaDeviceGetAttribute(ClockRate)");
                !status.ok())
            {
                return status;
            }
            // One second at the peak clock (longer at lower clocks): far more than enqueueing
            // takes.
            const long long latch_cycles = static_cast<long long>(clock_khz) * 1000;
            for (const auto& request : plan.copies)
            {
                if (request.bytes == 0 || request.bytes % sizeof(std::uint32_t) != 0)
                {
                    return check(cudaErrorInvalidValue, "run_bandwidth (copy size)");
                }
                CopyMeasurement measurement;
                if (auto status =
                      measure(plan, request, buffers, stream.get(), latch_cycles, measurement);
                    !status.ok())
                {
                    return status;
                }
                run.measurements.push_back(std::move(measurement));
            }
            return {};
        }
    }

    auto to_string(CopyKind kind) -> std::string_view
    {
        switch (kind)
        {
            case CopyKind::h2d_pinned:
                return "h2d_pinned";
            case CopyKind::d2h_pinned:
                return "d2h_pinned";
            case CopyKind::h2d_pageable:
                return "h2d_pageable";
            case CopyKind::d2h_pageable:
                return "d2h_pageable";
            case CopyKind::d2d_memcpy:
                return "d2d_memcpy";
            case CopyKind::d2d_kernel:
                return "d2d_kernel";
        }
        return "unknown";
    }

    auto run_bandwidth(const BandwidthPlan& plan) -> BandwidthRun
    {
        BandwidthRun run;
        run.status = bandwidth(plan, run);
        return run;
    }

    auto to_string(CopyKernel kernel) -> std::string_view
    {
        switch (kernel)
        {
            case CopyKernel::grid_stride:
                return "grid_stride";
            case CopyKernel::tiled_streaming:
                return "tiled_streaming";
            case CopyKernel::grid_stride_prefetch:
                return "grid_stride_prefetch";
            case CopyKernel::tiled_prefetch:
                return "tiled_prefetch";
            case CopyKernel::one_tile_prefetch:
                return "one_tile_prefetch";
            case CopyKernel::one_tile_prefetch_x8:
                return "one_tile_prefetch_x8";
            case CopyKernel::one_tile_streaming:
                return "one_tile_streaming";
        }
        return "unknown";
    }

    auto launch_copy_kernel(const void* source, void* destination, std::size_t bytes, Stream stream,
                            CopyKernel kernel) -> CudaStatus
    {
        return launch_copy(source, destination, bytes, stream, kernel);
    }
}
