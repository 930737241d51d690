// An installed or locked package, conda or pip, as every module sees it. Fields not known for
// a package stay empty (strings) or nullopt; nothing is guessed.
#ifndef ENVCHECK_MODEL_PACKAGE_HPP
#define ENVCHECK_MODEL_PACKAGE_HPP

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/boxed.hpp"
#include "util/text_list.hpp"

namespace envcheck::model
{
    enum class Manager
    {
        conda,
        pip,
    };

    [[nodiscard]] auto to_string(Manager manager) -> std::string_view;
    [[nodiscard]] auto parse_manager(std::string_view text) -> std::optional<Manager>;

    // pip's direct_url.json (PEP 610): how a package installed from a URL, VCS or directory
    // was obtained.
    struct DirectUrl
    {
        std::string url;
        std::string vcs;       // "git", "hg", ... for VCS installs
        std::string commit_id; // the resolved commit of a VCS install
        std::string requested_revision;
        std::string archive_sha256; // archive_info.hashes.sha256, when given
        bool editable = false;      // dir_info.editable

        auto operator==(const DirectUrl&) const -> bool = default;
    };

    struct Package
    {
        Manager manager = Manager::conda;
        std::string name; // conda: the record's name; pip: METADATA's Name as written
        std::string version;
        std::string build; // conda build string; empty for pip
        std::optional<long long> build_number;
        std::string channel; // conda: channel URL or name as recorded
        std::string subdir;  // "linux-64", "noarch", ...
        std::string url;
        std::string filename; // the artifact's file name ("fn")
        std::string sha256;   // of the artifact, lowercase hex
        std::string md5;
        std::optional<std::uint64_t> size;
        bool requested = false; // asked for explicitly, not pulled in as a dependency
        std::string installer;  // pip INSTALLER ("pip", "uv", "conda"); "conda" for records
        util::Boxed<DirectUrl> direct_url; // few packages have one
        util::TextList depends;            // conda depends / pip Requires-Dist, as written
        // conda-lock's category ("main", "dev", an extra's name); "" where the format has none.
        std::string category;
        std::string source; // where it was read, relative to the prefix or lock

        auto operator==(const Package&) const -> bool = default;
    };

    // The package a finding names, read like std::optional<Package>: one of a list read once
    // and shared whole (the lock's, the environment's), or one of its own. Issue 19: findings
    // that each held their own two copies were 5.7 MB of fresh memory at 5,000 records, about
    // 1,000 of the check's 7,400 page faults. Compared by value.
    class PackageRef
    {
    public:
        PackageRef() = default;
        PackageRef(std::nullopt_t) {} // NOLINT(google-explicit-constructor): as optional's
        // NOLINTNEXTLINE(google-explicit-constructor): assigned a package, as optional's
        PackageRef(Package package)
          : m_package(std::make_shared<const Package>(std::move(package)))
        {
        }
        // The list's package `index`, sharing the list (no copy of the package).
        PackageRef(const std::shared_ptr<const std::vector<Package>>& list, std::size_t index)
          : m_package(list, &list->at(index))
        {
        }

        [[nodiscard]] auto has_value() const -> bool { return m_package != nullptr; }
        explicit operator bool() const { return has_value(); }
        auto operator->() const -> const Package* { return m_package.get(); }
        auto operator*() const -> const Package& { return *m_package; }
        // The package; throws std::bad_optional_access without one, as optional's.
        [[nodiscard]] auto value() const -> const Package&
        {
            if (!m_package)
            {
                throw std::bad_optional_access();
            }
            return *m_package;
        }

        friend auto operator==(const PackageRef& left, const PackageRef& right) -> bool
        {
            return left.has_value() == right.has_value() &&
                   (!left.has_value() || *left.m_package == *right.m_package);
        }
        friend auto operator==(const PackageRef& left, const Package& right) -> bool
        {
            return left.has_value() && *left.m_package == right;
        }
        friend auto operator==(const PackageRef& left, std::nullopt_t) -> bool
        {
            return !left.has_value();
        }

    private:
        std::shared_ptr<const Package> m_package;
    };

    // The key a package is matched by across sources: conda names as they are (conda names are
    // lowercase by convention), pip names normalized per PEP 503 (lowercase, runs of -_. -> -).
    [[nodiscard]] auto package_key(Manager manager, std::string_view name) -> std::string;
    [[nodiscard]] auto package_key(const Package& package) -> std::string;
    // package_key(a) < package_key(b), without making either key.
    [[nodiscard]] auto package_key_less(const Package& a, const Package& b) -> bool;
}

#endif
