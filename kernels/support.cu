// Helper kernels shared by the probes: random fills, and the device-side checks that verify
// large outputs without copying them back.
#include <mutex>
#include <vector>

#include "kernels/detail/cuda_support.cuh"

namespace envcheck::kernels::detail
{
    namespace
    {
        constexpr int threads_per_block = 256;

        struct PinnedBlock
        {
            void* data = nullptr;
            std::size_t bytes = 0;
            unsigned flags = 0;
        };

        struct PinnedCache
        {
            std::mutex mutex;
            std::vector<PinnedBlock> blocks;
            std::size_t bytes = 0;
        };

        auto pinned_cache() -> PinnedCache&
        {
            // Never destroyed: the blocks go with the process (freeing them at exit would only
            // add to it, and the CUDA runtime may already be shut down then).
            static auto* cache = new PinnedCache;
            return *cache;
        }

        __global__ void fill_random_floats_kernel(float* data, std::size_t count,
                                                  std::uint32_t seed)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            for (std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x; i < count;
                 i += stride)
            {
                data[i] = random_float(seed, i);
            }
        }

        __global__ void fill_random_words_kernel(std::uint32_t* data, std::size_t count,
                                                 std::uint32_t seed)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            for (std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x; i < count;
                 i += stride)
            {
                data[i] = random_word(seed, i);
            }
        }

        __global__ void count_nonfinite_kernel(const float* data, std::size_t count,
                                               unsigned long long* result)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            unsigned long long local = 0;
            for (std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x; i < count;
                 i += stride)
            {
                local += isfinite(data[i]) ? 0 : 1;
            }
            if (local != 0)
            {
                atomicAdd(result, local);
            }
        }

        __global__ void count_pattern_mismatches_kernel(const std::uint32_t* data,
                                                        std::size_t count, std::uint32_t seed,
                                                        unsigned long long* result)
        {
            const std::size_t stride = std::size_t{ gridDim.x } * blockDim.x;
            unsigned long long local = 0;
            for (std::size_t i = std::size_t{ blockIdx.x } * blockDim.x + threadIdx.x; i < count;
                 i += stride)
            {
                local += data[i] == random_word(seed, i) ? 0 : 1;
            }
            if (local != 0)
            {
                atomicAdd(result, local);
            }
        }

        // Enough blocks to fill the device, few enough that grid-stride loops stay cheap.
        [[nodiscard]] auto blocks_for(std::size_t count, int& blocks) -> CudaStatus
        {
            int sms = 0;
            if (auto status = multiprocessor_count(sms); !status.ok())
            {
                return status;
            }
            const std::size_t wanted = (count + threads_per_block - 1) / threads_per_block;
            const std::size_t cap = static_cast<std::size_t>(sms) * 8;
            blocks = static_cast<int>(wanted < cap ? (wanted == 0 ? 1 : wanted) : cap);
            return {};
        }

        [[nodiscard]] auto count_with(const char* name, unsigned long long* device_result,
                                      cudaStream_t stream, std::size_t& count) -> CudaStatus
        {
            unsigned long long host_result = 0;
            if (auto status =
                  copy_to_host(&host_result, device_result, sizeof(host_result), stream);
                !status.ok())
            {
                if (status.call != "cudaStreamSynchronize")
                {
                    status.call = name; // which count's copy failed
                }
                return status;
            }
            count = static_cast<std::size_t>(host_result);
            return {};
        }
    }

    auto copy_to_host(void* host, const void* device, std::size_t bytes, cudaStream_t stream)
      -> CudaStatus
    {
        if (auto status =
              check(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream),
                    "cudaMemcpyAsync(DeviceToHost)");
            !status.ok())
        {
            return status;
        }
        return check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }

    auto multiprocessor_count(int& count) -> CudaStatus
    {
        int device = 0;
        if (auto status = check(cudaGetDevice(&device), "cudaGetDevice"); !status.ok())
        {
            return status;
        }
        return check(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device),
                     "cudaDeviceGetAttribute(MultiProcessorCount)");
    }

    auto fill_random_floats(float* data, std::size_t count, std::uint32_t seed, cudaStream_t stream)
      -> CudaStatus
    {
        int blocks = 0;
        if (auto status = blocks_for(count, blocks); !status.ok())
        {
            return status;
        }
        fill_random_floats_kernel<<<blocks, threads_per_block, 0, stream>>>(data, count, seed);
        return check_launch("fill_random_floats_kernel");
    }

    auto fill_random_words(std::uint32_t* data, std::size_t count, std::uint32_t seed,
                           cudaStream_t stream) -> CudaStatus
    {
        int blocks = 0;
        if (auto status = blocks_for(count, blocks); !status.ok())
        {
            return status;
        }
        fill_random_words_kernel<<<blocks, threads_per_block, 0, stream>>>(data, count, seed);
        return check_launch("fill_random_words_kernel");
    }

    auto count_nonfinite(const float* data, std::size_t count, cudaStream_t stream,
                         std::size_t& nonfinite) -> CudaStatus
    {
        DeviceBuffer<unsigned long long> result;
        int blocks = 0;
        if (auto status = result.allocate(1); !status.ok())
        {
            return status;
        }
        if (auto status = blocks_for(count, blocks); !status.ok())
        {
            return status;
        }
        if (auto status =
              check(cudaMemsetAsync(result.get(), 0, result.bytes(), stream), "cudaMemsetAsync");
            !status.ok())
        {
            return status;
        }
        count_nonfinite_kernel<<<blocks, threads_per_block, 0, stream>>>(data, count, result.get());
        if (auto status = check_launch("count_nonfinite_kernel"); !status.ok())
        {
            return status;
        }
        return count_with("cudaMemcpyAsync(nonfinite count)", result.get(), stream, nonfinite);
    }

    auto count_pattern_mismatches(const std::uint32_t* data, std::size_t count, std::uint32_t seed,
                                  cudaStream_t stream, std::size_t& mismatches) -> CudaStatus
    {
        DeviceBuffer<unsigned long long> result;
        int blocks = 0;
        if (auto status = result.allocate(1); !status.ok())
        {
            return status;
        }
        if (auto status = blocks_for(count, blocks); !status.ok())
        {
            return status;
        }
        if (auto status =
              check(cudaMemsetAsync(result.get(), 0, result.bytes(), stream), "cudaMemsetAsync");
            !status.ok())
        {
            return status;
        }
        count_pattern_mismatches_kernel<<<blocks, threads_per_block, 0, stream>>>(data, count, seed,
                                                                                  result.get());
        if (auto status = check_launch("count_pattern_mismatches_kernel"); !status.ok())
        {
            return status;
        }
        return count_with("cudaMemcpyAsync(mismatch count)", result.get(), stream, mismatches);
    }

    auto acquire_pinned(std::size_t bytes, unsigned flags, void** data) -> cudaError_t
    {
        auto& cache = pinned_cache();
        {
            const std::lock_guard<std::mutex> lock(cache.mutex);
            auto best = cache.blocks.end();
            for (auto block = cache.blocks.begin(); block != cache.blocks.end(); ++block)
            {
                const bool fits =
                  block->flags == flags && block->bytes >= bytes && block->bytes / 4 <= bytes;
                if (fits && (best == cache.blocks.end() || block->bytes < best->bytes))
                {
                    best = block;
                }
            }
            if (best != cache.blocks.end())
            {
                *data = best->data;
                cache.bytes -= best->bytes;
                cache.blocks.erase(best);
                return cudaSuccess;
            }
        }
        return cudaHostAlloc(data, bytes, flags);
    }

    void release_pinned(void* data, std::size_t bytes, unsigned flags)
    {
        auto& cache = pinned_cache();
        {
            const std::lock_guard<std::mutex> lock(cache.mutex);
            if (cache.bytes + bytes <= pinned_cache_limit)
            {
                cache.blocks.push_back(PinnedBlock{ data, bytes, flags });
                cache.bytes += bytes;
                return;
            }
        }
        cudaFreeHost(data);
    }
}
