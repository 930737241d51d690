// SHA-256 of bytes (FIPS 180-4). Uses the x86 SHA extensions when the CPU has them, because
// `check --deep` hashes whole prefixes and must keep up with sha256sum. Ours rather than
// libcrypto's: as fast (tests/bench/bench_hash.cpp, RESULTS.md "SHA-256"), and the portable
// binary links no OpenSSL.
#ifndef ENVCHECK_UTIL_SHA256_HPP
#define ENVCHECK_UTIL_SHA256_HPP

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace envcheck::util
{
    class Sha256
    {
    public:
        using Digest = std::array<std::uint8_t, 32>;

        Sha256();
        void update(std::string_view bytes);
        void update(const void* data, std::size_t size);
        [[nodiscard]] auto finish() -> Digest;

        [[nodiscard]] static auto hex(const Digest& digest) -> std::string;
        [[nodiscard]] static auto hex_of(std::string_view bytes) -> std::string;
        // Whether the hardware path is in use (for benchmark reports).
        [[nodiscard]] static auto uses_cpu_extensions() -> bool;

    private:
        void compress(const std::uint8_t* blocks, std::size_t count);

        std::array<std::uint32_t, 8> m_state{};
        std::array<std::uint8_t, 64> m_buffer{};
        std::size_t m_buffered = 0;
        std::uint64_t m_total = 0;
    };
}

#endif
