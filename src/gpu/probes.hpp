// The probe registry: one row per probe {id, description, requirement, run}. The rows run in
// table order inside the probe child process (gpu/smoke.hpp); a requirement the device does not
// meet gives `skip` with the reason, and a failed gate (hello) skips the rest of that device.
// Binaries built without CUDA carry no probes: probes() is empty there.
#ifndef ENVCHECK_GPU_PROBES_HPP
#define ENVCHECK_GPU_PROBES_HPP

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fsio/child.hpp"
#include "gpu/smoke.hpp"
#include "model/smoke.hpp"

namespace envcheck::gpu
{
    struct ProbeContext
    {
        const model::GpuDevice& device;
        model::SmokeMode mode = model::SmokeMode::quick;
        std::uint32_t seed = 1; // fresh per run: inputs are random, never the same twice
        // An earlier probe has kept this device busy a moment ago, so its clocks are up: a probe
        // warms up only past its own first launches (a few ms), not for the clocks' ramp.
        bool warm = false;
    };

    // The least load before timing: long enough for the clocks to ramp up on a cold device; on a
    // warm one, the first launches' own costs (module load, caches).
    [[nodiscard]] inline auto warmup_ms(bool warm, double cold_ms) -> double
    {
        return warm ? std::min(cold_ms, 2.0) : cold_ms;
    }

    struct Probe
    {
        std::string_view id;
        std::string_view description;
        std::string_view requirement; // "" when it runs on any device
        // The reason the device does not meet the requirement; nullopt when it does.
        std::optional<std::string> (*unmet)(const model::GpuDevice& device);
        model::ProbeResult (*run)(const ProbeContext& context);
        bool gate = false; // when it does not pass, the later probes on the device are skipped
        // The pinned host memory it holds at once in `mode` (nullptr: none), for the child to
        // touch ahead of time (kernels::reserve_host_memory).
        std::size_t (*pinned_host_bytes)(model::SmokeMode mode) = nullptr;
    };

    // What the probe child reserves for `probes` (ids) in `mode`: the most pinned host memory
    // any one of them holds at once; each gives its buffers back for the next to reuse.
    [[nodiscard]] auto pinned_host_reserve(std::span<const std::string> probes,
                                           model::SmokeMode mode) -> std::size_t;

    [[nodiscard]] auto probes() -> std::span<const Probe>;
    [[nodiscard]] auto find_probe(std::string_view id) -> const Probe*;

#ifdef ENVCHECK_WITH_CUDA
    // The child process's main: loads the driver, reports the runtime, waits for the parent's
    // go-ahead (wire::GoAhead on stdin), then opens each requested device that is not spared
    // and runs the requested probes on it, writing wire/events.hpp events to `out`. The first
    // CUDA call of the process happens here. Returns the exit status.
    [[nodiscard]] auto run_probe_child(const SmokeRequest& request, fsio::LineWriter& out) -> int;
#endif
}

#endif
