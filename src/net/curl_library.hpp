// libcurl, loaded with dlopen() the first time a URL is fetched, never linked: envcheck then
// needs nothing but glibc to start, and a machine without libcurl still runs every command on
// local files. The functions are the ones <curl/curl.h> declares, called through pointers.
#ifndef ENVCHECK_NET_CURL_LIBRARY_HPP
#define ENVCHECK_NET_CURL_LIBRARY_HPP

#include <string>
#include <vector>

#include <curl/curl.h>

#include "util/result.hpp"

namespace envcheck::net
{
    struct CurlLibrary
    {
        std::string path; // the file dlopen() loaded ("libcurl.so.4")

        decltype(&::curl_global_init) global_init = nullptr;
        decltype(&::curl_version_info) version_info = nullptr;
        decltype(&::curl_easy_init) easy_init = nullptr;
        decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
        decltype(&::curl_easy_reset) easy_reset = nullptr;
        decltype(&::curl_easy_setopt) easy_setopt = nullptr;
        decltype(&::curl_easy_perform) easy_perform = nullptr;
        decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
        decltype(&::curl_easy_strerror) easy_strerror = nullptr;
        decltype(&::curl_slist_append) slist_append = nullptr;
        decltype(&::curl_slist_free_all) slist_free_all = nullptr;
        decltype(&::curl_free) free = nullptr;
        // The URL API (libcurl 7.62); nullptr in older libraries, which parse nothing for us.
        decltype(&::curl_url) url = nullptr;
        decltype(&::curl_url_cleanup) url_cleanup = nullptr;
        decltype(&::curl_url_set) url_set = nullptr;
        decltype(&::curl_url_get) url_get = nullptr;
    };

    // The names tried, in order: the OpenSSL build every distribution ships, then Debian's and
    // Ubuntu's GnuTLS build.
    [[nodiscard]] auto curl_library_names() -> std::vector<std::string>;

    // libcurl, loaded and initialised once per process (curl_global_init); an
    // ErrorKind::unsupported error naming what was tried and how to install it when no name loads
    // or a required function is missing.
    [[nodiscard]] auto curl_library() -> util::Result<const CurlLibrary*>;
}

#endif
