#include "specs/platform.hpp"

#include <array>

namespace envcheck::specs
{
    namespace
    {
        struct PlatformRow
        {
            Platform platform;
            std::string_view subdir;
            OperatingSystem os;
            std::string_view architecture;
        };

        constexpr std::array<PlatformRow, 22> platform_table{ {
          { Platform::noarch, "noarch", OperatingSystem::none, "" },
          { Platform::linux_32, "linux-32", OperatingSystem::linux_os, "x86" },
          { Platform::linux_64, "linux-64", OperatingSystem::linux_os, "x86_64" },
          { Platform::linux_aarch64, "linux-aarch64", OperatingSystem::linux_os, "aarch64" },
          { Platform::linux_armv6l, "linux-armv6l", OperatingSystem::linux_os, "armv6l" },
          { Platform::linux_armv7l, "linux-armv7l", OperatingSystem::linux_os, "armv7l" },
          { Platform::linux_loong64, "linux-loong64", OperatingSystem::linux_os, "loong64" },
          { Platform::linux_ppc, "linux-ppc", OperatingSystem::linux_os, "ppc" },
          { Platform::linux_ppc64, "linux-ppc64", OperatingSystem::linux_os, "ppc64" },
          { Platform::linux_ppc64le, "linux-ppc64le", OperatingSystem::linux_os, "ppc64le" },
          { Platform::linux_riscv32, "linux-riscv32", OperatingSystem::linux_os, "riscv32" },
          { Platform::linux_riscv64, "linux-riscv64", OperatingSystem::linux_os, "riscv64" },
          { Platform::linux_s390x, "linux-s390x", OperatingSystem::linux_os, "s390x" },
          { Platform::freebsd_64, "freebsd-64", OperatingSystem::freebsd, "x86_64" },
          { Platform::osx_64, "osx-64", OperatingSystem::osx, "x86_64" },
          { Platform::osx_arm64, "osx-arm64", OperatingSystem::osx, "arm64" },
          { Platform::win_32, "win-32", OperatingSystem::windows, "x86" },
          { Platform::win_64, "win-64", OperatingSystem::windows, "x86_64" },
          { Platform::win_arm64, "win-arm64", OperatingSystem::windows, "arm64" },
          { Platform::emscripten_wasm32, "emscripten-wasm32", OperatingSystem::emscripten,
            "wasm32" },
          { Platform::wasi_wasm32, "wasi-wasm32", OperatingSystem::wasi, "wasm32" },
          { Platform::zos_z, "zos-z", OperatingSystem::zos, "z" },
        } };

        constexpr auto all_platforms = []
        {
            std::array<Platform, platform_table.size()> platforms{};
            for (std::size_t i = 0; i < platform_table.size(); ++i)
            {
                platforms[i] = platform_table[i].platform;
            }
            return platforms;
        }();

        auto row(Platform platform) -> const PlatformRow&
        {
            return platform_table[static_cast<std::size_t>(platform)];
        }
    }

    auto to_string(Platform platform) -> std::string_view
    {
        return row(platform).subdir;
    }

    auto parse_platform(std::string_view subdir) -> std::optional<Platform>
    {
        for (const auto& entry : platform_table)
        {
            if (entry.subdir == subdir)
            {
                return entry.platform;
            }
        }
        return std::nullopt;
    }

    auto is_known_subdir(std::string_view subdir) -> bool
    {
        return parse_platform(subdir).has_value();
    }

    auto known_platforms() -> std::span<const Platform>
    {
        return all_platforms;
    }

    auto to_string(OperatingSystem os) -> std::string_view
    {
        switch (os)
        {
            case OperatingSystem::none:
                return "none";
            case OperatingSystem::linux_os:
                return "linux";
            case OperatingSystem::osx:
                return "osx";
            case OperatingSystem::windows:
                return "win";
            case OperatingSystem::freebsd:
                return "freebsd";
            case OperatingSystem::emscripten:
                return "emscripten";
            case OperatingSystem::wasi:
                return "wasi";
            case OperatingSystem::zos:
                return "zos";
        }
        return "none";
    }

    auto operating_system(Platform platform) -> OperatingSystem
    {
        return row(platform).os;
    }

    auto architecture(Platform platform) -> std::string_view
    {
        return row(platform).architecture;
    }

    auto is_unix(Platform platform) -> bool
    {
        const OperatingSystem os = operating_system(platform);
        return os == OperatingSystem::linux_os || os == OperatingSystem::osx ||
               os == OperatingSystem::freebsd || os == OperatingSystem::zos;
    }
}
