// dlopen/dlsym helpers for the probing children.
#ifndef ENVCHECK_SYSTEM_DL_HPP
#define ENVCHECK_SYSTEM_DL_HPP

#include <cstring>
#include <dlfcn.h>
#include <string>
#include <string_view>

#include "model/machine.hpp"

namespace envcheck::system
{
    // The function `name` of a loaded library, or nullptr (an older driver lacks newer calls).
    template<class Function>
    [[nodiscard]] auto symbol(void* handle, const char* name) -> Function
    {
        static_assert(sizeof(Function) == sizeof(void*));
        void* address = ::dlsym(handle, name);
        Function function = nullptr;
        std::memcpy(&function, &address, sizeof(function)); // object to function pointer
        return function;
    }

    // The file a dlopen() handle came from (its real path, version, stub and compat marks).
    [[nodiscard]] auto loaded_library(void* handle, std::string_view name) -> model::LibraryFile;

    // dlerror() text, or a fallback.
    [[nodiscard]] auto last_dl_error() -> std::string;
}

#endif
