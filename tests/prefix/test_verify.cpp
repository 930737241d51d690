#include <filesystem>
#include <fstream>
#include <string>

#include "prefix/reader.hpp"
#include "prefix/verify.hpp"
#include "tests/catch.hpp"
#include "util/sha256.hpp"

using namespace envcheck;

namespace
{
    const std::string fixture = std::string(ENVCHECK_TEST_DATA_DIR) + "/prefixes/conda-basic";

    TEST_CASE("verify_files", "[prefix][Verify]")
    {
        const auto environment = prefix::read_prefix(fixture, prefix::ReadOptions{ true, 0 });
        REQUIRE(environment.has_value());
        const auto result = prefix::verify_files(fixture, environment->files, 2);
        // The fixture has one edited file and one deleted file, both of hello.
        REQUIRE(result.findings.size() == 2);
        CHECK(result.findings[0].package == "hello");
        CHECK(result.findings[0].path == "share/hello/data.txt");
        CHECK(result.findings[0].status == model::FileStatus::modified);
        CHECK(result.findings[0].detail == "size 13 bytes, expected 5");
        CHECK(result.findings[1].path == "share/hello/gone.txt");
        CHECK(result.findings[1].status == model::FileStatus::missing);
        CHECK(result.summary.files_checked == 7);
        CHECK(result.summary.bytes_hashed > 0);
    }

    TEST_CASE("verify_files content and types", "[prefix][Verify]")
    {
        const auto root = std::filesystem::temp_directory_path() / "envcheck-test-verify";
        std::filesystem::remove_all(root);
        std::filesystem::create_directories(root / "bin");
        std::ofstream(root / "bin" / "same-size") << "abcd";
        std::ofstream(root / "bin" / "ok") << "good";
        std::filesystem::create_directories(root / "share");
        std::filesystem::create_symlink("ok", root / "bin" / "link");
        std::filesystem::create_symlink("nowhere", root / "bin" / "dangling");
        std::ofstream(root / "x.pyc") << "compiled";

        model::PackageFiles package{ "p", {} };
        const auto sha = [](const std::string& text) { return util::Sha256::hex_of(text); };
        package.files = {
            { "bin/same-size", model::PathType::hardlink, sha("wxyz"),
              4 }, // same size, other bytes
            { "bin/ok", model::PathType::hardlink, sha("good"), 4 },
            { "bin/link", model::PathType::softlink, "", std::nullopt },
            { "bin/dangling", model::PathType::hardlink, sha("x"), std::nullopt },
            { "share", model::PathType::hardlink, sha("x"), std::nullopt },     // a directory now
            { "x.pyc", model::PathType::hardlink, sha("other"), std::nullopt }, // compiled: skipped
            { "bin/placeholder", model::PathType::hardlink, "",
              std::nullopt }, // unknown content: exists?
        };
        const auto result = prefix::verify_files(root.string(), { package }, 1);
        REQUIRE(result.findings.size() == 4);
        CHECK(result.findings[0].path == "bin/dangling");
        CHECK(result.findings[0].status == model::FileStatus::missing);
        CHECK(result.findings[1].path == "bin/placeholder");
        CHECK(result.findings[1].status == model::FileStatus::missing);
        CHECK(result.findings[2].path == "bin/same-size");
        CHECK(result.findings[2].detail == "sha256 differs");
        CHECK(result.findings[3].path == "share");
        CHECK(result.findings[3].detail == "no longer a regular file");
        CHECK(result.summary.files_checked == 6);
        std::filesystem::remove_all(root);
    }

    TEST_CASE("sha256_of_file", "[prefix][Verify]")
    {
        const auto path = std::filesystem::temp_directory_path() / "envcheck-test-sha";
        // Larger than one read block, not a multiple of 64.
        const std::string content(std::size_t{ 3 } << 20 | 17, 'q');
        std::ofstream(path, std::ios::binary) << content;
        std::uint64_t bytes = 0;
        CHECK(prefix::sha256_of_file(path.string(), &bytes) == util::Sha256::hex_of(content));
        CHECK(bytes == content.size());
        CHECK_FALSE(prefix::sha256_of_file(path.string() + ".missing").has_value());
        std::filesystem::remove(path);
    }
}
