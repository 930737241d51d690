#include "system/machine_probe.hpp"

#include <algorithm>
#include <optional>

#include "system/host.hpp"
#include "system/kernel_driver.hpp"
#include "system/kernel_log.hpp"
#include "system/library_search.hpp"
#include "system/pci.hpp"
#include "system/system_root.hpp"

namespace envcheck::system
{
    namespace
    {
        // The nodes CUDA opens (not /dev/nvidia-caps/*, which are read-only by design).
        auto cuda_node(const std::string& path) -> bool
        {
            if (path == "/dev/nvidiactl" || path == "/dev/nvidia-uvm")
            {
                return true;
            }
            const std::string_view rest =
              std::string_view(path).substr(std::min<std::size_t>(path.size(), 11));
            return path.starts_with("/dev/nvidia") && !rest.empty() &&
                   std::all_of(rest.begin(), rest.end(),
                               [](char c) { return c >= '0' && c <= '9'; });
        }
    }

    auto probe_machine(const ProbeOptions& options) -> model::MachineFacts
    {
        const SystemRoot root(options.root);
        model::MachineFacts facts;
        facts.root = root.display();
        facts.live = root.live() && options.load_drivers;
        facts.device_nodes = read_device_nodes(root);
        // The driver children first: they wait in cuInit (0.1 to 0.2 s on an H200) while the
        // files are read. The NVML child opens the nodes CUDA needs that this user may access: a
        // node that passes access() but cannot be opened is blocked by the device cgroup. A caller
        // waiting on NVML's facts (a smoke run's go-ahead) gets them before the files are read:
        // NVML's child answers in about 50 ms on an H200, well before cuInit returns.
        std::optional<StartedDriverProbes> started;
        std::vector<std::string> nodes;
        if (facts.live)
        {
            for (const auto& node : facts.device_nodes)
            {
                if (node.exists && node.character_device && node.accessible.value_or(false) &&
                    cuda_node(node.path))
                {
                    nodes.push_back(node.path);
                }
            }
            started.emplace(nodes, options.driver_timeout);
            if (options.nvml_heard)
            {
                options.nvml_heard(started->nvml());
            }
        }
        facts.hostname = read_hostname(root);
        facts.os = read_os(root);
        facts.cpu = read_cpu(root);
        facts.memory_total_bytes = read_memory_total(root);
        facts.container = read_container(root, options.environment);
        facts.environment = report_environment(options.environment);
        facts.pci = read_pci(root);
        facts.kernel = read_kernel_driver(root);
        facts.libraries = search_libraries(root, options.environment);
        facts.processes = read_gpu_daemons(root);
        facts.kernel_log = read_kernel_log(root);
        if (!started)
        {
            return facts;
        }
        auto drivers = started->finish();
        for (const auto& open : drivers.nvml.opens)
        {
            const auto node =
              std::find_if(facts.device_nodes.begin(), facts.device_nodes.end(),
                           [&](const model::DeviceNode& n) { return n.path == open.path; });
            if (node != facts.device_nodes.end())
            {
                node->openable = open.ok;
                node->open_error = open.error;
            }
        }
        facts.nvml = std::move(drivers.nvml.facts);
        facts.cuda = std::move(drivers.cuda);
        return facts;
    }
}
