#include "gpu/driver_library.hpp"

#include <dlfcn.h>

namespace envcheck::gpu
{
    auto probe_driver_library() -> DriverLibrary
    {
        DriverLibrary library;
        void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr)
        {
            const char* error = dlerror();
            library.error = error != nullptr ? error : "dlopen failed";
            return library;
        }
        dlclose(handle);
        library.loadable = true;
        return library;
    }
}
