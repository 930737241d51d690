// The NVIDIA kernel driver as the files show it: /proc/driver/nvidia/version,
// /sys/module/{nvidia,nvidia_uvm,nvidia_modeset,nvidia_drm,nouveau}, the GPUs under
// /proc/driver/nvidia/gpus, and the device nodes /dev/nvidia* (and WSL's /dev/dxg) with their
// ownership and permissions.
#ifndef ENVCHECK_SYSTEM_KERNEL_DRIVER_HPP
#define ENVCHECK_SYSTEM_KERNEL_DRIVER_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/machine.hpp"
#include "system/system_root.hpp"

namespace envcheck::system
{
    [[nodiscard]] auto read_kernel_driver(const SystemRoot& root) -> model::KernelDriverFacts;
    [[nodiscard]] auto read_device_nodes(const SystemRoot& root) -> std::vector<model::DeviceNode>;

    // The version in the NVRM line of /proc/driver/nvidia/version:
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 ..." -> "580.65.06"
    // (the open kernel modules write "... Open Kernel Module for x86_64  580.65.06  ...").
    [[nodiscard]] auto parse_nvrm_version(std::string_view text) -> std::optional<std::string>;
    // Whether text is a driver version: two or three dot-separated numbers, the first >= 100.
    [[nodiscard]] auto is_driver_version(std::string_view text) -> bool;
}

#endif
