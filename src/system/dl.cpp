#include "system/dl.hpp"

#include <link.h>

#include "system/library_search.hpp"
#include "system/system_root.hpp"

namespace envcheck::system
{
    auto loaded_library(void* handle, std::string_view name) -> model::LibraryFile
    {
        link_map* map = nullptr;
        std::string path;
        if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr &&
            map->l_name != nullptr)
        {
            path = map->l_name;
        }
        return describe_library(SystemRoot("/"), name, path, "dlopen");
    }

    auto last_dl_error() -> std::string
    {
        const char* error = ::dlerror();
        return error != nullptr ? std::string(error) : std::string("dlopen failed");
    }
}
