#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/pixi_lock.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    const std::string v6 = R"(version: 6
environments:
  default:
    channels:
    - url: https://conda.anaconda.org/conda-forge/
    indexes:
    - https://pypi.org/simple
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/linux-64/_openmp_mutex-4.5-7_kmp_llvm.conda
      - conda: https://conda.anaconda.org/conda-forge/linux-64/alsa-lib-1.2.15.3-hb03c661_0.conda
      - pypi: https://files.pythonhosted.org/packages/18/a6/absl_py-2.4.0-py3-none-any.whl
      osx-arm64:
      - conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2025b-h78e105d_0.conda
  cuda:
    channels: []
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/linux-64/alsa-lib-1.2.15.3-hb03c661_0.conda
packages:
- conda: https://conda.anaconda.org/conda-forge/linux-64/_openmp_mutex-4.5-7_kmp_llvm.conda
  build_number: 7
  sha256: C0CDDB66070DD6355311F7667CE2ACCCF70D1013EDAA6E97F22859502FEFDB22
  md5: 887b70e1d607fba7957aa02f9ee0d939
  depends:
  - llvm-openmp >=9.0.1
  size: 8244
- pypi: https://files.pythonhosted.org/packages/18/a6/absl_py-2.4.0-py3-none-any.whl
  name: absl-py
  version: 2.4.0
  sha256: 88476fd881ca8aab94ffa78b7b6c632a782ab3ba1cd19c9bd423abc4fb4cd28d
- conda: https://conda.anaconda.org/conda-forge/linux-64/alsa-lib-1.2.15.3-hb03c661_0.conda
  sha256: d88aa7ae766cf584e180996e92fef2aa7d8e0a0a5ab1d4d49c32390c1b5fff31
  md5: dcdc58c15961dbf17a0621312b01f5cb
- conda: https://conda.anaconda.org/conda-forge/noarch/tzdata-2025b-h78e105d_0.conda
  sha256: 5aaa366385d716557e365f0a4e9c3fca43ba196872abbbe3d56bb610d131e192
)";

    TEST_CASE("parse_pixi_lock v6", "[formats][PixiLock]")
    {
        const auto lock = formats::parse_pixi_lock(v6, "pixi.lock", { "linux-64", "default" });
        REQUIRE(lock.has_value());
        CHECK(lock->format == model::LockFormat::pixi);
        CHECK(lock->format_version == "6");
        REQUIRE(lock->packages.size() == 3);
        const auto& mutex = lock->packages[0];
        CHECK(mutex.name == "_openmp_mutex");
        CHECK(mutex.version == "4.5");
        CHECK(mutex.build == "7_kmp_llvm");
        CHECK(mutex.build_number == 7);
        CHECK(mutex.subdir == "linux-64");
        CHECK(mutex.sha256 == "c0cddb66070dd6355311f7667ce2acccf70d1013edaa6e97f22859502fefdb22");
        CHECK(mutex.size == 8244u);
        CHECK(lock->packages[1].build_number == 0); // omitted when 0
        const auto& absl = lock->packages[2];
        CHECK(absl.manager == model::Manager::pip);
        CHECK(absl.name == "absl-py");
        CHECK(absl.version == "2.4.0");

        const auto cuda = formats::parse_pixi_lock(v6, "pixi.lock", { "linux-64", "cuda" });
        REQUIRE(cuda.has_value());
        CHECK(cuda->packages.size() == 1);
        const auto mac = formats::parse_pixi_lock(v6, "pixi.lock", { "osx-arm64", "default" });
        REQUIRE(mac.has_value());
        CHECK(mac->packages.size() == 1);
    }

    TEST_CASE("parse_pixi_lock v7", "[formats][PixiLock]")
    {
        const std::string v7 = R"(version: 7
platforms:
- name: linux-64-cuda
  subdir: linux-64
  virtual-packages: [__glibc=2.28, __cuda=12]
environments:
  default:
    channels: [{url: https://prefix.dev/conda-forge/}]
    packages:
      linux-64-cuda:
      - conda: ./local/linux-64/mypkg-0.1-h0_0.conda
      - conda_source: child-package[87dc0b8a] @ child-package
packages:
- conda: ./local/linux-64/mypkg-0.1-h0_0.conda
  sha256: 1111111111111111111111111111111111111111111111111111111111111111
- conda_source: child-package[87dc0b8a] @ child-package
  version: 0.1.0
  build: pyhbf21a9e_0
  subdir: noarch
)";
        const auto lock = formats::parse_pixi_lock(v7, "pixi.lock", { "linux-64", "default" });
        REQUIRE(lock.has_value());
        CHECK(lock->format_version == "7");
        REQUIRE(lock->packages.size() == 2);
        CHECK(lock->packages[0].name == "mypkg");
        CHECK(lock->packages[0].channel == "./local");
        CHECK(lock->packages[1].name == "child-package");
        CHECK(lock->packages[1].version == "0.1.0");
        CHECK(lock->packages[1].build == "pyhbf21a9e_0");
        CHECK(lock->packages[1].sha256.empty());
        REQUIRE(lock->notes.size() == 2);
        CHECK(lock->notes[0] == "platform 'linux-64-cuda' (linux-64)");
        CHECK(lock->notes[1].find("1 source package") != std::string::npos);
    }

    TEST_CASE("parse_pixi_lock negative", "[formats][PixiLock]")
    {
        struct Case
        {
            std::string text;
            formats::LockSelection selection;
            util::ErrorKind kind;
            const char* message;
        };
        const std::vector<Case> cases{
            { "version: 3\nenvironments: {}\n",
              { "linux-64", "default" },
              util::ErrorKind::unsupported,
              "pixi.lock version 3 with an 'environments' key: versions 1 to 3 have conda-lock's "
              "layout" },
            { "version: 8\nenvironments: {}\n",
              { "linux-64", "default" },
              util::ErrorKind::unsupported,
              "newer than envcheck reads (versions 4 to 7)" },
            { v6,
              { "linux-64", "default", { "dev" } },
              util::ErrorKind::usage,
              "a pixi.lock has no categories" },
            { "environments: {}\n",
              { "linux-64", "default" },
              util::ErrorKind::parse,
              "no integer 'version'" },
            { v6, { "linux-64", "gpu" }, util::ErrorKind::usage, "no environment 'gpu'" },
            { v6,
              { "win-64", "default" },
              util::ErrorKind::usage,
              "no packages for win-64 (it locks linux-64, osx-arm64)" },
            { "version: 6\nenvironments:\n  default:\n    packages:\n      linux-64:\n      - "
              "conda: https://x/linux-64/a-1-0.conda\npackages: []\n",
              { "linux-64", "default" },
              util::ErrorKind::parse,
              "that the packages list does not have" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.text.substr(0, 60));
            const auto lock = formats::parse_pixi_lock(test.text, "pixi.lock", test.selection);
            REQUIRE_FALSE(lock.has_value());
            CHECK(lock.error().kind == test.kind);
            CAPTURE(lock.error().message, lock.error().hint);
            CHECK(lock.error().message.find(test.message) != std::string::npos);
        }
        const auto names = formats::parse_pixi_lock(v6, "pixi.lock", { "linux-64", "gpu" });
        CHECK(names.error().hint == "pass --environment with one of: default, cuda");
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

    auto find(const model::Lock& lock, std::string_view name) -> const model::Package&
    {
        const auto found = std::find_if(lock.packages.begin(), lock.packages.end(),
                                        [&](const model::Package& p) { return p.name == name; });
        REQUIRE(found != lock.packages.end());
        return *found;
    }

    // pixi.lock v5 (2986002971/deep_learning_course, pytorch-cuda 12.4): `kind:` entries that
    // spell out name, version, build and subdir. pixi reads v5; envcheck refused it.
    TEST_CASE("parse_pixi_lock reads a real v5 lock", "[formats][PixiLock]")
    {
        const std::string text = read_shared("2986002971__deep_learning_course__pixi.lock");
        const auto lock = formats::parse_pixi_lock(text, "pixi.lock", { "linux-64", "default" });
        REQUIRE(lock.has_value());
        CHECK(lock->format_version == "5");
        CHECK(lock->packages.size() == 292);
        const auto& mutex = find(*lock, "_openmp_mutex");
        CHECK(mutex.version == "4.5");
        CHECK(mutex.build == "2_kmp_llvm");
        CHECK(mutex.build_number == 2);
        CHECK(mutex.subdir == "linux-64");
        CHECK(mutex.channel == "https://conda.anaconda.org/conda-forge");
        CHECK(mutex.sha256 == "84a66275da3a66e3f3e70e9d8f10496d807d01a9e4ec16cd2274cc5e28c478fc");
        CHECK(mutex.md5 == "562b26ba2e19059551a811e72ab7f793");
        const auto& profiler = find(*lock, "torch-tb-profiler");
        CHECK(profiler.manager == model::Manager::pip);
        CHECK(profiler.version == "0.4.3");
        CHECK(profiler.sha256 ==
              "207a49b05572dd983e4ab29eb5e0fcadd60374a8f93c78ec638217e8d18788dc");
        const auto windows = formats::parse_pixi_lock(text, "pixi.lock", { "win-64", "default" });
        REQUIRE(windows.has_value());
        CHECK(windows->packages.size() == 211);
    }

    // pixi.lock v4: rattler's test.lock (conda and PyPI wheels with #sha256 URLs) and a PyPI
    // package at a Windows path.
    TEST_CASE("parse_pixi_lock reads v4 locks", "[formats][PixiLock]")
    {
        const auto lock =
          formats::parse_pixi_lock(read_shared("conda__rattler__test-data_test.lock"), "test.lock",
                                   { "osx-arm64", "default" });
        REQUIRE(lock.has_value());
        CHECK(lock->format_version == "4");
        CHECK(lock->packages.size() == 18);
        const auto& requests = find(*lock, "requests");
        CHECK(requests.version == "2.31.0");
        CHECK(requests.url.ends_with("requests-2.31.0-py3-none-any.whl")); // no #sha256 fragment
        CHECK(requests.sha256 ==
              "58cd2187c01e70e6e26505bca751777aa9f2ee0b7f4300988b709f44e013003f");

        const auto path = formats::parse_pixi_lock(
          read_shared("conda__rattler__test-data_conda-lock_v4_absolute-path-lock.yml"),
          "pixi.lock", { "win-64", "default" });
        REQUIRE(path.has_value());
        REQUIRE(path->packages.size() == 1);
        const auto& project = path->packages[0];
        CHECK(project.name == "minimal-project");
        CHECK(project.version == "0.1");
        REQUIRE(project.direct_url.has_value());
        CHECK(project.direct_url->url ==
              "E:\\Developer\\prefix\\pixi\\examples\\pypi-source-deps/minimal-project");
    }

    // v7 platforms have names; environments are keyed by the name, the lock's platform is the
    // conda subdir. A subdir that two named platforms share must be told apart by name.
    TEST_CASE("parse_pixi_lock v7 named platforms", "[formats][PixiLock]")
    {
        const std::string text = R"(version: 7
platforms:
- name: linux-64
- name: jetson
  subdir: linux-aarch64
  virtual-packages: [__cuda=12.6]
- name: gpu
  subdir: linux-64
  virtual-packages: [__cuda=12.0]
environments:
  default:
    channels: [{url: https://conda.anaconda.org/conda-forge/}]
    packages:
      linux-64:
      - conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
      gpu:
      - conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
      - conda: https://conda.anaconda.org/conda-forge/linux-64/cuda-version-12.0-hffde075_3.conda
      jetson:
      - conda: https://conda.anaconda.org/conda-forge/linux-aarch64/zlib-1.3.1-h86ecc28_2.conda
packages:
- conda: https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
  sha256: 1111111111111111111111111111111111111111111111111111111111111111
- conda: https://conda.anaconda.org/conda-forge/linux-64/cuda-version-12.0-hffde075_3.conda
  sha256: 2222222222222222222222222222222222222222222222222222222222222222
- conda: https://conda.anaconda.org/conda-forge/linux-aarch64/zlib-1.3.1-h86ecc28_2.conda
  sha256: 3333333333333333333333333333333333333333333333333333333333333333
)";
        struct Case
        {
            std::string platform;
            std::size_t packages;
            std::string subdir;
        };
        for (const auto& test : std::vector<Case>{ { "gpu", 2, "linux-64" },
                                                   { "linux-64", 1, "linux-64" },
                                                   { "jetson", 1, "linux-aarch64" },
                                                   { "linux-aarch64", 1, "linux-aarch64" } })
        {
            CAPTURE(test.platform);
            const auto lock = formats::parse_pixi_lock(text, "pixi.lock", { test.platform });
            REQUIRE(lock.has_value());
            CHECK(lock->packages.size() == test.packages);
            CHECK(lock->machine.platform == test.subdir);
        }
        const auto jetson = formats::parse_pixi_lock(text, "pixi.lock", { "jetson" });
        CHECK(jetson->notes == std::vector<std::string>{ "platform 'jetson' (linux-aarch64)" });

        const std::string two_gpus = R"(version: 7
platforms:
- {name: cuda12, subdir: linux-64}
- {name: cuda13, subdir: linux-64}
environments: {default: {channels: [], packages: {cuda12: [], cuda13: []}}}
packages: []
)";
        const auto ambiguous = formats::parse_pixi_lock(two_gpus, "pixi.lock", { "linux-64" });
        REQUIRE_FALSE(ambiguous.has_value());
        CHECK(ambiguous.error().kind == util::ErrorKind::usage);
        CHECK(ambiguous.error().message == "the lock has 2 platforms for linux-64: cuda12, cuda13");
        CHECK(formats::parse_pixi_lock(two_gpus, "pixi.lock", { "cuda13" }).has_value());
    }

    // v7 source packages at one location (a monorepo), told apart by the reference's name and
    // variants; they may have no version.
    TEST_CASE("parse_pixi_lock v7 source packages sharing a location", "[formats][PixiLock]")
    {
        const std::string text = R"(version: 7
environments:
  default:
    channels: [{url: https://conda.anaconda.org/conda-forge/}]
    packages:
      linux-64:
      - conda: my-monorepo
        name: utils-library
        variants: {python_version: "3.12"}
      - conda: my-monorepo
        name: core-library
        variants: {python_version: "3.11"}
packages:
- conda: my-monorepo
  name: core-library
  variants: {python_version: "3.12"}
  depends: [python =3.12]
- conda: my-monorepo
  name: utils-library
  variants: {python_version: "3.12"}
- conda: my-monorepo
  name: core-library
  version: 1.0.0
  variants: {python_version: "3.11"}
  depends: [python =3.11]
)";
        const auto lock = formats::parse_pixi_lock(text, "pixi.lock", { "linux-64" });
        REQUIRE(lock.has_value());
        REQUIRE(lock->packages.size() == 2);
        CHECK(lock->packages[0].name == "utils-library");
        CHECK(lock->packages[0].version.empty());
        CHECK(lock->packages[1].name == "core-library");
        CHECK(lock->packages[1].version == "1.0.0"); // the 3.11 variant, not the first entry
        CHECK(lock->packages[1].url == "my-monorepo");
        CHECK(lock->notes.back().starts_with("2 source package(s)"));
    }

    // PyPI packages keep where they came from: a git commit, an editable local project, another
    // index; the environment's indexes and find-links become pip options.
    TEST_CASE("parse_pixi_lock PyPI sources and indexes", "[formats][PixiLock]")
    {
        const std::string text = R"(version: 6
environments:
  default:
    channels: [{url: https://conda.anaconda.org/conda-forge/}]
    indexes: [https://pypi.org/simple, https://download.pytorch.org/whl/cu124]
    find-links: [{url: https://data.pyg.org/whl/torch-2.5.0+cu124.html}, {path: ./wheels}]
    packages:
      linux-64:
      - pypi: git+https://github.com/facebookresearch/sam2.git?branch=main#2b90b9f5ceec907a1c18123530e92e794ad901a4
      - pypi: ./
      - pypi: https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp310-cp310-linux_x86_64.whl
packages:
- pypi: git+https://github.com/facebookresearch/sam2.git?branch=main#2b90b9f5ceec907a1c18123530e92e794ad901a4
  name: sam-2
  version: '1.0'
- pypi: ./
  name: coastseg
  version: 1.7.2
  sha256: 89df2c69e801a3250a33d1c56f7c01641b422ac4359d854f7154cfd2fada65ba
  editable: true
- pypi: https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp310-cp310-linux_x86_64.whl
  name: torch
  version: 2.6.0+cu124
  sha256: 7f2ba7f7c0459320a521696f6b5bccc187f59890b23c9dfb6c49b0b87c6bfc97
)";
        const auto lock = formats::parse_pixi_lock(text, "pixi.lock", { "linux-64" });
        REQUIRE(lock.has_value());
        CHECK(lock->pip_options == std::vector<std::string>{
                                     "--index-url https://pypi.org/simple",
                                     "--extra-index-url https://download.pytorch.org/whl/cu124",
                                     "--find-links https://data.pyg.org/whl/torch-2.5.0+cu124.html",
                                     "--find-links ./wheels" });
        const auto& sam = find(*lock, "sam-2");
        REQUIRE(sam.direct_url.has_value());
        CHECK(sam.direct_url->vcs == "git");
        CHECK(sam.direct_url->url == "https://github.com/facebookresearch/sam2.git");
        CHECK(sam.direct_url->commit_id == "2b90b9f5ceec907a1c18123530e92e794ad901a4");
        CHECK(sam.direct_url->requested_revision == "main");
        const auto& project = find(*lock, "coastseg");
        REQUIRE(project.direct_url.has_value());
        CHECK(project.direct_url->url == "./");
        CHECK(project.direct_url->editable);
        const auto& torch = find(*lock, "torch");
        CHECK_FALSE(torch.direct_url.has_value());
        CHECK(torch.url == "https://download.pytorch.org/whl/cu124/"
                           "torch-2.6.0%2Bcu124-cp310-cp310-linux_x86_64.whl");
    }
}
