#include <cmath>
#include <cstring>

#include "kernels/detail/cuda_support.cuh"
#include "kernels/stream_overlap.cuh"

namespace envcheck::kernels
{
    namespace
    {
        using detail::check;

        constexpr float scale = 0.999f;
        constexpr float shift = 0.001f;

        // Bounded iteration (|x| stays below 1): the same fmaf chain on host and device.
        __host__ __device__ inline auto transform(float x, int iterations) -> float
        {
            for (int i = 0; i < iterations; ++i)
            {
                x = fmaf(x, scale, shift);
            }
            return x;
        }

        __global__ void transform_kernel(const float* in, float* out, std::size_t count,
                                         int iterations)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            for (std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x; i < count;
                 i += stride)
            {
                out[i] = transform(in[i], iterations);
            }
        }

        struct Pipeline
        {
            const OverlapPlan& plan;
            std::size_t chunk_elements = 0;
            int blocks = 0;
            float* host_in = nullptr;
            float* host_out = nullptr;
            float* device_in = nullptr;
            float* device_out = nullptr;

            // Enqueues chunk `c` on `stream`; with `marks`, records an event before and after
            // each stage (marks[0..3]).
            auto enqueue(int c, cudaStream_t stream, detail::Event* marks) const -> CudaStatus
            {
                const std::size_t offset = static_cast<std::size_t>(c) * chunk_elements;
                const std::size_t bytes = chunk_elements * sizeof(float);
                const auto mark = [&](int i) -> CudaStatus
                {
                    return marks == nullptr
                             ? CudaStatus{}
                             : check(cudaEventRecord(marks[i].get(), stream), "cudaEventRecord");
                };
                if (auto status = mark(0); !status.ok())
                {
                    return status;
                }
                if (auto status = check(cudaMemcpyAsync(device_in + offset, host_in + offset, bytes,
                                                        cudaMemcpyHostToDevice, stream),
                                        "cudaMemcpyAsync(HostToDevice)");
                    !status.ok())
                {
                    return status;
                }
                if (auto status = mark(1); !status.ok())
                {
                    return status;
                }
                transform_kernel<<<blocks, 256, 0, stream>>>(
                  device_in + offset, device_out + offset, chunk_elements, plan.kernel_iterations);
                if (auto status = detail::check_launch("transform_kernel"); !status.ok())
                {
                    return status;
                }
                if (auto status = mark(2); !status.ok())
                {
                    return status;
                }
                if (auto status = check(cudaMemcpyAsync(host_out + offset, device_out + offset,
                                                        bytes, cudaMemcpyDeviceToHost, stream),
                                        "cudaMemcpyAsync(DeviceToHost)");
                    !status.ok())
                {
                    return status;
                }
                return mark(3);
            }
        };

        auto overlap(const OverlapPlan& plan, OverlapRun& run) -> CudaStatus
        {
            if (plan.chunks <= 0 || plan.streams <= 0 || plan.bytes < plan.chunks * sizeof(float))
            {
                return check(cudaErrorInvalidValue, "run_stream_overlap (plan)");
            }
            Pipeline pipeline{ plan };
            pipeline.chunk_elements =
              plan.bytes / sizeof(float) / static_cast<std::size_t>(plan.chunks);
            const std::size_t elements =
              pipeline.chunk_elements * static_cast<std::size_t>(plan.chunks);
            int sms = 0;
            if (auto status = detail::multiprocessor_count(sms); !status.ok())
            {
                return status;
            }
            pipeline.blocks = sms * 8;

            detail::PinnedBuffer<float> host_in;
            detail::PinnedBuffer<float> host_out;
            detail::DeviceBuffer<float> device_in;
            detail::DeviceBuffer<float> device_out;
            std::vector<detail::StreamOwner> streams(static_cast<std::size_t>(plan.streams));
            for (auto* buffer : { &host_in, &host_out })
            {
                if (auto status = buffer->allocate(elements); !status.ok())
                {
                    return status;
                }
            }
            for (auto* buffer : { &device_in, &device_out })
            {
                if (auto status = buffer->allocate(elements); !status.ok())
                {
                    return status;
                }
            }
            for (auto& stream : streams)
            {
                if (auto status = stream.create(); !status.ok())
                {
                    return status;
                }
            }
            pipeline.host_in = host_in.get();
            pipeline.host_out = host_out.get();
            pipeline.device_in = device_in.get();
            pipeline.device_out = device_out.get();
            const cudaStream_t first = streams[0].get();

            // The input: random floats made on the device, brought to the pinned buffer once.
            if (auto status =
                  detail::fill_random_floats(device_in.get(), elements, plan.seed, first);
                !status.ok())
            {
                return status;
            }
            if (auto status =
                  check(cudaMemcpyAsync(host_in.get(), device_in.get(), elements * sizeof(float),
                                        cudaMemcpyDeviceToHost, first),
                        "cudaMemcpyAsync(DeviceToHost)");
                !status.ok())
            {
                return status;
            }
            if (auto status = check(cudaStreamSynchronize(first), "cudaStreamSynchronize");
                !status.ok())
            {
                return status;
            }

            const auto chunks = static_cast<std::size_t>(plan.chunks);
            std::vector<detail::Event> marks(4 * chunks);
            std::vector<detail::Event> done(streams.size());
            detail::Event start;
            detail::Event stop;
            for (auto& event : marks)
            {
                if (auto status = event.create(); !status.ok())
                {
                    return status;
                }
            }
            for (auto& event : done)
            {
                if (auto status = event.create(); !status.ok())
                {
                    return status;
                }
            }
            for (auto* event : { &start, &stop })
            {
                if (auto status = event->create(); !status.ok())
                {
                    return status;
                }
            }

            // One stream, every stage marked.
            const auto serial = [&](std::vector<ChunkTimes>& parts, float& total) -> CudaStatus
            {
                for (int c = 0; c < plan.chunks; ++c)
                {
                    if (auto status =
                          pipeline.enqueue(c, first, &marks[4 * static_cast<std::size_t>(c)]);
                        !status.ok())
                    {
                        return status;
                    }
                }
                parts.assign(chunks, {});
                for (std::size_t c = 0; c < chunks; ++c)
                {
                    float* targets[] = { &parts[c].h2d_ms, &parts[c].kernel_ms, &parts[c].d2h_ms };
                    for (std::size_t stage = 0; stage < 3; ++stage)
                    {
                        if (auto status = detail::elapsed_ms(
                              marks[4 * c + stage], marks[4 * c + stage + 1], *targets[stage]);
                            !status.ok())
                        {
                            return status;
                        }
                    }
                }
                return detail::elapsed_ms(marks[0], marks[4 * chunks - 1], total);
            };

            // Chunk c on stream c % streams; all streams start on `start`, `first` waits for all.
            const auto overlapped = [&](float& total) -> CudaStatus
            {
                if (auto status = check(cudaEventRecord(start.get(), first), "cudaEventRecord");
                    !status.ok())
                {
                    return status;
                }
                for (std::size_t s = 1; s < streams.size(); ++s)
                {
                    if (auto status = check(cudaStreamWaitEvent(streams[s].get(), start.get(), 0),
                                            "cudaStreamWaitEvent");
                        !status.ok())
                    {
                        return status;
                    }
                }
                for (int c = 0; c < plan.chunks; ++c)
                {
                    const auto s = static_cast<std::size_t>(c % plan.streams);
                    if (auto status = pipeline.enqueue(c, streams[s].get(), nullptr); !status.ok())
                    {
                        return status;
                    }
                }
                for (std::size_t s = 1; s < streams.size(); ++s)
                {
                    if (auto status = check(cudaEventRecord(done[s].get(), streams[s].get()),
                                            "cudaEventRecord");
                        !status.ok())
                    {
                        return status;
                    }
                    if (auto status = check(cudaStreamWaitEvent(first, done[s].get(), 0),
                                            "cudaStreamWaitEvent");
                        !status.ok())
                    {
                        return status;
                    }
                }
                if (auto status = check(cudaEventRecord(stop.get(), first), "cudaEventRecord");
                    !status.ok())
                {
                    return status;
                }
                return detail::elapsed_ms(start, stop, total);
            };

            // Warm-up of both shapes, then alternating timed repeats.
            std::vector<ChunkTimes> scratch;
            float ignored = 0.0f;
            if (auto status = serial(scratch, ignored); !status.ok())
            {
                return status;
            }
            if (auto status = overlapped(ignored); !status.ok())
            {
                return status;
            }
            for (int r = 0; r < plan.repeats; ++r)
            {
                float serial_total = 0.0f;
                float overlapped_total = 0.0f;
                run.parts.emplace_back();
                if (auto status = serial(run.parts.back(), serial_total); !status.ok())
                {
                    return status;
                }
                if (r + 1 == plan.repeats)
                {
                    // The last overlapped run is the one verified: poison its output first.
                    std::memset(host_out.get(), 0xFF, elements * sizeof(float));
                }
                if (auto status = overlapped(overlapped_total); !status.ok())
                {
                    return status;
                }
                run.serial_ms.push_back(serial_total);
                run.overlapped_ms.push_back(overlapped_total);
            }

            // Every element must have been written (no NaN poison left); sampled elements must
            // equal the CPU's result of the same fmaf chain.
            const float* out = host_out.get();
            for (std::size_t i = 0; i < elements; ++i)
            {
                if (!std::isfinite(out[i]))
                {
                    ++run.unwritten;
                }
            }
            const std::size_t step = elements / 4096 == 0 ? 1 : elements / 4096;
            for (std::size_t i = 0; i < elements; i += step)
            {
                ++run.checked;
                const float expected = transform(host_in.get()[i], plan.kernel_iterations);
                if (!(std::fabs(expected - out[i]) <= 1e-6f * (1.0f + std::fabs(expected))))
                {
                    ++run.mismatches;
                }
            }
            return {};
        }
    }

    auto run_stream_overlap(const OverlapPlan& plan) -> OverlapRun
    {
        OverlapRun run;
        run.status = overlap(plan, run);
        return run;
    }
}
