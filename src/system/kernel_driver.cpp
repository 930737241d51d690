#include "system/kernel_driver.hpp"

#include <algorithm>
#include <array>
#include <unistd.h>

#include "util/strings.hpp"

namespace envcheck::system
{
    namespace
    {
        constexpr std::array<std::string_view, 5> module_names{ "nvidia", "nvidia_uvm",
                                                                "nvidia_modeset", "nvidia_drm",
                                                                "nouveau" };

        // Reported even when missing: their absence is a finding.
        constexpr std::array<std::string_view, 2> required_nodes{ "/dev/nvidiactl",
                                                                  "/dev/nvidia-uvm" };

        auto is_numbered(std::string_view name, std::string_view prefix) -> bool
        {
            if (!name.starts_with(prefix) || name.size() == prefix.size())
            {
                return false;
            }
            const auto rest = name.substr(prefix.size());
            return std::all_of(rest.begin(), rest.end(), util::is_digit);
        }

        auto read_node(const SystemRoot& root, const std::string& path) -> model::DeviceNode
        {
            model::DeviceNode node;
            node.path = path;
            const auto status = root.status(path);
            if (!status)
            {
                return node;
            }
            node.exists = true;
            node.character_device = status->character_device;
            node.mode = status->mode;
            node.uid = status->uid;
            node.gid = status->gid;
            if (root.live())
            {
                node.accessible = ::access(path.c_str(), R_OK | W_OK) == 0;
            }
            else
            {
                // Under --root the user is unknown: what everyone may do decides.
                node.accessible = (status->mode & 06u) == 06u;
            }
            return node;
        }
    }

    auto is_driver_version(std::string_view text) -> bool
    {
        const auto parts = util::split(text, '.');
        const bool numbers =
          (parts.size() == 2 || parts.size() == 3) &&
          std::all_of(parts.begin(), parts.end(),
                      [](std::string_view part)
                      {
                          return !part.empty() && part.size() <= 6 &&
                                 std::all_of(part.begin(), part.end(), util::is_digit);
                      });
        // NVIDIA's Linux driver branches are numbered from 100 up; "1.1" (WSL's libcuda.so.1.1)
        // is a soname version.
        return numbers && parts.front().size() >= 3;
    }

    auto parse_nvrm_version(std::string_view text) -> std::optional<std::string>
    {
        for (const auto line : util::split_lines(text))
        {
            if (!util::trim(line).starts_with("NVRM version:"))
            {
                continue;
            }
            const auto module = line.find("Kernel Module");
            if (module == std::string_view::npos)
            {
                return std::nullopt;
            }
            for (const auto word : util::split(line.substr(module), ' '))
            {
                if (is_driver_version(util::trim(word)))
                {
                    return std::string(util::trim(word));
                }
            }
            return std::nullopt;
        }
        return std::nullopt;
    }

    auto read_kernel_driver(const SystemRoot& root) -> model::KernelDriverFacts
    {
        model::KernelDriverFacts kernel;
        if (const auto text = root.read_text("/proc/driver/nvidia/version"))
        {
            for (const auto line : util::split_lines(*text))
            {
                if (util::trim(line).starts_with("NVRM version:"))
                {
                    kernel.nvrm_line = std::string(util::trim(line));
                }
            }
            if (auto version = parse_nvrm_version(*text))
            {
                kernel.version = std::move(version);
                kernel.version_source = "/proc/driver/nvidia/version";
            }
        }
        for (const auto name : module_names)
        {
            model::KernelModule module;
            module.name = std::string(name);
            const std::string dir = "/sys/module/" + module.name;
            module.loaded = root.is_directory(dir);
            if (const auto version = root.read_text(dir + "/version"))
            {
                const auto trimmed = util::trim(*version);
                if (!trimmed.empty())
                {
                    module.version = std::string(trimmed);
                }
            }
            kernel.modules.push_back(std::move(module));
        }
        if (!kernel.version)
        {
            const auto* nvidia = kernel.module("nvidia");
            if (nvidia != nullptr && nvidia->version && is_driver_version(*nvidia->version))
            {
                kernel.version = nvidia->version;
                kernel.version_source = "/sys/module/nvidia/version";
            }
        }
        if (const auto gpus = root.list_directory("/proc/driver/nvidia/gpus"))
        {
            kernel.proc_gpus = *gpus;
        }
        return kernel;
    }

    auto read_device_nodes(const SystemRoot& root) -> std::vector<model::DeviceNode>
    {
        std::vector<std::string> paths(required_nodes.begin(), required_nodes.end());
        if (const auto names = root.list_directory("/dev"))
        {
            for (const auto& name : *names)
            {
                if (is_numbered(name, "nvidia") || is_numbered(name, "nvidia-nvswitch") ||
                    name == "nvidia-uvm-tools" || name == "nvidia-modeset" ||
                    name == "nvidia-nvswitchctl" || name == "dxg")
                {
                    paths.push_back("/dev/" + name);
                }
            }
        }
        if (const auto caps = root.list_directory("/dev/nvidia-caps"))
        {
            for (const auto& name : *caps)
            {
                paths.push_back("/dev/nvidia-caps/" + name);
            }
        }
        std::vector<model::DeviceNode> nodes;
        for (const auto& path : paths)
        {
            nodes.push_back(read_node(root, path));
        }
        return nodes;
    }
}
