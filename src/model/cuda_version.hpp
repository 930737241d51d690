// CUDA versions as the driver and runtime APIs encode them: 1000 * major + 10 * minor.
// Decoded here and nowhere else (12040 is 12.4, 13000 is 13.0, 11080 is 11.8).
#ifndef ENVCHECK_MODEL_CUDA_VERSION_HPP
#define ENVCHECK_MODEL_CUDA_VERSION_HPP

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace envcheck::model
{
    struct CudaVersion
    {
        int major = 0;
        int minor = 0;

        [[nodiscard]] auto to_string() const -> std::string;
        // The API encoding again: 1000 * major + 10 * minor.
        [[nodiscard]] auto encoded() const -> int { return major * 1000 + minor * 10; }
        auto operator<=>(const CudaVersion&) const = default;
    };

    // nullopt for values no CUDA release has used (below 1.0, above 99.x, or a units digit).
    [[nodiscard]] auto decode_cuda_version(int encoded) -> std::optional<CudaVersion>;
    // "12.4", "12.4.1" (the patch is dropped), "12"; nullopt when not a CUDA version.
    [[nodiscard]] auto parse_cuda_version(std::string_view text) -> std::optional<CudaVersion>;
}

#endif
