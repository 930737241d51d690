// Slurm's scontrol, run without a shell under a deadline: read a node's state, drain it with a
// reason, resume it. The decision of what to do is pure (checks/slurm_policy.hpp).
#ifndef ENVCHECK_SLURM_SCONTROL_HPP
#define ENVCHECK_SLURM_SCONTROL_HPP

#include <chrono>
#include <string>

#include "formats/slurm_node.hpp"
#include "util/result.hpp"

namespace envcheck::slurm
{
    struct ScontrolOptions
    {
        std::string program = "scontrol"; // a path, or a name looked up in PATH
        std::chrono::milliseconds timeout{ 10000 };
    };

    [[nodiscard]] auto show_node(const std::string& node, const ScontrolOptions& options)
      -> util::Result<formats::SlurmNode>;
    [[nodiscard]] auto drain_node(const std::string& node, const std::string& reason,
                                  const ScontrolOptions& options) -> util::Result<void>;
    [[nodiscard]] auto resume_node(const std::string& node, const ScontrolOptions& options)
      -> util::Result<void>;
}

#endif
