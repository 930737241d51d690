// conda platforms (subdirs): `linux-64`, `osx-arm64`, `win-64`, `noarch`, ...
//
// The table is the union of the subdirs conda, rattler and mamba know. A channel path whose last
// component is one of these is a channel plus a subdir (`conda-forge/linux-64`); any other
// component belongs to the channel name (`conda-forge/label/dev`).
#ifndef ENVCHECK_SPECS_PLATFORM_HPP
#define ENVCHECK_SPECS_PLATFORM_HPP

#include <optional>
#include <span>
#include <string_view>

namespace envcheck::specs
{
    enum class Platform
    {
        noarch,
        linux_32,
        linux_64,
        linux_aarch64,
        linux_armv6l,
        linux_armv7l,
        linux_loong64,
        linux_ppc,
        linux_ppc64,
        linux_ppc64le,
        linux_riscv32,
        linux_riscv64,
        linux_s390x,
        freebsd_64,
        osx_64,
        osx_arm64,
        win_32,
        win_64,
        win_arm64,
        emscripten_wasm32,
        wasi_wasm32,
        zos_z,
    };

    enum class OperatingSystem
    {
        none,     // noarch
        linux_os, // not `linux`: GNU mode predefines that macro
        osx,
        windows,
        freebsd,
        emscripten,
        wasi,
        zos,
    };

    // The subdir name: "linux-64".
    [[nodiscard]] auto to_string(Platform platform) -> std::string_view;
    // A subdir name (exact, lowercase); nullopt for unknown names.
    [[nodiscard]] auto parse_platform(std::string_view subdir) -> std::optional<Platform>;
    [[nodiscard]] auto is_known_subdir(std::string_view subdir) -> bool;
    [[nodiscard]] auto known_platforms() -> std::span<const Platform>;

    [[nodiscard]] auto to_string(OperatingSystem os) -> std::string_view;
    [[nodiscard]] auto operating_system(Platform platform) -> OperatingSystem;
    // The CPU architecture as conda's `__archspec`-free name: "x86_64", "aarch64", "ppc64le",
    // "arm64" (osx), "x86" (32-bit Intel); "" for noarch.
    [[nodiscard]] auto architecture(Platform platform) -> std::string_view;
    // linux, osx, freebsd, zos: the platforms with the `__unix` virtual package.
    [[nodiscard]] auto is_unix(Platform platform) -> bool;
}

#endif
