// The environment half of the doctor: what CUDA runtime an environment needs, whether its
// frameworks are GPU builds, whether they carry code for the GPU's architecture, and what the
// framework check saw. The pure helpers behind those checks are exposed for tests.
#ifndef ENVCHECK_CHECKS_DOCTOR_ENVIRONMENT_HPP
#define ENVCHECK_CHECKS_DOCTOR_ENVIRONMENT_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/doctor.hpp"
#include "model/cuda_version.hpp"
#include "model/machine.hpp"
#include "model/package.hpp"

namespace envcheck::checks
{
    // A CUDA runtime the environment carries, and which package (or framework build) says so.
    struct RuntimeRequirement
    {
        model::CudaVersion cuda;
        std::string source; // "pytorch-cuda 11.8", "torch 2.5.1+cu124", "torch.version.cuda 13.0"

        auto operator==(const RuntimeRequirement&) const -> bool = default;
    };

    // From cuda-version, cudatoolkit, pytorch-cuda, cuda-cudart, cuda-runtime (conda),
    // nvidia-cuda-runtime[-cuXX] (pip), framework build strings and local versions (+cu124), jax
    // CUDA plugins, and what the frameworks reported about themselves.
    [[nodiscard]] auto cuda_runtime_requirements(
      const std::vector<model::Package>& packages,
      const std::vector<model::FrameworkFacts>& frameworks) -> std::vector<RuntimeRequirement>;

    // The CUDA version in a build string or local version tag: "py3.10_cuda11.8_cudnn8.7.0_0"
    // -> 11.8, "cuda126_generic_py312_h1" -> 12.6, "cuda12py312h0" -> 12.0, "cu124" -> 12.4.
    [[nodiscard]] auto cuda_version_from_tag(std::string_view text)
      -> std::optional<model::CudaVersion>;

    // A framework package in the environment and whether it is a CPU-only build.
    struct FrameworkBuild
    {
        std::string framework; // "torch", "jax", "tensorflow"
        std::string package;   // "pytorch 2.1.0 py3.10_cpu_0", "cpuonly 2.0"
        bool cpu_only = false;
        std::string reason; // why it is CPU-only: "build string 'py3.10_cpu_0'", ...

        auto operator==(const FrameworkBuild&) const -> bool = default;
    };

    [[nodiscard]] auto framework_builds(const std::vector<model::Package>& packages,
                                        const std::vector<model::FrameworkFacts>& frameworks)
      -> std::vector<FrameworkBuild>;

    // Whether code compiled for `architectures` ("sm_80", "sm_90a", "compute_90") runs on a GPU of
    // compute capability major.minor: SASS for the same major and a minor not above the GPU's
    // (arch-specific "a"/"f" variants only on their exact GPU), or PTX not newer than the GPU.
    [[nodiscard]] auto arch_supported(int major, int minor,
                                      const std::vector<std::string>& architectures) -> bool;

    // CUDA_VISIBLE_DEVICES as CUDA reads it: comma-separated ordinals or GPU-/MIG- UUID
    // prefixes; reading stops at the first invalid entry.
    struct VisibleDevices
    {
        std::vector<std::string> visible;         // the entries CUDA uses
        std::optional<std::string> first_invalid; // the entry where reading stopped
        std::string invalid_reason;
        int mig_entries = 0;
    };

    // `gpu_count` and `uuids` (from NVML) refine the check when known.
    [[nodiscard]] auto parse_visible_devices(std::string_view value, std::optional<int> gpu_count,
                                             const std::vector<std::string>& uuids)
      -> VisibleDevices;

    // The doctor's environment and framework checks (rows of the registry in doctor.cpp).
    [[nodiscard]] auto check_driver_supports_runtime(const DoctorInput& input)
      -> model::CheckOutcome;
    [[nodiscard]] auto check_framework_gpu_build(const DoctorInput& input) -> model::CheckOutcome;
    [[nodiscard]] auto check_framework_arch_support(const DoctorInput& input)
      -> model::CheckOutcome;
    [[nodiscard]] auto check_framework_runtime(const DoctorInput& input) -> model::CheckOutcome;
}

#endif
