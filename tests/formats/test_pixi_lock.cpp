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
        REQUIRE(lock->notes.size() == 1);
        CHECK(lock->notes[0].find("1 source package") != std::string::npos);
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
            { "version: 5\nenvironments: {}\n",
              { "linux-64", "default" },
              util::ErrorKind::unsupported,
              "pixi.lock version 5 is not supported; envcheck reads versions 6 and 7" },
            { "version: 8\nenvironments: {}\n",
              { "linux-64", "default" },
              util::ErrorKind::unsupported,
              "newer" },
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
}
