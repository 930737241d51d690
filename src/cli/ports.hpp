// The real ports: the adapters (fsio, net, prefix, system, gpu, slurm) behind the interfaces of
// app/ports.hpp. Built once per run, by main, after the command line is parsed; the only place
// in the cli that reads the process environment, the clock or the file system.
#ifndef ENVCHECK_CLI_PORTS_HPP
#define ENVCHECK_CLI_PORTS_HPP

#include <memory>

#include "app/ports.hpp"
#include "cli/options.hpp"

namespace envcheck::cli
{
    class RealPorts
    {
    public:
        explicit RealPorts(const TransferOptions& transfer);
        RealPorts(const RealPorts&) = delete;
        auto operator=(const RealPorts&) -> RealPorts& = delete;
        ~RealPorts();

        [[nodiscard]] auto ports() -> app::Ports&;

    private:
        class Adapters;
        std::unique_ptr<Adapters> m_adapters;
    };
}

#endif
