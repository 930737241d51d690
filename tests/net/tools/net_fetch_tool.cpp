// A small command line over net::HttpClient, net::Cache and net::read_input, so that
// tests/net/test_http.py can drive the adapter against its loopback servers. Prints one JSON
// object on success (exit 0); on failure prints the error as envcheck does and exits 2 (3 for
// an internal error), with the error kind on its own line ("kind: timeout").
#include <cstdlib>
#include <iostream>
#include <string>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "net/cache.hpp"
#include "net/http_client.hpp"
#include "util/sha256.hpp"

using namespace envcheck;

namespace
{
    struct ToolOptions
    {
        std::string url;
        long connect_timeout_ms = 10'000;
        long timeout_ms = 300'000;
        long max_redirects = 5;
        std::size_t max_bytes = std::size_t{ 1 } << 30;
        long low_speed_time_s = 30;
        std::string ca_bundle;
        std::string cache_dir;
        bool default_cache = false;
        bool offline = false;
        bool read_input = false;
        bool summary = false; // the body's size and hash and the peak memory, not the body
        std::string etag;
        std::string last_modified;
    };

    auto fail(const util::Error& error) -> int
    {
        std::cerr << "envcheck: error: " << error.to_string() << '\n';
        if (!error.hint.empty())
        {
            std::cerr << "  hint: " << error.hint << '\n';
        }
        std::cerr << "kind: " << util::to_string(error.kind) << '\n';
        return error.kind == util::ErrorKind::internal ? 3 : 2;
    }

    auto getenv_or_empty(const char* name) -> std::string
    {
        const char* value = std::getenv(name);
        return value == nullptr ? std::string() : std::string(value);
    }

    void put_body(nlohmann::json& out, const std::string& body, bool summary)
    {
        if (!summary)
        {
            out["body"] = body;
        }
        else
        {
            rusage usage{};
            ::getrusage(RUSAGE_SELF, &usage);
            out["peak_rss_kib"] = usage.ru_maxrss;
        }
        out["body_size"] = body.size();
        out["body_sha256"] = util::Sha256::hex_of(body);
    }

    auto run(const ToolOptions& options) -> int
    {
        net::HttpOptions http;
        http.connect_timeout = std::chrono::milliseconds(options.connect_timeout_ms);
        http.total_timeout = std::chrono::milliseconds(options.timeout_ms);
        http.max_redirects = options.max_redirects;
        http.max_bytes = options.max_bytes;
        http.low_speed_time = std::chrono::seconds(options.low_speed_time_s);
        http.ca_bundle = options.ca_bundle;

        nlohmann::json out;
        if (options.read_input)
        {
            auto text = net::read_input(options.url, http);
            if (!text)
            {
                return fail(text.error());
            }
            out["body"] = *text;
            out["body_size"] = text->size();
            std::cout << out.dump() << '\n';
            return 0;
        }

        net::HttpClient client(http);
        if (!options.cache_dir.empty() || options.default_cache)
        {
            std::string directory = options.cache_dir;
            if (directory.empty())
            {
                auto chosen = net::default_cache_directory(getenv_or_empty("XDG_CACHE_HOME"),
                                                           getenv_or_empty("HOME"));
                if (!chosen)
                {
                    return fail(chosen.error());
                }
                directory = *chosen;
            }
            net::Cache cache(directory, options.offline);
            auto cached = cache.fetch(client, options.url);
            if (!cached)
            {
                return fail(cached.error());
            }
            out["source"] = net::to_string(cached->source);
            out["cache_dir"] = cache.directory();
            out["etag"] = cached->entry.etag;
            out["last_modified"] = cached->entry.last_modified;
            put_body(out, cached->body, options.summary);
            std::cout << out.dump() << '\n';
            return 0;
        }

        auto response =
          client.fetch(options.url, net::ConditionalHeaders{ options.etag, options.last_modified });
        if (!response)
        {
            return fail(response.error());
        }
        out["status"] = response->status;
        out["etag"] = response->etag;
        out["last_modified"] = response->last_modified;
        out["effective_url"] = response->effective_url;
        out["content_encoding"] = std::string(response->header("content-encoding"));
        put_body(out, response->body, options.summary);
        std::cout << out.dump() << '\n';
        return 0;
    }
}

auto main(int argc, char** argv) -> int
{
    CLI::App app("Fetch one URL with envcheck's net adapter (a test tool)");
    ToolOptions options;
    app.add_option("url", options.url, "http(s):// or file:// URL, or a path with --read-input")
      ->required();
    app.add_option("--connect-timeout-ms", options.connect_timeout_ms);
    app.add_option("--timeout-ms", options.timeout_ms);
    app.add_option("--max-redirects", options.max_redirects);
    app.add_option("--max-bytes", options.max_bytes);
    app.add_option("--low-speed-time-s", options.low_speed_time_s);
    app.add_option("--ca-bundle", options.ca_bundle);
    app.add_option("--cache-dir", options.cache_dir);
    app.add_flag("--default-cache", options.default_cache, "use the XDG cache directory");
    app.add_flag("--offline", options.offline);
    app.add_flag("--read-input", options.read_input, "go through net::read_input");
    app.add_flag("--summary", options.summary,
                 "print the body's size and SHA-256 and the tool's peak memory, not the body");
    app.add_option("--etag", options.etag, "send If-None-Match");
    app.add_option("--last-modified", options.last_modified, "send If-Modified-Since");
    try
    {
        app.parse(argc, argv);
    }
    catch (const CLI::ParseError& error)
    {
        return app.exit(error);
    }
    return run(options);
}
