#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "checks/channel_availability.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using checks::AvailabilitySpec;
using checks::ChannelSubdir;
using formats::Channel;
using formats::RepodataIndex;

namespace
{
    const Channel pytorch{ "pytorch", "https://conda.anaconda.org/pytorch" };
    const Channel nvidia{ "nvidia", "https://conda.anaconda.org/nvidia" };
    const Channel conda_forge{ "conda-forge", "https://conda.anaconda.org/conda-forge" };

    auto index(std::string_view json) -> RepodataIndex
    {
        return RepodataIndex::build(json, {}).value();
    }

    // The pytorch channel's pytorch-cuda is noarch; nvidia's cuda-cudart is per platform.
    const RepodataIndex pytorch_linux = index(R"({"info": {"subdir": "linux-64"}, "packages": {
        "pytorch-2.0.1-py3.9_cuda11.8_cudnn8.7.0_0.tar.bz2": {"name": "pytorch", "version": "2.0.1",
            "build": "py3.9_cuda11.8_cudnn8.7.0_0", "build_number": 0}}})");
    const RepodataIndex pytorch_noarch = index(R"({"info": {"subdir": "noarch"}, "packages": {
        "pytorch-cuda-11.7-h778d358_5.tar.bz2":
            {"name": "pytorch-cuda", "version": "11.7", "build": "h778d358_5"},
        "pytorch-cuda-11.8-h7e8668a_5.tar.bz2":
            {"name": "pytorch-cuda", "version": "11.8", "build": "h7e8668a_5"},
        "pytorch-cuda-12.1-ha16c6d3_5.tar.bz2":
            {"name": "pytorch-cuda", "version": "12.1", "build": "ha16c6d3_5"}}})");
    const RepodataIndex nvidia_linux = index(R"({"info": {"subdir": "linux-64"},
        "packages.conda": {
        "cuda-cudart-11.8.89-0.conda": {"name": "cuda-cudart", "version": "11.8.89", "build": "0"},
        "cuda-cudart-12.1.105-0.conda":
            {"name": "cuda-cudart", "version": "12.1.105", "build": "0"}}})");
    const RepodataIndex nvidia_noarch = index(R"({"info": {"subdir": "noarch"}, "packages": {}})");
    const RepodataIndex forge_linux = index(R"({"info": {"subdir": "linux-64"},
        "packages.conda": {"numpy-1.26.4-py311h64a7726_0.conda":
            {"name": "numpy", "version": "1.26.4", "build": "py311h64a7726_0"}}})");

    auto version_is(std::string version)
    {
        return [version](const formats::RepodataRecord& record, std::string_view)
        { return record.version == version; };
    }

    auto spec(std::string text, std::string name, std::string version, std::string channel = {})
      -> AvailabilitySpec
    {
        AvailabilitySpec out;
        out.text = std::move(text);
        out.name = std::move(name);
        out.channel = std::move(channel);
        out.pinned = !version.empty();
        if (!version.empty())
        {
            out.matches = version_is(std::move(version));
        }
        out.position = { 4, 5 };
        return out;
    }

    const std::vector<Channel> environment_channels = { pytorch, nvidia };

    auto all_repodata() -> std::vector<ChannelSubdir>
    {
        return { { pytorch, "linux-64", &pytorch_linux, false },
                 { pytorch, "noarch", &pytorch_noarch, false },
                 { nvidia, "linux-64", &nvidia_linux, false },
                 { nvidia, "noarch", &nvidia_noarch, false },
                 { conda_forge, "linux-64", &forge_linux, false },
                 { conda_forge, "noarch", nullptr, true } };
    }

    auto check(const std::vector<AvailabilitySpec>& specs,
               const std::vector<ChannelSubdir>& repodata = all_repodata())
    {
        return checks::check_channel_availability(specs, environment_channels, "linux-64", repodata,
                                                  {});
    }

    TEST_CASE("check_channel_availability", "[checks][channel_availability]")
    {
        // Published somewhere the spec may come from: no finding.
        const std::vector<AvailabilitySpec> published = {
            spec("pytorch=2.0.1", "pytorch", "2.0.1"),
            spec("pytorch-cuda=11.8", "pytorch-cuda", "11.8"), // from pytorch/noarch
            spec("cuda-cudart=12.1.105", "cuda-cudart", "12.1.105"),
            spec("conda-forge::numpy=1.26.4", "numpy", "1.26.4", "conda-forge"),
            spec("pytorch", "pytorch", ""),
            spec("__cuda>=12", "__cuda", "12"), // virtual packages are the machine's
            spec("cuda-*", "cuda-*", "12"),     // globs are not looked up
        };
        CHECK(check(published).empty());
    }

    TEST_CASE("check_channel_availability negative", "[checks][channel_availability]")
    {
        SECTION("a version that is not published")
        {
            const auto findings = check({ spec("pytorch-cuda=11.9", "pytorch-cuda", "11.9") });
            REQUIRE(findings.size() == 1);
            const auto& found = findings[0];
            CHECK(found.rule == "channel-availability");
            CHECK(to_string(found.severity) == "error");
            CHECK(found.message == "pytorch-cuda=11.9 is not published on pytorch/linux-64 or "
                                   "nvidia/linux-64 (nor their noarch)");
            CHECK(found.fix == "published versions: 11.7, 11.8, 12.1");
            CHECK(found.position == formats::TextPosition{ 4, 5 });
        }
        SECTION("channel::name looks in that channel only")
        {
            const auto findings =
              check({ spec("nvidia::pytorch-cuda=11.8", "pytorch-cuda", "11.8", "nvidia") });
            REQUIRE(findings.size() == 1);
            CHECK(findings[0].message == "nvidia::pytorch-cuda=11.8 is not published on "
                                         "nvidia/linux-64 (nor noarch): no package is named "
                                         "pytorch-cuda");
        }
        SECTION("a name no channel has, with a suggestion")
        {
            const auto findings = check({ spec("pytorch-cudaa=11.8", "pytorch-cudaa", "11.8") });
            REQUIRE(findings.size() == 1);
            CHECK(findings[0].message.ends_with(": no package is named pytorch-cudaa"));
            CHECK(findings[0].fix == "did you mean pytorch-cuda?");
            // Unpinned specs are checked for their name too.
            const auto unpinned = check({ spec("torchvison", "torchvison", "") });
            REQUIRE(unpinned.size() == 1);
            CHECK(unpinned[0].message.ends_with(": no package is named torchvison"));
        }
        SECTION("a subdir that could not be read gives a warning, not a verdict")
        {
            auto repodata = all_repodata();
            repodata[1].index = nullptr; // pytorch/noarch
            const auto findings =
              check({ spec("pytorch-cuda=11.8", "pytorch-cuda", "11.8") }, repodata);
            REQUIRE(findings.size() == 1);
            CHECK(to_string(findings[0].severity) == "warning");
            CHECK(findings[0].message == "cannot tell whether pytorch-cuda=11.8 is published: the "
                                         "repodata of pytorch/noarch could not "
                                         "be read");
            // ...but a match elsewhere still answers.
            CHECK(check({ spec("pytorch=2.0.1", "pytorch", "2.0.1") }, repodata).empty());
        }
        SECTION("an explicit subdir")
        {
            auto pinned = spec("pytorch/osx-arm64::pytorch=2.0.1", "pytorch", "2.0.1", "pytorch");
            pinned.subdir = "osx-arm64";
            const auto findings = check({ pinned });
            REQUIRE(findings.size() == 1);
            CHECK(to_string(findings[0].severity) == "warning");
            CHECK(
              findings[0].message.ends_with("the repodata of pytorch/osx-arm64 could not be read"));
        }
        SECTION("a spec channel that does not resolve")
        {
            const auto findings = check({ spec("./local::pkg=1", "pkg", "1", "./local") });
            REQUIRE(findings.size() == 1);
            CHECK(to_string(findings[0].severity) == "error");
            CHECK(findings[0].message.starts_with(
              "cannot check ./local::pkg=1: channel './local' is a relative path"));
        }
    }

    // The specs the cli builds: conda dependency strings through specs::MatchSpec.
    auto from_text(const std::vector<std::string>& texts) -> std::vector<AvailabilitySpec>
    {
        std::vector<formats::EnvDependency> dependencies;
        std::size_t line = 5;
        for (const auto& text : texts)
        {
            dependencies.push_back(formats::EnvDependency{ text, { line++, 5 }, {} });
        }
        return checks::availability_specs(dependencies);
    }

    TEST_CASE("availability_specs", "[checks][channel_availability]")
    {
        const auto specs = from_text({ "pytorch-cuda=11.8", "nvidia::cuda-cudart>=12,<13",
                                       "pytorch", "conda-forge/linux-64::numpy 1.26.*",
                                       "__cuda>=12", "cuda-*", "not a [valid spec" });
        REQUIRE(specs.size() == 6); // the unparsable one is lint's syntax finding
        CHECK(specs[0].name == "pytorch-cuda");
        CHECK(specs[0].pinned);
        CHECK(specs[0].position == formats::TextPosition{ 5, 5 });
        CHECK(specs[1].channel == "nvidia");
        CHECK_FALSE(specs[2].pinned);
        CHECK(specs[3].channel == "conda-forge");
        CHECK(specs[3].subdir == "linux-64");
        CHECK(specs[4].name == "__cuda");
        CHECK(specs[5].name.empty()); // a glob name is not looked up
        CHECK(check(specs).empty());
    }

    TEST_CASE("availability_specs negative", "[checks][channel_availability]")
    {
        const auto findings = check(from_text({
          "pytorch-cuda=11.9",         // fuzzy: no 11.9.*
          "pytorch-cuda 11.8.1",       // exact: 11.8 is not 11.8.1
          "pytorch::cuda-cudart=12.1", // published, but on nvidia
          "pytorch=2.0.1=*cpu*",       // only a CUDA build exists
          "cuda-cudart>=13",
          "pytorch-cuda=11.8",        // fine
          "pytorch=*=*cuda*",         // fine
          "nvidia::cuda-cudart=12.1", // fine: 12.1.105
        }));
        REQUIRE(findings.size() == 5);
        CHECK(findings[0].message == "pytorch-cuda=11.9 is not published on pytorch/linux-64 or "
                                     "nvidia/linux-64 (nor their noarch)");
        CHECK(findings[0].position == formats::TextPosition{ 5, 5 });
        CHECK(findings[1].message.starts_with("pytorch-cuda 11.8.1 is not published"));
        CHECK(findings[2].message == "pytorch::cuda-cudart=12.1 is not published on "
                                     "pytorch/linux-64 (nor noarch): no package is named "
                                     "cuda-cudart");
        CHECK(findings[3].message.starts_with("pytorch=2.0.1=*cpu* is not published"));
        CHECK(findings[3].fix == "published versions: 2.0.1");
        CHECK(findings[4].message.starts_with("cuda-cudart>=13 is not published"));
        CHECK(findings[4].fix == "published versions: 11.8.89, 12.1.105");
    }

    // The pytorch channel's real linux-64 repodata (a subset kept by rattler's tests).
    TEST_CASE("check_channel_availability on real repodata", "[checks][channel_availability]")
    {
        const std::filesystem::path file =
          std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus" / "conda-meta" /
          "conda__rattler__test-data_channels_pytorch_linux-64_repodata.json";
        if (!std::filesystem::exists(file))
        {
            WARN("no shared corpus: skipped");
            return;
        }
        std::ifstream in(file, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        const auto specs = from_text({
          "pytorch-cuda=11.8",
          "pytorch=1.13.1=py3.8_cuda11.7*",
          "torchvision>=0.16,<0.17",
          "pytorch>=2",
          "pytorch-cuda=11.9",
          "pytorch=1.13.1=*cuda12*",
          "torchvision=0.17",
          "pytorch-cuda=12.4",
        });
        const auto real = RepodataIndex::build(text, checks::package_names_to_index(specs));
        REQUIRE(real);
        const std::vector<Channel> channels = { pytorch };
        const std::vector<ChannelSubdir> repodata = { { pytorch, "linux-64", &*real, false },
                                                      { pytorch, "noarch", nullptr, true } };
        const auto findings =
          checks::check_channel_availability(specs, channels, "linux-64", repodata, {});
        REQUIRE(findings.size() == 4);
        CHECK(findings[0].message ==
              "pytorch-cuda=11.9 is not published on pytorch/linux-64 (nor noarch)");
        CHECK(findings[0].fix == "published versions: 11.7, 11.8, 12.1");
        CHECK(findings[1].message.starts_with("pytorch=1.13.1=*cuda12* is not published"));
        CHECK(findings[2].message.starts_with("torchvision=0.17 is not published"));
        CHECK(findings[2].fix == "published versions: 0.11.0, 0.11.1, 0.11.2, 0.11.3, 0.12.0, "
                                 "0.13.0, 0.13.1, 0.14.0, 0.14.1, "
                                 "0.15.0, 0.15.2, 0.16.0 (and 9 older)");
        CHECK(findings[3].message.starts_with("pytorch-cuda=12.4 is not published"));
    }

    TEST_CASE("check_channel_availability lists at most twelve versions",
              "[checks][channel_availability]")
    {
        std::string json = R"({"packages": {)";
        for (int minor = 0; minor < 20; ++minor)
        {
            json += (minor == 0 ? "" : ",");
            json += R"("tool-1.)" + std::to_string(minor) +
                    R"(-0.conda": {"name": "tool", "version": "1.)" + std::to_string(minor) +
                    R"(", "build": "0"})";
        }
        json += "}}";
        const RepodataIndex tools = index(json);
        const std::vector<ChannelSubdir> repodata = { { pytorch, "linux-64", &tools, false },
                                                      { pytorch, "noarch", nullptr, true },
                                                      { nvidia, "linux-64", nullptr, true },
                                                      { nvidia, "noarch", nullptr, true } };
        const auto findings = check({ spec("tool=2.0", "tool", "2.0") }, repodata);
        REQUIRE(findings.size() == 1);
        CHECK(findings[0].fix == "published versions: 1.8, 1.9, 1.10, 1.11, 1.12, 1.13, 1.14, "
                                 "1.15, 1.16, 1.17, 1.18, 1.19 (and 8 older)");
    }

    TEST_CASE("plan_repodata_requests", "[checks][channel_availability]")
    {
        const std::vector<AvailabilitySpec> specs = {
            spec("pytorch-cuda=11.8", "pytorch-cuda", "11.8"),
            spec("conda-forge::numpy=1.26", "numpy", "1.26", "conda-forge"),
            spec("__glibc>=2.17", "__glibc", "2.17", "ignored-channel"),
            spec("pytorch", "pytorch", ""),
        };
        auto requests =
          checks::plan_repodata_requests(specs, environment_channels, "linux-aarch64", {});
        REQUIRE(requests);
        CHECK(*requests == std::vector<checks::RepodataRequest>{ { pytorch, "linux-aarch64" },
                                                                 { pytorch, "noarch" },
                                                                 { nvidia, "linux-aarch64" },
                                                                 { nvidia, "noarch" },
                                                                 { conda_forge, "linux-aarch64" },
                                                                 { conda_forge, "noarch" } });
        CHECK(requests->front().channel.repodata_url(requests->front().subdir) ==
              "https://conda.anaconda.org/pytorch/linux-aarch64/repodata.json");
        CHECK(checks::package_names_to_index(specs) ==
              std::vector<std::string>{ "numpy", "pytorch", "pytorch-cuda" });
    }

    TEST_CASE("plan_repodata_requests negative", "[checks][channel_availability]")
    {
        const std::vector<AvailabilitySpec> specs = { spec("bad channel::x=1", "x", "1",
                                                           "bad channel") };
        auto requests = checks::plan_repodata_requests(specs, environment_channels, "linux-64", {});
        REQUIRE_FALSE(requests);
        CHECK(requests.error().kind == util::ErrorKind::usage);
    }
}
