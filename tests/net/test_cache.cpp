// net::Cache on real files through file:// URLs; revalidation with ETag / Last-Modified and
// parallel use are tested against loopback HTTP servers by tests/net/test_http.py.
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "net/cache.hpp"
#include "tests/catch.hpp"
#include "util/sha256.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    auto temp_dir(const std::string& name) -> fs::path
    {
        const fs::path dir =
          fs::temp_directory_path() / ("envcheck-cache-" + name + "-" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        return dir;
    }

    TEST_CASE("default_cache_directory", "[net][Cache]")
    {
        CHECK(net::default_cache_directory("/xdg", "/home/u").value() == "/xdg/envcheck");
        CHECK(net::default_cache_directory("", "/home/u").value() == "/home/u/.cache/envcheck");
        // The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored.
        CHECK(net::default_cache_directory("relative/cache", "/home/u").value() ==
              "/home/u/.cache/envcheck");
    }

    TEST_CASE("default_cache_directory negative", "[net][Cache]")
    {
        for (const auto& [xdg, home] : { std::pair{ "", "" }, std::pair{ "rel", "also-rel" } })
        {
            auto chosen = net::default_cache_directory(xdg, home);
            REQUIRE_FALSE(chosen);
            CHECK(chosen.error().kind == util::ErrorKind::usage);
            CHECK(chosen.error().hint == "pass --cache-dir DIR");
        }
    }

    TEST_CASE("CacheEntry JSON round trip", "[net][Cache]")
    {
        const std::vector<net::CacheEntry> entries = {
            { "https://conda.anaconda.org/nvidia/linux-64/repodata.json", "W/\"abc\"",
              "Wed, 21 Oct 2026 07:28:00 GMT", 1790000000, 123456789 },
            { "file:///srv/x.json", "", "", 0, 0 },
        };
        for (const auto& entry : entries)
        {
            const auto json = net::to_json(entry);
            CAPTURE(json);
            CHECK(net::parse_cache_entry(json) == entry);
        }
        // Unknown validators are written as null, as the project's JSON rule says.
        CHECK(net::to_json(entries[1]).find("\"etag\": null") != std::string::npos);
    }

    TEST_CASE("CacheEntry JSON negative", "[net][Cache]")
    {
        for (const std::string_view json :
             { "", "{", "[]", "{}", R"({"url": "", "fetched_at": 1, "size": 1})",
               R"({"url": "u", "fetched_at": "1", "size": 1})",
               R"({"url": "u", "fetched_at": 1, "size": -1})", R"({"url": "u", "fetched_at": 1})",
               R"({"url": "u", "etag": 3, "fetched_at": 1, "size": 1})",
               R"({"url": 7, "fetched_at": 1, "size": 1})" })
        {
            CAPTURE(json);
            CHECK_FALSE(net::parse_cache_entry(json));
        }
    }

    TEST_CASE("Cache::fetch", "[net][Cache]")
    {
        const auto dir = temp_dir("fetch");
        const auto source = dir / "repodata.json";
        std::ofstream(source) << R"({"packages": {}})";
        const std::string url = "file://" + source.string();
        const std::string cache_dir = (dir / "cache").string();
        net::HttpClient client;

        net::Cache cache(cache_dir, false);
        auto first = cache.fetch(client, url);
        REQUIRE(first);
        CHECK(first->source == net::CacheSource::downloaded);
        CHECK(first->body == R"({"packages": {}})");
        CHECK(first->entry.url == url);
        CHECK(first->entry.size == first->body.size());
        CHECK(first->entry.fetched_at > 0);

        const std::string stem = cache.entry_stem(url);
        CHECK(stem == (fs::path(cache_dir) / util::Sha256::hex_of(url)).string());
        CHECK(fs::exists(stem + ".body"));
        CHECK(fs::exists(stem + ".json"));

        // Offline: the copy answers even when the source is gone.
        fs::remove(source);
        net::Cache offline(cache_dir, true);
        auto cached = offline.fetch(client, url);
        REQUIRE(cached);
        CHECK(cached->source == net::CacheSource::offline);
        CHECK(cached->body == R"({"packages": {}})");

        // Online, the failure is reported, with the cached copy named in the hint.
        auto gone = cache.fetch(client, url);
        REQUIRE_FALSE(gone);
        CHECK(gone.error().kind == util::ErrorKind::io);
        CHECK(gone.error().hint.find("--offline uses it") != std::string::npos);
        fs::remove_all(dir);
    }

    TEST_CASE("Cache::fetch offline negative", "[net][Cache]")
    {
        const auto dir = temp_dir("offline");
        net::HttpClient client;
        net::Cache offline((dir / "cache").string(), true);
        auto missing =
          offline.fetch(client, "https://conda.anaconda.org/nvidia/linux-64/repodata.json");
        REQUIRE_FALSE(missing);
        CHECK(missing.error().message == "offline, and the cache in " + (dir / "cache").string() +
                                           " holds no copy of this URL");
        CHECK(missing.error().where.file ==
              "https://conda.anaconda.org/nvidia/linux-64/repodata.json");
        CHECK(missing.error().hint == "run once without --offline to fill the cache");

        // A body that does not match its sidecar (a writer died in between) is no copy.
        const auto source = dir / "r.json";
        std::ofstream(source) << "{}";
        const std::string url = "file://" + source.string();
        net::Cache online((dir / "cache").string(), false);
        REQUIRE(online.fetch(client, url));
        std::ofstream(online.entry_stem(url) + ".body") << "{} and more";
        CHECK_FALSE(offline.fetch(client, url));
        fs::remove_all(dir);
    }

    TEST_CASE("Cache files hold no credentials and are the user's alone", "[net][Cache]")
    {
        const auto dir = temp_dir("secret");
        // A conda token channel (/t/<token>/) served from files.
        const auto source = dir / "t" / "tk-s3cr3t" / "private" / "repodata.json";
        fs::create_directories(source.parent_path());
        std::ofstream(source) << "{}";
        const std::string url = "file://" + source.string();
        net::HttpClient client;
        net::Cache cache((dir / "cache").string(), false);
        auto fetched = cache.fetch(client, url);
        REQUIRE(fetched);
        CHECK(fetched->entry.url.find("tk-s3cr3t") == std::string::npos);
        const std::string stem = cache.entry_stem(url);
        CHECK(fs::path(stem).filename() == util::Sha256::hex_of(url)); // the key is hashed
        for (const std::string suffix : { ".json", ".body", ".lock" })
        {
            INFO(suffix);
            CHECK((fs::status(stem + suffix).permissions() & fs::perms::all) ==
                  (fs::perms::owner_read | fs::perms::owner_write));
        }
        std::ifstream sidecar(stem + ".json");
        const std::string text((std::istreambuf_iterator<char>(sidecar)), {});
        CHECK(text.find("tk-s3cr3t") == std::string::npos);
        CHECK(text.find("/private/repodata.json") != std::string::npos);
        // Still found again by its full URL.
        net::Cache offline((dir / "cache").string(), true);
        CHECK(offline.fetch(client, url));

        // Messages name the URL without its credentials.
        auto missing =
          offline.fetch(client, "https://alice:pa55@example.com/t/tk-1/c/repodata.json");
        REQUIRE_FALSE(missing);
        CHECK(missing.error().where.file == "https://example.com/c/repodata.json");
        fs::remove_all(dir);
    }

    TEST_CASE("Cache::fetch negative: unusable directory", "[net][Cache]")
    {
        const auto dir = temp_dir("unusable");
        const auto blocker = dir / "file";
        std::ofstream(blocker) << "not a directory";
        net::HttpClient client;
        net::Cache cache((blocker / "cache").string(), false);
        auto failed = cache.fetch(client, "file:///etc/hostname");
        REQUIRE_FALSE(failed);
        CHECK(failed.error().kind == util::ErrorKind::io);
        CHECK(failed.error().message.starts_with("cannot create the cache directory"));
        fs::remove_all(dir);
    }
}
