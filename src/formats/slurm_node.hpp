// `scontrol show node NAME` output, as Slurm 22.05 through 24.x print it.
#ifndef ENVCHECK_FORMATS_SLURM_NODE_HPP
#define ENVCHECK_FORMATS_SLURM_NODE_HPP

#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace envcheck::formats
{
    struct SlurmNode
    {
        std::string name;
        std::vector<std::string> states; // "State=IDLE+DRAIN" -> {"IDLE", "DRAIN"}
        std::string reason;              // without the trailing "[user@time]" stamp

        [[nodiscard]] auto has_state(std::string_view state) const -> bool;
        // DRAIN, DRAINING and DRAINED all carry the DRAIN flag in scontrol's State field.
        [[nodiscard]] auto is_drained() const -> bool { return has_state("DRAIN"); }
    };

    [[nodiscard]] auto parse_scontrol_node(std::string_view text) -> util::Result<SlurmNode>;

    // Why `name` is not the name of exactly one Slurm node, or "" when it is one. scontrol reads
    // "gpu[01-03]" and "a,b" as host lists and would act on every node they name (issue 15: an
    // operator's drain was cleared that way); a node name is letters, digits, '-', '_' and '.'.
    [[nodiscard]] auto single_node_name_problem(std::string_view name) -> std::string;

    // How many nodes an scontrol show node answer describes (its NodeName= fields).
    [[nodiscard]] auto count_scontrol_nodes(std::string_view text) -> std::size_t;
}

#endif
