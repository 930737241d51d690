// The hardware gates' policy (gpu.xid, gpu.count) of doctor, check and slurm-health: the command
// line's --fatal-xids and --expect-gpus, else the configuration's [check] fatal-xids and
// gpu-count, else the defaults.
#ifndef ENVCHECK_APP_HARDWARE_GATES_HPP
#define ENVCHECK_APP_HARDWARE_GATES_HPP

#include <optional>
#include <vector>

#include "checks/doctor.hpp"
#include "config/config.hpp"

namespace envcheck::app
{
    // What the command line gives; nullopt: not given.
    struct HardwareGateOptions
    {
        std::optional<std::vector<int>> fatal_xids;
        std::optional<int> expected_gpu_count;
    };

    [[nodiscard]] auto hardware_gate_policy(const HardwareGateOptions& options,
                                            const config::CheckConfig& configured)
      -> checks::HardwareGatePolicy;
}

#endif
