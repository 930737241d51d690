// Unit tests of the client's pure helpers and of file:// fetching on real files. The HTTP and
// TLS behaviour is tested against real loopback servers by tests/net/test_http.py.
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "net/http_client.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    auto temp_dir(const std::string& name) -> fs::path
    {
        const fs::path dir =
          fs::temp_directory_path() / ("envcheck-net-" + name + "-" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        return dir;
    }

    TEST_CASE("is_url", "[net][HttpClient]")
    {
        for (const std::string_view url : { "http://a", "https://host/x.yml", "HTTPS://HOST/x",
                                            "file:///tmp/env.yml", "File:///x" })
        {
            CAPTURE(url);
            CHECK(net::is_url(url));
        }
        for (const std::string_view text : { "environment.yml", "/tmp/env.yml", "-", "ftp://host/x",
                                             "http:/x", "https//x", "./http://x", "" })
        {
            CAPTURE(text);
            CHECK_FALSE(net::is_url(text));
        }
    }

    TEST_CASE("reason_phrase", "[net][HttpClient]")
    {
        CHECK(net::reason_phrase(404) == "Not Found");
        CHECK(net::reason_phrase(500) == "Internal Server Error");
        CHECK(net::reason_phrase(304) == "Not Modified");
        CHECK(net::reason_phrase(799).empty());
    }

    TEST_CASE("describe_duration", "[net][HttpClient]")
    {
        using std::chrono::milliseconds;
        CHECK(net::describe_duration(milliseconds(10'000)) == "10 s");
        CHECK(net::describe_duration(milliseconds(1'500)) == "1.5 s");
        CHECK(net::describe_duration(milliseconds(2'050)) == "2.05 s");
        CHECK(net::describe_duration(milliseconds(999)) == "999 ms");
        CHECK(net::describe_duration(milliseconds(0)) == "0 ms");
    }

    TEST_CASE("HttpClient::supported_encodings", "[net][HttpClient]")
    {
        const auto encodings = net::HttpClient::supported_encodings();
        // Debian's and Ubuntu's libcurl are built with zlib; br and zstd depend on the build.
        CHECK(std::find(encodings.begin(), encodings.end(), "gzip") != encodings.end());
        CHECK(std::find(encodings.begin(), encodings.end(), "deflate") != encodings.end());
    }

    TEST_CASE("HttpClient::fetch file URLs", "[net][HttpClient]")
    {
        const auto dir = temp_dir("file");
        const auto path = dir / "environment.yml";
        std::ofstream(path) << "name: demo\n";
        net::HttpClient client;
        auto response = client.fetch("file://" + path.string());
        REQUIRE(response);
        CHECK(response->body == "name: demo\n");
        CHECK(response->status == 0);
        // The same handle serves the next transfer.
        auto again = client.fetch("file://" + path.string());
        REQUIRE(again);
        CHECK(again->body == "name: demo\n");
        fs::remove_all(dir);
    }

    TEST_CASE("HttpClient body memory stays within max_bytes", "[net][HttpClient]")
    {
        // Without Content-Length the body grows as it arrives; doubling past the cap once held
        // twice the limit (2.1 GB for a 1 GiB cap).
        const auto dir = temp_dir("cap");
        const auto path = dir / "body";
        const std::size_t size = (std::size_t{ 3 } << 20) + 123;
        std::ofstream(path) << std::string(size, 'x');
        net::HttpOptions options;
        options.max_bytes = size;
        net::HttpClient client(options);
        auto response = client.fetch("file://" + path.string());
        REQUIRE(response);
        CHECK(response->body.size() == size);
        CHECK(response->body.capacity() <= options.max_bytes + 64);
        fs::remove_all(dir);
    }

    TEST_CASE("HttpClient::fetch file URLs negative", "[net][HttpClient]")
    {
        const auto dir = temp_dir("file-negative");
        net::HttpClient client;

        auto missing = client.fetch("file://" + (dir / "absent.yml").string());
        REQUIRE_FALSE(missing);
        CHECK(missing.error().kind == util::ErrorKind::io);
        CHECK(missing.error().where.file == "file://" + (dir / "absent.yml").string());

        auto directory = client.fetch("file://" + dir.string());
        REQUIRE_FALSE(directory);
        CHECK(directory.error().message == "is a directory, not a file");

        const auto big = dir / "big.yml";
        std::ofstream(big) << std::string(4096, 'x');
        net::HttpOptions small;
        small.max_bytes = 1000;
        auto too_large = net::HttpClient(small).fetch("file://" + big.string());
        REQUIRE_FALSE(too_large);
        CHECK(too_large.error().kind == util::ErrorKind::network);
        CHECK(too_large.error().message == "response larger than the limit of 1000 bytes");

        auto scheme = client.fetch("gopher://host/x");
        REQUIRE_FALSE(scheme);
        CHECK(scheme.error().kind == util::ErrorKind::usage);
        fs::remove_all(dir);
    }

    TEST_CASE("HttpClient errors hide credentials", "[net][HttpClient]")
    {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        net::HttpClient client;
        auto refused = client.fetch("http://user:secret@127.0.0.1:1/env.yml");
        REQUIRE_FALSE(refused);
        CHECK(refused.error().where.file == "http://127.0.0.1:1/env.yml");
        CHECK(refused.error().message.starts_with("connection refused"));
        CHECK(refused.error().to_string().find("secret") == std::string::npos);
    }

    TEST_CASE("read_input", "[net][HttpClient]")
    {
        const auto dir = temp_dir("read-input");
        const auto path = dir / "env.yml";
        std::ofstream(path) << "dependencies: [python]\n";
        net::HttpOptions options;
        auto local = net::read_input(path.string(), options);
        REQUIRE(local);
        CHECK(*local == "dependencies: [python]\n");
        auto url = net::read_input("file://" + path.string(), options);
        REQUIRE(url);
        CHECK(*url == *local);

        auto missing = net::read_input((dir / "absent.yml").string(), options);
        REQUIRE_FALSE(missing);
        CHECK(missing.error().kind == util::ErrorKind::io);
        auto ftp = net::read_input("ftp://host/env.yml", options);
        REQUIRE_FALSE(ftp);
        CHECK(ftp.error().kind == util::ErrorKind::usage);
        CHECK(ftp.error().message.starts_with("unsupported URL scheme"));
        fs::remove_all(dir);
    }
}
