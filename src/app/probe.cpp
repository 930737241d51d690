#include "app/probe.hpp"

#include <utility>

#include "app/machine_state.hpp"

namespace envcheck::app
{
    auto run_probe(const ProbeRequest& request, Ports& ports) -> util::Result<ProbeOutcome>
    {
        auto facts = probe_machine(request.root, request.timeout_seconds, ports);
        if (!facts)
        {
            return util::unexpected(facts.error());
        }
        return ProbeOutcome{ std::move(*facts) };
    }
}
