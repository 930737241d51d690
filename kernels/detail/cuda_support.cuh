// Shared by the .cu files only (it includes the CUDA runtime): error checking, RAII owners of
// CUDA resources, event timing and the deterministic random values the probes compute on.
#ifndef ENVCHECK_KERNELS_DETAIL_CUDA_SUPPORT_CUH
#define ENVCHECK_KERNELS_DETAIL_CUDA_SUPPORT_CUH

#include <cstddef>
#include <cstdint>
#include <utility>

#include <cuda_runtime_api.h>

#include "kernels/status.cuh"

namespace envcheck::kernels::detail
{
    [[nodiscard]] inline auto check(cudaError_t error, const char* call) -> CudaStatus
    {
        if (error == cudaSuccess)
        {
            return {};
        }
        return CudaStatus{ static_cast<int>(error), call, cudaGetErrorName(error),
                           cudaGetErrorString(error) };
    }

    // After every <<<>>>: a launch reports its configuration errors (209 among them) only here.
    [[nodiscard]] inline auto check_launch(const char* kernel) -> CudaStatus
    {
        return check(cudaGetLastError(), kernel);
    }

    template<class T>
    class DeviceBuffer
    {
    public:
        DeviceBuffer() = default;
        DeviceBuffer(const DeviceBuffer&) = delete;
        auto operator=(const DeviceBuffer&) -> DeviceBuffer& = delete;
        ~DeviceBuffer()
        {
            if (m_data != nullptr)
            {
                cudaFree(m_data);
            }
        }

        [[nodiscard]] auto allocate(std::size_t count) -> CudaStatus
        {
            m_count = count;
            return check(cudaMalloc(reinterpret_cast<void**>(&m_data), count * sizeof(T)),
                         "cudaMalloc");
        }
        [[nodiscard]] auto get() const -> T* { return m_data; }
        [[nodiscard]] auto count() const -> std::size_t { return m_count; }
        [[nodiscard]] auto bytes() const -> std::size_t { return m_count * sizeof(T); }

    private:
        T* m_data = nullptr;
        std::size_t m_count = 0;
    };

    // Pinned host memory is slow to get (cudaHostAlloc pins every page: 25 to 40 ms for 64 MiB
    // on the H200's host) and to give back, and a smoke run's probes ask for the same sizes one
    // after the other. What one probe gives back is kept (up to pinned_cache_limit) for the next
    // to take; the rest of it goes with the process. A block is taken for a request of at least
    // a quarter of its size, with the same flags.
    inline constexpr std::size_t pinned_cache_limit = std::size_t{ 512 } << 20;
    [[nodiscard]] auto acquire_pinned(std::size_t bytes, unsigned flags, void** data)
      -> cudaError_t;
    void release_pinned(void* data, std::size_t bytes, unsigned flags);

    // Page-locked host memory (cudaHostAlloc), what DMA copies need to run asynchronously.
    template<class T>
    class PinnedBuffer
    {
    public:
        PinnedBuffer() = default;
        PinnedBuffer(const PinnedBuffer&) = delete;
        auto operator=(const PinnedBuffer&) -> PinnedBuffer& = delete;
        ~PinnedBuffer()
        {
            if (m_data != nullptr)
            {
                release_pinned(m_data, m_count * sizeof(T), m_flags);
            }
        }

        [[nodiscard]] auto allocate(std::size_t count, unsigned flags = cudaHostAllocPortable)
          -> CudaStatus
        {
            m_count = count;
            m_flags = flags;
            void* data = nullptr;
            const auto status =
              check(acquire_pinned(count * sizeof(T), flags, &data), "cudaHostAlloc");
            m_data = static_cast<T*>(data);
            return status;
        }
        [[nodiscard]] auto get() const -> T* { return m_data; }
        [[nodiscard]] auto count() const -> std::size_t { return m_count; }

    private:
        T* m_data = nullptr;
        std::size_t m_count = 0;
        unsigned m_flags = 0;
    };

    class Event
    {
    public:
        Event() = default;
        Event(const Event&) = delete;
        auto operator=(const Event&) -> Event& = delete;
        Event(Event&& other) noexcept
          : m_event(std::exchange(other.m_event, nullptr))
        {
        }
        ~Event()
        {
            if (m_event != nullptr)
            {
                cudaEventDestroy(m_event);
            }
        }

        [[nodiscard]] auto create() -> CudaStatus
        {
            return check(cudaEventCreate(&m_event), "cudaEventCreate");
        }
        [[nodiscard]] auto get() const -> cudaEvent_t { return m_event; }

    private:
        cudaEvent_t m_event = nullptr;
    };

    class StreamOwner
    {
    public:
        StreamOwner() = default;
        StreamOwner(const StreamOwner&) = delete;
        auto operator=(const StreamOwner&) -> StreamOwner& = delete;
        StreamOwner(StreamOwner&& other) noexcept
          : m_stream(std::exchange(other.m_stream, nullptr))
        {
        }
        ~StreamOwner()
        {
            if (m_stream != nullptr)
            {
                cudaStreamDestroy(m_stream);
            }
        }

        // Non-blocking: no implicit synchronisation with the legacy default stream.
        [[nodiscard]] auto create() -> CudaStatus
        {
            return check(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking),
                         "cudaStreamCreateWithFlags");
        }
        [[nodiscard]] auto get() const -> cudaStream_t { return m_stream; }

    private:
        cudaStream_t m_stream = nullptr;
    };

    // Milliseconds between two recorded events, after waiting for the second.
    [[nodiscard]] inline auto elapsed_ms(const Event& start, const Event& stop, float& ms)
      -> CudaStatus
    {
        if (auto status = check(cudaEventSynchronize(stop.get()), "cudaEventSynchronize");
            !status.ok())
        {
            return status;
        }
        return check(cudaEventElapsedTime(&ms, start.get(), stop.get()), "cudaEventElapsedTime");
    }

    // SplitMix64 finaliser: the same bits on host and device, so a CPU reference can recompute
    // any input element without copying the inputs back.
    __host__ __device__ inline auto mix(std::uint64_t x) -> std::uint64_t
    {
        x += 0x9E3779B97F4A7C15ull;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        return x ^ (x >> 31);
    }

    // A value in [-1, 1) with 24 random bits: exact in float, never all zeros.
    __host__ __device__ inline auto random_float(std::uint32_t seed, std::uint64_t index) -> float
    {
        const auto bits =
          static_cast<std::uint32_t>(mix((std::uint64_t{ seed } << 40) ^ index) >> 40);
        return static_cast<float>(bits) * (1.0f / 8388608.0f) - 1.0f;
    }

    __host__ __device__ inline auto random_word(std::uint32_t seed, std::uint64_t index)
      -> std::uint32_t
    {
        return static_cast<std::uint32_t>(mix((std::uint64_t{ seed } << 40) ^ index) >> 32);
    }

    [[nodiscard]] auto fill_random_floats(float* data, std::size_t count, std::uint32_t seed,
                                          cudaStream_t stream) -> CudaStatus;
    [[nodiscard]] auto fill_random_words(std::uint32_t* data, std::size_t count, std::uint32_t seed,
                                         cudaStream_t stream) -> CudaStatus;
    // Counts (into *count, on the device) the elements that are not finite: outputs are
    // poisoned with NaN before a run, so any element left unwritten shows up here.
    [[nodiscard]] auto count_nonfinite(const float* data, std::size_t count, cudaStream_t stream,
                                       std::size_t& nonfinite) -> CudaStatus;
    // Counts the words of `data` that differ from random_word(seed, i).
    [[nodiscard]] auto count_pattern_mismatches(const std::uint32_t* data, std::size_t count,
                                                std::uint32_t seed, cudaStream_t stream,
                                                std::size_t& mismatches) -> CudaStatus;
    [[nodiscard]] auto multiprocessor_count(int& count) -> CudaStatus;
    // Device to host in `stream`'s order, then waits for it. The probes' streams are
    // non-blocking: a plain cudaMemcpy (legacy default stream) would not wait for their kernels.
    [[nodiscard]] auto copy_to_host(void* host, const void* device, std::size_t bytes,
                                    cudaStream_t stream) -> CudaStatus;
}

#endif
