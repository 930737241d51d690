// envcheck probe: facts about this machine (or a root directory), gathered without needing a
// working CUDA. With no subcommand and no ./environment.yml, envcheck does this too.
#ifndef ENVCHECK_APP_PROBE_HPP
#define ENVCHECK_APP_PROBE_HPP

#include <string>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "model/machine.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct ProbeRequest
    {
        std::string root = "/";        // another root: files only, nothing is loaded
        double timeout_seconds = 20.0; // NVML and the CUDA driver, each
    };

    struct ProbeOutcome
    {
        model::MachineFacts facts;

        [[nodiscard]] auto verdict() const -> Verdict { return Verdict::clean; }
    };

    // Fails (ErrorKind::usage) when root is not a directory.
    [[nodiscard]] auto run_probe(const ProbeRequest& request, Ports& ports)
      -> util::Result<ProbeOutcome>;
}

#endif
