// app::load_config: --config, $ENVCHECK_CONFIG, else the walk upward from the working directory
// (/work/project in the fakes) to the top of the git repository or the filesystem root.
#include <string>

#include "app/config.hpp"
#include "tests/app/fakes.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using tests::FakeWorld;

namespace
{
    auto load(FakeWorld& world, const app::ConfigRequest& request = {}) -> app::LoadedConfig
    {
        auto loaded = app::load_config(request, world.ports);
        INFO((loaded ? std::string() : loaded.error().to_string()));
        REQUIRE(loaded.has_value());
        return *loaded;
    }

    const std::string ignore_nodefaults = "[lint]\nignore = [\"repro.nodefaults\"]\n";
    const std::string pyproject_with =
      "[project]\nname = \"demo\"\n[tool.envcheck.lint]\nignore = [\"repro.unpinned\"]\n";
    const std::string pyproject_without = "[project]\nname = \"demo\"\n";
}

TEST_CASE("load_config finds the configuration from the working directory upward", "[app][config]")
{
    FakeWorld world;
    world.files.directories = { "/", "/work", "/work/project" };

    SECTION("none anywhere: every default, and where it looked")
    {
        const auto loaded = load(world);
        CHECK(loaded.config.file.empty());
        CHECK(loaded.how == "none in /work/project or above it");
    }

    SECTION(".envcheck.toml in the working directory")
    {
        world.files.files["/work/project/.envcheck.toml"] = ignore_nodefaults;
        const auto loaded = load(world);
        CHECK(loaded.config.file == "/work/project/.envcheck.toml");
        CHECK(loaded.how == "found in /work/project");
        REQUIRE(loaded.config.lint.ignore.size() == 1);
        CHECK(loaded.config.lint.ignore[0].source.to_string() ==
              "/work/project/.envcheck.toml:2:11");
    }

    SECTION("in a directory above")
    {
        world.files.files["/work/.envcheck.toml"] = ignore_nodefaults;
        CHECK(load(world).config.file == "/work/.envcheck.toml");
    }

    SECTION(".envcheck.toml wins over pyproject.toml in one directory")
    {
        world.files.files["/work/project/.envcheck.toml"] = ignore_nodefaults;
        world.files.files["/work/project/pyproject.toml"] = pyproject_with;
        CHECK(load(world).config.file == "/work/project/.envcheck.toml");
    }

    SECTION("pyproject.toml with [tool.envcheck]")
    {
        world.files.files["/work/project/pyproject.toml"] = pyproject_with;
        const auto loaded = load(world);
        CHECK(loaded.config.file == "/work/project/pyproject.toml");
        CHECK(loaded.config.lint.ignore[0].value == "repro.unpinned");
    }

    SECTION("a pyproject.toml without [tool.envcheck] is passed over")
    {
        world.files.files["/work/project/pyproject.toml"] = pyproject_without;
        world.files.files["/work/.envcheck.toml"] = ignore_nodefaults;
        CHECK(load(world).config.file == "/work/.envcheck.toml");
    }

    SECTION("the walk stops at the top of the git repository")
    {
        world.files.directories.insert("/work/project/.git");
        world.files.files["/work/.envcheck.toml"] = ignore_nodefaults;
        const auto loaded = load(world);
        CHECK(loaded.config.file.empty());
        CHECK(loaded.how == "none in /work/project or above it up to /work/project (the top of "
                            "its git repository)");
    }

    SECTION("channel-availability (--check-channels) is a rule id it may name")
    {
        world.files.files["/work/project/.envcheck.toml"] =
          "[lint]\nignore = [\"channel-availability\"]\n";
        CHECK(load(world).config.lint.ignore[0].value == "channel-availability");
    }

    SECTION("--config names the file; $ENVCHECK_CONFIG when it is not given")
    {
        world.files.files["/work/project/.envcheck.toml"] = ignore_nodefaults;
        world.files.files["ci/envcheck.toml"] = "[doctor]\nskip = [\"nvml.init\"]\n";
        world.files.files["other.toml"] = "";
        world.environment["ENVCHECK_CONFIG"] = "other.toml";
        auto loaded = load(world, { "ci/envcheck.toml", {} });
        CHECK(loaded.config.file == "ci/envcheck.toml");
        CHECK(loaded.how == "--config");
        CHECK(loaded.config.doctor.skip[0].value == "nvml.init");
        loaded = load(world);
        CHECK(loaded.config.file == "other.toml");
        CHECK(loaded.how == "$ENVCHECK_CONFIG");
    }
}

TEST_CASE("load_config errors", "[app][config]")
{
    FakeWorld world;

    SECTION("a --config file that is not there")
    {
        const auto loaded = app::load_config({ "missing.toml", {} }, world.ports);
        REQUIRE_FALSE(loaded.has_value());
        CHECK(loaded.error().kind == util::ErrorKind::usage);
        CHECK(loaded.error().to_string().find("cannot read the configuration named by --config") !=
              std::string::npos);
    }

    SECTION("a --config pyproject.toml without [tool.envcheck]")
    {
        world.files.files["pyproject.toml"] = pyproject_without;
        const auto loaded = app::load_config({ "pyproject.toml", {} }, world.ports);
        REQUIRE_FALSE(loaded.has_value());
        CHECK(loaded.error().message ==
              "the configuration named by --config has no [tool.envcheck] table");
        CHECK(loaded.error().where.file == "pyproject.toml");
    }

    SECTION("a found configuration that names an unknown doctor check")
    {
        world.files.files["/work/project/.envcheck.toml"] = "[doctor]\nskip = [\"nvml.inti\"]\n";
        const auto loaded = app::load_config({}, world.ports);
        REQUIRE_FALSE(loaded.has_value());
        CHECK(loaded.error().to_string() ==
              "/work/project/.envcheck.toml:2:9: unknown doctor check 'nvml.inti'; did you mean "
              "'nvml.init'?");
    }

    SECTION("[format] keys are the commands the request names")
    {
        world.files.files["/work/project/.envcheck.toml"] = "[format]\nlint = \"sarif\"\n";
        CHECK(app::load_config({ {}, { "lint" } }, world.ports).has_value());
        CHECK_FALSE(app::load_config({ {}, { "check" } }, world.ports).has_value());
    }
}
