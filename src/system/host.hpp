// The machine around the GPU: OS release, kernel, glibc, CPU, container and WSL markers, and
// the GPU daemons that run (Fabric Manager, the persistence daemon). Read through a SystemRoot.
#ifndef ENVCHECK_SYSTEM_HOST_HPP
#define ENVCHECK_SYSTEM_HOST_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/machine.hpp"
#include "system/environment.hpp"
#include "system/system_root.hpp"

namespace envcheck::system
{
    [[nodiscard]] auto read_os(const SystemRoot& root) -> model::OsFacts;
    [[nodiscard]] auto read_cpu(const SystemRoot& root) -> model::CpuFacts;
    // MemTotal of /proc/meminfo, in bytes; nullopt when it cannot be read.
    [[nodiscard]] auto read_memory_total(const SystemRoot& root) -> std::optional<std::uint64_t>;
    [[nodiscard]] auto read_container(const SystemRoot& root, const Environment& environment)
      -> model::ContainerFacts;
    // Running GPU daemons, by the names in gpu_daemons.
    [[nodiscard]] auto read_gpu_daemons(const SystemRoot& root) -> std::vector<std::string>;
    [[nodiscard]] auto read_hostname(const SystemRoot& root) -> std::string;

    inline constexpr std::string_view fabric_manager_process = "nv-fabricmanager";
    inline constexpr std::string_view persistence_daemon_process = "nvidia-persistenced";

    // Text parsers, exposed for tests.
    // KEY=value lines of os-release, quotes removed; nullopt when the key is absent.
    [[nodiscard]] auto os_release_value(std::string_view text, std::string_view key)
      -> std::optional<std::string>;
    // "2.36" from the banner inside libc.so.6 ("... release version 2.36.").
    [[nodiscard]] auto glibc_version_from_banner(std::string_view text)
      -> std::optional<std::string>;
}

#endif
