#include <string>
#include <vector>

#include "checks/env_check.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    auto conda(std::string name, std::string version, std::string build,
               std::string channel = "conda-forge") -> model::Package
    {
        model::Package package;
        package.name = std::move(name);
        package.version = std::move(version);
        package.build = std::move(build);
        package.channel = "https://conda.anaconda.org/" + channel;
        package.subdir = "linux-64";
        return package;
    }

    auto pip(std::string name, std::string version, std::string installer = "pip") -> model::Package
    {
        model::Package package;
        package.manager = model::Manager::pip;
        package.name = std::move(name);
        package.version = std::move(version);
        package.installer = std::move(installer);
        return package;
    }

    auto installed_environment() -> model::InstalledEnvironment
    {
        model::InstalledEnvironment environment;
        environment.python_version = "3.11.7";
        environment.packages = { conda("python", "3.11.7", "hab00c5b_0_cpython"),
                                 conda("numpy", "1.26.4", "py311h64a7726_0"),
                                 conda("pytorch", "2.4.0", "cuda120_py311h_300"),
                                 conda("pip", "24.0", "pyhd8ed1ab_0"),
                                 pip("requests", "2.32.3"),
                                 pip("Tiny_Tool", "0.3.1", "uv") };
        environment.packages.back().direct_url =
          model::DirectUrl{ "https://github.com/example/tiny-tool.git",
                            "git",
                            "0123456789abcdef0123456789abcdef01234567",
                            "",
                            "",
                            false };
        environment.conda_owned_distributions = { pip("six", "1.16.0", "conda") };
        return environment;
    }

    auto check(const std::string& yaml, const std::string& platform = "linux-64")
      -> util::Result<checks::EnvironmentFileCheck>
    {
        const auto file = formats::parse_environment_yaml(yaml, "environment.yml");
        REQUIRE(file.has_value());
        return checks::check_environment_file(*file, "environment.yml", installed_environment(),
                                              platform);
    }

    struct Expected
    {
        const char* name;
        const char* status;
        const char* reason;
    };

    void require_findings(const checks::EnvironmentFileCheck& result,
                          const std::vector<Expected>& expected)
    {
        REQUIRE(result.packages.size() == expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i)
        {
            CAPTURE(i, result.packages[i].spec.value_or(""));
            CHECK(result.packages[i].name == expected[i].name);
            CHECK(model::to_string(result.packages[i].status) == expected[i].status);
            CHECK(result.packages[i].reason == expected[i].reason);
        }
    }

    TEST_CASE("check_environment_file conda specs", "[checks][EnvCheck]")
    {
        const auto result = check("name: ml\n"
                                  "channels: [conda-forge]\n"
                                  "dependencies:\n"
                                  "  - python=3.11\n"
                                  "  - conda-forge::numpy>=1.26,<2\n"
                                  "  - pytorch=*=cuda*\n"
                                  "  - numpy 1.26.3\n"
                                  "  - scipy\n"
                                  "  - pkgs/main::pip\n"
                                  "  - python >=3.12\n");
        REQUIRE(result.has_value());
        require_findings(
          *result, {
                     { "python", "ok", "" },
                     { "numpy", "ok", "" },
                     { "pytorch", "ok", "" },
                     { "numpy", "unsatisfied",
                       "installed 1.26.4 py311h64a7726_0 does not satisfy 'numpy 1.26.3'" },
                     { "scipy", "missing", "no installed package matches 'scipy'" },
                     { "pip", "unsatisfied",
                       "installed 24.0 pyhd8ed1ab_0 does not satisfy 'pkgs/main::pip'" },
                     { "python", "unsatisfied",
                       "installed 3.11.7 hab00c5b_0_cpython does not satisfy 'python >=3.12'" },
                   });
        CHECK(result->packages[0].spec == "python=3.11");
        CHECK(result->packages[0].spec_location.to_string() == "environment.yml:4:5");
        CHECK(result->packages[0].installed->version == "3.11.7");
        CHECK_FALSE(result->packages[4].installed.has_value());
    }

    // Names are looked up in an index of the installed conda packages: a name in capitals
    // finds its package as the matcher (case-insensitive) does, and a glob or a regular
    // expression is matched against every package, the first installed one that fits winning.
    TEST_CASE("check_environment_file conda names by index and by pattern", "[checks][EnvCheck]")
    {
        const auto result = check("dependencies:\n"
                                  "  - NumPy>=1.26\n"
                                  "  - py*>=3.11\n"
                                  "  - ^pyto.*$ >=2.4\n"
                                  "  - Pandas\n");
        REQUIRE(result.has_value());
        require_findings(*result,
                         {
                           { "numpy", "ok", "" },
                           { "python", "ok", "" },
                           { "pytorch", "ok", "" },
                           { "pandas", "missing", "no installed package matches 'Pandas'" },
                         });
    }

    TEST_CASE("check_environment_file pip lines", "[checks][EnvCheck]")
    {
        const auto result = check(
          "dependencies:\n"
          "  - pip\n"
          "  - pip:\n"
          "    - --extra-index-url https://download.pytorch.org/whl/cu124\n"
          "    - requests>=2.31\n"
          "    - Requests<2\n"
          "    - six==1.16.0\n"
          "    - pywin32; sys_platform == 'win32'\n"
          "    - tiny-tool @ "
          "git+https://github.com/example/tiny-tool.git@0123456789abcdef0123456789abcdef01234567\n"
          "    - tiny-tool @ "
          "git+https://github.com/example/tiny-tool.git@fedcba9876543210fedcba9876543210fedcba98\n"
          "    - absent-pkg\n"
          "    - -r requirements-dev.txt\n"
          "    - git+https://github.com/example/unnamed.git\n");
        REQUIRE(result.has_value());
        require_findings(
          *result,
          {
            { "pip", "ok", "" },
            { "requests", "ok", "" },
            { "requests", "unsatisfied", "installed 2.32.3 does not satisfy '<2'" },
            { "six", "ok", "" },
            { "Tiny_Tool", "ok", "" },
            { "Tiny_Tool", "unsatisfied",
              "installed from commit 0123456789abcdef0123456789abcdef01234567, the line asks for "
              "fedcba9876543210fedcba9876543210fedcba98" },
            { "absent-pkg", "missing", "no installed distribution named absent-pkg" },
          });
        CHECK(result->packages[3].installed->installer == "conda"); // pip sees conda's six
        CHECK(result->notes ==
              std::vector<std::string>{
                "not checked: -r requirements-dev.txt (requirements files are not followed)",
                "not checked: 'git+https://github.com/example/unnamed.git' does not name its "
                "project" });
    }

    TEST_CASE("check_environment_file selectors", "[checks][EnvCheck]")
    {
        const std::string yaml = "dependencies:\n"
                                 "  - numpy\n"
                                 "  - pywin32  # [win]\n"
                                 "  - sel(linux): pytorch\n";
        const auto on_linux = check(yaml, "linux-64");
        REQUIRE(on_linux.has_value());
        CHECK(on_linux->packages.size() == 2);
        const auto windows = check(yaml, "win-64");
        REQUIRE(windows.has_value());
        REQUIRE(windows->packages.size() == 2);
        CHECK(windows->packages[1].name == "pywin32");
        CHECK(windows->packages[1].status == model::PackageStatus::missing);
    }

    TEST_CASE("check_environment_file venv python", "[checks][EnvCheck]")
    {
        model::InstalledEnvironment venv;
        venv.kind = model::PrefixKind::venv;
        venv.python_version = "3.12.4";
        venv.packages = { pip("requests", "2.32.3") };
        const auto file = formats::parse_environment_yaml(
          "dependencies:\n  - python=3.12\n  - python>=3.13\n  - pip:\n    - requests\n",
          "environment.yml");
        REQUIRE(file.has_value());
        const auto result =
          checks::check_environment_file(*file, "environment.yml", venv, "linux-64");
        REQUIRE(result.has_value());
        require_findings(*result, {
                                    { "python", "ok", "" },
                                    { "python", "unsatisfied",
                                      "installed 3.12.4 does not satisfy 'python>=3.13'" },
                                    { "requests", "ok", "" },
                                  });
        CHECK(result->packages[0].installed->source == "pyvenv.cfg");
    }

    TEST_CASE("check_environment_file negative", "[checks][EnvCheck]")
    {
        const auto bad_spec = check("dependencies:\n  - numpy >=1.2 <\n");
        REQUIRE_FALSE(bad_spec.has_value());
        CHECK(bad_spec.error().where.file == "environment.yml");
        CHECK(bad_spec.error().where.line == 2);
        const auto bad_pip = check("dependencies:\n  - pip:\n    - --no-such-option\n");
        REQUIRE_FALSE(bad_pip.has_value());
        CHECK(bad_pip.error().where.line == 3);
    }

    TEST_CASE("selector_applies", "[checks][EnvCheck]")
    {
        CHECK(checks::selector_applies("linux", "linux-64") == true);
        CHECK(checks::selector_applies("linux", "osx-arm64") == false);
        CHECK(checks::selector_applies("unix", "osx-arm64") == true);
        CHECK(checks::selector_applies("not win", "linux-64") == true);
        CHECK(checks::selector_applies("linux64", "linux-aarch64") == false);
        CHECK(checks::selector_applies("aarch64", "linux-aarch64") == true);
        CHECK(checks::selector_applies("osx-arm64", "osx-arm64") == true);
        CHECK_FALSE(checks::selector_applies("py>=38", "linux-64").has_value());
    }
}
