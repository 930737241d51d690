// libcurl is loaded with dlopen() on first use (src/net/curl_library.cpp), never linked: the
// binary starts without it, and every function the client calls is found in it.
#include "net/curl_library.hpp"
#include "tests/catch.hpp"

using envcheck::net::curl_library;
using envcheck::net::curl_library_names;

TEST_CASE("libcurl is looked for by its sonames, the OpenSSL build first", "[net]")
{
    CHECK(curl_library_names() ==
          std::vector<std::string>{ "libcurl.so.4", "libcurl-gnutls.so.4" });
}

TEST_CASE("libcurl is loaded once, with every function the client calls", "[net]")
{
    const auto first = curl_library();
    REQUIRE(first);
    const auto second = curl_library();
    REQUIRE(second);
    CHECK(*first == *second);
    const auto& curl = **first;
    CHECK(curl.path == "libcurl.so.4");
    CHECK(curl.easy_init != nullptr);
    CHECK(curl.easy_setopt != nullptr);
    CHECK(curl.easy_perform != nullptr);
    CHECK(curl.url != nullptr); // Debian 12's libcurl 7.88 has the URL API
    const curl_version_info_data* info = curl.version_info(CURLVERSION_NOW);
    REQUIRE(info != nullptr);
    CHECK(info->age >= 0);
}
