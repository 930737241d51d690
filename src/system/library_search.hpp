// Where the dynamic loader would find the driver libraries (libcuda.so.1, libnvidia-ml.so.1):
// LD_LIBRARY_PATH, then the directories of /etc/ld.so.conf (with its includes), then the default
// directories. Under --root this is all envcheck learns about them: versions come from the real
// file names (libcuda.so.1 -> libcuda.so.580.65.06), stubs and forward-compatibility libraries
// from their directories.
#ifndef ENVCHECK_SYSTEM_LIBRARY_SEARCH_HPP
#define ENVCHECK_SYSTEM_LIBRARY_SEARCH_HPP

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "driver/dl.hpp"
#include "model/machine.hpp"
#include "system/environment.hpp"
#include "system/system_root.hpp"

namespace envcheck::system
{
    // A directory the loader searches, and why.
    struct SearchDir
    {
        std::string path;
        std::string source; // "LD_LIBRARY_PATH", "ld.so.conf", "default"
    };

    [[nodiscard]] auto library_search_dirs(const SystemRoot& root, const Environment& environment)
      -> std::vector<SearchDir>;
    [[nodiscard]] auto search_libraries(const SystemRoot& root, const Environment& environment)
      -> model::LibrarySearch;

    // The libraries a framework loads (`names`: "libcudnn", "libcublas", ...), every file the
    // loader could take for them (<name>.so.<major>, or .so.<major>.0 as CUDA 11's
    // libcudart.so.11.0) in the order it searches for a library whose RUNPATH names the
    // environment's directories (pip wheels' $ORIGIN/../../nvidia/*/lib): LD_LIBRARY_PATH, then
    // `environment_dirs` (host paths, read on this host), then ld.so.conf and the default
    // directories under `root` (directory by directory: a caller groups them by name). Read
    // from names and links only: nothing is loaded. One file reached twice (merged /usr) is
    // listed once.
    [[nodiscard]] auto find_loadable_libraries(const SystemRoot& root,
                                               const Environment& environment,
                                               const std::vector<SearchDir>& environment_dirs,
                                               const std::vector<std::string>& names)
      -> std::vector<model::LoadableLibrary>;
    // The full version in a toolkit library's real file name: libcudnn.so.9.1.0 -> 9.1.0,
    // libcublas.so.12.4.5.8 -> 12.4.5.8; nullopt for a soname alone (libcudnn.so.9,
    // libcudart.so.11.0).
    [[nodiscard]] auto toolkit_library_version(std::string_view file_name)
      -> std::optional<std::string>;
    // Whether `file_name` is one the loader asks for when it loads `library`: libcudnn.so.9,
    // libcudart.so.11.0; not libcudnn.so, libcudnn.so.9.1.0 or libcublasLt.so.12.
    [[nodiscard]] auto is_soname_of(std::string_view library, std::string_view file_name) -> bool;

    // Describes a library file: real path, version from its name, size, stub and compat marks.
    [[nodiscard]] auto describe_library(const SystemRoot& root, std::string_view name,
                                        std::string_view path, std::string_view found_via)
      -> model::LibraryFile;

    // Text helpers, exposed for tests.
    // The directories and include patterns of one ld.so.conf file, in order.
    struct LdConfEntry
    {
        bool include = false; // an "include" pattern rather than a directory
        std::string value;
    };
    [[nodiscard]] auto parse_ld_so_conf(std::string_view text) -> std::vector<LdConfEntry>;
    // "libcuda.so.580.65.06" -> "580.65.06"; nullopt for "libcuda.so.1" or "libcuda.so".
    [[nodiscard]] auto library_version_from_name(std::string_view file_name)
      -> std::optional<std::string>;
    [[nodiscard]] auto is_stub_path(std::string_view path) -> bool;
    [[nodiscard]] auto is_compat_path(std::string_view path) -> bool;
}

#endif
