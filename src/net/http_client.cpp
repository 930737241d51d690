#include "net/http_client.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>

#include <curl/curl.h>

#include "fsio/files.hpp"
#include "net/curl_library.hpp"
#include "util/strings.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::net
{
    namespace
    {
        constexpr std::string_view ca_bundle_hint =
          "use --ca-bundle FILE if the server uses a private CA";

        // The protocol limits as bitmasks, for libcurl before 7.85, which does not know the
        // string options; by number, because newer headers mark these two deprecated.
        constexpr auto protocols_bitmask_option = static_cast<CURLoption>(CURLOPTTYPE_LONG + 181);
        constexpr auto redirect_protocols_bitmask_option =
          static_cast<CURLoption>(CURLOPTTYPE_LONG + 182);

        struct SlistDeleter
        {
            const CurlLibrary* curl = nullptr;
            void operator()(curl_slist* list) const { curl->slist_free_all(list); }
        };
        using Slist = std::unique_ptr<curl_slist, SlistDeleter>;

        struct UrlDeleter
        {
            const CurlLibrary* curl = nullptr;
            void operator()(CURLU* url) const { curl->url_cleanup(url); }
        };

        // One part of a URL as libcurl parses it ("" when absent or unparsable, or when the
        // libcurl loaded predates its URL API).
        auto url_part(const CurlLibrary& curl, const std::string& url, CURLUPart part,
                      unsigned flags = 0) -> std::string
        {
            if (curl.url == nullptr)
            {
                return {};
            }
            const std::unique_ptr<CURLU, UrlDeleter> handle(curl.url(), UrlDeleter{ &curl });
            if (!handle || curl.url_set(handle.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK)
            {
                return {};
            }
            char* value = nullptr;
            if (curl.url_get(handle.get(), part, &value, flags) != CURLUE_OK || value == nullptr)
            {
                return {};
            }
            std::string out(value);
            curl.free(value);
            return out;
        }

        // The URL without its credentials, so that they never reach messages or logs.
        auto redact(const std::string& url) -> std::string
        {
            return util::redact_url(url);
        }

        // State the libcurl callbacks write into during one transfer.
        struct Transfer
        {
            std::size_t max_bytes = 0;
            bool too_large = false;
            const BodySink* sink = nullptr; // where the body goes; null: into `body`
            bool sink_refused = false;
            std::size_t received = 0; // decoded body bytes so far
            std::string body;
            std::vector<std::pair<std::string, std::string>> headers;
            std::string reason; // of the last status line
        };

        auto on_body(char* data, std::size_t size, std::size_t count, void* user) -> std::size_t
        {
            auto& transfer = *static_cast<Transfer*>(user);
            const std::size_t bytes = size * count;
            // Checked on the decoded bytes: a small compressed body can expand without bound.
            if (transfer.received + bytes > transfer.max_bytes)
            {
                transfer.too_large = true;
                return 0; // makes libcurl stop with CURLE_WRITE_ERROR
            }
            transfer.received += bytes;
            if (transfer.sink != nullptr)
            {
                if (!(*transfer.sink)(std::string_view(data, bytes)))
                {
                    transfer.sink_refused = true;
                    return 0;
                }
                return bytes;
            }
            // Grown by doubling, but never past the limit: a body without Content-Length that
            // approaches a 1 GiB cap would otherwise hold a 2 GiB buffer.
            const std::size_t needed = transfer.body.size() + bytes;
            if (needed > transfer.body.capacity())
            {
                // reserve() on a non-empty string may double past what it is asked for; a fresh
                // string takes exactly the capacity requested.
                std::string grown;
                grown.reserve(
                  std::min(std::max(needed, 2 * transfer.body.capacity()), transfer.max_bytes));
                grown.append(transfer.body);
                transfer.body.swap(grown);
            }
            transfer.body.append(data, bytes);
            return bytes;
        }

        auto on_header(char* data, std::size_t size, std::size_t count, void* user) -> std::size_t
        {
            auto& transfer = *static_cast<Transfer*>(user);
            const std::size_t bytes = size * count;
            const std::string_view line = util::trim(std::string_view(data, bytes));
            if (line.starts_with("HTTP/"))
            {
                // A new response (after a redirect or a 100 Continue): keep only the final one's.
                transfer.headers.clear();
                const auto code_start = line.find(' ');
                const auto reason_start = code_start == std::string_view::npos
                                            ? code_start
                                            : line.find(' ', code_start + 1);
                transfer.reason = reason_start == std::string_view::npos
                                    ? std::string()
                                    : std::string(util::trim(line.substr(reason_start + 1)));
                return bytes;
            }
            const auto colon = line.find(':');
            if (colon != std::string_view::npos && colon > 0)
            {
                transfer.headers.emplace_back(util::to_lower(util::trim(line.substr(0, colon))),
                                              std::string(util::trim(line.substr(colon + 1))));
            }
            return bytes;
        }

        auto failure(util::ErrorKind kind, const std::string& url, std::string message,
                     std::string hint = {}) -> util::Unexpected<util::Error>
        {
            return util::unexpected(util::make_error(kind, std::move(message),
                                                     util::SourceLocation{ redact(url), 0, 0 },
                                                     std::move(hint)));
        }

        auto has_scheme(std::string_view url, std::string_view scheme) -> bool
        {
            return util::istarts_with(url, scheme) && url.substr(scheme.size()).starts_with("://");
        }

        auto proxy_hint() -> std::string
        {
            return "the proxy comes from http_proxy, https_proxy/HTTPS_PROXY or "
                   "all_proxy/ALL_PROXY;"
                   " no_proxy/NO_PROXY lists hosts reached directly";
        }
    }

    auto HttpResponse::header(std::string_view name) const -> std::string_view
    {
        for (const auto& [key, value] : headers)
        {
            if (key == name)
            {
                return value;
            }
        }
        return {};
    }

    auto is_url(std::string_view text) -> bool
    {
        return has_scheme(text, "http") || has_scheme(text, "https") || has_scheme(text, "file");
    }

    auto reason_phrase(long status) -> std::string_view
    {
        struct Reason
        {
            long status;
            std::string_view phrase;
        };
        static constexpr std::array<Reason, 25> reasons{ {
          { 200, "OK" },
          { 203, "Non-Authoritative Information" },
          { 204, "No Content" },
          { 206, "Partial Content" },
          { 301, "Moved Permanently" },
          { 302, "Found" },
          { 303, "See Other" },
          { 304, "Not Modified" },
          { 307, "Temporary Redirect" },
          { 308, "Permanent Redirect" },
          { 400, "Bad Request" },
          { 401, "Unauthorized" },
          { 403, "Forbidden" },
          { 404, "Not Found" },
          { 405, "Method Not Allowed" },
          { 406, "Not Acceptable" },
          { 407, "Proxy Authentication Required" },
          { 408, "Request Timeout" },
          { 410, "Gone" },
          { 429, "Too Many Requests" },
          { 500, "Internal Server Error" },
          { 501, "Not Implemented" },
          { 502, "Bad Gateway" },
          { 503, "Service Unavailable" },
          { 504, "Gateway Timeout" },
        } };
        const auto* found =
          std::find_if(reasons.begin(), reasons.end(),
                       [status](const Reason& row) { return row.status == status; });
        return found == reasons.end() ? std::string_view{} : found->phrase;
    }

    auto describe_duration(std::chrono::milliseconds duration) -> std::string
    {
        const auto ms = duration.count();
        if (ms < 1000)
        {
            return std::to_string(ms) + " ms";
        }
        std::string out = std::to_string(ms / 1000);
        if (const auto fraction = ms % 1000; fraction != 0)
        {
            std::string digits = std::to_string(fraction);
            digits.insert(0, 3 - digits.size(), '0');
            while (digits.back() == '0')
            {
                digits.pop_back();
            }
            out += "." + digits;
        }
        return out + " s";
    }

    struct HttpClient::Handle
    {
        util::Result<const CurlLibrary*> curl;
        CURL* easy = nullptr;
        char error_buffer[CURL_ERROR_SIZE] = {};

        Handle()
          : curl(curl_library())
          , easy(curl ? (*curl)->easy_init() : nullptr)
        {
        }
        Handle(const Handle&) = delete;
        auto operator=(const Handle&) -> Handle& = delete;
        ~Handle()
        {
            if (easy != nullptr)
            {
                (*curl)->easy_cleanup(easy);
            }
        }
    };

    HttpClient::HttpClient(HttpOptions options)
      : m_options(std::move(options))
      , m_handle(std::make_unique<Handle>())
    {
    }

    HttpClient::HttpClient(HttpClient&&) noexcept = default;
    auto HttpClient::operator=(HttpClient&&) noexcept -> HttpClient& = default;
    HttpClient::~HttpClient() = default;

    auto HttpClient::supported_encodings() -> std::vector<std::string>
    {
        const auto curl = curl_library();
        if (!curl)
        {
            return {};
        }
        const curl_version_info_data* info = (*curl)->version_info(CURLVERSION_NOW);
        std::vector<std::string> encodings;
        if ((info->features & CURL_VERSION_LIBZ) != 0)
        {
            encodings.emplace_back("gzip");
            encodings.emplace_back("deflate");
        }
        if ((info->features & CURL_VERSION_BROTLI) != 0)
        {
            encodings.emplace_back("br");
        }
        if ((info->features & CURL_VERSION_ZSTD) != 0)
        {
            encodings.emplace_back("zstd");
        }
        return encodings;
    }

    auto HttpClient::fetch(const std::string& url, const ConditionalHeaders& conditions)
      -> util::Result<HttpResponse>
    {
        return fetch_into(url, conditions, nullptr);
    }

    auto HttpClient::fetch(const std::string& url, const ConditionalHeaders& conditions,
                           const BodySink& sink) -> util::Result<HttpResponse>
    {
        return fetch_into(url, conditions, &sink);
    }

    namespace
    {
        // Whether a file:// URL names a directory, which libcurl would read as an empty file.
        auto is_directory_url(const CurlLibrary& curl, const std::string& url) -> bool
        {
            std::error_code error;
            return std::filesystem::is_directory(
              url_part(curl, url, CURLUPART_PATH, CURLU_URLDECODE), error);
        }

        // The validators of the caller's copy as request headers; null when there are none.
        auto conditional_headers(const CurlLibrary& curl, const ConditionalHeaders& conditions)
          -> Slist
        {
            Slist request_headers(nullptr, SlistDeleter{ &curl });
            auto add_header = [&request_headers, &curl](const std::string& line)
            {
                curl_slist* appended = curl.slist_append(request_headers.get(), line.c_str());
                if (appended != nullptr)
                {
                    static_cast<void>(request_headers.release());
                    request_headers.reset(appended);
                }
            };
            if (!conditions.etag.empty())
            {
                add_header("If-None-Match: " + conditions.etag);
            }
            if (!conditions.last_modified.empty())
            {
                add_header("If-Modified-Since: " + conditions.last_modified);
            }
            return request_headers;
        }

        // The protocol limits must hold with any libcurl: the bitmask options where the string
        // ones (7.85) are unknown.
        void restrict_protocols(const CurlLibrary& curl, CURL* easy, bool is_https)
        {
            if (curl.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https,file") != CURLE_OK)
            {
                curl.easy_setopt(
                  easy, protocols_bitmask_option,
                  static_cast<long>(CURLPROTO_HTTP | CURLPROTO_HTTPS | CURLPROTO_FILE));
            }
            // Never downgrade: from https, redirects may only go to https.
            if (curl.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR,
                                 is_https ? "https" : "http,https") != CURLE_OK)
            {
                curl.easy_setopt(easy, redirect_protocols_bitmask_option,
                                 static_cast<long>(is_https ? CURLPROTO_HTTPS
                                                            : (CURLPROTO_HTTP | CURLPROTO_HTTPS)));
            }
        }

        // Redirects, timeouts and the size cap of HttpOptions.
        void set_limits(const CurlLibrary& curl, CURL* easy, const HttpOptions& options)
        {
            curl.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
            curl.easy_setopt(easy, CURLOPT_MAXREDIRS, options.max_redirects);
            curl.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                             static_cast<long>(options.connect_timeout.count()));
            curl.easy_setopt(easy, CURLOPT_TIMEOUT_MS,
                             static_cast<long>(options.total_timeout.count()));
            curl.easy_setopt(easy, CURLOPT_MAXFILESIZE_LARGE,
                             static_cast<curl_off_t>(options.max_bytes));
            // A server that trickles (or never answers after the handshake) is given up on long
            // before the total timeout.
            if (options.low_speed_bytes_per_second > 0)
            {
                curl.easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, options.low_speed_bytes_per_second);
                curl.easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
                                 static_cast<long>(options.low_speed_time.count()));
            }
            curl.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        }

        // Verification is always on; a private CA is added with ca_bundle, never by turning it off.
        void verify_tls(const CurlLibrary& curl, CURL* easy, const std::string& ca_bundle)
        {
            curl.easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
            curl.easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
            if (!ca_bundle.empty())
            {
                curl.easy_setopt(easy, CURLOPT_CAINFO, ca_bundle.c_str());
            }
        }

        // The callbacks that fill `transfer`, and the request headers (may be null).
        void set_callbacks(const CurlLibrary& curl, CURL* easy, Transfer& transfer,
                           curl_slist* request_headers)
        {
            curl.easy_setopt(easy, CURLOPT_WRITEFUNCTION, &on_body);
            curl.easy_setopt(easy, CURLOPT_WRITEDATA, &transfer);
            curl.easy_setopt(easy, CURLOPT_HEADERFUNCTION, &on_header);
            curl.easy_setopt(easy, CURLOPT_HEADERDATA, &transfer);
            if (request_headers != nullptr)
            {
                curl.easy_setopt(easy, CURLOPT_HTTPHEADER, request_headers);
            }
        }

        // libcurl's words for a failure: the error buffer's, more specific, else the code's.
        auto curl_detail(const CurlLibrary& curl, const char* error_buffer, CURLcode code)
          -> std::string
        {
            return error_buffer[0] != '\0' ? std::string(error_buffer)
                                           : std::string(curl.easy_strerror(code));
        }

        // What the error of a failed transfer (libcurl did not return CURLE_OK) is made of.
        struct FailedTransfer
        {
            const CurlLibrary& curl;
            CURL* easy = nullptr;
            const std::string& url;
            const HttpOptions& options;
            const Transfer& transfer;
            CURLcode code = CURLE_OK;
            std::string detail; // curl_detail
            bool is_https = false;
            bool is_file = false;
        };

        using Failure = util::Unexpected<util::Error>;

        // Failures of the URL itself and of where its redirects lead.
        auto url_failure(const FailedTransfer& failed) -> std::optional<Failure>
        {
            const std::string& url = failed.url;
            switch (failed.code)
            {
                case CURLE_UNSUPPORTED_PROTOCOL:
                    if (failed.is_https)
                    {
                        return failure(util::ErrorKind::network, url,
                                       "redirected from https to another scheme; envcheck never "
                                       "downgrades from TLS (" +
                                         failed.detail + ")",
                                       "ask for the URL the redirect names, if you trust it");
                    }
                    return failure(util::ErrorKind::network, url,
                                   "redirected to a URL scheme that is not allowed (" +
                                     failed.detail + ")");
                case CURLE_URL_MALFORMAT:
                    return failure(util::ErrorKind::usage, url,
                                   "malformed URL (" + failed.detail + ")");
                case CURLE_TOO_MANY_REDIRECTS:
                    return failure(util::ErrorKind::network, url,
                                   "too many redirects (" +
                                     std::to_string(failed.options.max_redirects) + ")");
                default:
                    return std::nullopt;
            }
        }

        auto connect_failure(const FailedTransfer& failed) -> Failure
        {
            long os_errno = 0;
            failed.curl.easy_getinfo(failed.easy, CURLINFO_OS_ERRNO, &os_errno);
            const std::string cause =
              os_errno == ECONNREFUSED
                ? std::string("connection refused")
                : "cannot connect: " + fsio::describe_errno(static_cast<int>(os_errno));
            return failure(util::ErrorKind::network, failed.url,
                           cause + " (" + failed.detail + ")");
        }

        // A timeout, told apart by where the transfer stopped: in the TLS handshake, below the
        // low-speed limit, while connecting, or past the total timeout.
        auto timeout_failure(const FailedTransfer& failed) -> Failure
        {
            const HttpOptions& options = failed.options;
            curl_off_t connected_after = 0;
            failed.curl.easy_getinfo(failed.easy, CURLINFO_CONNECT_TIME_T, &connected_after);
            curl_off_t handshake_after = 0;
            failed.curl.easy_getinfo(failed.easy, CURLINFO_APPCONNECT_TIME_T, &handshake_after);
            // libcurl clears the connect time when the connection phase fails; its message
            // says where it stopped.
            if (failed.is_https &&
                ((connected_after > 0 && handshake_after == 0) ||
                 failed.detail.find("SSL connection timeout") != std::string::npos))
            {
                return failure(util::ErrorKind::network, failed.url,
                               "not TLS: the server accepted the connection but never "
                               "answered the TLS handshake (within " +
                                 describe_duration(options.connect_timeout) +
                                 "); is it a plain-http server?",
                               "check the URL's scheme and port");
            }
            if (failed.detail.find("too slow") != std::string::npos)
            {
                return failure(util::ErrorKind::timeout, failed.url,
                               "slower than " + std::to_string(options.low_speed_bytes_per_second) +
                                 " bytes/s for " + std::to_string(options.low_speed_time.count()) +
                                 " s; given up (received " +
                                 std::to_string(failed.transfer.body.size()) + " bytes)",
                               "the server stalls; try again later or another mirror");
            }
            if (connected_after == 0 && !failed.is_file)
            {
                return failure(util::ErrorKind::timeout, failed.url,
                               "could not connect: timed out after " +
                                 describe_duration(options.connect_timeout),
                               "raise the connect timeout if the server is slow to accept");
            }
            return failure(util::ErrorKind::timeout, failed.url,
                           "timed out after " + describe_duration(options.total_timeout) +
                             " (received " + std::to_string(failed.transfer.received) + " bytes)",
                           "raise the timeout for large files or slow servers");
        }

        // Failures to reach the server (or the proxy) and to keep the connection.
        auto connection_failure(const FailedTransfer& failed) -> std::optional<Failure>
        {
            const std::string& url = failed.url;
            switch (failed.code)
            {
                case CURLE_COULDNT_RESOLVE_PROXY:
                    return failure(util::ErrorKind::network, url,
                                   "cannot resolve the proxy host (" + failed.detail + ")",
                                   proxy_hint());
                case CURLE_COULDNT_RESOLVE_HOST:
                    return failure(util::ErrorKind::network, url,
                                   "cannot resolve host '" +
                                     url_part(failed.curl, url, CURLUPART_HOST) + "'",
                                   "check the host name and the machine's DNS settings");
                case CURLE_COULDNT_CONNECT:
                    return connect_failure(failed);
                case CURLE_OPERATION_TIMEDOUT:
                    return timeout_failure(failed);
                case CURLE_PARTIAL_FILE:
                    return failure(
                      util::ErrorKind::network, url,
                      "truncated response: the connection closed before the whole body arrived (" +
                        failed.detail + ")");
                case CURLE_GOT_NOTHING:
                    return failure(util::ErrorKind::network, url,
                                   "the server closed the connection without sending a response");
                case CURLE_RECV_ERROR:
                case CURLE_SEND_ERROR:
                    return failure(util::ErrorKind::network, url,
                                   "connection broken (" + failed.detail + ")");
                default:
                    return std::nullopt;
            }
        }

        auto tls_handshake_failure(const FailedTransfer& failed) -> Failure
        {
            const std::string& detail = failed.detail;
            // OpenSSL's words for an answer that is no TLS record (an http server's reply).
            if (detail.find("wrong version number") != std::string::npos ||
                detail.find("packet length too long") != std::string::npos ||
                detail.find("record layer failure") != std::string::npos ||
                detail.find("http request") != std::string::npos)
            {
                return failure(util::ErrorKind::network, failed.url,
                               "TLS handshake failed: not TLS, the server answered in "
                               "plain text; is it a plain-http server? (" +
                                 detail + ")",
                               "check the URL's scheme and port");
            }
            return failure(util::ErrorKind::network, failed.url,
                           "TLS handshake failed (" + detail + ")", std::string(ca_bundle_hint));
        }

        auto tls_failure(const FailedTransfer& failed) -> std::optional<Failure>
        {
            switch (failed.code)
            {
                case CURLE_PEER_FAILED_VERIFICATION:
                    return failure(util::ErrorKind::network, failed.url,
                                   "TLS certificate verify failed (" + failed.detail + ")",
                                   std::string(ca_bundle_hint));
                case CURLE_SSL_CACERT_BADFILE:
                    return failure(util::ErrorKind::io, failed.url,
                                   "cannot use the CA bundle '" + failed.options.ca_bundle + "' (" +
                                     failed.detail + ")");
                case CURLE_SSL_CONNECT_ERROR:
                    return tls_handshake_failure(failed);
                default:
                    return std::nullopt;
            }
        }

        // A body over HttpOptions::max_bytes: announced (libcurl refuses it) or counted.
        auto too_large_failure(const FailedTransfer& failed) -> Failure
        {
            return failure(util::ErrorKind::network, failed.url,
                           "response larger than the limit of " +
                             std::to_string(failed.options.max_bytes) + " bytes");
        }

        // Why the body could not be stored: over the size cap, or refused by the sink.
        auto write_failure(const FailedTransfer& failed) -> Failure
        {
            if (failed.transfer.too_large)
            {
                return too_large_failure(failed);
            }
            if (failed.transfer.sink_refused)
            {
                return failure(util::ErrorKind::io, failed.url,
                               "cannot store the response: its destination refused a write");
            }
            return failure(util::ErrorKind::internal, failed.url,
                           "cannot store the response (" + failed.detail + ")");
        }

        // Failures of the body (its size, decoding and storing, or a file:// read) and any code
        // the other groups leave.
        auto body_failure(const FailedTransfer& failed) -> Failure
        {
            const std::string& url = failed.url;
            switch (failed.code)
            {
                case CURLE_FILESIZE_EXCEEDED:
                    return too_large_failure(failed);
                case CURLE_WRITE_ERROR:
                    return write_failure(failed);
                case CURLE_BAD_CONTENT_ENCODING:
                    return failure(util::ErrorKind::network, url,
                                   "cannot decode the compressed response (" + failed.detail + ")");
                case CURLE_FILE_COULDNT_READ_FILE:
                    return failure(util::ErrorKind::io, url,
                                   "cannot read the file (" + failed.detail + ")");
                default:
                    return failure(util::ErrorKind::network, url,
                                   "transfer failed (" + failed.detail + ")");
            }
        }

        // The error of a transfer that libcurl ended with anything but CURLE_OK; each code
        // belongs to one group.
        auto transfer_failure(const FailedTransfer& failed) -> Failure
        {
            if (auto error = url_failure(failed))
            {
                return std::move(*error);
            }
            if (auto error = connection_failure(failed))
            {
                return std::move(*error);
            }
            if (auto error = tls_failure(failed))
            {
                return std::move(*error);
            }
            return body_failure(failed);
        }

        // An HTTP status that fails the fetch: >= 400, or a redirect that libcurl did not follow
        // (it has no Location). `status_line_reason` is the server's, for codes without a
        // standard reason phrase.
        auto status_failure(const HttpResponse& response, const std::string& url,
                            const std::string& status_line_reason) -> std::optional<Failure>
        {
            if (response.status >= 400)
            {
                std::string reason(reason_phrase(response.status));
                if (reason.empty())
                {
                    reason = status_line_reason;
                }
                std::string message = "HTTP " + std::to_string(response.status);
                if (!reason.empty())
                {
                    message += " " + reason;
                }
                if (response.effective_url != url)
                {
                    message += " (from " + redact(response.effective_url) + ")";
                }
                return failure(util::ErrorKind::network, url, message);
            }
            if (response.status >= 300 && response.status != 304)
            {
                return failure(util::ErrorKind::network, url,
                               "HTTP " + std::to_string(response.status) +
                                 " without a Location to follow");
            }
            return std::nullopt;
        }

        // The response of a transfer that libcurl completed, unless its status fails the fetch.
        auto completed_response(const CurlLibrary& curl, CURL* easy, const std::string& url,
                                bool is_file, Transfer& transfer) -> util::Result<HttpResponse>
        {
            HttpResponse response;
            if (!is_file)
            {
                curl.easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &response.status);
            }
            char* effective = nullptr;
            curl.easy_getinfo(easy, CURLINFO_EFFECTIVE_URL, &effective);
            response.effective_url = effective != nullptr ? std::string(effective) : url;
            if (auto error = status_failure(response, url, transfer.reason))
            {
                return std::move(*error);
            }
            response.headers = std::move(transfer.headers);
            response.body = std::move(transfer.body);
            response.body_bytes = transfer.received;
            response.etag = std::string(response.header("etag"));
            response.last_modified = std::string(response.header("last-modified"));
            return response;
        }
    }

    auto HttpClient::fetch_into(const std::string& url, const ConditionalHeaders& conditions,
                                const BodySink* sink) -> util::Result<HttpResponse>
    {
        if (!m_handle)
        {
            return failure(util::ErrorKind::internal, url, "use of a moved-from HttpClient");
        }
        if (!is_url(url))
        {
            return failure(
              util::ErrorKind::usage, url,
              "unsupported URL scheme (envcheck fetches http://, https:// and file:// URLs)");
        }
        if (!m_handle->curl)
        {
            util::Error error = m_handle->curl.error();
            error.where = util::SourceLocation{ redact(url), 0, 0 };
            return util::unexpected(std::move(error));
        }
        if (m_handle->easy == nullptr)
        {
            return failure(util::ErrorKind::internal, url, "cannot create a libcurl handle");
        }
        const CurlLibrary& curl = **m_handle->curl;
        const bool is_https = has_scheme(url, "https");
        const bool is_file = has_scheme(url, "file");
        if (is_file && is_directory_url(curl, url))
        {
            return failure(util::ErrorKind::io, url, "is a directory, not a file");
        }
        CURL* easy = m_handle->easy;
        // reset keeps the connection and DNS caches, so repeated fetches reuse connections.
        curl.easy_reset(easy);
        m_handle->error_buffer[0] = '\0';

        Transfer transfer;
        transfer.max_bytes = m_options.max_bytes;
        transfer.sink = sink;
        const Slist request_headers = conditional_headers(curl, conditions);

        curl.easy_setopt(easy, CURLOPT_URL, url.c_str());
        curl.easy_setopt(easy, CURLOPT_ERRORBUFFER, m_handle->error_buffer);
        restrict_protocols(curl, easy, is_https);
        set_limits(curl, easy, m_options);
        // "" offers every coding this libcurl build decodes (gzip, deflate, br, zstd).
        curl.easy_setopt(easy, CURLOPT_ACCEPT_ENCODING, "");
        curl.easy_setopt(easy, CURLOPT_USERAGENT, m_options.user_agent.c_str());
        verify_tls(curl, easy, m_options.ca_bundle);
        set_callbacks(curl, easy, transfer, request_headers.get());

        const CURLcode code = curl.easy_perform(easy);
        // The options point into this frame's objects; don't leave them dangling in the handle.
        curl.easy_setopt(easy, CURLOPT_HTTPHEADER, nullptr);

        if (code != CURLE_OK)
        {
            return transfer_failure(FailedTransfer{ curl, easy, url, m_options, transfer, code,
                                                    curl_detail(curl, m_handle->error_buffer, code),
                                                    is_https, is_file });
        }
        return completed_response(curl, easy, url, is_file, transfer);
    }

    auto is_not_found(const util::Error& error) -> bool
    {
        // The messages are made in this file: "HTTP 404 ...", libcurl's file:// "Couldn't open
        // file" and fsio's "cannot open: No such file".
        return (error.kind == util::ErrorKind::network &&
                error.message.rfind("HTTP 404", 0) == 0) ||
               (error.kind == util::ErrorKind::io &&
                (error.message.find("No such file") != std::string::npos ||
                 error.message.find("Couldn't open file") != std::string::npos));
    }

    auto read_input(const std::string& path_or_url, const HttpOptions& options)
      -> util::Result<std::string>
    {
        // "ftp://host/x" goes to the client too, which names the unsupported scheme, rather than
        // to the file reader, which would only say that no such file exists.
        const auto scheme_end = path_or_url.find("://");
        const bool has_any_scheme =
          scheme_end != std::string::npos && scheme_end > 0 &&
          std::all_of(path_or_url.begin(),
                      path_or_url.begin() + static_cast<std::ptrdiff_t>(scheme_end),
                      [](char c) { return util::is_alpha(c); });
        if (!has_any_scheme)
        {
            return fsio::read_file(path_or_url, options.max_bytes);
        }
        HttpClient client(options);
        auto response = client.fetch(path_or_url);
        if (!response)
        {
            return util::unexpected(response.error());
        }
        return std::move(response->body);
    }
}
