// `envcheck probe`: every fact about the machine, gathered without needing a working CUDA.
// Under --root only files are read; on the live system NVML and the CUDA driver are probed too,
// each in a child process, both at once under one deadline (driver_timeout).
#ifndef ENVCHECK_SYSTEM_MACHINE_PROBE_HPP
#define ENVCHECK_SYSTEM_MACHINE_PROBE_HPP

#include <chrono>
#include <functional>
#include <string>

#include "model/machine.hpp"
#include "system/driver_probe.hpp"
#include "system/environment.hpp"

namespace envcheck::system
{
    struct ProbeOptions
    {
        std::string root = "/";
        Environment environment; // from read_environment(), or a test's own
        std::chrono::milliseconds driver_timeout = default_driver_timeout;
        bool load_drivers = true; // false: files only, as under --root
        // Called with NVML's facts as soon as its child has answered (live root only), before
        // the files are read and the CUDA driver's child is waited for.
        std::function<void(const model::NvmlFacts&)> nvml_heard;
    };

    [[nodiscard]] auto probe_machine(const ProbeOptions& options) -> model::MachineFacts;
}

#endif
