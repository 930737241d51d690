// `envcheck diff`: the semantic difference between two package sets. A package set is neutral
// (name -> pin as written, manager, channel), so two environment files and two locks go
// through the same comparison and the same renderers. Pure.
#ifndef ENVCHECK_CHECKS_DIFF_HPP
#define ENVCHECK_CHECKS_DIFF_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "formats/environment_yaml.hpp"
#include "model/lock.hpp"
#include "model/package.hpp"

namespace envcheck::checks
{
    struct PackageEntry
    {
        model::Manager manager = model::Manager::conda;
        std::string name;      // as written
        std::string key;       // identity across sets: model::package_key, plus a platform selector
        std::string text;      // the entry as written: "pytorch=2.0.1", "torch==2.3.1+cu121"
        std::string canonical; // compared for equality: "numpy=1.26" and "numpy 1.26.*" agree
        std::string channel;   // "" when not given
        std::string version;   // the version the entry pins or starts from; "" when unknown
        std::string build;     // conda build string or matcher; "" when none
    };

    struct PackageSet
    {
        std::vector<std::string> channels;
        std::vector<PackageEntry> packages;
    };

    // Conda dependencies and pip lines of an environment file (pip options count as entries, so
    // that a changed --extra-index-url shows). Entries that do not parse keep their text.
    [[nodiscard]] auto package_set_from(const formats::EnvironmentFile& file) -> PackageSet;

    // The packages of a lock (any format envcheck reads): each pinned to its exact version and
    // build ("pytorch=2.0.1=py3.10_cuda11.8_cudnn8.7.0_0", "torch==2.3.1"); a package whose
    // artifact changed under the same version and build (another sha256 or md5) differs too.
    // The channels are those the packages come from, in order of first appearance.
    [[nodiscard]] auto package_set_from(const model::Lock& lock) -> PackageSet;

    enum class ChangeKind
    {
        added,
        removed,
        changed,
    };

    enum class RiskKind
    {
        cuda,      // the CUDA major or minor changes
        python,    // the Python minor changes
        framework, // a framework's major changes (pytorch, tensorflow, jax, numpy; minor for 0.x)
    };

    [[nodiscard]] auto to_string(RiskKind kind) -> std::string_view;

    struct Risk
    {
        RiskKind kind = RiskKind::framework;
        std::string message; // "CUDA 11.8 -> 12.1"
    };

    struct PackageChange
    {
        ChangeKind kind = ChangeKind::changed;
        std::optional<PackageEntry> old_entry;
        std::optional<PackageEntry> new_entry;
        std::vector<Risk> risks;

        [[nodiscard]] auto entry() const -> const PackageEntry&; // the new one, else the old
    };

    struct ChannelChanges
    {
        std::vector<std::string> added;
        std::vector<std::string> removed;
        bool reordered = false; // the channels both sets list are in a different order
    };

    struct PackageSetDiff
    {
        std::vector<std::string> old_channels;
        std::vector<std::string> new_channels;
        ChannelChanges channels;
        std::vector<PackageChange> packages; // sorted by name, then manager

        [[nodiscard]] auto equal() const -> bool;
    };

    [[nodiscard]] auto diff_package_sets(const PackageSet& older, const PackageSet& newer)
      -> PackageSetDiff;
}

#endif
