// Fetching http(s):// and file:// URLs through libcurl, with the limits a CI gate needs: bounded
// redirects, connect and total timeouts, a size cap (also on the decompressed body), compressed
// transfer and TLS verification that cannot be switched off (only a CA bundle can be added).
//
// Proxies come from the standard environment variables, read by libcurl itself:
//   http://  URLs: http_proxy (lowercase only: libcurl ignores HTTP_PROXY, which a CGI server
//                  could set from a request's "Proxy:" header)
//   https:// URLs: https_proxy or HTTPS_PROXY
//   any URL:       all_proxy or ALL_PROXY, when the scheme's own variable is not set
//   exceptions:    no_proxy or NO_PROXY (comma-separated hosts and domains; "*" for all)
// file:// URLs never go through a proxy.
#ifndef ENVCHECK_NET_HTTP_CLIENT_HPP
#define ENVCHECK_NET_HTTP_CLIENT_HPP

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/result.hpp"

namespace envcheck::net
{
    struct HttpOptions
    {
        std::chrono::milliseconds connect_timeout{ 10'000 };
        std::chrono::milliseconds total_timeout{ 300'000 }; // the whole transfer, body included
        long max_redirects = 5;
        std::size_t max_bytes = std::size_t{ 1 } << 30; // of the decoded body
        // Below this many bytes per second for low_speed_time, the transfer is given up (0: no
        // such limit): a stalled server does not hold a run for the whole total_timeout.
        long low_speed_bytes_per_second = 1024;
        std::chrono::seconds low_speed_time{ 30 };
        std::string ca_bundle; // PEM CAs trusted instead of the system store; empty: system
        std::string user_agent = "envcheck";
    };

    // Validators of a copy the caller already has; the server answers 304 when it is current.
    struct ConditionalHeaders
    {
        std::string etag;          // sent as If-None-Match
        std::string last_modified; // sent as If-Modified-Since
    };

    struct HttpResponse
    {
        long status = 0; // 200, 304, ...; 0 for file:// URLs
        std::vector<std::pair<std::string, std::string>> headers; // of the final response;
                                                                  // names lowercased
        std::string body;           // decoded (decompressed); empty for 304 and when a sink took it
        std::size_t body_bytes = 0; // of the decoded body, wherever it went
        std::string etag;
        std::string last_modified;
        std::string effective_url; // after redirects

        // The value of the first header named `name` (lowercase), or "" when absent.
        [[nodiscard]] auto header(std::string_view name) const -> std::string_view;
        [[nodiscard]] auto not_modified() const -> bool { return status == 304; }
    };

    // Whether `text` names a URL this client fetches (http://, https:// or file://, any case)
    // rather than a local path.
    [[nodiscard]] auto is_url(std::string_view text) -> bool;

    // Takes the decoded body piece by piece instead of the response's `body`; false stops the
    // transfer (an ErrorKind::io failure). It also receives the body of an error status or a
    // redirect, which the caller discards when fetch fails.
    using BodySink = std::function<bool(std::string_view chunk)>;

    // The standard reason phrase of an HTTP status ("Not Found"), or "" for unknown codes.
    [[nodiscard]] auto reason_phrase(long status) -> std::string_view;

    // "10 s", "1.5 s", "250 ms": durations in messages.
    [[nodiscard]] auto describe_duration(std::chrono::milliseconds duration) -> std::string;

    // One libcurl easy handle, reused across fetches (keeping connections alive). Not
    // thread-safe: use one client per thread. Every failure is an util::Error whose `where.file`
    // is the URL: ErrorKind::timeout for timeouts, ErrorKind::network for DNS, connection, TLS,
    // HTTP status (>= 400), redirect and size failures, ErrorKind::io for unreadable file://
    // paths, ErrorKind::usage for malformed URLs and unsupported schemes.
    class HttpClient
    {
    public:
        explicit HttpClient(HttpOptions options = {});
        HttpClient(HttpClient&&) noexcept;
        auto operator=(HttpClient&&) noexcept -> HttpClient&;
        HttpClient(const HttpClient&) = delete;
        auto operator=(const HttpClient&) -> HttpClient& = delete;
        ~HttpClient();

        [[nodiscard]] auto fetch(const std::string& url, const ConditionalHeaders& conditions = {})
          -> util::Result<HttpResponse>;
        // The same, with the body streamed to `sink`: memory stays bounded by libcurl's buffer
        // whatever the body's size.
        [[nodiscard]] auto fetch(const std::string& url, const ConditionalHeaders& conditions,
                                 const BodySink& sink) -> util::Result<HttpResponse>;

        [[nodiscard]] auto options() const -> const HttpOptions& { return m_options; }

        // The content codings this libcurl build decodes ("gzip", "deflate", "br", "zstd").
        [[nodiscard]] static auto supported_encodings() -> std::vector<std::string>;

    private:
        [[nodiscard]] auto fetch_into(const std::string& url, const ConditionalHeaders& conditions,
                                      const BodySink* sink) -> util::Result<HttpResponse>;
        struct Handle;
        HttpOptions m_options;
        std::unique_ptr<Handle> m_handle;
    };

    // Whether a fetch failed because the resource does not exist: HTTP 404, or a file:// path
    // that is not there. Channels answer so for a subdir they do not publish.
    [[nodiscard]] auto is_not_found(const util::Error& error) -> bool;

    // The text of a local file (fsio::read_file; "-" is stdin) or of a URL (fetched with
    // `options`): what every command that takes an environment file or a lock reads.
    [[nodiscard]] auto read_input(const std::string& path_or_url, const HttpOptions& options)
      -> util::Result<std::string>;
}

#endif
