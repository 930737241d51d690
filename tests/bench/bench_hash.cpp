// SHA-256: envcheck's own util::Sha256 (what `check --deep` hashes prefixes with) against
// OpenSSL's libcrypto (EVP_Digest, which also uses the x86 SHA extensions where the CPU has
// them), on the same bytes in the same run. Why we keep our own: the portable binary links no
// libcrypto (libcurl, which brings it, is loaded only when a URL is given), and this bench shows
// ours is not slower.
//
//   build/bench/bench_hash [--mib 256] [--runs 7]
//
// Three workloads, each hashed whole by both, interleaved run by run: one buffer of --mib MiB
// (large files: wheels, .so), 1 MiB pieces and 4 KiB pieces (the many small .py files of a
// prefix), each piece a separate digest. The digests must agree. Prints the median and spread
// (min..max) in MB/s and the ratio of the medians; results go to tests/bench/RESULTS.md
// ("SHA-256").
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <openssl/evp.h>
#include <string>
#include <string_view>
#include <vector>

#include "tests/bench/bench_support.hpp"
#include "util/sha256.hpp"

using namespace envcheck;

namespace
{
    using bench::median;

    using Digest = util::Sha256::Digest;

    auto ours(const std::uint8_t* data, std::size_t size) -> Digest
    {
        util::Sha256 hash;
        hash.update(data, size);
        return hash.finish();
    }

    auto openssl(const std::uint8_t* data, std::size_t size) -> Digest
    {
        Digest digest{};
        unsigned int length = 0;
        if (EVP_Digest(data, size, digest.data(), &length, EVP_sha256(), nullptr) != 1 ||
            length != digest.size())
        {
            std::fprintf(stderr, "bench_hash: EVP_Digest failed\n");
            std::exit(2);
        }
        return digest;
    }

    using Hasher = std::function<Digest(const std::uint8_t*, std::size_t)>;

    // Hashes `bytes` in pieces of `piece` bytes; returns the seconds taken and a digest of all
    // the digests (to compare the two implementations).
    auto hash_pieces(const Hasher& hasher, const std::vector<std::uint8_t>& bytes,
                     std::size_t piece, Digest& combined) -> double
    {
        std::vector<std::uint8_t> digests;
        digests.reserve((bytes.size() / piece + 1) * 32);
        const auto start = std::chrono::steady_clock::now();
        for (std::size_t offset = 0; offset < bytes.size(); offset += piece)
        {
            const auto digest =
              hasher(bytes.data() + offset, std::min(piece, bytes.size() - offset));
            digests.insert(digests.end(), digest.begin(), digest.end());
        }
        const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        combined = ours(digests.data(), digests.size());
        return seconds;
    }
}

auto main(int argc, char** argv) -> int
{
    std::size_t mib = 256;
    int runs = 7;
    for (int i = 1; i + 1 < argc; i += 2)
    {
        const std::string_view option = argv[i];
        if (option == "--mib")
        {
            mib = std::strtoul(argv[i + 1], nullptr, 10);
        }
        else if (option == "--runs")
        {
            runs = std::max(1, std::atoi(argv[i + 1]));
        }
        else
        {
            std::fprintf(stderr, "usage: bench_hash [--mib N] [--runs N]\n");
            return 2;
        }
    }
    std::vector<std::uint8_t> bytes(mib << 20);
    std::uint64_t state = 0x9E3779B97F4A7C15ULL; // the same bytes on every machine
    for (auto& byte : bytes)
    {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        byte = static_cast<std::uint8_t>(state);
    }

    std::printf("SHA-256 of %zu MiB, %d runs; our CPU extensions: %s\n", mib, runs,
                util::Sha256::uses_cpu_extensions() ? "SHA-NI" : "none (portable C++)");
    std::printf("%-12s %24s %24s %8s\n", "pieces", "envcheck MB/s (min..max)",
                "libcrypto MB/s (min..max)", "ratio");
    struct Workload
    {
        const char* name;
        std::size_t piece;
    };
    for (const Workload workload :
         { Workload{ "one buffer", bytes.size() }, Workload{ "1 MiB", std::size_t{ 1 } << 20 },
           Workload{ "4 KiB", std::size_t{ 4096 } } })
    {
        std::vector<double> ours_rates;
        std::vector<double> openssl_rates;
        for (int run = 0; run < runs + 1; ++run) // the first run of each warms up, not counted
        {
            Digest ours_digest{};
            Digest openssl_digest{};
            const double ours_seconds = hash_pieces(ours, bytes, workload.piece, ours_digest);
            const double openssl_seconds =
              hash_pieces(openssl, bytes, workload.piece, openssl_digest);
            if (ours_digest != openssl_digest)
            {
                std::fprintf(stderr, "bench_hash: digests differ (%s)\n", workload.name);
                return 1;
            }
            if (run > 0)
            {
                ours_rates.push_back(static_cast<double>(bytes.size()) / ours_seconds / 1e6);
                openssl_rates.push_back(static_cast<double>(bytes.size()) / openssl_seconds / 1e6);
            }
        }
        const auto [ours_min, ours_max] = std::minmax_element(ours_rates.begin(), ours_rates.end());
        const auto [ssl_min, ssl_max] =
          std::minmax_element(openssl_rates.begin(), openssl_rates.end());
        std::printf("%-12s %8.0f (%5.0f..%5.0f)       %8.0f (%5.0f..%5.0f)   %6.2fx\n",
                    workload.name, median(ours_rates), *ours_min, *ours_max, median(openssl_rates),
                    *ssl_min, *ssl_max, median(ours_rates) / median(openssl_rates));
    }
    return 0;
}
