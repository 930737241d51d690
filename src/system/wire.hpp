// The JSON that the probing child processes write back over their pipe: NVML and CUDA driver
// findings, one line each. Not a user-facing format (schemas/probe.schema.json is that one);
// only the two ends of the pipe must agree.
#ifndef ENVCHECK_SYSTEM_WIRE_HPP
#define ENVCHECK_SYSTEM_WIRE_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/machine.hpp"
#include "util/result.hpp"

namespace envcheck::system
{
    // A device node the NVML child tried to open.
    struct NodeOpen
    {
        std::string path;
        bool ok = false;
        std::string error;

        auto operator==(const NodeOpen&) const -> bool = default;
    };

    struct NvmlProbe
    {
        model::NvmlFacts facts;
        std::vector<NodeOpen> opens;

        auto operator==(const NvmlProbe&) const -> bool = default;
    };

    [[nodiscard]] auto encode_nvml(const NvmlProbe& probe) -> std::string;
    [[nodiscard]] auto decode_nvml(std::string_view text) -> util::Result<NvmlProbe>;
    [[nodiscard]] auto encode_cuda(const model::CudaDriverFacts& facts) -> std::string;
    [[nodiscard]] auto decode_cuda(std::string_view text) -> util::Result<model::CudaDriverFacts>;

    // {"step":"cuInit"}: written before a call that can hang, so a timeout can name it.
    [[nodiscard]] auto encode_step(std::string_view step) -> std::string;
    // The step of a step line; empty for other lines.
    [[nodiscard]] auto decode_step(std::string_view line) -> std::string;

    // What a probing child wrote: the findings `decode` read from its last findings line, if
    // any, and the last step it announced (where it was when it hung or died).
    template<class Findings>
    struct ChildReport
    {
        std::optional<Findings> findings;
        std::string step;
    };

    template<class Findings, class Decode>
    [[nodiscard]] auto read_child_report(const std::vector<std::string>& lines, Decode&& decode)
      -> ChildReport<Findings>
    {
        ChildReport<Findings> report;
        for (const auto& line : lines)
        {
            if (auto step = decode_step(line); !step.empty())
            {
                report.step = std::move(step);
            }
            else if (auto findings = decode(line))
            {
                report.findings = std::move(findings).value();
            }
        }
        return report;
    }
}

#endif
