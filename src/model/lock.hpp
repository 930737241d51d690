// A lock: what an environment was, package by package, and the machine it ran on, as plain
// values. envcheck's own lock (formats/lock.hpp, schemas/lock.schema.json) fills every part;
// a peer's lock read as the reference of `envcheck check` (conda-lock.yml, pixi.lock,
// @EXPLICIT, uv.lock, pylock.toml) fills only the packages and the platform.
//
// Unknown is explicit: an optional that is nullopt was not known when the lock was written
// (no driver on the machine, no GPU probe run) and is never guessed.
#ifndef ENVCHECK_MODEL_LOCK_HPP
#define ENVCHECK_MODEL_LOCK_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/package.hpp"
#include "model/smoke.hpp"

namespace envcheck::model
{
    enum class LockFormat
    {
        envcheck,   // our JSON lock (`envcheck lock`)
        conda_lock, // conda-lock.yml (CEP 37)
        pixi,       // pixi.lock
        explicit_,  // an @EXPLICIT file (CEP 23)
        uv,         // uv.lock (uv's universal lock, version 1)
        pylock,     // pylock.toml (PEP 751, lock-version 1.x)
    };

    // "envcheck", "conda-lock", "pixi", "explicit", "uv", "pylock".
    [[nodiscard]] auto to_string(LockFormat format) -> std::string_view;
    [[nodiscard]] auto parse_lock_format(std::string_view text) -> std::optional<LockFormat>;

    struct LockedGpu
    {
        int index = 0; // the CUDA ordinal
        std::optional<std::string> name;
        std::optional<std::string> uuid;
        std::optional<std::string> pci_bus_id;
        std::optional<std::string> compute_capability; // "9.0"
        std::optional<std::uint64_t> memory_total_bytes;

        auto operator==(const LockedGpu&) const -> bool = default;
    };

    struct LockedMachine
    {
        std::optional<std::string> platform;       // conda subdir: "linux-64"
        std::optional<std::string> glibc;          // "2.36"
        std::optional<std::string> python;         // the environment's python: "3.11.7"
        std::optional<std::string> driver_version; // "580.65.06"
        std::optional<std::string>
          cuda_driver_version;                      // the newest CUDA the driver supports: "13.0"
        std::optional<std::vector<LockedGpu>> gpus; // nullopt: not probed; empty: none found

        auto operator==(const LockedMachine&) const -> bool = default;
    };

    // The environment file a lock was made from: its path relative to the lock's directory and
    // the sha256 of its bytes, so that `check` can tell when the file changed after locking.
    struct LockedEnvironmentFile
    {
        std::string path;
        std::string sha256;

        auto operator==(const LockedEnvironmentFile&) const -> bool = default;
    };

    struct Lock
    {
        LockFormat format = LockFormat::envcheck;
        // The format's own version as the file states it ("1" for envcheck and conda-lock, "6" or
        // "7" for pixi, "" for @EXPLICIT).
        std::string format_version;
        std::string envcheck_version; // envcheck's own lock only
        std::string created_at;       // RFC 3339 UTC, from the run's clock (app/lock.cpp)
        std::optional<LockedEnvironmentFile> environment_file;
        LockedMachine machine;
        // One baseline per probed GPU; nullopt when no performance was recorded (--no-gpu, or no
        // GPU could be probed).
        std::optional<std::vector<PerfBaseline>> performance;
        std::vector<Package> packages;
        // Packages of the conda-lock categories that --category left out: checked when
        // installed, never reported missing.
        std::vector<Package> optional_packages;
        // pip options the lock records for its PyPI packages, as requirement-file lines:
        // "--index-url URL", "--extra-index-url URL", "--find-links URL" (pixi.lock indexes).
        std::vector<std::string> pip_options;
        // What reading a peer's lock left out, for the user (source packages, other platforms).
        std::vector<std::string> notes;

        auto operator==(const Lock&) const -> bool = default;
    };

    // The lock's packages sorted as every writer emits them: conda before pip, then by key.
    void sort_packages(std::vector<Package>& packages);
}

#endif
