#include "system/system_root.hpp"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>

#include "fsio/files.hpp"
#include "util/strings.hpp"

namespace envcheck::system
{
    namespace
    {
        constexpr int max_symlinks = 40; // as the kernel's ELOOP limit

        auto components(std::string_view path) -> std::vector<std::string>
        {
            std::vector<std::string> parts;
            for (const auto piece : util::split(path, '/'))
            {
                if (!piece.empty() && piece != ".")
                {
                    parts.emplace_back(piece);
                }
            }
            return parts;
        }
    }

    namespace
    {
        // "/" + joined parts (written so that g++ 12 raises no false -Wrestrict warning).
        auto rooted(const std::vector<std::string>& parts) -> std::string
        {
            std::string path(1, '/');
            path += util::join(parts, "/");
            return path;
        }
    }

    auto normalize_path(std::string_view path) -> std::string
    {
        std::vector<std::string> kept;
        for (auto& part : components(path))
        {
            if (part == "..")
            {
                if (!kept.empty())
                {
                    kept.pop_back();
                }
                continue;
            }
            kept.push_back(std::move(part));
        }
        return rooted(kept);
    }

    SystemRoot::SystemRoot(std::string root)
      : m_root(std::move(root))
    {
        while (!m_root.empty() && m_root.back() == '/')
        {
            m_root.pop_back();
        }
    }

    auto SystemRoot::resolve(std::string_view path) const -> std::string
    {
        if (live())
        {
            char buffer[PATH_MAX];
            const std::string text(path);
            return ::realpath(text.c_str(), buffer) != nullptr ? std::string(buffer)
                                                               : normalize_path(path);
        }
        // Walk component by component so that absolute link targets stay inside the root.
        std::vector<std::string> pending = components(path);
        std::reverse(pending.begin(), pending.end());
        std::vector<std::string> done;
        int links = 0;
        while (!pending.empty())
        {
            std::string part = std::move(pending.back());
            pending.pop_back();
            if (part == "..")
            {
                if (!done.empty())
                {
                    done.pop_back();
                }
                continue;
            }
            done.push_back(part);
            const std::string host = m_root + "/" + util::join(done, "/");
            struct stat info
            {
            };
            if (::lstat(host.c_str(), &info) != 0 || !S_ISLNK(info.st_mode) ||
                ++links > max_symlinks)
            {
                continue;
            }
            char target[PATH_MAX];
            const auto length = ::readlink(host.c_str(), target, sizeof(target) - 1);
            if (length <= 0)
            {
                continue;
            }
            const std::string_view link(target, static_cast<std::size_t>(length));
            done.pop_back();
            if (link.front() == '/')
            {
                done.clear();
            }
            auto more = components(link);
            for (auto it = more.rbegin(); it != more.rend(); ++it)
            {
                pending.push_back(std::move(*it));
            }
        }
        return rooted(done);
    }

    auto SystemRoot::host_path(std::string_view path) const -> std::string
    {
        if (live())
        {
            return std::string(path);
        }
        return m_root + resolve(path);
    }

    auto SystemRoot::read_text(std::string_view path, std::size_t limit) const
      -> std::optional<std::string>
    {
        const auto host = host_path(path);
        struct stat info
        {
        };
        if (::stat(host.c_str(), &info) != 0 || S_ISDIR(info.st_mode))
        {
            return std::nullopt;
        }
        auto content = fsio::read_file(host, limit);
        if (!content)
        {
            return std::nullopt;
        }
        return std::move(content).value();
    }

    auto SystemRoot::exists(std::string_view path) const -> bool
    {
        struct stat info
        {
        };
        return ::stat(host_path(path).c_str(), &info) == 0;
    }

    auto SystemRoot::is_directory(std::string_view path) const -> bool
    {
        struct stat info
        {
        };
        return ::stat(host_path(path).c_str(), &info) == 0 && S_ISDIR(info.st_mode);
    }

    auto SystemRoot::list_directory(std::string_view path) const
      -> std::optional<std::vector<std::string>>
    {
        DIR* dir = ::opendir(host_path(path).c_str());
        if (dir == nullptr)
        {
            return std::nullopt;
        }
        std::vector<std::string> names;
        while (const dirent* entry = ::readdir(dir))
        {
            const std::string_view name = entry->d_name;
            if (name != "." && name != "..")
            {
                names.emplace_back(name);
            }
        }
        ::closedir(dir);
        std::sort(names.begin(), names.end());
        return names;
    }

    auto SystemRoot::read_link(std::string_view path) const -> std::optional<std::string>
    {
        // Resolve the directory, not the link itself.
        const auto slash = path.rfind('/');
        const std::string dir =
          slash == std::string_view::npos || slash == 0 ? "/" : std::string(path.substr(0, slash));
        const std::string host =
          (live() ? dir : m_root + resolve(dir)) + "/" + std::string(path.substr(slash + 1));
        char target[PATH_MAX];
        const auto length = ::readlink(host.c_str(), target, sizeof(target) - 1);
        if (length <= 0)
        {
            return std::nullopt;
        }
        return std::string(target, static_cast<std::size_t>(length));
    }

    auto SystemRoot::status(std::string_view path) const -> std::optional<FileStatus>
    {
        struct stat info
        {
        };
        if (::stat(host_path(path).c_str(), &info) != 0)
        {
            return std::nullopt;
        }
        FileStatus result;
        result.mode = info.st_mode & 07777u;
        result.uid = info.st_uid;
        result.gid = info.st_gid;
        result.size = static_cast<std::uint64_t>(info.st_size);
        result.regular = S_ISREG(info.st_mode);
        result.directory = S_ISDIR(info.st_mode);
        result.character_device = S_ISCHR(info.st_mode);
        return result;
    }
}
