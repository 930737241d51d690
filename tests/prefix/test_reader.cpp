#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "prefix/reader.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    const std::string fixtures = std::string(ENVCHECK_TEST_DATA_DIR) + "/prefixes";

    auto find(const std::vector<model::Package>& packages, const std::string& name)
      -> const model::Package*
    {
        const auto found = std::find_if(packages.begin(), packages.end(),
                                        [&](const auto& p) { return p.name == name; });
        return found == packages.end() ? nullptr : &*found;
    }

    TEST_CASE("read_prefix conda", "[prefix][Reader]")
    {
        const auto environment = prefix::read_prefix(fixtures + "/conda-basic");
        REQUIRE(environment.has_value());
        CHECK(environment->kind == model::PrefixKind::conda);
        CHECK(environment->python_version == "3.11.7");
        CHECK(environment->site_packages ==
              std::vector<std::string>{ "lib/python3.11/site-packages" });

        // Three readable records; the broken one is a problem, the AppleDouble file is ignored.
        std::vector<std::string> names;
        for (const auto& package : environment->packages)
        {
            names.push_back(std::string(model::to_string(package.manager)) + ":" + package.name);
        }
        CHECK(names == std::vector<std::string>{ "conda:hello", "conda:python", "conda:six",
                                                 "pip:legacy", "pip:requests", "pip:tiny-vcs" });
        REQUIRE(environment->problems.size() == 2);
        CHECK(environment->problems[0].where.file == "conda-meta/broken-1.0-0.json");
        CHECK(environment->problems[0].where.line == 4);
        CHECK(environment->problems[0].where.column == 5);
        CHECK(environment->problems[1].where.file ==
              "lib/python3.11/site-packages/broken_dist-1.0.dist-info/METADATA");
        CHECK(environment->problems[1].message.find("no Version") != std::string::npos);

        const auto* hello = find(environment->packages, "hello");
        REQUIRE(hello != nullptr);
        CHECK(hello->requested);
        CHECK(hello->source == "conda-meta/hello-1.0-h0_0.json");
        CHECK(environment->files.empty()); // not asked for

        // six's dist-info is in its record's files: not a pip package, but pip sees it.
        REQUIRE(environment->conda_owned_distributions.size() == 1);
        CHECK(environment->conda_owned_distributions[0].name == "six");
        CHECK(environment->conda_owned_distributions[0].version == "1.16.0");
        CHECK(find(environment->packages, "six")->manager == model::Manager::conda);

        const auto* requests = find(environment->packages, "requests");
        REQUIRE(requests != nullptr);
        CHECK(requests->version == "2.32.3");
        CHECK(requests->installer == "pip");
        CHECK(requests->requested);
        CHECK(requests->depends.size() == 2);
        const auto* vcs = find(environment->packages, "tiny-vcs");
        REQUIRE(vcs != nullptr);
        CHECK(vcs->installer == "uv");
        CHECK_FALSE(vcs->requested);
        REQUIRE(vcs->direct_url.has_value());
        CHECK(vcs->direct_url->vcs == "git");
        CHECK(vcs->direct_url->commit_id == "0123456789abcdef0123456789abcdef01234567");
        const auto* legacy = find(environment->packages, "legacy");
        REQUIRE(legacy != nullptr);
        CHECK(legacy->version == "1.0");
        CHECK(legacy->source == "lib/python3.11/site-packages/legacy-1.0-py3.11.egg-info");
    }

    TEST_CASE("read_prefix with files", "[prefix][Reader]")
    {
        const auto environment =
          prefix::read_prefix(fixtures + "/conda-basic", prefix::ReadOptions{ true, 1 });
        REQUIRE(environment.has_value());
        REQUIRE(environment->files.size() == 3);
        const auto hello = std::find_if(environment->files.begin(), environment->files.end(),
                                        [](const auto& files) { return files.package == "hello"; });
        REQUIRE(hello != environment->files.end());
        CHECK(hello->files.size() == 4);
        // The same result on one thread as on many.
        const auto parallel =
          prefix::read_prefix(fixtures + "/conda-basic", prefix::ReadOptions{ true, 8 });
        REQUIRE(parallel.has_value());
        CHECK(parallel->packages == environment->packages);
        CHECK(parallel->files == environment->files);
    }

    TEST_CASE("read_prefix venv", "[prefix][Reader]")
    {
        const auto environment = prefix::read_prefix(fixtures + "/venv-basic");
        REQUIRE(environment.has_value());
        CHECK(environment->kind == model::PrefixKind::venv);
        CHECK(environment->python_version == "3.12.4");
        CHECK(environment->problems.empty());
        REQUIRE(environment->packages.size() == 2);
        CHECK(environment->packages[0].name == "pip");
        CHECK(environment->packages[1].name == "Tiny_Pkg"); // as written; keys normalize it
        CHECK(model::package_key(environment->packages[1]) == "pip:tiny-pkg");
    }

    TEST_CASE("read_prefix negative", "[prefix][Reader]")
    {
        const auto missing = prefix::read_prefix(fixtures + "/does-not-exist");
        REQUIRE_FALSE(missing.has_value());
        CHECK(missing.error().kind == util::ErrorKind::io);
        const auto file = prefix::read_prefix(fixtures + "/venv-basic/pyvenv.cfg");
        REQUIRE_FALSE(file.has_value());
        CHECK(file.error().message == "is not a directory");
        const auto not_an_environment = prefix::read_prefix(fixtures);
        REQUIRE_FALSE(not_an_environment.has_value());
        CHECK(not_an_environment.error().kind == util::ErrorKind::usage);
        CHECK(not_an_environment.error().message.find("neither conda-meta/ nor pyvenv.cfg") !=
              std::string::npos);
    }

    TEST_CASE("pyvenv_python_version", "[prefix][Reader]")
    {
        CHECK(prefix::pyvenv_python_version("home = /usr/bin\nversion = 3.12.4\n") == "3.12.4");
        CHECK(prefix::pyvenv_python_version("home=/x\nversion_info = 3.12.1.final.0\n") ==
              "3.12.1");
        CHECK(prefix::pyvenv_python_version("version_info = 3.11.2.final.0\nversion = 3.11.2\n") ==
              "3.11.2");
        CHECK_FALSE(prefix::pyvenv_python_version("home = /usr/bin\n").has_value());
    }

    // Records below 256 KiB are read into a per-thread buffer, larger ones are mapped: a record
    // of exactly the buffer's size, one just over and a small one read alike, on one thread and
    // on two, and a symlinked record is read through its link.
    TEST_CASE("read_prefix: records read and records mapped", "[prefix][Reader]")
    {
        namespace fs = std::filesystem;
        const fs::path root =
          fs::temp_directory_path() / ("envcheck-records-" + std::to_string(::getpid()));
        fs::remove_all(root);
        fs::create_directories(root / "conda-meta");
        // A record whose `files` list pads it to `size` bytes, naming its dist-info.
        const auto write_record = [&](const std::string& name, std::size_t size)
        {
            const std::string head = "{\"name\": \"" + name +
                                     "\", \"version\": \"1.0\", \"build\": \"0\", \"files\": [\"" +
                                     "lib/python3.11/site-packages/" + name +
                                     "-1.0.dist-info/METADATA\", \"";
            const std::string tail = "\"]}";
            const std::size_t padding = size - head.size() - tail.size();
            std::ofstream(root / "conda-meta" / (name + "-1.0-0.json"), std::ios::binary)
              << head << std::string(padding, 'x') << tail;
        };
        write_record("small", 300);
        write_record("exact", std::size_t{ 256 } << 10);
        write_record("mapped", (std::size_t{ 256 } << 10) + 1);
        fs::create_symlink("small-1.0-0.json", root / "conda-meta" / "linked-1.0-0.json");
        for (const unsigned threads : { 1u, 2u })
        {
            CAPTURE(threads);
            const auto environment =
              prefix::read_prefix(root.string(), prefix::ReadOptions{ false, threads });
            REQUIRE(environment.has_value());
            CHECK(environment->problems.empty());
            std::vector<std::string> names;
            for (const auto& package : environment->packages)
            {
                names.push_back(package.name + " " + package.source);
            }
            CHECK(names == std::vector<std::string>{ "exact conda-meta/exact-1.0-0.json",
                                                     "mapped conda-meta/mapped-1.0-0.json",
                                                     "small conda-meta/linked-1.0-0.json",
                                                     "small conda-meta/small-1.0-0.json" });
        }
        fs::remove_all(root);
    }
}
