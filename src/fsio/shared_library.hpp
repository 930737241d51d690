// Functions of a shared library loaded with dlopen(): the driver libraries (src/driver) and
// libcurl (src/net) are loaded at run time, never linked, so that envcheck starts without them.
#ifndef ENVCHECK_FSIO_SHARED_LIBRARY_HPP
#define ENVCHECK_FSIO_SHARED_LIBRARY_HPP

#include <cstring>
#include <dlfcn.h>

namespace envcheck::fsio
{
    // The function `name` of a loaded library, or nullptr (an older library lacks newer calls).
    template<class Function>
    [[nodiscard]] auto symbol(void* handle, const char* name) -> Function
    {
        static_assert(sizeof(Function) == sizeof(void*));
        void* address = ::dlsym(handle, name);
        Function function = nullptr;
        std::memcpy(&function, &address, sizeof(function)); // object to function pointer
        return function;
    }
}

#endif
