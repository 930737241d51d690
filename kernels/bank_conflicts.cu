#include <cmath>

#include "kernels/bank_conflicts.cuh"
#include "kernels/detail/cuda_support.cuh"

namespace envcheck::kernels
{
    namespace
    {
        using detail::check;

        constexpr int threads = 256;
        constexpr int blocks_per_sm = 4;
        constexpr int shared_floats = 2048; // 8 KiB: 4 blocks of 8 warps fit on any SM

        // Lane l reads p[j * 32] with p = s + l * Stride: offsets that are multiples of 32 keep
        // every lane on the bank its row start chose, so the conflict degree is Stride's alone.
        // Through a volatile pointer every read is a real shared-memory load; four accumulators
        // keep the add latency off the critical path.
        template<int Stride>
        __global__ void shared_reads(float* out, int iterations)
        {
            __shared__ float s[shared_floats];
            for (int i = static_cast<int>(threadIdx.x); i < shared_floats; i += blockDim.x)
            {
                s[i] = static_cast<float>(i % 97);
            }
            __syncthreads();
            const int lane = static_cast<int>(threadIdx.x) % 32;
            const volatile float* p = s + lane * Stride;
            float acc0 = 0.0f;
            float acc1 = 0.0f;
            float acc2 = 0.0f;
            float acc3 = 0.0f;
            for (int it = 0; it < iterations; ++it)
            {
#pragma unroll
                for (int j = 0; j < 32; j += 4)
                {
                    acc0 += p[(j + 0) * 32];
                    acc1 += p[(j + 1) * 32];
                    acc2 += p[(j + 2) * 32];
                    acc3 += p[(j + 3) * 32];
                }
            }
            out[std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x] =
              (acc0 + acc1) + (acc2 + acc3);
        }

        using SharedReads = void (*)(float*, int);

        auto kernel_for(int stride) -> SharedReads
        {
            switch (stride)
            {
                case 1:
                    return shared_reads<1>;
                case 2:
                    return shared_reads<2>;
                case 4:
                    return shared_reads<4>;
                case 8:
                    return shared_reads<8>;
                case 16:
                    return shared_reads<16>;
                case 32:
                    return shared_reads<32>;
                default:
                    return shared_reads<padded_stride>;
            }
        }

        // What lane `lane` of any thread sums: the host's copy of the kernel's arithmetic.
        auto expected_sum(int stride, int lane, int iterations) -> float
        {
            float acc[4] = {};
            for (int it = 0; it < iterations; ++it)
            {
                for (int j = 0; j < 32; ++j)
                {
                    acc[j % 4] += static_cast<float>((lane * stride + j * 32) % 97);
                }
            }
            return (acc[0] + acc[1]) + (acc[2] + acc[3]);
        }

        auto bank_conflicts(int iterations, int repeats, BankConflictRun& run) -> CudaStatus
        {
            int sms = 0;
            if (auto status = detail::multiprocessor_count(sms); !status.ok())
            {
                return status;
            }
            const int blocks = sms * blocks_per_sm;
            const auto outputs = static_cast<std::size_t>(blocks) * threads;
            run.reads_per_repeat = static_cast<double>(outputs) * 32.0 * iterations;
            detail::StreamOwner stream;
            detail::DeviceBuffer<float> out;
            detail::Event start;
            detail::Event stop;
            if (auto status = stream.create(); !status.ok())
            {
                return status;
            }
            if (auto status = out.allocate(outputs); !status.ok())
            {
                return status;
            }
            for (auto* event : { &start, &stop })
            {
                if (auto status = event->create(); !status.ok())
                {
                    return status;
                }
            }
            run.verified = true;
            std::vector<float> host(outputs);
            for (const int stride : bank_conflict_strides)
            {
                const SharedReads kernel = kernel_for(stride);
                std::vector<float> times;
                for (int r = -1; r < repeats; ++r) // r == -1: warm-up
                {
                    float ms = 0.0f;
                    if (auto status =
                          check(cudaEventRecord(start.get(), stream.get()), "cudaEventRecord");
                        !status.ok())
                    {
                        return status;
                    }
                    kernel<<<blocks, threads, 0, stream.get()>>>(out.get(), iterations);
                    if (auto status = detail::check_launch("shared_reads"); !status.ok())
                    {
                        return status;
                    }
                    if (auto status =
                          check(cudaEventRecord(stop.get(), stream.get()), "cudaEventRecord");
                        !status.ok())
                    {
                        return status;
                    }
                    if (auto status = detail::elapsed_ms(start, stop, ms); !status.ok())
                    {
                        return status;
                    }
                    if (r >= 0)
                    {
                        times.push_back(ms);
                    }
                }
                if (auto status =
                      check(cudaMemcpy(host.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost),
                            "cudaMemcpy(DeviceToHost)");
                    !status.ok())
                {
                    return status;
                }
                float expected[32];
                for (int lane = 0; lane < 32; ++lane)
                {
                    expected[lane] = expected_sum(stride, lane, iterations);
                }
                for (std::size_t i = 0; i < outputs; ++i)
                {
                    if (host[i] != expected[i % 32])
                    {
                        run.verified = false;
                        break;
                    }
                }
                run.strides.push_back(stride);
                run.times_ms.push_back(std::move(times));
            }
            return {};
        }
    }

    auto run_bank_conflicts(int iterations, int repeats) -> BankConflictRun
    {
        BankConflictRun run;
        run.status = bank_conflicts(iterations, repeats, run);
        return run;
    }
}
