// read_prefix on damaged and hostile prefixes: loops, FIFOs and unreadable directories are
// problems of the items they affect, never a hang, an exception or an abort (issue 15).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "prefix/parallel.hpp"
#include "prefix/reader.hpp"
#include "tests/catch.hpp"

namespace fs = std::filesystem;
using namespace envcheck;

namespace
{
    auto make_venv(const std::string& tag) -> fs::path
    {
        const fs::path root =
          fs::temp_directory_path() / ("envcheck-hostile-" + tag + std::to_string(::getpid()));
        fs::remove_all(root);
        fs::create_directories(root / "lib/python3.11/site-packages");
        std::ofstream(root / "pyvenv.cfg") << "version = 3.11.7\n";
        return root;
    }

    void add_dist(const fs::path& site, const std::string& name, const std::string& version)
    {
        const fs::path dir = site / (name + "-" + version + ".dist-info");
        fs::create_directories(dir);
        std::ofstream(dir / "METADATA")
          << "Metadata-Version: 2.1\nName: " << name << "\nVersion: " << version << "\n";
    }

    auto problem_files(const model::InstalledEnvironment& environment) -> std::vector<std::string>
    {
        std::vector<std::string> files;
        for (const auto& problem : environment.problems)
        {
            files.push_back(problem.where.file);
        }
        std::sort(files.begin(), files.end());
        return files;
    }

    TEST_CASE("read_prefix: symlink loops are problems of their items", "[prefix][Reader]")
    {
        const auto root = make_venv("loops");
        const auto site = root / "lib/python3.11/site-packages";
        add_dist(site, "good", "1.0");
        // Several looping dist-info directories, read in parallel: std::filesystem used to throw
        // inside a worker thread, and the process aborted.
        for (const std::string name :
             { "loop_a-1.0.dist-info", "loop_b-1.0.dist-info", "loop_c-1.0.dist-info" })
        {
            fs::create_symlink(name, site / name);
        }
        // lib/python3.12 -> itself: used to end in "internal error".
        fs::create_symlink("python3.12", root / "lib/python3.12");

        prefix::ReadOptions options;
        options.threads = 4;
        const auto environment = prefix::read_prefix(root.string(), options);
        REQUIRE(environment);
        REQUIRE(environment->packages.size() == 1);
        CHECK(environment->packages[0].name == "good");
        CHECK(problem_files(*environment) ==
              std::vector<std::string>{ "lib/python3.11/site-packages/loop_a-1.0.dist-info",
                                        "lib/python3.11/site-packages/loop_b-1.0.dist-info",
                                        "lib/python3.11/site-packages/loop_c-1.0.dist-info",
                                        "lib/python3.12/site-packages" });
        for (const auto& problem : environment->problems)
        {
            CHECK(problem.message.find("symbolic links") != std::string::npos);
        }
        fs::remove_all(root);
    }

    TEST_CASE("read_prefix: FIFOs in a dist-info never block", "[prefix][Reader]")
    {
        ::alarm(30); // a hang fails the test binary instead of stalling the run
        const auto root = make_venv("fifos");
        const auto site = root / "lib/python3.11/site-packages";
        add_dist(site, "good", "1.0");
        fs::create_directories(site / "fifo-1.0.dist-info");
        REQUIRE(::mkfifo((site / "fifo-1.0.dist-info/METADATA").c_str(), 0600) == 0);
        REQUIRE(::mkfifo((site / "good-1.0.dist-info/INSTALLER").c_str(), 0600) == 0);
        REQUIRE(::mkfifo((site / "good-1.0.dist-info/direct_url.json").c_str(), 0600) == 0);

        const auto environment = prefix::read_prefix(root.string());
        ::alarm(0);
        REQUIRE(environment);
        REQUIRE(environment->packages.size() == 1);
        CHECK(environment->packages[0].name == "good");
        CHECK(environment->packages[0].installer.empty());
        CHECK(
          problem_files(*environment) ==
          std::vector<std::string>{ "lib/python3.11/site-packages/fifo-1.0.dist-info/METADATA" });
        fs::remove_all(root);
    }

    TEST_CASE("parallel_for: an exception is its item's failure", "[prefix][parallel]")
    {
        std::vector<int> done(16, 0);
        const auto failures =
          prefix::parallel_for(16, 4,
                               [&](std::size_t i)
                               {
                                   if (i % 5 == 3)
                                   {
                                       throw std::runtime_error("item " + std::to_string(i));
                                   }
                                   done[i] = 1;
                               });
        REQUIRE(failures.size() == 3);
        CHECK(failures[0].index == 3);
        CHECK(failures[1].index == 8);
        CHECK(failures[2].what == "item 13");
        CHECK(std::count(done.begin(), done.end(), 1) == 13);
    }
}
