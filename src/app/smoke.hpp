// envcheck smoke: the GPU probe kernels, run by the smoke port in a watched child process. When
// no GPU could be probed, the doctor's first broken link says why.
#ifndef ENVCHECK_APP_SMOKE_HPP
#define ENVCHECK_APP_SMOKE_HPP

#include <string>
#include <vector>

#include "app/outcome.hpp"
#include "app/ports.hpp"
#include "model/smoke.hpp"
#include "report/registry_list.hpp"
#include "util/result.hpp"

namespace envcheck::app
{
    struct SmokeRequest
    {
        bool full = false;               // size sweeps and more repeats; else quick
        int device = 0;                  // the CUDA ordinal
        bool all_devices = false;        // every device, one after another
        double timeout_seconds = 30.0;   // a probe silent for longer is killed
        std::vector<std::string> probes; // ids; empty: all
        // Run on GPUs that other processes compute on too; else they are skipped with the
        // reason (passive when busy).
        bool even_if_busy = false;
    };

    struct SmokeOutcome
    {
        model::SmokeReport report;
        FleetView fleet; // one run, "smoke"

        // A device this machine does not have is bad usage; a failed probe, or no GPU at all,
        // a finding.
        [[nodiscard]] auto verdict() const -> Verdict;
    };

    // Fails (ErrorKind::usage) for an unknown probe id, with the closest one.
    [[nodiscard]] auto run_smoke(const SmokeRequest& request, Ports& ports)
      -> util::Result<SmokeOutcome>;

    // smoke --list: the probe registry in run order; empty when envcheck was built without CUDA.
    [[nodiscard]] auto smoke_probe_list(const GpuSmoke& smoke) -> std::vector<report::RegistryRow>;
}

#endif
