#include <filesystem>
#include <fstream>
#include <string>

#include "prefix/locate.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    namespace fs = std::filesystem;

    struct Tree
    {
        fs::path root = fs::temp_directory_path() / "envcheck-test-locate";

        Tree()
        {
            fs::remove_all(root);
            for (const char* env :
                 { "home/.conda/envs/mine", "home/miniforge3/envs/forge", "home/miniforge3",
                   "custom/envs-path/ml", "elsewhere/registered" })
            {
                fs::create_directories(root / env / "conda-meta");
            }
            fs::create_directories(root / "home/.conda/envs/not-an-env");
            std::ofstream(root / "home/.conda/environments.txt")
              << "# registered\n"
              << (root / "elsewhere/registered").string() << "\n";
        }
        ~Tree() { fs::remove_all(root); }

        auto search() const -> prefix::CondaSearchPaths
        {
            prefix::CondaSearchPaths paths;
            paths.home = (root / "home").string();
            paths.envs_dirs = { (root / "custom/envs-path").string() };
            return paths;
        }
    };

    TEST_CASE("locate_prefix", "[prefix][Locate]")
    {
        const Tree tree;
        const auto locate = [&](std::string prefix, std::string name, std::string conda_prefix = {})
        {
            prefix::LocateRequest request{ std::move(prefix), std::move(name), tree.search() };
            request.search.conda_prefix = std::move(conda_prefix);
            return prefix::locate_prefix(request);
        };
        SECTION("--prefix wins")
        {
            const auto found = locate("/some/path", "mine", "/active");
            REQUIRE(found.has_value());
            CHECK(found->path == "/some/path");
            CHECK(found->how == "--prefix");
        }
        SECTION("-n in the envs directories, in conda's order")
        {
            const auto ml = locate("", "ml");
            REQUIRE(ml.has_value());
            CHECK(ml->path == (tree.root / "custom/envs-path/ml").string());
            const auto mine = locate("", "mine");
            REQUIRE(mine.has_value());
            CHECK(mine->path == (tree.root / "home/.conda/envs/mine").string());
            const auto forge = locate("", "forge");
            REQUIRE(forge.has_value());
            CHECK(forge->path == (tree.root / "home/miniforge3/envs/forge").string());
        }
        SECTION("-n from ~/.conda/environments.txt")
        {
            const auto found = locate("", "registered");
            REQUIRE(found.has_value());
            CHECK(found->path == (tree.root / "elsewhere/registered").string());
            CHECK(found->how == "-n registered (~/.conda/environments.txt)");
        }
        SECTION("-n base is the root prefix")
        {
            const auto found = locate("", "base");
            REQUIRE(found.has_value());
            CHECK(found->path == (tree.root / "home/miniforge3").string());
        }
        SECTION("$CONDA_PREFIX without flags")
        {
            const auto found = locate("", "", "/active/env");
            REQUIRE(found.has_value());
            CHECK(found->path == "/active/env");
            CHECK(found->how == "$CONDA_PREFIX");
        }
        SECTION("$VIRTUAL_ENV, before $CONDA_PREFIX (a venv activated inside conda)")
        {
            prefix::LocateRequest request{ "", "", tree.search() };
            request.search.virtual_env = "/project/.venv";
            request.search.conda_prefix = "/opt/conda";
            const auto found = prefix::locate_prefix(request);
            REQUIRE(found.has_value());
            CHECK(found->path == "/project/.venv");
            CHECK(found->how == "$VIRTUAL_ENV");
            request.prefix = "/explicit";
            CHECK(prefix::locate_prefix(request)->how == "--prefix");
        }
        SECTION("negative")
        {
            const auto none = locate("", "");
            REQUIRE_FALSE(none.has_value());
            CHECK(none.error().kind == util::ErrorKind::usage);
            const auto unknown = locate("", "not-an-env");
            REQUIRE_FALSE(unknown.has_value());
            CHECK(unknown.error().message == "no environment named 'not-an-env'");
            CHECK(unknown.error().hint.find("environments.txt") != std::string::npos);
            const auto path = locate("", "a/b");
            REQUIRE_FALSE(path.has_value());
            CHECK(path.error().hint == "use --prefix a/b");
        }
    }

    TEST_CASE("search_paths_from", "[prefix][Locate]")
    {
        const auto paths =
          prefix::search_paths_from({ { "CONDA_PREFIX", "/opt/env" },
                                      { "VIRTUAL_ENV", "/work/.venv" },
                                      { "HOME", "/home/u" },
                                      { "CONDA_ENVS_PATH", "/a:/b::" },
                                      { "CONDA_ENVS_DIRS", "/c" },
                                      { "MAMBA_ROOT_PREFIX", "/mamba" },
                                      { "CONDA_EXE", "/opt/miniforge3/bin/conda" } });
        CHECK(paths.conda_prefix == "/opt/env");
        CHECK(paths.virtual_env == "/work/.venv");
        CHECK(paths.home == "/home/u");
        CHECK(paths.envs_dirs == std::vector<std::string>{ "/a", "/b", "/c" });
        CHECK(paths.root_prefixes == std::vector<std::string>{ "/mamba", "/opt/miniforge3" });
        const auto dirs = prefix::envs_directories(paths);
        REQUIRE(dirs.size() >= 5);
        CHECK(dirs[0] == "/a");
        CHECK(dirs[3] == "/mamba/envs");
        CHECK(dirs[4] == "/opt/miniforge3/envs");
    }

    TEST_CASE("current_platform", "[prefix][Locate]")
    {
        const std::string platform = prefix::current_platform();
        CHECK((platform == "linux-64" || platform == "linux-aarch64" || platform == "osx-arm64" ||
               platform == "linux-ppc64le"));
    }
}
