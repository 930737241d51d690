// An on-disk cache of fetched URLs (repodata), revalidated with ETag / Last-Modified and shared
// safely by parallel CI jobs: each entry is a body file and a JSON sidecar, both replaced
// atomically, and every read or revalidation of an entry holds that entry's lock file.
//
//   <dir>/<sha256 of the URL>.body   the response body, decoded
//   <dir>/<sha256 of the URL>.json   {"url", "etag", "last_modified", "fetched_at", "size"}
//   <dir>/<sha256 of the URL>.lock   flock(2) target
//
// The directory comes in as a value (the cli picks --cache-dir, then XDG_CACHE_HOME, then HOME;
// see default_cache_directory): nothing here reads the environment.
#ifndef ENVCHECK_NET_CACHE_HPP
#define ENVCHECK_NET_CACHE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "net/http_client.hpp"
#include "util/result.hpp"

namespace envcheck::net
{
    // "$XDG_CACHE_HOME/envcheck" when that is an absolute path (the XDG base directory spec
    // says to ignore relative ones), else "$HOME/.cache/envcheck"; fails with ErrorKind::usage
    // when neither is usable.
    [[nodiscard]] auto default_cache_directory(std::string_view xdg_cache_home,
                                               std::string_view home) -> util::Result<std::string>;

    struct CacheEntry
    {
        std::string url;
        std::string etag;
        std::string last_modified;
        std::int64_t fetched_at = 0; // Unix seconds of the last download or revalidation
        std::uint64_t size = 0;      // of the body file, to detect an interrupted writer

        auto operator==(const CacheEntry&) const -> bool = default;
    };

    // The sidecar's JSON, and back; a sidecar that does not parse is treated as no entry.
    [[nodiscard]] auto to_json(const CacheEntry& entry) -> std::string;
    [[nodiscard]] auto parse_cache_entry(std::string_view json) -> std::optional<CacheEntry>;

    enum class CacheSource
    {
        downloaded,  // no usable cached copy, or the server sent a new one
        revalidated, // the server answered 304 Not Modified
        offline,     // read from the cache without asking the server
    };

    [[nodiscard]] auto to_string(CacheSource source) -> std::string_view;

    struct CachedBody
    {
        std::string body;
        CacheSource source = CacheSource::downloaded;
        CacheEntry entry;
    };

    class Cache
    {
    public:
        // offline: answer from the cache alone; a URL without a complete cached copy fails
        // with a message that says so.
        Cache(std::string directory, bool offline);

        // The body of `url`: downloaded, revalidated, or (offline) read from the cache. A
        // network failure is returned as it is, never silently replaced by a cached copy; its
        // hint says when a cached copy exists and how old it is.
        [[nodiscard]] auto fetch(HttpClient& client, const std::string& url)
          -> util::Result<CachedBody>;

        [[nodiscard]] auto directory() const -> const std::string& { return m_directory; }
        [[nodiscard]] auto offline() const -> bool { return m_offline; }
        // The path of `url`'s entry without its extension.
        [[nodiscard]] auto entry_stem(const std::string& url) const -> std::string;

    private:
        std::string m_directory;
        bool m_offline = false;
    };
}

#endif
