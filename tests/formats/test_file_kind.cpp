// What a file handed to lint is (formats/file_kind.hpp): every file of the shared corpus is told
// apart (environment files from locks), conda's other YAML by name and by content, and lint's
// findings for a lock name what it is and what reads it, or where it does not read.
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "formats/file_kind.hpp"
#include "formats/lock.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    auto read_file(const fs::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    auto shared(const std::string& path) -> fs::path
    {
        return fs::path(ENVCHECK_SHARED_DIR) / path;
    }

    TEST_CASE("identify_file: every environment file of the corpus is one", "[formats][FileKind]")
    {
        std::size_t files = 0;
        for (const auto& entry : fs::directory_iterator(shared("corpus/envs")))
        {
            const std::string name = entry.path().filename().string();
            CAPTURE(name);
            // The corpus keeps the repository path in the name; lint sees the file's own name.
            const auto kind = formats::identify_file(read_file(entry.path()), "environment.yml");
            CHECK(kind.kind == formats::FileKind::environment);
            ++files;
        }
        CHECK(files > 100);
    }

    TEST_CASE("identify_file: every lock of the corpus is one", "[formats][FileKind]")
    {
        const std::set<std::string> lists{
            "AaradhyaVerma__Pylot_OpenPCDet__package-list.txt",
            "mamba-org__mamba__libmamba_tests_data_env_file_issue_4274.env.txt",
            "mamba-org__mamba__micromamba_tests_spec_file_1.txt",
            "conda__conda-lock__tests_test-lockfile-with-auth_test.lock",
        };
        // "version: -1" and nothing else: no format to tell, so lint reads it as the broken
        // environment file it then is (env.missing-dependencies).
        const std::string junk =
          "mamba-org__mamba__libmamba_tests_data_env_lockfile_bad_version-lock.yaml";
        std::size_t locks = 0;
        for (const auto& entry : fs::directory_iterator(shared("corpus/locks")))
        {
            const std::string name = entry.path().filename().string();
            CAPTURE(name);
            const auto kind = formats::identify_file(read_file(entry.path()), name);
            if (name == junk)
            {
                CHECK(kind.kind == formats::FileKind::environment);
                continue;
            }
            if (lists.count(name) > 0)
            {
                CHECK(kind.kind != formats::FileKind::lock);
                CHECK(kind.kind != formats::FileKind::environment);
                continue;
            }
            CHECK(kind.kind == formats::FileKind::lock);
            ++locks;
        }
        CHECK(locks > 40);
        const auto exported = formats::identify_file(
          read_file(shared("corpus/locks/AaradhyaVerma__Pylot_OpenPCDet__package-list.txt")),
          "package-list.txt");
        CHECK(exported.kind == formats::FileKind::export_list);
        const auto specs = formats::identify_file(
          read_file(shared("corpus/locks/mamba-org__mamba__micromamba_tests_spec_file_1.txt")),
          "spec_file_1.txt");
        CHECK(specs.kind == formats::FileKind::spec_list);
    }

    TEST_CASE("identify_file: conda's other YAML by name and by content", "[formats][FileKind]")
    {
        struct Case
        {
            std::string name;
            std::string text;
            formats::FileKind kind;
        };
        const std::vector<Case> cases{
            { "conda_build_config.yaml", "python:\n  - 3.11\n  - 3.12\n",
              formats::FileKind::conda_build_config },
            { "recipe/variants.yaml",
              "cuda_compiler_version:\n  - 12.4\ncxx_compiler:\n  - gxx\nzip_keys:\n  - [a, b]\n",
              formats::FileKind::conda_build_config },
            { ".condarc", "channels:\n  - conda-forge\n", formats::FileKind::condarc },
            { "ci/condarc-ci.yml", "channels: [conda-forge]\nchannel_priority: strict\n",
              formats::FileKind::condarc },
            { "recipe/meta.yaml",
              "{% set version = '1.0' %}\npackage:\n  name: x\n  version: {{ version }}\n",
              formats::FileKind::recipe },
            { "pkg/build.yml", "package: {name: x, version: '1'}\nrequirements: {run: [python]}\n",
              formats::FileKind::recipe },
            { "conda-forge.yml", "provider: {linux_aarch64: default}\n",
              formats::FileKind::conda_smithy },
            // environment files stay environment files, broken or not
            { "environment.yml", "{name: x, dependencies: [numpy]}\n",
              formats::FileKind::environment },
            { "environment.yml", "name: x\nchannels: [conda-forge]\n",
              formats::FileKind::environment },
            { "env.yml", "channels: [conda-forge]\n", formats::FileKind::environment },
            { "environment.yml", "dependencies: [\n", formats::FileKind::environment },
            { "environment.yml", "", formats::FileKind::environment },
            { "environment.yml", "numpy\n", formats::FileKind::environment },
            // a top-level dependencies key settles it without a parse, also beside condarc keys
            { "environment.yml", "channels: [a]\nchannel_priority: strict\ndependencies : [b]\n",
              formats::FileKind::environment },
            { "pkg/build.yml", "package: {name: x}\nrequirements:\n  dependencies: [b]\n",
              formats::FileKind::recipe },
            // locks by content, whatever their name
            { "environment.yml", "version: 1\nmetadata: {platforms: [linux-64]}\npackage: []\n",
              formats::FileKind::lock },
            { "deps.txt", "@EXPLICIT\n", formats::FileKind::lock },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.name, test.text);
            CHECK(formats::identify_file(test.text, test.name).kind == test.kind);
        }
    }

    TEST_CASE("lint_non_environment", "[formats][FileKind]")
    {
        const auto environment =
          formats::lint_non_environment("name: x\ndependencies: [numpy=1.26]\n", "environment.yml");
        CHECK_FALSE(environment.has_value());

        // A real conda-lock file: one info, which names what reads it.
        const auto lock = formats::lint_non_environment(
          read_file(shared(
            "corpus/locks/pangeo-data__pangeo-docker-images__pytorch-notebook_conda-lock.yml")),
          "ci/conda-lock.yml");
        REQUIRE(lock.has_value());
        REQUIRE(lock->size() == 1);
        const auto& info = lock->front();
        CHECK(info.severity == envcheck::model::Severity::info);
        CHECK(info.rule == "file.lock");
        CHECK(info.position == formats::TextPosition{ 1, 1 });
        CAPTURE(info.message);
        CHECK(
          info.message.starts_with("conda-lock.yml is a conda-lock file (version 1; linux-64; "));
        CHECK(info.message.ends_with(
          "package entries), not an environment file: envcheck check --lock, diff and export "
          "--lock read it"));

        const auto pixi = formats::lint_non_environment(
          read_file(fs::path(ENVCHECK_TEST_DATA_DIR) / "locks/named-platforms.pixi.lock"),
          "pixi.lock");
        REQUIRE(pixi.has_value());
        CHECK(pixi->front().message ==
              "pixi.lock is a pixi.lock (version 7; environments default; linux-64, gpu, jetson; "
              "5 package entries), not an environment file: envcheck check --lock, diff and "
              "export --lock read it");

        // A lock that does not read is an error where it breaks.
        const auto broken = formats::lint_non_environment(
          read_file(
            shared("corpus/locks/"
                   "mamba-org__mamba__libmamba_tests_data_env_lockfile_bad_package-lock.yaml")),
          "conda-lock.yml");
        REQUIRE(broken.has_value());
        REQUIRE(broken->size() == 1);
        CHECK(broken->front().severity == envcheck::model::Severity::error);
        CHECK(broken->front().rule == "file.lock-unreadable");
        CHECK(broken->front().position == formats::TextPosition{ 4, 5 });
        CHECK(broken->front().message ==
              "a lock that envcheck cannot read: package '_libgcc_mutex' has no 'manager'");

        const auto newer = formats::lint_non_environment(
          "version: 9\nenvironments: {}\npackages: []\n", "pixi.lock");
        REQUIRE(newer.has_value());
        CHECK(newer->front().rule == "file.lock-unreadable");
        CHECK(newer->front().position == formats::TextPosition{ 1, 10 });

        // uv.lock and pylock.toml, by content and by name; a broken one by its name.
        const auto uv = formats::lint_non_environment(
          read_file(fs::path(ENVCHECK_TEST_DATA_DIR) / "locks/uv.lock"), "project/uv.lock");
        REQUIRE(uv.has_value());
        CHECK(uv->front().message ==
              "uv.lock is a uv.lock (version 1; 10 package entries), not an environment file: "
              "envcheck check --lock, diff and export --lock read it");
        const auto pylock = formats::lint_non_environment(
          read_file(fs::path(ENVCHECK_TEST_DATA_DIR) / "locks/pylock.toml"), "exported.toml");
        REQUIRE(pylock.has_value());
        CHECK(pylock->front().rule == "file.lock");
        const auto newer_uv = formats::lint_non_environment("version = 2\n", "uv.lock");
        REQUIRE(newer_uv.has_value());
        CHECK(newer_uv->front().rule == "file.lock-unreadable");
        CHECK(newer_uv->front().position == formats::TextPosition{ 1, 11 });
        const auto bad_pylock =
          formats::lint_non_environment("lock-version = [\n", "pylock.gpu.toml");
        REQUIRE(bad_pylock.has_value());
        CHECK(bad_pylock->front().rule == "file.lock-unreadable");

        const auto condarc =
          formats::lint_non_environment("channels: [conda-forge]\n", "/home/u/.condarc");
        REQUIRE(condarc.has_value());
        const auto& other = condarc->front();
        CHECK(other.severity == envcheck::model::Severity::info);
        CHECK(other.rule == "file.not-environment");
        CHECK(other.message == ".condarc is conda's configuration, not an environment file: conda "
                               "and mamba read it as settings");
        CHECK(other.position == formats::TextPosition{ 1, 1 });
        CHECK(other.fix == "Leave it out of lint, which reads conda environment files.");
    }

    TEST_CASE("file_kind_rules", "[formats][FileKind]")
    {
        std::set<std::string_view> ids;
        for (const auto& rule : formats::file_kind_rules())
        {
            CHECK(rule.id.starts_with("file."));
            CHECK_FALSE(rule.description.empty());
            CHECK_FALSE(rule.fix.empty());
            CHECK(ids.insert(rule.id).second);
        }
        CHECK(ids == std::set<std::string_view>{ "file.lock", "file.lock-unreadable",
                                                 "file.pip-unreadable", "file.not-environment" });
    }

    // outline_lock reads every platform and environment of a lock.
    TEST_CASE("outline_lock", "[formats][FileKind]")
    {
        const auto outline = formats::outline_lock(
          read_file(shared("corpus/locks/isce-framework__dolphin__pixi.lock")), "pixi.lock");
        REQUIRE(outline.has_value());
        CHECK(outline->format == model::LockFormat::pixi);
        CHECK(outline->format_version == "6");
        CHECK(outline->environments ==
              std::vector<std::string>{ "all", "default", "docs", "test" });
        CHECK(outline->platforms == std::vector<std::string>{ "linux-64", "osx-64", "osx-arm64" });
        CHECK(outline->packages ==
              418 + 408 + 410 + 258 + 248 + 248 + 353 + 344 + 344 + 389 + 378 + 380);
        const auto categories = formats::outline_lock(
          read_file(fs::path(ENVCHECK_TEST_DATA_DIR) / "locks/categories.conda-lock.yml"),
          "conda-lock.yml");
        REQUIRE(categories.has_value());
        CHECK(categories->categories == std::vector<std::string>{ "main", "dev", "docs" });
        CHECK(categories->packages == 6);
    }
}
