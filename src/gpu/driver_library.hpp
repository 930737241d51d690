// Whether the NVIDIA driver's user-space library can be loaded, asked before any CUDA call: on a
// machine with no driver, cudart reports "CUDA driver version is insufficient" (35), which is
// misleading; this tells the two apart. dlopen only, never linked.
#ifndef ENVCHECK_GPU_DRIVER_LIBRARY_HPP
#define ENVCHECK_GPU_DRIVER_LIBRARY_HPP

#include <string>

namespace envcheck::gpu
{
    struct DriverLibrary
    {
        bool loadable = false;
        std::string error; // dlerror() when not loadable
    };

    // dlopen("libcuda.so.1") and dlclose it again; creates no CUDA context.
    [[nodiscard]] auto probe_driver_library() -> DriverLibrary;
}

#endif
