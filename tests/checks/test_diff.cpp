#include <string>
#include <vector>

#include "checks/diff.hpp"
#include "formats/environment_yaml.hpp"
#include "tests/catch.hpp"

using namespace envcheck::checks;
using envcheck::model::Manager;

namespace
{
    auto set_of(const std::string& text) -> PackageSet
    {
        auto loaded = envcheck::formats::load_environment_yaml(text);
        REQUIRE(loaded.has_value());
        return package_set_from(*loaded);
    }

    auto diff_of(const std::string& older, const std::string& newer) -> PackageSetDiff
    {
        return diff_package_sets(set_of(older), set_of(newer));
    }

    auto find(const PackageSetDiff& diff, const std::string& name) -> const PackageChange*
    {
        for (const auto& change : diff.packages)
        {
            if (change.entry().name == name)
            {
                return &change;
            }
        }
        return nullptr;
    }

    const std::string resnet =
      "name: resnet\n"
      "channels:\n  - pytorch\n  - nvidia\n  - conda-forge\n"
      "dependencies:\n"
      "  - python=3.9\n  - pytorch=2.0.1\n  - pytorch-cuda=11.8\n  - numpy=1.26.4\n"
      "  - ipykernel=6.25.0\n"
      "  - pip:\n      - rich==13.7.1\n";

    TEST_CASE("diff_package_sets equal files", "[checks][diff]")
    {
        CHECK(diff_of(resnet, resnet).equal());
        // Same meaning, other spelling: comments, spacing, order of entries, fuzzy forms.
        const std::string respelled = "# the same environment\nname: resnet\n"
                                      "channels: [pytorch, nvidia, conda-forge]\n"
                                      "dependencies:\n"
                                      "  - pip:\n      - rich == 13.7.1\n"
                                      "  - numpy 1.26.4.*\n  - python=3.9\n  - pytorch=2.0.1\n"
                                      "  - pytorch-cuda=11.8\n  - ipykernel=6.25.0\n";
        const auto diff = diff_of(resnet, respelled);
        INFO(diff.packages.size());
        CHECK(diff.equal());
    }

    TEST_CASE("diff_package_sets added, removed, re-pinned", "[checks][diff]")
    {
        const std::string newer =
          "name: resnet\n"
          "channels:\n  - pytorch\n  - nvidia\n  - conda-forge\n"
          "dependencies:\n"
          "  - python=3.9\n  - pytorch=2.0.1\n  - pytorch-cuda=11.8\n  - numpy=1.26.2\n"
          "  - jupyterlab=4.2.5\n"
          "  - pip:\n      - rich==13.7.1\n      - tqdm==4.66.4\n";
        const auto diff = diff_of(resnet, newer);
        REQUIRE_FALSE(diff.equal());
        REQUIRE(diff.packages.size() == 4);
        CHECK(diff.packages[0].entry().name == "ipykernel");
        CHECK(diff.packages[0].kind == ChangeKind::removed);
        CHECK(diff.packages[1].entry().name == "jupyterlab");
        CHECK(diff.packages[1].kind == ChangeKind::added);
        CHECK(diff.packages[1].new_entry->text == "jupyterlab=4.2.5");
        CHECK(diff.packages[2].entry().name == "numpy");
        CHECK(diff.packages[2].kind == ChangeKind::changed);
        CHECK(diff.packages[2].old_entry->text == "numpy=1.26.4");
        CHECK(diff.packages[2].new_entry->text == "numpy=1.26.2");
        CHECK(diff.packages[2].risks.empty());
        CHECK(diff.packages[3].entry().name == "tqdm");
        CHECK(diff.packages[3].entry().manager == Manager::pip);
        CHECK(diff.channels.added.empty());
        CHECK_FALSE(diff.channels.reordered);
    }

    TEST_CASE("diff_package_sets channels", "[checks][diff]")
    {
        const std::string newer =
          "channels:\n  - nvidia\n  - pytorch\n  - defaults\ndependencies:\n  - python=3.9\n";
        const std::string older =
          "channels:\n  - pytorch\n  - nvidia\n  - conda-forge\ndependencies:\n  - python=3.9\n";
        const auto diff = diff_of(older, newer);
        CHECK(diff.packages.empty());
        CHECK(diff.channels.added == std::vector<std::string>{ "defaults" });
        CHECK(diff.channels.removed == std::vector<std::string>{ "conda-forge" });
        CHECK(diff.channels.reordered);
        CHECK_FALSE(diff.equal());
        const auto reordered_only =
          diff_of("channels: [a, b]\ndependencies: [x]\n", "channels: [b, a]\ndependencies: [x]\n");
        CHECK(reordered_only.channels.reordered);
        CHECK_FALSE(reordered_only.equal());
    }

    TEST_CASE("diff_package_sets risks", "[checks][diff]")
    {
        const std::string newer =
          "name: resnet\n"
          "channels:\n  - pytorch\n  - nvidia\n  - conda-forge\n"
          "dependencies:\n"
          "  - python=3.10\n  - pytorch=2.1.2\n  - pytorch-cuda=12.1\n  - numpy=2.0.1\n"
          "  - ipykernel=6.29.0\n"
          "  - pip:\n      - rich==13.7.1\n";
        const auto diff = diff_of(resnet, newer);
        const auto* python = find(diff, "python");
        REQUIRE(python != nullptr);
        REQUIRE(python->risks.size() == 1);
        CHECK(python->risks[0].kind == RiskKind::python);
        CHECK(python->risks[0].message == "python 3.9 -> 3.10");

        const auto* cuda = find(diff, "pytorch-cuda");
        REQUIRE(cuda != nullptr);
        REQUIRE(cuda->risks.size() == 1);
        CHECK(cuda->risks[0].kind == RiskKind::cuda);
        CHECK(cuda->risks[0].message == "CUDA 11.8 -> 12.1");

        const auto* numpy = find(diff, "numpy");
        REQUIRE(numpy != nullptr);
        REQUIRE(numpy->risks.size() == 1);
        CHECK(numpy->risks[0].kind == RiskKind::framework);
        CHECK(numpy->risks[0].message == "numpy 1.26 -> 2.0 (major)");

        const auto* pytorch = find(diff, "pytorch");
        REQUIRE(pytorch != nullptr);
        CHECK(pytorch->risks.empty()); // 2.0 -> 2.1 is a minor release

        const auto* ipykernel = find(diff, "ipykernel");
        REQUIRE(ipykernel != nullptr);
        CHECK(ipykernel->risks.empty());
    }

    TEST_CASE("diff_package_sets CUDA from build strings and wheels", "[checks][diff]")
    {
        const auto builds = diff_of("dependencies:\n  - pytorch=2.4.1=cuda118*\n",
                                    "dependencies:\n  - pytorch=2.4.1=cuda120*\n");
        REQUIRE(builds.packages.size() == 1);
        REQUIRE(builds.packages[0].risks.size() == 1);
        CHECK(builds.packages[0].risks[0].message == "CUDA 11.8 -> 12.0");

        const auto wheels = diff_of("dependencies:\n  - pip:\n      - torch==2.3.1+cu118\n",
                                    "dependencies:\n  - pip:\n      - torch==2.3.1+cu121\n");
        REQUIRE(wheels.packages.size() == 1);
        REQUIRE(wheels.packages[0].risks.size() == 1);
        CHECK(wheels.packages[0].risks[0].kind == RiskKind::cuda);

        const auto jax =
          diff_of("dependencies:\n  - jax=0.4.30\n", "dependencies:\n  - jax=0.5.0\n");
        REQUIRE(jax.packages.size() == 1);
        REQUIRE(jax.packages[0].risks.size() == 1);
        CHECK(jax.packages[0].risks[0].message == "jax 0.4 -> 0.5 (0.x minor)");
    }

    TEST_CASE("diff_package_sets selectors and pip options", "[checks][diff]")
    {
        const std::string older =
          "dependencies:\n  - pytorch-cuda=12.1  # [linux]\n  - pip:\n"
          "      - --extra-index-url https://download.pytorch.org/whl/cu118\n";
        const std::string newer =
          "dependencies:\n  - pytorch-cuda=12.1  # [linux]\n  - pytorch-cuda=11.8  # [win]\n"
          "  - pip:\n      - --extra-index-url https://download.pytorch.org/whl/cu121\n";
        const auto diff = diff_of(older, newer);
        std::size_t added = 0;
        std::size_t removed = 0;
        for (const auto& change : diff.packages)
        {
            added += change.kind == ChangeKind::added ? 1U : 0U;
            removed += change.kind == ChangeKind::removed ? 1U : 0U;
        }
        CHECK(added == 2);   // pytorch-cuda for win, the new index
        CHECK(removed == 1); // the old index
    }

    TEST_CASE("RiskKind to_string", "[checks][diff]")
    {
        CHECK(to_string(RiskKind::cuda) == "cuda");
        CHECK(to_string(RiskKind::python) == "python");
        CHECK(to_string(RiskKind::framework) == "framework");
    }
}
