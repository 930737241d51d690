// Helper kernels shared by the probes: random fills, and the device-side checks that verify
// large outputs without copying them back.
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "kernels/detail/cuda_support.cuh"
#include "kernels/device.cuh"

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

        // Host memory touched ahead of time (reserve_host_memory), handed out from `used` on
        // and registered block by block.
        struct HostReserve
        {
            std::byte* base = nullptr;
            std::size_t size = 0;
            std::size_t used = 0;
            bool touching = false; // its thread is still at work: acquire_pinned waits
        };

        struct PinnedCache
        {
            std::mutex mutex;
            std::condition_variable touched;
            std::vector<PinnedBlock> blocks;
            std::size_t bytes = 0;
            HostReserve reserve;
            std::vector<void*> registered; // blocks of the reserve: unregistered, not freed
        };

        // Blocks this small cost little to allocate; the tiny mapped latch of bandwidth is one.
        constexpr std::size_t smallest_reserved_block = std::size_t{ 1 } << 20;
        // cudaHostRegister takes the same bits for what reserved blocks are asked with.
        static_assert(cudaHostAllocPortable == cudaHostRegisterPortable &&
                      cudaHostAllocMapped == cudaHostRegisterMapped);
        constexpr unsigned registrable_flags = cudaHostAllocPortable | cudaHostAllocMapped;

        auto page_rounded(std::size_t bytes) -> std::size_t
        {
            const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
            return (bytes + page - 1) / page * page;
        }

        // A block of the reserve for `bytes`, registered with `flags`; nullptr when the reserve
        // cannot give one (none, too small a block, flags registration does not have, or the
        // registration failed). Called with the cache's lock held.
        auto take_reserved(PinnedCache& cache, std::unique_lock<std::mutex>& lock,
                           std::size_t bytes, unsigned flags) -> void*
        {
            auto& reserve = cache.reserve;
            cache.touched.wait(lock, [&] { return !reserve.touching; });
            const std::size_t rounded = page_rounded(bytes);
            if (reserve.base == nullptr || bytes < smallest_reserved_block ||
                (flags & ~registrable_flags) != 0 || reserve.size - reserve.used < rounded)
            {
                return nullptr;
            }
            void* block = reserve.base + reserve.used;
            if (cudaHostRegister(block, rounded, flags) != cudaSuccess)
            {
                (void)cudaGetLastError(); // not sticky: cudaHostAlloc is tried instead
                return nullptr;
            }
            reserve.used += rounded;
            cache.registered.push_back(block);
            return block;
        }

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
            std::unique_lock<std::mutex> lock(cache.mutex);
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
            if (void* reserved = take_reserved(cache, lock, bytes, flags))
            {
                *data = reserved;
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
            if (const auto found =
                  std::find(cache.registered.begin(), cache.registered.end(), data);
                found != cache.registered.end())
            {
                // The reserve's memory stays with the process; only the registration goes.
                cache.registered.erase(found);
                cudaHostUnregister(data);
                return;
            }
        }
        cudaFreeHost(data);
    }
}

namespace envcheck::kernels
{
    void reserve_host_memory(std::size_t bytes)
    {
        auto& cache = detail::pinned_cache();
        const std::lock_guard<std::mutex> lock(cache.mutex);
        auto& reserve = cache.reserve;
        if (reserve.base != nullptr || bytes == 0)
        {
            return;
        }
        bytes = detail::page_rounded(bytes);
        void* base =
          mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (base == MAP_FAILED)
        {
            return; // the probes allocate their pinned memory as before
        }
        reserve.base = static_cast<std::byte*>(base);
        reserve.size = bytes;
        reserve.touching = true;
        // Page faults, not MAP_POPULATE: that would hold the process's mmap lock for the whole
        // of it, against cuInit's own mappings on the main thread.
        std::thread(
          [&cache]
          {
              std::memset(cache.reserve.base, 0, cache.reserve.size);
              {
                  const std::lock_guard<std::mutex> done(cache.mutex);
                  cache.reserve.touching = false;
              }
              cache.touched.notify_all();
          })
          .detach();
    }

    auto reserved_host_memory_taken() -> std::size_t
    {
        auto& cache = detail::pinned_cache();
        const std::lock_guard<std::mutex> lock(cache.mutex);
        return cache.reserve.used;
    }
}
