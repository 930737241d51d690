#include "app/hardware_gates.hpp"

namespace envcheck::app
{
    auto hardware_gate_policy(const HardwareGateOptions& options,
                              const config::CheckConfig& configured) -> checks::HardwareGatePolicy
    {
        checks::HardwareGatePolicy policy;
        if (options.fatal_xids)
        {
            policy.fatal_xids = *options.fatal_xids;
        }
        else if (configured.fatal_xids)
        {
            policy.fatal_xids = configured.fatal_xids->value;
        }
        if (options.expected_gpu_count)
        {
            policy.expected_gpu_count = options.expected_gpu_count;
        }
        else if (configured.gpu_count)
        {
            policy.expected_gpu_count = configured.gpu_count->value;
            policy.expected_gpu_count_from =
              "check.gpu-count in " + configured.gpu_count->source.to_string();
        }
        return policy;
    }
}
