#include "model/gpu_device.hpp"

#include "util/enum_text.hpp"

namespace envcheck::model
{
    auto to_string(ComputeMode mode) -> std::string_view
    {
        switch (mode)
        {
            case ComputeMode::default_mode:
                return "default";
            case ComputeMode::exclusive_thread:
                return "exclusive_thread";
            case ComputeMode::prohibited:
                return "prohibited";
            case ComputeMode::exclusive_process:
                return "exclusive_process";
        }
        return "unknown";
    }

    auto parse_compute_mode(std::string_view text) -> std::optional<ComputeMode>
    {
        return util::parse_enum(text, { ComputeMode::default_mode, ComputeMode::exclusive_thread,
                                        ComputeMode::prohibited, ComputeMode::exclusive_process });
    }

    auto compute_mode_from_code(int code) -> std::optional<ComputeMode>
    {
        if (code < 0 || code > 3)
        {
            return std::nullopt;
        }
        return static_cast<ComputeMode>(code);
    }

    auto GpuDevice::compute_capability() const -> std::optional<std::string>
    {
        if (!compute_capability_major || !compute_capability_minor)
        {
            return std::nullopt;
        }
        return std::to_string(*compute_capability_major) + "." +
               std::to_string(*compute_capability_minor);
    }

    auto GpuDevice::architecture() const -> std::optional<std::string>
    {
        if (!compute_capability_major || !compute_capability_minor)
        {
            return std::nullopt;
        }
        return "sm_" + std::to_string(*compute_capability_major) +
               std::to_string(*compute_capability_minor);
    }
}
