// The real ports: the adapters (fsio, net, prefix, system, gpu, slurm) behind the interfaces of
// app/ports.hpp. Built once per run, by the cli's main, after the command line is parsed; the
// only place where a run reads the process environment, the clock or the file system for the
// cli (which includes no adapter: it reaches them through app::Ports).
#ifndef ENVCHECK_HOST_PORTS_HPP
#define ENVCHECK_HOST_PORTS_HPP

#include <memory>
#include <string>
#include <string_view>

#include "app/ports.hpp"
#include "model/machine.hpp"

namespace envcheck::host
{
    // How URL inputs are fetched (--ca-bundle, --connect-timeout, --download-timeout,
    // --max-download): one set per run, which the cli's options fill.
    struct TransferOptions
    {
        double connect_timeout_seconds = 10.0;
        double download_timeout_seconds = 300.0;
        double max_download_mib = 1024.0;
        std::string ca_bundle;
    };

    class RealPorts
    {
    public:
        // `version`: envcheck's, for the HTTP user agent.
        RealPorts(const TransferOptions& transfer, std::string_view version);
        RealPorts(const RealPorts&) = delete;
        auto operator=(const RealPorts&) -> RealPorts& = delete;
        ~RealPorts();

        [[nodiscard]] auto ports() -> app::Ports&;

    private:
        class Adapters;
        std::unique_ptr<Adapters> m_adapters;
    };

    // Starts the threads that share the work of every Workers::for_each (prefix::start_helpers)
    // while the command line is still being read.
    void start_workers();

    // What this binary carries for the GPU (the CUDA runtime, the kernels' architectures).
    [[nodiscard]] auto embedded_runtime() -> model::EmbeddedRuntime;
}

#endif
