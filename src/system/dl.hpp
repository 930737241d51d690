// dlopen/dlsym helpers for the probing children.
#ifndef ENVCHECK_SYSTEM_DL_HPP
#define ENVCHECK_SYSTEM_DL_HPP

#include <cstring>
#include <dlfcn.h>
#include <string>
#include <string_view>

#include "fsio/shared_library.hpp"
#include "model/machine.hpp"

namespace envcheck::system
{
    using fsio::symbol; // the function `name` of a loaded library, or nullptr

    // The file a dlopen() handle came from (its real path, version, stub and compat marks).
    [[nodiscard]] auto loaded_library(void* handle, std::string_view name) -> model::LibraryFile;

    // dlerror() text, or a fallback.
    [[nodiscard]] auto last_dl_error() -> std::string;
}

#endif
