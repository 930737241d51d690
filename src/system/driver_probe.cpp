#include "system/driver_probe.hpp"

#include <optional>
#include <string_view>
#include <type_traits>
#include <variant>

#include "system/driver_children.hpp"

namespace envcheck::system
{
    namespace
    {
        // What one driver child said: its last findings, the last step it announced, whether it
        // finished, and the first line it wrote that was not an event.
        template<class Findings>
        struct Heard
        {
            std::optional<Findings> findings;
            std::string step;
            bool finished = false;
            std::string garbled;

            void take(std::string_view line)
            {
                auto event = wire::decode(line);
                if (!event)
                {
                    if (garbled.empty())
                    {
                        garbled = event.error();
                    }
                    return;
                }
                if (const auto* step_event = std::get_if<wire::StepEvent>(&*event))
                {
                    step = step_event->step;
                }
                else if (std::holds_alternative<wire::FinishEvent>(*event))
                {
                    finished = true;
                }
                else if (auto* nvml = std::get_if<wire::NvmlEvent>(&*event))
                {
                    if constexpr (std::is_same_v<Findings, wire::NvmlProbe>)
                    {
                        findings = std::move(nvml->probe);
                    }
                }
                else if (auto* cuda = std::get_if<wire::CudaEvent>(&*event))
                {
                    if constexpr (std::is_same_v<Findings, model::CudaDriverFacts>)
                    {
                        findings = std::move(cuda->facts);
                    }
                }
            }
        };

        // "the CUDA driver probe timed out after 20 s in cuInit (its output: '...')".
        template<class Findings>
        auto failure(const char* what, const Heard<Findings>& heard,
                     const fsio::ChildReport& report, const fsio::ChildLimits& limits)
          -> model::ProbeFailure
        {
            model::ProbeFailure failure;
            if (heard.finished)
            {
                return failure;
            }
            failure.timed_out = report.timed_out();
            failure.step = heard.step;
            failure.message = std::string("the ") + what + " " + report.describe(limits) +
                              (heard.step.empty() ? "" : " in " + heard.step);
            if (!heard.garbled.empty())
            {
                failure.message += "; it wrote an unreadable line (" + heard.garbled + ")";
            }
            if (const auto output = report.output_tail(200); !output.empty())
            {
                failure.message += " (its output: '" + output + "')";
            }
            return failure;
        }

        auto limits_for(std::chrono::milliseconds timeout) -> fsio::ChildLimits
        {
            fsio::ChildLimits limits;
            limits.total = timeout;
            return limits;
        }

        auto nvml_result(Heard<wire::NvmlProbe>& heard, const fsio::ChildReport& report,
                         const fsio::ChildLimits& limits) -> wire::NvmlProbe
        {
            auto probe = std::move(heard.findings).value_or(wire::NvmlProbe{});
            probe.facts.attempted = true;
            probe.facts.failure = failure("NVML probe", heard, report, limits);
            return probe;
        }

        auto cuda_result(Heard<model::CudaDriverFacts>& heard, const fsio::ChildReport& report,
                         const fsio::ChildLimits& limits) -> model::CudaDriverFacts
        {
            auto facts = std::move(heard.findings).value_or(model::CudaDriverFacts{});
            facts.attempted = true;
            facts.failure = failure("CUDA driver probe", heard, report, limits);
            return facts;
        }
    }

    struct StartedDriverProbes::State
    {
        fsio::ChildLimits limits;
        Heard<wire::NvmlProbe> nvml;
        Heard<model::CudaDriverFacts> cuda;
        std::optional<fsio::RunningChild> nvml_child;
        std::optional<fsio::RunningChild> cuda_child;
        std::optional<wire::NvmlProbe> nvml_probe; // once its child has answered
    };

    StartedDriverProbes::StartedDriverProbes(const std::vector<std::string>& nodes_to_open,
                                             std::chrono::milliseconds timeout)
      : m_state(std::make_unique<State>())
    {
        auto& state = *m_state;
        state.limits = limits_for(timeout);
        // Both run from now; each one's deadline counts from its start, so watching them one
        // after the other bounds the pair by one timeout, as watching them together does. Each
        // is done at its finish line: its exit, where the driver closes its handles, is not
        // waited for (a smoke run's early go-ahead waits on NVML's answer, not on that).
        state.nvml_child.emplace(fsio::ChildJob{
          [&nodes_to_open](fsio::LineWriter& out) { return nvml_child(nodes_to_open, out); },
          state.limits, [&state](std::string_view line) { state.nvml.take(line); },
          [&state](std::string_view) { return state.nvml.finished; } });
        state.cuda_child.emplace(
          fsio::ChildJob{ [](fsio::LineWriter& out) { return cuda_child(out); }, state.limits,
                          [&state](std::string_view line) { state.cuda.take(line); },
                          [&state](std::string_view) { return state.cuda.finished; } });
    }

    StartedDriverProbes::~StartedDriverProbes() = default;

    auto StartedDriverProbes::nvml() -> const model::NvmlFacts&
    {
        auto& state = *m_state;
        if (!state.nvml_probe)
        {
            state.nvml_probe = nvml_result(state.nvml, state.nvml_child->finish(), state.limits);
        }
        return state.nvml_probe->facts;
    }

    auto StartedDriverProbes::finish() -> DriverProbes
    {
        auto& state = *m_state;
        (void)nvml();
        const auto cuda_report = state.cuda_child->finish();
        return DriverProbes{ std::move(*state.nvml_probe),
                             cuda_result(state.cuda, cuda_report, state.limits) };
    }

    auto probe_drivers(const std::vector<std::string>& nodes_to_open,
                       std::chrono::milliseconds timeout) -> DriverProbes
    {
        return StartedDriverProbes(nodes_to_open, timeout).finish();
    }

    auto probe_nvml(const std::vector<std::string>& nodes_to_open,
                    std::chrono::milliseconds timeout) -> wire::NvmlProbe
    {
        const auto limits = limits_for(timeout);
        Heard<wire::NvmlProbe> heard;
        const auto report =
          fsio::run_child([&](fsio::LineWriter& out) { return nvml_child(nodes_to_open, out); },
                          limits, [&](std::string_view line) { heard.take(line); });
        return nvml_result(heard, report, limits);
    }

    auto probe_cuda_driver(std::chrono::milliseconds timeout) -> model::CudaDriverFacts
    {
        const auto limits = limits_for(timeout);
        Heard<model::CudaDriverFacts> heard;
        const auto report =
          fsio::run_child([](fsio::LineWriter& out) { return cuda_child(out); }, limits,
                          [&](std::string_view line) { heard.take(line); });
        return cuda_result(heard, report, limits);
    }
}
