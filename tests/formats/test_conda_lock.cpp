#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
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
        REQUIRE(lock->packages.size() == 3); // every category, as conda-lock install reads it
        const auto& conda = lock->packages[0];
        CHECK(conda.manager == model::Manager::conda);
        CHECK(conda.name == "ca-certificates");
        CHECK(conda.version == "2025.10.5");
        CHECK(conda.build == "hbd8a1cb_0"); // from the URL
        CHECK(conda.subdir == "noarch");
        CHECK(conda.channel == "https://conda.anaconda.org/conda-forge");
        CHECK(conda.md5 == "f9e5fbc24009179e8b0409624691758a");
        CHECK(conda.sha256 == "3b5ad78b8bb61b6cdc0978a6a99f8dfb2cc789a451378d054698441005ecbdb6");
        CHECK(conda.category == "main");
        const auto& pip = lock->packages[1];
        CHECK(pip.manager == model::Manager::pip);
        CHECK(pip.name == "certifi");
        CHECK(pip.sha256 == "92d6037539857d8206b8f6ae472e8b77db8058fec5937a1ef3f54304089edbb9");
        CHECK(pip.url ==
              "https://files.pythonhosted.org/packages/4c/dd/certifi-2023.7.22-py3-none-any.whl");
        CHECK_FALSE(pip.direct_url.has_value());
        CHECK(lock->packages[2].name == "pytest");
        CHECK(lock->packages[2].category == "dev");
        CHECK(lock->optional_packages.empty());
        CHECK(lock->notes ==
              std::vector<std::string>{ "conda-lock categories: main 2, dev 1 (all read)" });

        const auto main_only = formats::parse_conda_lock(sample, "conda-lock.yml",
                                                         { "linux-64", "default", { "main" } });
        REQUIRE(main_only.has_value());
        CHECK(main_only->packages.size() == 2);
        REQUIRE(main_only->optional_packages.size() == 1);
        CHECK(main_only->optional_packages[0].name == "pytest");
        CHECK(main_only->notes ==
              std::vector<std::string>{ "conda-lock categories: main 2, dev 1; main selected: the "
                                        "other 1 package(s) are checked only when installed" });

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
            { "version: 5\npackage: []\n", util::ErrorKind::unsupported,
              "with version 5: conda-lock writes version 1" },
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
        const auto unknown_category = formats::parse_conda_lock(
          sample, "conda-lock.yml", { "linux-64", "default", { "docs" } });
        REQUIRE_FALSE(unknown_category.has_value());
        CHECK(unknown_category.error().kind == util::ErrorKind::usage);
        CHECK(unknown_category.error().message == "the lock has no category 'docs'");
        CHECK(unknown_category.error().hint == "pass --category with one of: main, dev");
        for (const auto& test : cases)
        {
            CAPTURE(test.text);
            const auto lock =
              formats::parse_conda_lock(test.text, "conda-lock.yml", { "win-64", "default", {} });
            REQUIRE_FALSE(lock.has_value());
            CHECK(lock.error().kind == test.kind);
            CAPTURE(lock.error().message);
            CHECK(lock.error().message.find(test.message) != std::string::npos);
        }
    }

    auto read_shared(const std::string& name) -> std::string
    {
        std::ifstream in(std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus/locks" / name,
                         std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        REQUIRE_FALSE(text.str().empty());
        return text.str();
    }

    auto count_category(const model::Lock& lock, const std::string& category) -> std::size_t
    {
        return static_cast<std::size_t>(std::count_if(lock.packages.begin(), lock.packages.end(),
                                                      [&](const model::Package& package)
                                                      { return package.category == category; }));
    }

    // conda-lock 3.0.3's own test lock: 220 main, 11 dev and 83 test entries over six platforms.
    // Before categories were read, dev and test were left out of check, diff and export.
    TEST_CASE("parse_conda_lock reads every category of a real multi-category lock",
              "[formats][CondaLock]")
    {
        const std::string text =
          read_shared("conda__conda-lock__tests_test-v2-to-v3-upgrade_conda-lock-v3.0.3.yml");
        const auto lock = formats::parse_conda_lock(text, "conda-lock.yml", { "linux-64" });
        REQUIRE(lock.has_value());
        CHECK(lock->packages.size() == 56);
        CHECK(lock->optional_packages.empty());
        CHECK(count_category(*lock, "main") + count_category(*lock, "dev") +
                count_category(*lock, "test") ==
              56);
        CHECK(count_category(*lock, "dev") > 0);
        CHECK(count_category(*lock, "test") > 0);
        REQUIRE(lock->notes.size() == 1);
        CHECK(lock->notes[0].starts_with("conda-lock categories: main "));

        const auto main =
          formats::parse_conda_lock(text, "conda-lock.yml", { "linux-64", "default", { "main" } });
        REQUIRE(main.has_value());
        CHECK(main->packages.size() == count_category(*lock, "main"));
        CHECK(main->packages.size() + main->optional_packages.size() == 56);
        const auto main_and_test = formats::parse_conda_lock(
          text, "conda-lock.yml", { "linux-64", "default", { "main", "test" } });
        REQUIRE(main_and_test.has_value());
        CHECK(main_and_test->packages.size() ==
              count_category(*lock, "main") + count_category(*lock, "test"));

        // mamba's fixture: one platform, main and dev entries of the same packages.
        const auto mamba =
          formats::parse_conda_lock(read_shared("mamba-org__mamba__libmamba_tests_data_env_"
                                                "lockfile_good_multiple_categories-lock.yaml"),
                                    "lock.yaml", { "linux-64" });
        REQUIRE(mamba.has_value());
        CHECK(count_category(*mamba, "dev") > 0);
        CHECK(mamba->packages.size() == 37);
    }

    // pip packages from version control keep their commit (mamba's fixture locks
    // python-dateutil from git+https://github.com/dateutil/dateutil@<commit>); conda-lock's
    // "sha256" of such an entry is the commit, not an archive hash.
    TEST_CASE("parse_conda_lock keeps where pip packages came from", "[formats][CondaLock]")
    {
        const auto lock = formats::parse_conda_lock(
          read_shared(
            "mamba-org__mamba__micromamba_tests_env_lockfiles_test-env-lock-pip-git-https.yaml"),
          "lock.yaml", { "linux-64" });
        REQUIRE(lock.has_value());
        const auto git = std::find_if(lock->packages.begin(), lock->packages.end(),
                                      [](const auto& p) { return p.name == "python-dateutil"; });
        REQUIRE(git != lock->packages.end());
        REQUIRE(git->direct_url.has_value());
        CHECK(git->direct_url->vcs == "git");
        CHECK(git->direct_url->url == "https://github.com/dateutil/dateutil");
        CHECK(git->direct_url->commit_id == "9eaa5de584f9f374c6e4943069925cc53522ad61");
        CHECK(git->sha256.empty());
        CHECK(git->version == "2.9.0.post1.dev3+g9eaa5de");
    }

    // pixi's lock versions 2 and 3 kept conda-lock's layout; v3 calls PyPI packages "pypi".
    TEST_CASE("parse_conda_lock reads pixi.lock versions 2 and 3 as pixi locks",
              "[formats][CondaLock]")
    {
        const std::string v3 = R"(version: 3
metadata:
  content_hash: {linux-64: e90c}
  channels: [{url: 'https://conda.anaconda.org/conda-forge/', used_env_vars: []}]
  platforms: [linux-64]
  sources: []
package:
- platform: linux-64
  name: python
  version: 3.12.1
  category: main
  manager: conda
  dependencies: [bzip2 >=1.0.8,<2.0a0]
  url: https://conda.anaconda.org/conda-forge/linux-64/python-3.12.1-hab00c5b_1_cpython.conda
  hash: {md5: 0bab699354cbd66959550eb9b9866620, sha256: 44b3d8f5f2de0d1c9d3c0bfc4e8b3f9b7e56c4ad4ac18d0c0de1aab5d6a0b5ed}
  build: hab00c5b_1_cpython
  subdir: linux-64
- platform: linux-64
  name: requests
  version: 2.31.0
  category: main
  manager: pypi
  requires_dist: ['charset-normalizer <4, >=2']
  url: https://files.pythonhosted.org/packages/70/8e/requests-2.31.0-py3-none-any.whl
  hash: {sha256: 58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f}
)";
        const auto lock = formats::parse_conda_lock(v3, "pixi.lock", { "linux-64" });
        REQUIRE(lock.has_value());
        CHECK(lock->format == model::LockFormat::pixi);
        CHECK(lock->format_version == "3");
        REQUIRE(lock->packages.size() == 2);
        CHECK(lock->packages[0].build == "hab00c5b_1_cpython");
        CHECK(lock->packages[1].manager == model::Manager::pip);
        CHECK(lock->packages[1].version == "2.31.0");
        CHECK(lock->notes.front().starts_with("pixi.lock version 3"));
    }
}
