// What the GPU benchmarks share: stopping at the first failed CUDA, cuBLAS or probe call,
// timing launches with events, and reading results back to compare them. Host code only: the
// benchmarks are C++ programs that call the CUDA runtime and cuBLAS. The CPU benchmarks'
// helpers are in bench_support.hpp.
#ifndef ENVCHECK_TESTS_BENCH_BENCH_CUDA_SUPPORT_CUH
#define ENVCHECK_TESTS_BENCH_BENCH_CUDA_SUPPORT_CUH

#include <cmath>
#include <cstddef>
#include <cublas_v2.h>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "kernels/status.cuh"

namespace envcheck::bench
{
    inline void require(cudaError_t error, const char* what)
    {
        if (error != cudaSuccess)
        {
            throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(error) + ": " +
                                     cudaGetErrorString(error));
        }
    }

    inline void require(cublasStatus_t status, const char* what)
    {
        if (status != CUBLAS_STATUS_SUCCESS)
        {
            throw std::runtime_error(std::string(what) + ": cuBLAS status " +
                                     std::to_string(static_cast<int>(status)));
        }
    }

    inline void require(const kernels::CudaStatus& status)
    {
        if (!status.ok())
        {
            throw std::runtime_error(status.to_string());
        }
    }

    // One launch between two events on `stream`, waited for: its milliseconds.
    template<class Launch>
    auto elapsed_ms(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, const Launch& launch)
      -> float
    {
        require(cudaEventRecord(start, stream), "cudaEventRecord");
        launch();
        require(cudaEventRecord(stop, stream), "cudaEventRecord");
        require(cudaEventSynchronize(stop), "cudaEventSynchronize");
        float ms = 0.0f;
        require(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
        return ms;
    }

    // Launches, each timed alone, until `warmup_ms` have passed (at least two, at most 10000), so
    // that the clocks have ramped up and the caches are warm before anything is measured.
    template<class Launch>
    void warm_up(cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop, const Launch& launch,
                 double warmup_ms)
    {
        double warmed = 0.0;
        for (int i = 0; i < 2 || (warmed < warmup_ms && i < 10000); ++i)
        {
            warmed += elapsed_ms(stream, start, stop, launch);
        }
    }

    inline auto download(const float* device, std::size_t count) -> std::vector<float>
    {
        std::vector<float> host(count);
        require(cudaMemcpy(host.data(), device, count * sizeof(float), cudaMemcpyDeviceToHost),
                "cudaMemcpy");
        return host;
    }

    // The L2 norm of the difference over the L2 norm of the reference.
    inline auto relative_difference(const std::vector<float>& out,
                                    const std::vector<float>& reference) -> double
    {
        double diff = 0.0;
        double norm = 0.0;
        for (std::size_t i = 0; i < out.size(); ++i)
        {
            const double d = static_cast<double>(out[i]) - reference[i];
            diff += d * d;
            norm += static_cast<double>(reference[i]) * reference[i];
        }
        return std::sqrt(diff / norm);
    }
}

#endif
