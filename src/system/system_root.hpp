// Every read of /proc, /sys, /dev, /etc and the library directories goes through a SystemRoot,
// so that `--root DIR` (an unpacked container image, a node's mounted root, a test fixture)
// works everywhere: paths are given as on the machine ("/proc/driver/nvidia/version") and
// symbolic links are followed inside the root, an absolute target meaning DIR/target.
#ifndef ENVCHECK_SYSTEM_SYSTEM_ROOT_HPP
#define ENVCHECK_SYSTEM_SYSTEM_ROOT_HPP

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envcheck::system
{
    struct FileStatus
    {
        unsigned mode = 0; // permission bits only (07777)
        unsigned uid = 0;
        unsigned gid = 0;
        std::uint64_t size = 0;
        bool regular = false;
        bool directory = false;
        bool character_device = false;
    };

    class SystemRoot
    {
    public:
        // "/" (or "") is the live system; anything else is read as a root directory.
        explicit SystemRoot(std::string root = "/");

        [[nodiscard]] auto root() const -> const std::string& { return m_root; }
        [[nodiscard]] auto live() const -> bool { return m_root.empty(); }
        // How the root is shown to users: "/" or the directory given.
        [[nodiscard]] auto display() const -> std::string { return live() ? "/" : m_root; }

        // The path on this host for a path on the machine, symbolic links resolved inside the root
        // (on the live system: the path itself).
        [[nodiscard]] auto host_path(std::string_view path) const -> std::string;
        // The machine path after following every symbolic link (realpath inside the root);
        // the path itself when a component is missing.
        [[nodiscard]] auto resolve(std::string_view path) const -> std::string;

        [[nodiscard]] auto read_text(std::string_view path,
                                     std::size_t limit = std::size_t{ 1 } << 20) const
          -> std::optional<std::string>;
        [[nodiscard]] auto exists(std::string_view path) const -> bool;
        [[nodiscard]] auto is_directory(std::string_view path) const -> bool;
        // Names in a directory, sorted; nullopt when it cannot be listed.
        [[nodiscard]] auto list_directory(std::string_view path) const
          -> std::optional<std::vector<std::string>>;
        // The target of a symbolic link, as written.
        [[nodiscard]] auto read_link(std::string_view path) const -> std::optional<std::string>;
        [[nodiscard]] auto status(std::string_view path) const -> std::optional<FileStatus>;

    private:
        std::string m_root; // without a trailing slash; empty for the live system
    };

    // "/a/b/../c" -> "/a/c"; keeps a leading "/"; never goes above "/".
    [[nodiscard]] auto normalize_path(std::string_view path) -> std::string;
}

#endif
