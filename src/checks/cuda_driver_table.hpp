// Which NVIDIA Linux driver a CUDA runtime needs (../shared/reference/gpu-anchors.md §3).
//
// Two numbers per CUDA release:
//  - the driver packaged with its GA release (CUDA release notes, Table 3 "CUDA Toolkit and
//    Corresponding Driver Versions", Linux x86_64): with it, everything works;
//  - the minimum of its major family under minor-version compatibility (Table 2; from CUDA 11):
//    11.x >= 450.80.02, 12.x >= 525.60.13, 13.x >= 580.65.06. Above it an application runs
//    "with limited feature-set": PTX that a newer toolkit produced cannot be JIT-compiled.
// Below CUDA 11 there is no minor-version compatibility: the family minimum is the GA driver.
#ifndef ENVCHECK_CHECKS_CUDA_DRIVER_TABLE_HPP
#define ENVCHECK_CHECKS_CUDA_DRIVER_TABLE_HPP

#include <compare>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "model/cuda_version.hpp"

namespace envcheck::checks
{
    // An NVIDIA driver version: "535.104.05", "570.26", "535".
    struct DriverVersion
    {
        int major = 0;
        int minor = 0;
        int patch = 0;

        [[nodiscard]] auto to_string() const -> std::string; // "535.104.05" (patch as 2 digits)
        auto operator<=>(const DriverVersion&) const = default;
    };

    [[nodiscard]] auto parse_driver_version(std::string_view text) -> std::optional<DriverVersion>;

    struct DriverRequirement
    {
        model::CudaVersion cuda;
        DriverVersion full;   // the GA driver of this CUDA release
        DriverVersion family; // the least driver that runs it under minor-version compatibility
    };

    // Every CUDA release the table knows, oldest first (there was no 12.7).
    [[nodiscard]] auto known_cuda_releases() -> std::span<const model::CudaVersion>;

    // nullopt for a CUDA release the table does not know (12.7, 99.0).
    [[nodiscard]] auto driver_requirement(model::CudaVersion cuda)
      -> std::optional<DriverRequirement>;

    // The newest CUDA release whose GA driver is not newer than `driver` (what nvidia-smi shows
    // as "CUDA Version" for it); nullopt when the driver predates every row.
    [[nodiscard]] auto newest_cuda_for(DriverVersion driver) -> std::optional<model::CudaVersion>;

    enum class DriverSupport
    {
        full,         // the driver is at least the release's GA driver
        minor_compat, // runs under minor-version compatibility, without PTX JIT of newer code
        unsupported,  // below the family minimum: cudaErrorInsufficientDriver
    };

    [[nodiscard]] auto to_string(DriverSupport support) -> std::string_view;

    // nullopt when the table does not know `runtime`.
    [[nodiscard]] auto driver_support(model::CudaVersion runtime, DriverVersion driver)
      -> std::optional<DriverSupport>;

    // The same against a driver known only by the CUDA version it reports (cuDriverGetVersion,
    // nvidia-smi's "CUDA Version"): a driver reporting X.Y is at least X.Y's GA driver.
    [[nodiscard]] auto driver_support(model::CudaVersion runtime, model::CudaVersion driver_cuda)
      -> std::optional<DriverSupport>;
}

#endif
