// dlopen/dlsym helpers for the children that load the NVIDIA driver's libraries (src/system's
// NVML and CUDA driver probes, src/gpu's probe child). Only ever used inside an fsio::run_child
// child: a library whose constructor hangs or crashes takes the child with it, never envcheck.
#ifndef ENVCHECK_DRIVER_DL_HPP
#define ENVCHECK_DRIVER_DL_HPP

#include <cstddef>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <string_view>

namespace envcheck::driver
{
    // The driver's user-space libraries, by the names the loader is asked for.
    inline constexpr std::string_view libcuda_name = "libcuda.so.1";
    inline constexpr std::string_view libnvidia_ml_name = "libnvidia-ml.so.1";

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

    // dlopen(name, RTLD_NOW | RTLD_LOCAL); nullptr with `error` set (dlerror()) when it fails.
    // The handle is never closed: the child exits soon after, and unloading a driver is a
    // known way to crash it.
    [[nodiscard]] auto open_library(const char* name, std::string& error) -> void*;

    // The file a dlopen() handle came from, as the loader resolved it; empty when unknown.
    [[nodiscard]] auto loaded_path(void* handle) -> std::string;

    // A string a driver wrote into `buffer`, up to its NUL or the end of the buffer, whichever
    // comes first: a driver that fills the buffer without terminating it is not read past.
    [[nodiscard]] auto text_from(const char* buffer, std::size_t size) -> std::string;

    template<std::size_t N>
    [[nodiscard]] auto text_from(const char (&buffer)[N]) -> std::string
    {
        return text_from(buffer, N);
    }
}

#endif
