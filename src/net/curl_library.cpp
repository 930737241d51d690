#include "net/curl_library.hpp"

#include <dlfcn.h>
#include <type_traits>

#include "fsio/shared_library.hpp"
#include "util/strings.hpp"

namespace envcheck::net
{
    namespace
    {
        auto load() -> util::Result<CurlLibrary>
        {
            std::vector<std::string> failures;
            void* handle = nullptr;
            CurlLibrary library;
            for (const auto& name : curl_library_names())
            {
                // RTLD_LOCAL: libcurl's own dependencies (OpenSSL, ...) stay out of our namespace.
                handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
                if (handle != nullptr)
                {
                    library.path = name;
                    break;
                }
                const char* error = ::dlerror();
                failures.emplace_back(error != nullptr ? error : name + ": dlopen failed");
            }
            if (handle == nullptr)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::unsupported,
                  "cannot fetch URLs: libcurl cannot be loaded (" + util::join(failures, "; ") +
                    ")",
                  {},
                  "install libcurl (Debian/Ubuntu: apt-get install libcurl4; EL/Fedora: dnf "
                  "install libcurl), or pass a local file instead of a URL"));
            }
            std::vector<std::string> missing;
            auto need = [&](auto& function, const char* name)
            {
                function = fsio::symbol<std::remove_reference_t<decltype(function)>>(handle, name);
                if (function == nullptr)
                {
                    missing.emplace_back(name);
                }
            };
            need(library.global_init, "curl_global_init");
            need(library.version_info, "curl_version_info");
            need(library.easy_init, "curl_easy_init");
            need(library.easy_cleanup, "curl_easy_cleanup");
            need(library.easy_reset, "curl_easy_reset");
            need(library.easy_setopt, "curl_easy_setopt");
            need(library.easy_perform, "curl_easy_perform");
            need(library.easy_getinfo, "curl_easy_getinfo");
            need(library.easy_strerror, "curl_easy_strerror");
            need(library.slist_append, "curl_slist_append");
            need(library.slist_free_all, "curl_slist_free_all");
            need(library.free, "curl_free");
            if (!missing.empty())
            {
                // Never dlclose()d on success: libcurl keeps global state for the process' life.
                ::dlclose(handle);
                return util::unexpected(util::make_error(util::ErrorKind::unsupported,
                                                         "cannot fetch URLs: " + library.path +
                                                           " lacks " + util::join(missing, ", "),
                                                         {}, "install libcurl 7.61 or newer"));
            }
            using fsio::symbol;
            library.url = symbol<decltype(library.url)>(handle, "curl_url");
            library.url_cleanup = symbol<decltype(library.url_cleanup)>(handle, "curl_url_cleanup");
            library.url_set = symbol<decltype(library.url_set)>(handle, "curl_url_set");
            library.url_get = symbol<decltype(library.url_get)>(handle, "curl_url_get");
            if (library.url == nullptr || library.url_cleanup == nullptr ||
                library.url_set == nullptr || library.url_get == nullptr)
            {
                library.url = nullptr;
            }
            library.global_init(CURL_GLOBAL_DEFAULT);
            return library;
        }
    }

    auto curl_library_names() -> std::vector<std::string>
    {
        return { "libcurl.so.4", "libcurl-gnutls.so.4" };
    }

    auto curl_library() -> util::Result<const CurlLibrary*>
    {
        // Loaded once, on first use, thread-safely (a function-local static).
        static const util::Result<CurlLibrary> loaded = load();
        if (!loaded)
        {
            return util::unexpected(loaded.error());
        }
        return &*loaded;
    }
}
