#include "util/sha256.hpp"

#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define ENVCHECK_SHA_X86 1
#endif

namespace envcheck::util
{
    namespace
    {
        constexpr std::array<std::uint32_t, 64> round_constants = {
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
            0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
            0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
            0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
            0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
            0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
            0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
            0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
            0xc67178f2
        };

        constexpr auto rotr(std::uint32_t x, int n) -> std::uint32_t
        {
            return (x >> n) | (x << (32 - n));
        }

        auto load_be32(const std::uint8_t* p) -> std::uint32_t
        {
            return (std::uint32_t{ p[0] } << 24) | (std::uint32_t{ p[1] } << 16) |
                   (std::uint32_t{ p[2] } << 8) | std::uint32_t{ p[3] };
        }

        void compress_portable(std::array<std::uint32_t, 8>& state, const std::uint8_t* block,
                               std::size_t count)
        {
            for (; count > 0; --count, block += 64)
            {
                std::uint32_t w[64];
                for (int i = 0; i < 16; ++i)
                {
                    w[i] = load_be32(block + 4 * i);
                }
                for (int i = 16; i < 64; ++i)
                {
                    const std::uint32_t s0 =
                      rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
                    const std::uint32_t s1 =
                      rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
                    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
                }
                std::uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
                std::uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
                for (int i = 0; i < 64; ++i)
                {
                    const std::uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
                    const std::uint32_t ch = (e & f) ^ (~e & g);
                    const std::uint32_t t1 =
                      h + s1 + ch + round_constants[static_cast<std::size_t>(i)] + w[i];
                    const std::uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
                    const std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
                    const std::uint32_t t2 = s0 + maj;
                    h = g;
                    g = f;
                    f = e;
                    e = d + t1;
                    d = c;
                    c = b;
                    b = a;
                    a = t1 + t2;
                }
                state[0] += a;
                state[1] += b;
                state[2] += c;
                state[3] += d;
                state[4] += e;
                state[5] += f;
                state[6] += g;
                state[7] += h;
            }
        }

#ifdef ENVCHECK_SHA_X86
        auto cpu_has_sha() -> bool
        {
            unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
            if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0)
            {
                return false;
            }
            const bool sha = (ebx & (1u << 29)) != 0;
            if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0)
            {
                return false;
            }
            const bool sse41 = (ecx & (1u << 19)) != 0;
            const bool ssse3 = (ecx & (1u << 9)) != 0;
            return sha && sse41 && ssse3;
        }

        // Four rounds: message words plus constants, two sha256rnds2 steps.
        __attribute__((target("sha,sse4.1,ssse3"))) inline void four_rounds(
          __m128i& state0, __m128i& state1, __m128i words, const std::uint32_t* constants)
        {
            __m128i msg =
              _mm_add_epi32(words, _mm_loadu_si128(reinterpret_cast<const __m128i*>(constants)));
            state1 = _mm_sha256rnds2_epu32(state1, state0, msg);
            msg = _mm_shuffle_epi32(msg, 0x0E);
            state0 = _mm_sha256rnds2_epu32(state0, state1, msg);
        }

        // The standard SHA-NI schedule (Intel's white paper "Intel SHA Extensions", 2013).
        __attribute__((target("sha,sse4.1,ssse3"))) void compress_shani(
          std::array<std::uint32_t, 8>& state, const std::uint8_t* data, std::size_t count)
        {
            const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
            __m128i tmp = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[0]));
            __m128i state1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[4]));
            tmp = _mm_shuffle_epi32(tmp, 0xB1);               // CDAB
            state1 = _mm_shuffle_epi32(state1, 0x1B);         // EFGH
            __m128i state0 = _mm_alignr_epi8(tmp, state1, 8); // ABEF
            state1 = _mm_blend_epi16(state1, tmp, 0xF0);      // CDGH

            const auto* k = round_constants.data();
            for (; count > 0; --count, data += 64)
            {
                const __m128i abef_save = state0;
                const __m128i cdgh_save = state1;
                __m128i msg0 = _mm_shuffle_epi8(
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(data)), byte_swap);
                __m128i msg1 = _mm_shuffle_epi8(
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 16)), byte_swap);
                __m128i msg2 = _mm_shuffle_epi8(
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 32)), byte_swap);
                __m128i msg3 = _mm_shuffle_epi8(
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(data + 48)), byte_swap);

                // Rounds 0-15 use the message words directly; 16-63 extend the schedule.
                four_rounds(state0, state1, msg0, k + 4 * 0);
                four_rounds(state0, state1, msg1, k + 4 * 1);
                msg0 = _mm_sha256msg1_epu32(msg0, msg1);
                four_rounds(state0, state1, msg2, k + 4 * 2);
                msg1 = _mm_sha256msg1_epu32(msg1, msg2);
                four_rounds(state0, state1, msg3, k + 4 * 3);
                for (int i = 4; i < 16; ++i)
                {
                    // Rotate the four message registers: msg0 <- next schedule block.
                    __m128i t = _mm_alignr_epi8(msg3, msg2, 4);
                    msg0 = _mm_add_epi32(msg0, t);
                    msg0 = _mm_sha256msg2_epu32(msg0, msg3);
                    four_rounds(state0, state1, msg0, k + 4 * i);
                    msg2 = _mm_sha256msg1_epu32(msg2, msg3);
                    const __m128i next = msg0;
                    msg0 = msg1;
                    msg1 = msg2;
                    msg2 = msg3;
                    msg3 = next;
                }
                state0 = _mm_add_epi32(state0, abef_save);
                state1 = _mm_add_epi32(state1, cdgh_save);
            }
            tmp = _mm_shuffle_epi32(state0, 0x1B);       // FEBA
            state1 = _mm_shuffle_epi32(state1, 0xB1);    // DCHG
            state0 = _mm_blend_epi16(tmp, state1, 0xF0); // DCBA
            state1 = _mm_alignr_epi8(state1, tmp, 8);    // ABEF -> HGFE
            _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[0]), state0);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[4]), state1);
        }

        const bool has_sha_extensions = cpu_has_sha();
#else
        const bool has_sha_extensions = false;
#endif
    }

    Sha256::Sha256()
      : m_state{ 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 }
    {
    }

    auto Sha256::uses_cpu_extensions() -> bool
    {
        return has_sha_extensions;
    }

    void Sha256::compress(const std::uint8_t* blocks, std::size_t count)
    {
#ifdef ENVCHECK_SHA_X86
        if (has_sha_extensions)
        {
            compress_shani(m_state, blocks, count);
            return;
        }
#endif
        compress_portable(m_state, blocks, count);
    }

    void Sha256::update(std::string_view bytes)
    {
        update(bytes.data(), bytes.size());
    }

    void Sha256::update(const void* data, std::size_t size)
    {
        const auto* in = static_cast<const std::uint8_t*>(data);
        m_total += size;
        if (m_buffered != 0)
        {
            const std::size_t take = std::min(size, m_buffer.size() - m_buffered);
            std::memcpy(m_buffer.data() + m_buffered, in, take);
            m_buffered += take;
            in += take;
            size -= take;
            if (m_buffered < m_buffer.size())
            {
                return;
            }
            compress(m_buffer.data(), 1);
            m_buffered = 0;
        }
        if (size >= 64)
        {
            compress(in, size / 64);
            in += size / 64 * 64;
            size %= 64;
        }
        if (size != 0)
        {
            std::memcpy(m_buffer.data(), in, size);
            m_buffered = size;
        }
    }

    auto Sha256::finish() -> Digest
    {
        const std::uint64_t bit_length = m_total * 8;
        const std::uint8_t pad_start = 0x80;
        update(&pad_start, 1);
        const std::uint8_t zero = 0;
        while (m_buffered != 56)
        {
            update(&zero, 1);
        }
        std::uint8_t length_bytes[8];
        for (int i = 0; i < 8; ++i)
        {
            length_bytes[i] = static_cast<std::uint8_t>(bit_length >> (56 - 8 * i));
        }
        update(length_bytes, 8);
        Digest digest{};
        for (std::size_t i = 0; i < 8; ++i)
        {
            digest[4 * i] = static_cast<std::uint8_t>(m_state[i] >> 24);
            digest[4 * i + 1] = static_cast<std::uint8_t>(m_state[i] >> 16);
            digest[4 * i + 2] = static_cast<std::uint8_t>(m_state[i] >> 8);
            digest[4 * i + 3] = static_cast<std::uint8_t>(m_state[i]);
        }
        return digest;
    }

    auto Sha256::hex(const Digest& digest) -> std::string
    {
        static constexpr char digits[] = "0123456789abcdef";
        std::string out;
        out.reserve(64);
        for (const auto byte : digest)
        {
            out += digits[byte >> 4];
            out += digits[byte & 0x0F];
        }
        return out;
    }

    auto Sha256::hex_of(std::string_view bytes) -> std::string
    {
        Sha256 hasher;
        hasher.update(bytes);
        return hex(hasher.finish());
    }
}
