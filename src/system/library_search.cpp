#include "system/library_search.hpp"

#include <algorithm>
#include <array>

#include "system/kernel_driver.hpp"
#include "util/strings.hpp"

namespace envcheck::system
{
    namespace
    {
        // glibc's trusted directories on x86_64 (multiarch first), then the container
        // toolkit's and WSL's usual places, which their ld.so.conf.d files normally name.
        constexpr std::array<std::string_view, 6> default_dirs{ "/lib/x86_64-linux-gnu",
                                                                "/usr/lib/x86_64-linux-gnu",
                                                                "/lib64",
                                                                "/usr/lib64",
                                                                "/lib",
                                                                "/usr/lib" };

        constexpr int max_include_depth = 8;
        // The real libcuda is tens of megabytes; the toolkit's stub about 100 KB.
        constexpr std::uint64_t stub_size_limit = std::uint64_t{ 1 } << 20;

        void add_dir(std::vector<SearchDir>& dirs, std::string path, std::string_view source)
        {
            if (path.empty())
            {
                return;
            }
            path = normalize_path(path);
            if (std::none_of(dirs.begin(), dirs.end(),
                             [&](const SearchDir& d) { return d.path == path; }))
            {
                dirs.push_back({ std::move(path), std::string(source) });
            }
        }

        void read_conf(const SystemRoot& root, const std::string& file, int depth,
                       std::vector<SearchDir>& dirs)
        {
            if (depth > max_include_depth)
            {
                return;
            }
            const auto text = root.read_text(file);
            if (!text)
            {
                return;
            }
            for (const auto& entry : parse_ld_so_conf(*text))
            {
                if (!entry.include)
                {
                    add_dir(dirs, entry.value, "ld.so.conf");
                    continue;
                }
                // Relative patterns are relative to the including file's directory.
                std::string pattern = entry.value;
                if (!pattern.starts_with('/'))
                {
                    pattern = file.substr(0, file.rfind('/') + 1) + pattern;
                }
                const auto slash = pattern.rfind('/');
                const std::string dir = slash == 0 ? "/" : pattern.substr(0, slash);
                const std::string name_pattern = pattern.substr(slash + 1);
                const auto names = root.list_directory(dir);
                if (!names)
                {
                    continue;
                }
                for (const auto& name : *names)
                {
                    if (util::glob_match(name_pattern, name))
                    {
                        read_conf(root, dir + "/" + name, depth + 1, dirs);
                    }
                }
            }
        }

        void find_in(const SystemRoot& root, const SearchDir& dir, std::string_view name,
                     std::vector<model::LibraryFile>& found)
        {
            std::string path = dir.path + "/" + std::string(name);
            if (!root.exists(path))
            {
                // The toolkit's stub directory holds the unversioned name only.
                const std::string unversioned =
                  dir.path + "/" + std::string(name.substr(0, name.rfind('.')));
                if (!is_stub_path(dir.path + "/") || !root.exists(unversioned))
                {
                    return;
                }
                path = unversioned;
            }
            found.push_back(describe_library(root, name, path, dir.source));
        }
    }

    auto parse_ld_so_conf(std::string_view text) -> std::vector<LdConfEntry>
    {
        std::vector<LdConfEntry> entries;
        for (const auto raw : util::split_lines(text))
        {
            auto line = raw;
            if (const auto hash = line.find('#'); hash != std::string_view::npos)
            {
                line = line.substr(0, hash);
            }
            line = util::trim(line);
            if (line.empty())
            {
                continue;
            }
            if (line.starts_with("include") && line.size() > 7 && util::is_space(line[7]))
            {
                for (const auto word : util::split(util::trim(line.substr(7)), ' '))
                {
                    if (!util::trim(word).empty())
                    {
                        entries.push_back({ true, std::string(util::trim(word)) });
                    }
                }
                continue;
            }
            if (line.starts_with("hwcap"))
            {
                continue; // obsolete directive, still accepted by ldconfig
            }
            // Directories may be separated by spaces, tabs, commas or colons.
            std::string current;
            for (const char c : line)
            {
                if (c == ' ' || c == '\t' || c == ',' || c == ':')
                {
                    if (!current.empty())
                    {
                        entries.push_back({ false, current });
                        current.clear();
                    }
                    continue;
                }
                current += c;
            }
            if (!current.empty())
            {
                entries.push_back({ false, current });
            }
        }
        return entries;
    }

    auto library_version_from_name(std::string_view file_name) -> std::optional<std::string>
    {
        const auto at = file_name.find(".so.");
        if (at == std::string_view::npos)
        {
            return std::nullopt;
        }
        const auto version = file_name.substr(at + 4);
        if (!is_driver_version(version))
        {
            return std::nullopt;
        }
        return std::string(version);
    }

    auto is_stub_path(std::string_view path) -> bool
    {
        return path.find("/stubs/") != std::string_view::npos;
    }

    auto is_compat_path(std::string_view path) -> bool
    {
        return path.find("/compat/") != std::string_view::npos ||
               path.find("cuda-compat") != std::string_view::npos;
    }

    auto describe_library(const SystemRoot& root, std::string_view name, std::string_view path,
                          std::string_view found_via) -> model::LibraryFile
    {
        model::LibraryFile library;
        library.name = std::string(name);
        library.path = std::string(path);
        library.real_path = root.resolve(path);
        library.found_via = std::string(found_via);
        const auto slash = library.real_path.rfind('/');
        library.version =
          library_version_from_name(std::string_view(library.real_path).substr(slash + 1));
        if (const auto status = root.status(library.path))
        {
            library.size_bytes = status->size;
        }
        library.stub = is_stub_path(library.path) || is_stub_path(library.real_path);
        // Fixture trees hold placeholder files, so size says nothing there.
        if (root.live() && library.size_bytes && *library.size_bytes < stub_size_limit &&
            library.real_path.find("/wsl/") == std::string::npos)
        {
            library.stub = true;
        }
        library.compat = is_compat_path(library.path) || is_compat_path(library.real_path);
        return library;
    }

    auto library_search_dirs(const SystemRoot& root, const Environment& environment)
      -> std::vector<SearchDir>
    {
        std::vector<SearchDir> dirs;
        if (const auto found = environment.find("LD_LIBRARY_PATH"); found != environment.end())
        {
            for (const auto dir : util::split(found->second, ':'))
            {
                add_dir(dirs, std::string(util::trim(dir)), "LD_LIBRARY_PATH");
            }
        }
        read_conf(root, "/etc/ld.so.conf", 0, dirs);
        for (const auto dir : default_dirs)
        {
            add_dir(dirs, std::string(dir), "default");
        }
        return dirs;
    }

    auto search_libraries(const SystemRoot& root, const Environment& environment)
      -> model::LibrarySearch
    {
        model::LibrarySearch search;
        for (const auto& dir : library_search_dirs(root, environment))
        {
            search.search_dirs.push_back(dir.path);
            find_in(root, dir, driver::libcuda_name, search.libcuda);
            find_in(root, dir, driver::libnvidia_ml_name, search.libnvidia_ml);
        }
        // /lib and /usr/lib are often one directory (merged /usr): one file, one candidate.
        for (auto* list : { &search.libcuda, &search.libnvidia_ml })
        {
            std::vector<model::LibraryFile> unique;
            for (auto& library : *list)
            {
                if (std::none_of(unique.begin(), unique.end(),
                                 [&](const model::LibraryFile& l)
                                 { return l.real_path == library.real_path; }))
                {
                    unique.push_back(std::move(library));
                }
            }
            *list = std::move(unique);
        }
        return search;
    }

    auto toolkit_library_version(std::string_view file_name) -> std::optional<std::string>
    {
        const auto at = file_name.find(".so.");
        if (at == std::string_view::npos)
        {
            return std::nullopt;
        }
        const auto version = file_name.substr(at + 4);
        const auto parts = util::split(version, '.');
        const bool numbers =
          parts.size() >= 3 &&
          std::all_of(parts.begin(), parts.end(),
                      [](std::string_view part) {
                          return !part.empty() &&
                                 std::all_of(part.begin(), part.end(), util::is_digit);
                      });
        return numbers ? std::optional(std::string(version)) : std::nullopt;
    }

    auto is_soname_of(std::string_view library, std::string_view file_name) -> bool
    {
        if (library.empty() || !file_name.starts_with(library) ||
            !file_name.substr(library.size()).starts_with(".so."))
        {
            return false;
        }
        const auto version = file_name.substr(library.size() + 4);
        const auto dot = version.find('.');
        const auto major = version.substr(0, dot);
        if (major.empty() || !std::all_of(major.begin(), major.end(), util::is_digit))
        {
            return false;
        }
        return dot == std::string_view::npos || version.substr(dot) == ".0";
    }

    auto find_loadable_libraries(const SystemRoot& root, const Environment& environment,
                                 const std::vector<SearchDir>& environment_dirs,
                                 const std::vector<std::string>& names)
      -> std::vector<model::LoadableLibrary>
    {
        const SystemRoot host("/");
        // LD_LIBRARY_PATH, the environment's RUNPATH directories, then the system's.
        std::vector<std::pair<SearchDir, const SystemRoot*>> order;
        const auto system_dirs = library_search_dirs(root, environment);
        for (const auto& dir : system_dirs)
        {
            if (dir.source == "LD_LIBRARY_PATH")
            {
                order.emplace_back(dir, &root);
            }
        }
        for (const auto& dir : environment_dirs)
        {
            // As given: a relative --prefix stays relative, as the report names it.
            order.emplace_back(dir, &host);
        }
        for (const auto& dir : system_dirs)
        {
            if (dir.source != "LD_LIBRARY_PATH")
            {
                order.emplace_back(dir, &root);
            }
        }
        std::vector<model::LoadableLibrary> found;
        for (const auto& [dir, dir_root] : order)
        {
            // Each directory listed once, for every name.
            const auto entries = dir_root->list_directory(dir.path);
            if (!entries)
            {
                continue;
            }
            for (const auto& name : names)
            {
                for (const auto& entry : *entries)
                {
                    if (!is_soname_of(name, entry))
                    {
                        continue;
                    }
                    // The environment's directories are the ones read on this host.
                    const bool in_environment = dir_root == &host;
                    model::LoadableLibrary library;
                    library.library = name;
                    library.file = describe_library(*dir_root, entry, dir.path + "/" + entry,
                                                    in_environment ? "environment" : dir.source);
                    library.source = in_environment ? dir.source : "";
                    const auto slash = library.file.real_path.rfind('/');
                    library.file.version = toolkit_library_version(
                      std::string_view(library.file.real_path).substr(slash + 1));
                    const bool seen =
                      std::any_of(found.begin(), found.end(),
                                  [&](const model::LoadableLibrary& other)
                                  { return other.file.real_path == library.file.real_path; });
                    if (!seen)
                    {
                        found.push_back(std::move(library));
                    }
                }
            }
        }
        return found;
    }
}
