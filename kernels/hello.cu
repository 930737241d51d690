#include <cstring>
#include <utility>
#include <vector>

#include "kernels/detail/cuda_support.cuh"
#include "kernels/hello.cuh"

namespace envcheck::kernels
{
    namespace
    {
        using detail::check;

        __global__ void vector_add(const float* a, const float* b, float* c, std::size_t n)
        {
            const std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x;
            if (i < n)
            {
                c[i] = a[i] + b[i];
            }
        }

        // The inputs are made on the host so that vector_add is the first kernel this process
        // launches: a missing kernel image then shows up at its launch, named after it.
        auto hello(std::size_t n, std::uint32_t seed, HelloRun& run) -> CudaStatus
        {
            std::vector<float> host_a(n);
            std::vector<float> host_b(n);
            for (std::size_t i = 0; i < n; ++i)
            {
                host_a[i] = detail::random_float(seed, i);
                host_b[i] = detail::random_float(seed + 1, i);
            }
            detail::StreamOwner stream;
            detail::DeviceBuffer<float> a;
            detail::DeviceBuffer<float> b;
            detail::DeviceBuffer<float> c;
            detail::Event start;
            detail::Event stop;
            if (auto status = stream.create(); !status.ok())
            {
                return status;
            }
            for (auto* buffer : { &a, &b, &c })
            {
                if (auto status = buffer->allocate(n); !status.ok())
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
            const std::pair<float*, const float*> uploads[] = { { a.get(), host_a.data() },
                                                                { b.get(), host_b.data() } };
            for (const auto& [device, host] : uploads)
            {
                if (auto status = check(cudaMemcpyAsync(device, host, n * sizeof(float),
                                                        cudaMemcpyHostToDevice, stream.get()),
                                        "cudaMemcpyAsync(HostToDevice)");
                    !status.ok())
                {
                    return status;
                }
            }
            // Poison: an element the kernel does not write stays NaN and fails the comparison.
            if (auto status =
                  check(cudaMemsetAsync(c.get(), 0xFF, c.bytes(), stream.get()), "cudaMemsetAsync");
                !status.ok())
            {
                return status;
            }
            constexpr unsigned threads = 256;
            const auto blocks = static_cast<unsigned>((n + threads - 1) / threads);
            if (auto status = check(cudaEventRecord(start.get(), stream.get()), "cudaEventRecord");
                !status.ok())
            {
                return status;
            }
            vector_add<<<blocks, threads, 0, stream.get()>>>(a.get(), b.get(), c.get(), n);
            if (auto status = detail::check_launch("vector_add"); !status.ok())
            {
                return status;
            }
            if (auto status = check(cudaEventRecord(stop.get(), stream.get()), "cudaEventRecord");
                !status.ok())
            {
                return status;
            }
            if (auto status = detail::elapsed_ms(start, stop, run.kernel_ms); !status.ok())
            {
                return status;
            }
            std::vector<float> result(n);
            if (auto status =
                  check(cudaMemcpy(result.data(), c.get(), c.bytes(), cudaMemcpyDeviceToHost),
                        "cudaMemcpy(DeviceToHost)");
                !status.ok())
            {
                return status;
            }
            for (std::size_t i = 0; i < n; ++i)
            {
                // One IEEE addition rounds the same on host and device: compare the bits.
                const float expected = host_a[i] + host_b[i];
                if (std::memcmp(&expected, &result[i], sizeof(float)) != 0)
                {
                    ++run.mismatches;
                }
            }
            return {};
        }
    }

    auto run_hello(std::size_t elements, std::uint32_t seed) -> HelloRun
    {
        HelloRun run;
        run.elements = elements;
        run.status = hello(elements, seed, run);
        return run;
    }
}
