#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

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

        model::PackageFiles package{ "p", {}, model::Manager::conda, {} };
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

    TEST_CASE("verify_files pip: RECORD time and untracked files", "[prefix][Verify]")
    {
        namespace fs = std::filesystem;
        const auto root = fs::temp_directory_path() / "envcheck-test-verify-pip";
        fs::remove_all(root);
        const std::string site = "lib/python3.11/site-packages";
        fs::create_directories(root / site / "pkg" / "sub");
        fs::create_directories(root / site / "pkg" / "__pycache__");
        fs::create_directories(root / site / "pkg" / "new");
        fs::create_directories(root / site / "pkg-1.0.dist-info");
        const auto write = [&](const std::string& path, const std::string& text)
        { std::ofstream(root / path, std::ios::binary) << text; };
        write(site + "/pkg/__init__.py", "edited");  // written after RECORD
        write(site + "/pkg/wrong.py", "as shipped"); // RECORD's hash wrong from install
        write(site + "/pkg/sub/ok.py", "ok");
        write(site + "/pkg/sub/stray.txt", "x");     // untracked
        write(site + "/pkg/new/deep.py", "x");       // untracked: a directory no RECORD knows
        write(site + "/pkg/__pycache__/a.pyc", "x"); // the installer's
        write(site + "/pkg-1.0.dist-info/RECORD", "");
        write(site + "/pkg-1.0.dist-info/direct_url.json", "{}");
        write(site + "/loose.py", "x"); // site-packages itself is no distribution's directory
        fs::create_symlink("/etc/hostname", root / site / "pkg" / "out.py");
        const auto record = fs::last_write_time(root / site / "pkg-1.0.dist-info/RECORD");
        fs::last_write_time(root / site / "pkg/wrong.py", record - std::chrono::seconds(5));
        fs::last_write_time(root / site / "pkg/__init__.py", record + std::chrono::seconds(5));

        const auto sha = [](const std::string& text) { return util::Sha256::hex_of(text); };
        model::PackageFiles package{
            "pkg", {}, model::Manager::pip, site + "/pkg-1.0.dist-info/RECORD"
        };
        package.files = {
            { site + "/pkg/__init__.py", model::PathType::hardlink, sha("original"), std::nullopt },
            { site + "/pkg/wrong.py", model::PathType::hardlink, sha("claimed"), std::nullopt },
            { site + "/pkg/sub/ok.py", model::PathType::hardlink, sha("ok"), 2 },
            { site + "/pkg/out.py", model::PathType::hardlink, sha("x"), std::nullopt },
            { site + "/pkg-1.0.dist-info/RECORD", model::PathType::hardlink, "", std::nullopt },
        };
        struct Row
        {
            std::string path;
            model::FileStatus status;
        };
        const auto rows = [&](bool untracked)
        {
            const auto result = prefix::verify_files(root.string(), { package },
                                                     prefix::VerifyOptions{ 1, untracked });
            std::vector<std::pair<std::string, std::string>> out;
            for (const auto& finding : result.findings)
            {
                out.emplace_back(finding.path.substr(site.size() + 1),
                                 std::string(model::to_string(finding.status)));
            }
            return out;
        };
        using Rows = std::vector<std::pair<std::string, std::string>>;
        CHECK(rows(false) == Rows{ { "pkg/__init__.py", "modified" },
                                   { "pkg/out.py", "modified" },
                                   { "pkg/wrong.py", "wrong-record-hash" } });
        CHECK(rows(true) == Rows{ { "pkg/__init__.py", "modified" },
                                  { "pkg/new/deep.py", "untracked" },
                                  { "pkg/out.py", "modified" },
                                  { "pkg/sub/stray.txt", "untracked" },
                                  { "pkg/wrong.py", "wrong-record-hash" } });
        fs::remove_all(root);
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
