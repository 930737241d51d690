#include <string>
#include <vector>

#include "formats/conda_lock.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    const std::string sample = R"(version: 1
metadata:
  content_hash: {linux-64: af8c, osx-arm64: 1234}
  channels: [{url: conda-forge, used_env_vars: []}]
  platforms: [linux-64, osx-arm64]
  sources: [environment.yml]
package:
- name: ca-certificates
  version: 2025.10.5
  manager: conda
  platform: linux-64
  dependencies: {__unix: ''}
  url: https://conda.anaconda.org/conda-forge/noarch/ca-certificates-2025.10.5-hbd8a1cb_0.conda
  hash: {md5: F9E5FBC24009179E8B0409624691758A, sha256: 3b5ad78b8bb61b6cdc0978a6a99f8dfb2cc789a451378d054698441005ecbdb6}
  category: main
  optional: false
- name: certifi
  version: 2023.7.22
  manager: pip
  platform: linux-64
  dependencies: {}
  url: https://files.pythonhosted.org/packages/4c/dd/certifi-2023.7.22-py3-none-any.whl
  hash: {sha256: 92d6037539857d8206b8f6ae472e8b77db8058fec5937a1ef3f54304089edbb9}
  category: main
  optional: false
- name: pytest
  version: 8.0.0
  manager: conda
  platform: linux-64
  url: https://conda.anaconda.org/conda-forge/noarch/pytest-8.0.0-pyhd8ed1ab_0.conda
  hash: {md5: 5ba1cc5b924226349d4a49fb547b7579}
  category: dev
  optional: true
- name: ca-certificates
  version: 2025.10.5
  manager: conda
  platform: osx-arm64
  url: https://conda.anaconda.org/conda-forge/noarch/ca-certificates-2025.10.5-hbd8a1cb_0.conda
  hash: {md5: f9e5fbc24009179e8b0409624691758a}
  category: main
  optional: false
)";

    TEST_CASE("parse_conda_lock", "[formats][CondaLock]")
    {
        const auto lock =
          formats::parse_conda_lock(sample, "conda-lock.yml", { "linux-64", "default" });
        REQUIRE(lock.has_value());
        CHECK(lock->format == model::LockFormat::conda_lock);
        CHECK(lock->format_version == "1");
        CHECK(lock->machine.platform == "linux-64");
        REQUIRE(lock->packages.size() == 2);
        const auto& conda = lock->packages[0];
        CHECK(conda.manager == model::Manager::conda);
        CHECK(conda.name == "ca-certificates");
        CHECK(conda.version == "2025.10.5");
        CHECK(conda.build == "hbd8a1cb_0"); // from the URL
        CHECK(conda.subdir == "noarch");
        CHECK(conda.channel == "https://conda.anaconda.org/conda-forge");
        CHECK(conda.md5 == "f9e5fbc24009179e8b0409624691758a");
        CHECK(conda.sha256 == "3b5ad78b8bb61b6cdc0978a6a99f8dfb2cc789a451378d054698441005ecbdb6");
        const auto& pip = lock->packages[1];
        CHECK(pip.manager == model::Manager::pip);
        CHECK(pip.name == "certifi");
        CHECK(pip.sha256 == "92d6037539857d8206b8f6ae472e8b77db8058fec5937a1ef3f54304089edbb9");
        REQUIRE(lock->optional_packages.size() == 1);
        CHECK(lock->optional_packages[0].name == "pytest");
        REQUIRE(lock->notes.size() == 1);
        CHECK(lock->notes[0].find("categories: dev") != std::string::npos);

        const auto mac =
          formats::parse_conda_lock(sample, "conda-lock.yml", { "osx-arm64", "default" });
        REQUIRE(mac.has_value());
        CHECK(mac->packages.size() == 1);
    }

    TEST_CASE("parse_conda_lock negative", "[formats][CondaLock]")
    {
        struct Case
        {
            std::string text;
            util::ErrorKind kind;
            const char* message;
        };
        const std::vector<Case> cases{
            { "metadata: {platforms: [linux-64]}\npackage: []\n", util::ErrorKind::unsupported,
              "without a 'version'" },
            { "version: 2\npackage: []\n", util::ErrorKind::unsupported,
              "version 2 is not supported" },
            { sample, util::ErrorKind::usage,
              "no packages for win-64 (it locks linux-64, osx-arm64)" },
            { "version: 1\npackage:\n- {name: a, version: '1', platform: win-64, url: "
              "'https://x/win-64/a-1-0.conda'}\n",
              util::ErrorKind::parse, "package 'a' has no 'manager'" },
            { "version: 1\npackage:\n- {name: a, version: '1', manager: conda, platform: win-64, "
              "url: 'https://x/win-64/a-1-0.conda'}\n",
              util::ErrorKind::parse, "package 'a' has no hash" },
            { "version: 1\npackage: {a: 1}\n", util::ErrorKind::parse, "'package' must be a list" },
            { "version: 1\npackage: [\n", util::ErrorKind::parse, "invalid YAML" },
            { "- a\n- b\n", util::ErrorKind::parse, "not a mapping" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.text);
            const auto lock =
              formats::parse_conda_lock(test.text, "conda-lock.yml", { "win-64", "default" });
            REQUIRE_FALSE(lock.has_value());
            CHECK(lock.error().kind == test.kind);
            CAPTURE(lock.error().message);
            CHECK(lock.error().message.find(test.message) != std::string::npos);
        }
    }
}
