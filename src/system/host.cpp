#include "system/host.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <gnu/libc-version.h>
#include <limits>
#include <sys/utsname.h>
#include <unistd.h>

#include "util/strings.hpp"

namespace envcheck::system
{
    namespace
    {
        constexpr std::array<std::string_view, 2> gpu_daemons{ fabric_manager_process,
                                                               persistence_daemon_process };

        // Where libc.so.6 lives on the common distributions.
        constexpr std::array<std::string_view, 4> libc_paths{ "/lib/x86_64-linux-gnu/libc.so.6",
                                                              "/usr/lib/x86_64-linux-gnu/libc.so.6",
                                                              "/lib64/libc.so.6",
                                                              "/usr/lib64/libc.so.6" };

        constexpr std::array<std::string_view, 6> container_cgroup_words{ "docker",     "kubepods",
                                                                          "containerd", "libpod",
                                                                          "lxc",        "crio" };
    }

    auto os_release_value(std::string_view text, std::string_view key) -> std::optional<std::string>
    {
        for (const auto raw : util::split_lines(text))
        {
            const auto line = util::trim(raw);
            if (!line.starts_with(key) || line.size() <= key.size() || line[key.size()] != '=')
            {
                continue;
            }
            auto value = util::trim(line.substr(key.size() + 1));
            if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
                value.back() == value.front())
            {
                value = value.substr(1, value.size() - 2);
            }
            return std::string(value);
        }
        return std::nullopt;
    }

    auto glibc_version_from_banner(std::string_view text) -> std::optional<std::string>
    {
        constexpr std::string_view marker = "release version ";
        const auto at = text.find(marker);
        if (at == std::string_view::npos)
        {
            return std::nullopt;
        }
        auto start = at + marker.size();
        auto end = start;
        while (end < text.size() && (util::is_digit(text[end]) || text[end] == '.'))
        {
            ++end;
        }
        while (end > start && text[end - 1] == '.')
        {
            --end;
        }
        if (end == start)
        {
            return std::nullopt;
        }
        return std::string(text.substr(start, end - start));
    }

    auto read_os(const SystemRoot& root) -> model::OsFacts
    {
        model::OsFacts os;
        auto release = root.read_text("/etc/os-release");
        if (!release)
        {
            release = root.read_text("/usr/lib/os-release");
        }
        if (release)
        {
            os.pretty_name = os_release_value(*release, "PRETTY_NAME").value_or("");
            os.id = os_release_value(*release, "ID").value_or("");
            os.version_id = os_release_value(*release, "VERSION_ID").value_or("");
        }
        if (const auto kernel = root.read_text("/proc/sys/kernel/osrelease"))
        {
            os.kernel_release = std::string(util::trim(*kernel));
        }
        if (root.live())
        {
            utsname names{};
            if (::uname(&names) == 0)
            {
                os.architecture = names.machine;
                if (os.kernel_release.empty())
                {
                    os.kernel_release = names.release;
                }
            }
            os.glibc_version = ::gnu_get_libc_version();
        }
        else
        {
            if (const auto arch = root.read_text("/proc/sys/kernel/arch"))
            {
                os.architecture = std::string(util::trim(*arch));
            }
            for (const auto path : libc_paths)
            {
                if (const auto libc = root.read_text(path, std::size_t{ 16 } << 20))
                {
                    os.glibc_version = glibc_version_from_banner(*libc);
                    break;
                }
            }
        }
        const auto kernel = util::to_lower(os.kernel_release);
        if (kernel.find("microsoft") != std::string::npos ||
            kernel.find("wsl") != std::string::npos)
        {
            os.wsl_markers.push_back("kernel " + os.kernel_release);
        }
        if (root.exists("/dev/dxg"))
        {
            os.wsl_markers.emplace_back("/dev/dxg");
        }
        if (root.is_directory("/usr/lib/wsl/lib"))
        {
            os.wsl_markers.emplace_back("/usr/lib/wsl/lib");
        }
        // /usr/lib/wsl/lib alone can be a leftover in an image; it needs another marker.
        if (os.wsl_markers.size() == 1 && os.wsl_markers.front() == "/usr/lib/wsl/lib")
        {
            os.wsl_markers.clear();
        }
        return os;
    }

    auto read_cpu(const SystemRoot& root) -> model::CpuFacts
    {
        model::CpuFacts cpu;
        const auto info = root.read_text("/proc/cpuinfo", std::size_t{ 8 } << 20);
        if (!info)
        {
            return cpu;
        }
        int processors = 0;
        for (const auto line : util::split_lines(*info))
        {
            const auto colon = line.find(':');
            if (colon == std::string_view::npos)
            {
                continue;
            }
            const auto key = util::trim(line.substr(0, colon));
            if (key == "processor")
            {
                ++processors;
            }
            else if (key == "model name" && cpu.model.empty())
            {
                cpu.model = std::string(util::trim(line.substr(colon + 1)));
            }
        }
        if (processors > 0)
        {
            cpu.logical_cpus = processors;
        }
        return cpu;
    }

    auto read_memory_total(const SystemRoot& root) -> std::optional<std::uint64_t>
    {
        const auto info = root.read_text("/proc/meminfo");
        if (!info)
        {
            return std::nullopt;
        }
        for (const auto line : util::split_lines(*info))
        {
            // "MemTotal:       263855436 kB"
            if (!line.starts_with("MemTotal:"))
            {
                continue;
            }
            const auto value = util::trim(line.substr(9));
            std::uint64_t kib = 0;
            const auto* end = value.data() + value.size();
            const auto [ptr, error] = std::from_chars(value.data(), end, kib);
            if (error != std::errc{} || util::trim(std::string_view(ptr, end - ptr)) != "kB" ||
                kib > (std::numeric_limits<std::uint64_t>::max() >> 10U))
            {
                return std::nullopt;
            }
            return kib << 10U;
        }
        return std::nullopt;
    }

    auto read_container(const SystemRoot& root, const Environment& environment)
      -> model::ContainerFacts
    {
        model::ContainerFacts container;
        for (const std::string_view marker : { "/.dockerenv", "/run/.containerenv" })
        {
            if (root.exists(marker))
            {
                container.markers.emplace_back(marker);
            }
        }
        if (const auto cgroup = root.read_text("/proc/1/cgroup"))
        {
            for (const auto word : container_cgroup_words)
            {
                if (cgroup->find(word) != std::string::npos)
                {
                    container.markers.push_back("/proc/1/cgroup mentions " + std::string(word));
                    break;
                }
            }
        }
        if (root.live())
        {
            if (const auto found = environment.find("container"); found != environment.end())
            {
                container.markers.push_back("container=" + found->second);
            }
            if (environment.contains("KUBERNETES_SERVICE_HOST"))
            {
                container.markers.emplace_back("KUBERNETES_SERVICE_HOST is set");
            }
        }
        return container;
    }

    auto read_gpu_daemons(const SystemRoot& root) -> std::vector<std::string>
    {
        std::vector<std::string> running;
        const auto entries = root.list_directory("/proc");
        if (!entries)
        {
            return running;
        }
        for (const auto& entry : *entries)
        {
            if (entry.empty() || !std::all_of(entry.begin(), entry.end(), util::is_digit))
            {
                continue;
            }
            const auto comm = root.read_text("/proc/" + entry + "/comm");
            if (!comm)
            {
                continue;
            }
            const auto name = util::trim(*comm);
            for (const auto daemon : gpu_daemons)
            {
                // comm holds at most 15 characters of the name.
                if (!name.empty() && daemon.substr(0, 15) == name &&
                    std::find(running.begin(), running.end(), daemon) == running.end())
                {
                    running.emplace_back(daemon);
                }
            }
        }
        return running;
    }

    auto read_hostname(const SystemRoot& root) -> std::string
    {
        if (root.live())
        {
            char name[256] = {};
            if (::gethostname(name, sizeof(name) - 1) == 0)
            {
                return name;
            }
            return {};
        }
        const auto text = root.read_text("/etc/hostname");
        return text ? std::string(util::trim(*text)) : std::string{};
    }
}
