#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "formats/lock.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    auto read_text(const std::filesystem::path& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        std::stringstream buffer;
        buffer << in.rdbuf();
        return buffer.str();
    }

    auto sample_lock() -> model::Lock
    {
        model::Lock lock;
        lock.envcheck_version = "0.1.0";
        lock.created_at = "2026-11-30T20:00:00Z";
        lock.environment_file = model::LockedEnvironmentFile{
            "environment.yml", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
        };
        lock.machine.platform = "linux-64";
        lock.machine.glibc = "2.36";
        lock.machine.python = "3.11.7";
        lock.machine.driver_version = "580.65.06";
        lock.machine.cuda_driver_version = "13.0";
        lock.machine.gpus =
          std::vector<model::LockedGpu>{ { 0, "NVIDIA H200",
                                           "GPU-3c2d7f0e-1b9a-4c55-8d2e-7a6b5c4d3e2f",
                                           "0000:19:00.0", "9.0", 150754820096ull } };
        model::PerfBaseline baseline;
        baseline.device_name = "NVIDIA H200";
        baseline.device_uuid = "GPU-3c2d7f0e-1b9a-4c55-8d2e-7a6b5c4d3e2f";
        baseline.pci_bus_id = "0000:19:00.0";
        baseline.metrics = { { "bandwidth",
                               "h2d_pinned_gbps",
                               55.125,
                               0.01,
                               5,
                               "GB/s",
                               model::MetricDirection::higher_is_better,
                               {} } };
        lock.performance = std::vector<model::PerfBaseline>{ baseline };

        model::Package requests;
        requests.manager = model::Manager::pip;
        requests.name = "requests";
        requests.version = "2.32.3";
        requests.installer = "pip";
        requests.requested = true;
        requests.direct_url = model::DirectUrl{ "https://github.com/psf/requests",
                                                "git",
                                                "0e322af87745eff34caffe4df68456ebc20d9068",
                                                "v2.32.3",
                                                "",
                                                false };
        model::Package numpy;
        numpy.name = "numpy";
        numpy.version = "1.26.4";
        numpy.build = "py311h64a7726_0";
        numpy.build_number = 0;
        numpy.channel = "https://conda.anaconda.org/conda-forge";
        numpy.subdir = "linux-64";
        numpy.url =
          "https://conda.anaconda.org/conda-forge/linux-64/numpy-1.26.4-py311h64a7726_0.conda";
        numpy.filename = "numpy-1.26.4-py311h64a7726_0.conda";
        numpy.sha256 = "3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149";
        numpy.md5 = "a8fd8ab6e8a5c8b5f2b0b2a6e4f9e9c1";
        numpy.size = 8065890;
        numpy.requested = true;
        numpy.installer = "conda";
        lock.packages = { requests, numpy }; // rendered conda first
        return lock;
    }

    TEST_CASE("render_lock golden and round trip", "[formats][Lock]")
    {
        const auto lock = sample_lock();
        const std::string rendered = formats::render_lock(lock);
        const std::string golden_path =
          std::string(ENVCHECK_TEST_DATA_DIR) + "/locks/sample.lock.json";
        if (const char* update = std::getenv("ENVCHECK_UPDATE_GOLDEN");
            update != nullptr && std::string(update) == "1")
        {
            std::ofstream(golden_path, std::ios::binary) << rendered;
        }
        INFO("golden file " << golden_path << " (ENVCHECK_UPDATE_GOLDEN=1 rewrites it)");
        CHECK(rendered == read_text(golden_path));

        const auto parsed = formats::parse_lock(rendered, "sample.lock.json");
        REQUIRE(parsed.has_value());
        CHECK(parsed->format == model::LockFormat::envcheck);
        CHECK(formats::same_content(*parsed, lock));
        CHECK(formats::render_lock(*parsed) == rendered);
        CHECK(parsed->packages[0].name == "numpy");
        CHECK(parsed->packages[0].source == "sample.lock.json");
    }

    TEST_CASE("render_lock unknown values are null", "[formats][Lock]")
    {
        model::Lock lock;
        lock.machine.platform = "linux-64";
        const std::string rendered = formats::render_lock(lock);
        CHECK(rendered.find("\"driver_version\": null") != std::string::npos);
        CHECK(rendered.find("\"gpus\": null") != std::string::npos);
        CHECK(rendered.find("\"performance\": null") != std::string::npos);
        CHECK(rendered.find("\"environment_file\": null") != std::string::npos);
        const auto parsed = formats::parse_lock(rendered, "x.json");
        REQUIRE(parsed.has_value());
        CHECK_FALSE(parsed->machine.gpus.has_value());
        CHECK_FALSE(parsed->performance.has_value());
        CHECK_FALSE(parsed->machine.driver_version.has_value());
    }

    TEST_CASE("render_lock informational metrics round trip", "[formats][Lock]")
    {
        model::Lock lock;
        lock.machine.platform = "linux-64";
        model::PerfBaseline baseline;
        baseline.metrics = {
            { "hbm",
              "copy_gbps",
              3970.0,
              0.007,
              15,
              "GB/s",
              model::MetricDirection::higher_is_better,
              {} },
            { "hbm", "read_gbps", 3920.0, 0.067, 15, "GB/s",
              model::MetricDirection::higher_is_better,
              "its spread (6.7% over 3 runs) is above 3%, too noisy to show a 5% drop" },
        };
        lock.performance = std::vector<model::PerfBaseline>{ baseline };
        const std::string rendered = formats::render_lock(lock);
        CHECK(rendered.find("\"informational\": \"its spread (6.7% over 3 runs)") !=
              std::string::npos);
        const auto parsed = formats::parse_lock(rendered, "x.json");
        REQUIRE(parsed.has_value());
        REQUIRE(parsed->performance.has_value());
        CHECK(parsed->performance->front().metrics == baseline.metrics);
    }

    TEST_CASE("render_lock invalid UTF-8", "[formats][Lock]")
    {
        model::Lock lock;
        model::Package package;
        package.manager = model::Manager::pip;
        package.name = "caf\xe9";
        package.version = "1";
        lock.packages = { package };
        std::string rendered;
        REQUIRE_NOTHROW(rendered = formats::render_lock(lock));
        const auto parsed = formats::parse_lock(rendered, "x.json");
        REQUIRE(parsed.has_value());
        CHECK(parsed->packages[0].name == "caf\xef\xbf\xbd");
    }

    TEST_CASE("parse_lock negative", "[formats][Lock]")
    {
        // A lock with one baseline whose one metric has these further fields.
        const auto metric_lock = [](const std::string& fields)
        {
            return "{\"schema_version\": 1, \"packages\": [], \"performance\": [{\"device_index\": "
                   "0, \"device_name\": \"NVIDIA H200\", \"mode\": \"quick\", \"metrics\": "
                   "[{\"probe\": \"hbm\", \"name\": \"copy_gbps\", \"unit\": \"GB/s\", " +
                   fields + "}]}]}";
        };
        struct Case
        {
            std::string text;
            util::ErrorKind kind;
            const char* message;
        };
        const std::vector<Case> cases{
            { "{\"schema_version\": 1, \"packages\": [}", util::ErrorKind::parse, "invalid JSON" },
            { "[]", util::ErrorKind::parse, "must be a JSON object" },
            { "{\"schema_version\": 1, \"packages\": [], \"x\": 1e999}", util::ErrorKind::parse,
              "number overflow parsing '1e999'" },
            { "{\"packages\": []}", util::ErrorKind::parse, "no integer schema_version" },
            { "{\"schema_version\": 2, \"packages\": []}", util::ErrorKind::unsupported,
              "schema_version 2" },
            { "{\"schema_version\": 1}", util::ErrorKind::parse, "packages: missing" },
            { "{\"schema_version\": 1, \"packages\": [{\"manager\": \"npm\", \"name\": \"a\", "
              "\"version\": \"1\"}]}",
              util::ErrorKind::parse, "packages[0].manager: expected conda or pip, not 'npm'" },
            { "{\"schema_version\": 1, \"packages\": [{\"manager\": \"conda\", \"version\": "
              "\"1\"}]}",
              util::ErrorKind::parse, "packages[0].name: missing" },
            { "{\"schema_version\": 1, \"packages\": [{\"manager\": \"conda\", \"name\": \"a\", "
              "\"version\": 1}]}",
              util::ErrorKind::parse, "packages[0].version: expected a string" },
            { "{\"schema_version\": 1, \"machine\": {\"gpus\": 3}, \"packages\": []}",
              util::ErrorKind::parse, "machine.gpus: expected a list" },
            { "{\"schema_version\": 1, \"performance\": [{\"mode\": \"slow\", \"metrics\": []}], "
              "\"packages\": []}",
              util::ErrorKind::parse, "performance[0].mode: expected quick or full, not 'slow'" },
            { metric_lock("\"direction\": \"up\", \"value\": 1, \"spread\": 0"),
              util::ErrorKind::parse,
              "performance[0].metrics[0].direction: expected a known direction, not 'up'" },
            { metric_lock("\"direction\": \"higher_is_better\", \"value\": \"fast\", "
                          "\"spread\": 0"),
              util::ErrorKind::parse, "performance[0].metrics[0].value: expected a number" },
            { metric_lock("\"direction\": \"higher_is_better\", \"value\": 1, \"spread\": 0, "
                          "\"samples\": 2.5"),
              util::ErrorKind::parse, "performance[0].metrics[0].samples: expected an integer" },
            { metric_lock("\"direction\": \"higher_is_better\", \"value\": 1, \"spread\": 0, "
                          "\"informational\": 3"),
              util::ErrorKind::parse,
              "performance[0].metrics[0].informational: expected a string" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.text);
            const auto lock = formats::parse_lock(test.text, "bad.lock.json");
            REQUIRE_FALSE(lock.has_value());
            CHECK(lock.error().kind == test.kind);
            CHECK(lock.error().where.file == "bad.lock.json");
            CAPTURE(lock.error().message);
            CHECK(lock.error().message.find(test.message) != std::string::npos);
        }
    }

    TEST_CASE("default_lock_path", "[formats][Lock]")
    {
        CHECK(formats::default_lock_path("environment.yml") == "environment.lock.json");
        CHECK(formats::default_lock_path("envs/gpu.yaml") == "envs/gpu.lock.json");
        CHECK(formats::default_lock_path("/abs/dir/env") == "/abs/dir/env.lock.json");
        CHECK(formats::default_lock_path("") == "environment.lock.json");
    }

    TEST_CASE("same_content ignores the time and version of writing", "[formats][Lock]")
    {
        auto a = sample_lock();
        auto b = sample_lock();
        b.created_at = "2030-01-01T00:00:00Z";
        b.envcheck_version = "9.9.9";
        std::swap(b.packages[0], b.packages[1]);
        CHECK(formats::same_content(a, b));
        b.packages[0].sha256 = "00";
        CHECK_FALSE(formats::same_content(a, b));
        auto c = sample_lock();
        c.machine.driver_version = "570.1";
        CHECK_FALSE(formats::same_content(a, c));
    }

    // Every real lock in the shared corpus is read, or refused with a clear message. The
    // expected counts were taken with an independent reader (PyYAML over the same files).
    TEST_CASE("parse_any_lock corpus", "[formats][Lock]")
    {
        const std::filesystem::path dir =
          std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus" / "locks";
        if (!std::filesystem::is_directory(dir))
        {
            FAIL("shared corpus missing (configure with -DENVCHECK_SHARED_DIR): " << dir);
            return;
        }
        struct Expectation
        {
            const char* file;
            const char* platform;
            const char* environment;
            model::LockFormat format;
            std::size_t packages; // required packages, when read
            std::size_t optional_packages;
            const char* refusal; // non-null: refused with this in the message
        };
        using F = model::LockFormat;
        const std::vector<Expectation> expectations{
            { "01-ai__Yi__conda-lock.yml", "linux-64", "default", F::conda_lock, 188, 0, nullptr },
            { "0xNOY__rex_omni_ros__pixi.lock", "linux-64", "default", F::pixi, 439, 0, nullptr },
            { "1235467__diff-svc__pixi.lock", "linux-64", "default", F::pixi, 299, 0, nullptr },
            { "2003cy__specml__pixi.lock", "linux-64", "default", F::pixi, 350, 0, nullptr },
            { "218OSCAR__adaptive_compliance_policy__pixi.lock", "linux-64", "train", F::pixi, 294,
              0, nullptr },
            { "2320sharon__CoastSeg__pixi.lock", "win-64", "ml", F::pixi, 373, 0, nullptr },
            { "2986002971__deep_learning_course__pixi.lock", "linux-64", "default", F::pixi, 292, 0,
              nullptr },
            { "6cyc6__foundationpose_cpp__pixi.lock", "linux-64", "default", F::pixi, 285, 0,
              nullptr },
            { "6cyc6__gausstwin__pixi.lock", "linux-64", "default", F::pixi, 402, 0, nullptr },
            { "AaradhyaVerma__Pylot_OpenPCDet__package-list.txt", "linux-64", "default",
              F::explicit_, 0, 0, "`conda list --export` list" },
            { "AgrawalAmey__nirf__spec-file.txt", "linux-64", "default", F::explicit_, 106, 0,
              nullptr },
            { "AlexanderParkin__ChaLearn_liveness_challenge__spec-file.txt", "linux-64", "default",
              F::explicit_, 84, 0, nullptr },
            { "ChristianMarzahl__yolov7__spec-file.txt", "linux-64", "default", F::explicit_, 65, 0,
              nullptr },
            { "ChristophHoenes__NumTimeProbe__conda-lock.yml", "osx-arm64", "default",
              F::conda_lock, 209, 0, nullptr },
            { "Clay-foundation__model__conda-lock.yml", "linux-64", "default", F::conda_lock, 524,
              0, nullptr },
            { "CryoInTheCloud__image-cryo-python-AI__conda-linux-64.lock", "linux-64", "default",
              F::explicit_, 983, 0, nullptr },
            { "CryoInTheCloud__image-cryo-python-AI__conda-lock.yml", "linux-64", "default",
              F::conda_lock, 983, 0, nullptr },
            { "DIUx-xView__xView2-deploy__spec-file.txt", "linux-64", "default", F::explicit_, 212,
              0, nullptr },
            { "Denolle-Lab__seisbench-jupyter__conda-linux-64.lock", "linux-64", "default",
              F::explicit_, 345, 0, nullptr },
            { "ESMValGroup__ESMValCore__conda-linux-64.lock", "linux-64", "default", F::explicit_,
              454, 0, nullptr },
            { "ESMValGroup__ESMValCore__conda-lock.yml", "linux-64", "default", F::conda_lock, 191,
              0, nullptr },
            { "ESMValGroup__ESMValCore__pixi.lock", "osx-arm64", "test-r", F::pixi, 409, 0,
              nullptr },
            { "FSadrieh__BERTchen__conda-lock.yml", "win-64", "default", F::conda_lock, 221, 0,
              nullptr },
            { "FSadrieh__BERTchen__ppc64le.conda-lock.yml", "linux-ppc64le", "default",
              F::conda_lock, 296, 0, nullptr },
            { "Healthy-AI__dalupi__conda-linux-64.lock", "linux-64", "default", F::explicit_, 229,
              0, nullptr },
            { "Healthy-AI__dalupi__conda-osx-64.lock", "osx-64", "default", F::explicit_, 211, 0,
              nullptr },
            { "conda__conda-lock__tests_test-cuda_conda-linux-64.lock", "linux-64", "default",
              F::explicit_, 7, 0, nullptr },
            { "conda__conda-lock__tests_test-lockfile-with-auth_test.lock", "linux-64", "default",
              F::explicit_, 0, 0, "not a lock envcheck reads" },
            { "conda__conda-lock__tests_test-lockfile_conda-lock.yml", "linux-64", "default",
              F::conda_lock, 147, 0, nullptr },
            { "conda__conda-lock__tests_test-v2-to-v3-upgrade_conda-lock-v2.5.8.yml",
              "linux-aarch64", "default", F::conda_lock, 55, 0, nullptr },
            { "conda__conda-lock__tests_test-v2-to-v3-upgrade_conda-lock-v3.0.3.yml", "win-64",
              "default", F::conda_lock, 49, 0, nullptr },
            { "conda__conda-lock__tests_zlib_conda-win-64.lock", "win-64", "default", F::explicit_,
              6, 0, nullptr },
            { "conda__conda__tests_env_support_explicit.txt", "linux-64", "default", F::explicit_,
              2, 0, nullptr },
            { "conda__rattler__test-data_conda-lock_forward-compatible-lock.yml", "win-64",
              "default", F::conda_lock, 0, 0,
              "conda-lock's layout (metadata, package) with version 1000" },
            { "conda__rattler__test-data_conda-lock_v0_pypi-matplotlib-conda-lock.yml", "linux-64",
              "default", F::conda_lock, 36, 0, nullptr },
            { "conda__rattler__test-data_conda-lock_v4_absolute-path-lock.yml", "linux-64",
              "default", F::pixi, 1, 0, nullptr },
            { "conda__rattler__test-data_conda-lock_v7_empty-lock.yml", "linux-64", "default",
              F::pixi, 0, 0, nullptr },
            { "conda__rattler__test-data_conda-lock_v7_options-lock.yml", "linux-64", "default",
              F::pixi, 0, 0, "no environment 'default'" },
            { "conda__rattler__test-data_conda-lock_v7_sources-lock.yml", "win-64", "default",
              F::pixi, 1, 0, nullptr },
            { "conda__rattler__test-data_python_explicit-env-linux-ppc64le.txt", "linux-ppc64le",
              "default", F::explicit_, 22, 0, nullptr },
            { "conda__rattler__test-data_python_explicit-env-win-64.txt", "win-64", "default",
              F::explicit_, 16, 0, nullptr },
            { "conda__rattler__test-data_test.lock", "osx-arm64", "default", F::pixi, 18, 0,
              nullptr },
            { "isce-framework__dolphin__pixi.lock", "osx-64", "docs", F::pixi, 344, 0, nullptr },
            { "mamba-org__mamba__libmamba_tests_data_env_file_issue_4274.env.txt", "linux-64",
              "default", F::explicit_, 0, 0, "not a lock envcheck reads" },
            { "mamba-org__mamba__libmamba_tests_data_env_file_minrk_environment.py-3.9-linux-64."
              "lock",
              "linux-64", "default", F::explicit_, 170, 0, nullptr },
            { "mamba-org__mamba__libmamba_tests_data_env_lockfile_bad_package-lock.yaml",
              "linux-64", "default", F::conda_lock, 0, 0,
              "package '_libgcc_mutex' has no 'manager'" },
            { "mamba-org__mamba__libmamba_tests_data_env_lockfile_bad_version-lock.yaml",
              "linux-64", "default", F::conda_lock, 0, 0, "unknown lock format" },
            { "mamba-org__mamba__libmamba_tests_data_env_lockfile_good_multiple_categories-lock."
              "yaml",
              "linux-64", "default", F::conda_lock, 37, 0, nullptr },
            { "mamba-org__mamba__micromamba_tests_env_lockfiles_test-env-lock-pip-git-https.yaml",
              "linux-64", "default", F::conda_lock, 25, 0, nullptr },
            { "mamba-org__mamba__micromamba_tests_explicit_env_linux.txt", "linux-64", "default",
              F::explicit_, 15, 0, nullptr },
            { "mamba-org__mamba__micromamba_tests_spec_file_1.txt", "linux-64", "default",
              F::explicit_, 0, 0, "not a lock envcheck reads" },
            { "pangeo-data__pangeo-docker-images__ml-notebook_conda-linux-64.lock", "linux-64",
              "default", F::explicit_, 882, 0, nullptr },
            { "pangeo-data__pangeo-docker-images__ml-notebook_conda-lock.yml", "linux-64",
              "default", F::conda_lock, 882, 0, nullptr },
            { "pangeo-data__pangeo-docker-images__pytorch-notebook_conda-linux-64.lock", "linux-64",
              "default", F::explicit_, 885, 0, nullptr },
            { "pangeo-data__pangeo-docker-images__pytorch-notebook_conda-lock.yml", "linux-64",
              "default", F::conda_lock, 885, 0, nullptr },
        };
        std::set<std::string> listed;
        for (const auto& expected : expectations)
        {
            listed.insert(expected.file);
            CAPTURE(expected.file);
            const std::string text = read_text(dir / expected.file);
            REQUIRE_FALSE(text.empty());
            const auto lock = formats::parse_any_lock(text, expected.file,
                                                      { expected.platform, expected.environment });
            if (expected.refusal != nullptr)
            {
                REQUIRE_FALSE(lock.has_value());
                CAPTURE(lock.error().to_string());
                CHECK(lock.error().message.find(expected.refusal) != std::string::npos);
                CHECK(lock.error().where.file == expected.file);
                continue;
            }
            REQUIRE(lock.has_value());
            CHECK(lock->format == expected.format);
            CHECK(lock->packages.size() == expected.packages);
            CHECK(lock->optional_packages.size() == expected.optional_packages);
            for (const auto& package : lock->packages)
            {
                CAPTURE(package.name, package.url);
                CHECK_FALSE(package.name.empty());
                CHECK((!package.version.empty() || package.manager == model::Manager::pip));
                // Every conda entry of a hashed format carries a hash to compare.
                if (package.manager == model::Manager::conda && expected.format == F::conda_lock)
                {
                    CHECK_FALSE((package.md5.empty() && package.sha256.empty()));
                }
            }
        }
        // A new file in the corpus needs its expectation here.
        for (const auto& entry : std::filesystem::directory_iterator(dir))
        {
            CAPTURE(entry.path().filename().string());
            CHECK(listed.contains(entry.path().filename().string()));
        }
    }
}
