#include "driver/dl.hpp"

#include <link.h>

namespace envcheck::driver
{
    auto open_library(const char* name, std::string& error) -> void*
    {
        void* handle = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr)
        {
            const char* text = ::dlerror();
            error = text != nullptr ? std::string(text) : std::string("dlopen failed");
        }
        return handle;
    }

    auto loaded_path(void* handle) -> std::string
    {
        link_map* map = nullptr;
        if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr &&
            map->l_name != nullptr)
        {
            return map->l_name;
        }
        return {};
    }

    auto text_from(const char* buffer, std::size_t size) -> std::string
    {
        return std::string(buffer, ::strnlen(buffer, size));
    }
}
