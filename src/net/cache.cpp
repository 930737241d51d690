#include "net/cache.hpp"

#include <chrono>
#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "fsio/files.hpp"
#include "util/sha256.hpp"
#include "util/time_format.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::net
{
    namespace
    {
        auto now_unix_seconds() -> std::int64_t
        {
            return std::chrono::duration_cast<std::chrono::seconds>(
                     std::chrono::system_clock::now().time_since_epoch())
              .count();
        }

        // The sidecar of a complete entry: it parses, names this URL, and its body file has the
        // size it records (a writer interrupted between body and sidecar leaves them apart).
        // The body is read only when it is used.
        auto read_entry(const std::string& stem, const std::string& url)
          -> std::optional<CacheEntry>
        {
            auto sidecar = fsio::read_file(stem + ".json");
            if (!sidecar)
            {
                return std::nullopt;
            }
            auto entry = parse_cache_entry(*sidecar);
            if (!entry || entry->url != util::redact_url(url))
            {
                return std::nullopt;
            }
            std::error_code error;
            const auto size = std::filesystem::file_size(stem + ".body", error);
            if (error || size != entry->size)
            {
                return std::nullopt;
            }
            return entry;
        }

        auto read_body(const std::string& stem, const CacheEntry& entry)
          -> util::Result<std::string>
        {
            auto body = fsio::read_file(stem + ".body", static_cast<std::size_t>(entry.size));
            if (body && body->size() != entry.size)
            {
                return util::unexpected(
                  util::make_error(util::ErrorKind::io, "the cached body changed while it was read",
                                   util::SourceLocation{ stem + ".body", 0, 0 },
                                   "run again; another process may be writing the cache"));
            }
            return body;
        }

        // Cache files are the user's alone (a private channel's repodata, its URL): 0600, also
        // when an older envcheck made them 0644.
        void make_private(const std::string& path)
        {
            std::error_code ignored;
            std::filesystem::permissions(
              path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write,
              ignored);
        }

        auto write_private(const std::string& path, std::string_view content) -> util::Result<void>
        {
            auto written = fsio::write_file_atomic(path, content, 0600);
            if (written)
            {
                make_private(path);
            }
            return written;
        }

        auto age_hint(const CacheEntry& entry) -> std::string
        {
            return "a cached copy from " + util::format_rfc3339_utc(entry.fetched_at) +
                   " exists; --offline uses it";
        }
    }

    auto default_cache_directory(std::string_view xdg_cache_home, std::string_view home)
      -> util::Result<std::string>
    {
        if (xdg_cache_home.starts_with('/'))
        {
            return (std::filesystem::path(xdg_cache_home) / "envcheck").string();
        }
        if (home.starts_with('/'))
        {
            return (std::filesystem::path(home) / ".cache" / "envcheck").string();
        }
        return util::unexpected(util::make_error(
          util::ErrorKind::usage,
          "cannot choose a cache directory: neither XDG_CACHE_HOME nor HOME is an absolute path",
          {}, "pass --cache-dir DIR"));
    }

    auto to_json(const CacheEntry& entry) -> std::string
    {
        const nlohmann::json json = {
            { "url", entry.url },
            { "etag", entry.etag.empty() ? nlohmann::json(nullptr) : nlohmann::json(entry.etag) },
            { "last_modified", entry.last_modified.empty() ? nlohmann::json(nullptr)
                                                           : nlohmann::json(entry.last_modified) },
            { "fetched_at", entry.fetched_at },
            { "size", entry.size },
        };
        return json.dump(2) + "\n";
    }

    auto parse_cache_entry(std::string_view json) -> std::optional<CacheEntry>
    {
        const auto parsed = nlohmann::json::parse(json, nullptr, false);
        if (parsed.is_discarded() || !parsed.is_object())
        {
            return std::nullopt;
        }
        auto text = [&parsed](const char* key) -> std::optional<std::string>
        {
            const auto it = parsed.find(key);
            if (it == parsed.end() || it->is_null())
            {
                return std::string();
            }
            if (!it->is_string())
            {
                return std::nullopt;
            }
            return it->get<std::string>();
        };
        const auto url = text("url");
        const auto etag = text("etag");
        const auto last_modified = text("last_modified");
        const auto fetched_at = parsed.find("fetched_at");
        const auto size = parsed.find("size");
        if (!url || url->empty() || !etag || !last_modified || fetched_at == parsed.end() ||
            !fetched_at->is_number_integer() || size == parsed.end() || !size->is_number_unsigned())
        {
            return std::nullopt;
        }
        return CacheEntry{ *url, *etag, *last_modified, fetched_at->get<std::int64_t>(),
                           size->get<std::uint64_t>() };
    }

    auto to_string(CacheSource source) -> std::string_view
    {
        switch (source)
        {
            case CacheSource::downloaded:
                return "downloaded";
            case CacheSource::revalidated:
                return "revalidated";
            case CacheSource::offline:
                return "offline";
        }
        return "downloaded";
    }

    Cache::Cache(std::string directory, bool offline)
      : m_directory(std::move(directory))
      , m_offline(offline)
    {
    }

    auto Cache::entry_stem(const std::string& url) const -> std::string
    {
        return (std::filesystem::path(m_directory) / util::Sha256::hex_of(url)).string();
    }

    auto Cache::fetch(HttpClient& client, const std::string& url) -> util::Result<CachedBody>
    {
        std::error_code error;
        std::filesystem::create_directories(m_directory, error);
        if (error)
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::io, "cannot create the cache directory: " + error.message(),
              util::SourceLocation{ m_directory, 0, 0 }, "pass --cache-dir DIR"));
        }
        // The key is the full URL's hash; what is stored or shown has no credentials.
        const std::string stem = entry_stem(url);
        const std::string shown = util::redact_url(url);
        auto lock = fsio::FileLock::acquire(stem + ".lock");
        if (!lock)
        {
            return util::unexpected(lock.error());
        }
        auto stored = read_entry(stem, url);

        if (m_offline)
        {
            if (!stored && std::filesystem::exists(stem + ".absent", error))
            {
                // The server said it has no such file the last time: say so again, so that a
                // channel without a noarch subdir stays empty offline too.
                return util::unexpected(util::make_error(
                  util::ErrorKind::network, "HTTP 404 Not Found (the cached answer; offline)",
                  util::SourceLocation{ shown, 0, 0 }));
            }
            if (!stored)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::network,
                  "offline, and the cache in " + m_directory + " holds no copy of this URL",
                  util::SourceLocation{ shown, 0, 0 },
                  "run once without --offline to fill the cache"));
            }
            auto body = read_body(stem, *stored);
            if (!body)
            {
                return util::unexpected(body.error());
            }
            return CachedBody{ std::move(*body), CacheSource::offline, std::move(*stored) };
        }

        ConditionalHeaders conditions;
        if (stored)
        {
            conditions.etag = stored->etag;
            conditions.last_modified = stored->last_modified;
        }
        // The body goes to a temporary file beside the entry as it arrives, so that a download
        // holds no more memory than libcurl's buffer; it replaces the cached body only when the
        // transfer succeeded with new content (not a 304, not an error page).
        auto incoming = fsio::AtomicFile::create(stem + ".body", 0600);
        if (!incoming)
        {
            return util::unexpected(incoming.error());
        }
        const BodySink to_file = [&incoming](std::string_view chunk)
        { return incoming->write(chunk); };
        auto response = client.fetch(url, conditions, to_file);
        if (!response)
        {
            util::Error failed = response.error();
            if (const std::string disk = incoming->write_error(); !disk.empty())
            {
                // The disk's reason (full, read-only), not the URL's.
                failed = util::make_error(util::ErrorKind::io, "cannot write the cache: " + disk,
                                          util::SourceLocation{ stem + ".body", 0, 0 },
                                          "free space there, or pass --cache-dir DIR");
            }
            if (is_not_found(failed))
            {
                // Remembered for --offline; a later download removes the mark.
                if (auto marked = write_private(stem + ".absent", util::redact_url(url) + "\n");
                    !marked)
                {
                    return util::unexpected(marked.error());
                }
            }
            if (stored && failed.hint.empty())
            {
                failed.hint = age_hint(*stored);
            }
            return util::unexpected(std::move(failed));
        }

        if (response->not_modified())
        {
            if (!stored)
            {
                // Only possible when the server ignores our (absent) validators: treat as an error
                // rather than caching an empty body.
                return util::unexpected(
                  util::make_error(util::ErrorKind::network,
                                   "HTTP 304 Not Modified for a request without validators",
                                   util::SourceLocation{ shown, 0, 0 }));
            }
            stored->fetched_at = now_unix_seconds();
            // A 304 may carry updated validators.
            if (!response->etag.empty())
            {
                stored->etag = response->etag;
            }
            if (!response->last_modified.empty())
            {
                stored->last_modified = response->last_modified;
            }
            if (auto written = write_private(stem + ".json", to_json(*stored)); !written)
            {
                return util::unexpected(written.error());
            }
            auto body = read_body(stem, *stored);
            if (!body)
            {
                return util::unexpected(body.error());
            }
            return CachedBody{ std::move(*body), CacheSource::revalidated, std::move(*stored) };
        }

        // Body first, sidecar second: a reader that sees the new sidecar sees the new body, and
        // the size check catches a crash between the two.
        CacheEntry entry{ util::redact_url(url), response->etag, response->last_modified,
                          now_unix_seconds(), response->body_bytes };
        if (auto committed = incoming->commit(); !committed)
        {
            return util::unexpected(committed.error());
        }
        make_private(stem + ".body");
        if (auto written = write_private(stem + ".json", to_json(entry)); !written)
        {
            return util::unexpected(written.error());
        }
        std::filesystem::remove(stem + ".absent", error);
        auto body = read_body(stem, entry);
        if (!body)
        {
            return util::unexpected(body.error());
        }
        return CachedBody{ std::move(*body), CacheSource::downloaded, std::move(entry) };
    }
}
