#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checks/cuda_tables.hpp"
#include "checks/lint.hpp"
#include "checks/lint_input.hpp"
#include "checks/lint_rules.hpp"
#include "formats/file_kind.hpp"
#include "tests/catch.hpp"

using namespace envcheck::checks;
using envcheck::formats::EnvDiagnostic;
using envcheck::formats::TextPosition;

namespace
{
    struct Expected
    {
        std::string rule;
        std::size_t line;
        std::size_t column;
    };

    auto findings_of(const std::string& text, const LintOptions& options = {})
      -> std::vector<EnvDiagnostic>
    {
        return lint_text(text, options);
    }

    auto with_rule(const std::vector<EnvDiagnostic>& findings, const std::string& rule)
      -> std::vector<EnvDiagnostic>
    {
        std::vector<EnvDiagnostic> out;
        std::copy_if(findings.begin(), findings.end(), std::back_inserter(out),
                     [&](const EnvDiagnostic& item) { return item.rule == rule; });
        return out;
    }

    auto describe(const std::vector<EnvDiagnostic>& findings) -> std::string
    {
        std::string out;
        for (const auto& item : findings)
        {
            out += std::to_string(item.position.line) + ":" + std::to_string(item.position.column) +
                   " " + std::string(to_string(item.severity)) + " [" + item.rule + "] " +
                   item.message + "\n";
        }
        return out;
    }

    // The header every case shares, so that only the rule under test fires.
    const std::string header =
      "name: t\nchannels: [conda-forge, nvidia, nodefaults]\ndependencies:\n";

    struct Case
    {
        std::string name;
        std::string dependencies; // lines after the header (line 6 onwards)
        std::string rule;
        std::vector<std::pair<std::size_t, std::size_t>> positions;
    };

    TEST_CASE("lint rules fire where they should", "[checks][lint]")
    {
        const std::vector<Case> cases{
            { "bad matchspec",
              "  - python=3.11\n  - numpy>=>1.26\n",
              "syntax.matchspec",
              { { 5, 0 } } },
            { "pip single equals",
              "  - pip=24.0\n  - pip:\n      - gradio=3.36.1\n",
              "syntax.pip-line",
              { { 6, 0 } } },
            { "unknown pip option",
              "  - pip=24.0\n  - pip:\n      - --extra-index-ulr https://x.org/simple\n",
              "syntax.pip-line",
              { { 6, 0 } } },
            { "conda package twice",
              "  - numpy=1.26\n  - scipy=1.13\n  - numpy=1.26\n",
              "duplicate.package",
              { { 6, 5 } } },
            { "pip package twice",
              "  - pip=24.0\n  - pip:\n      - rich==13.7.1\n      - Rich==13.7.1\n",
              "duplicate.package",
              { { 7, 9 } } },
            { "numpy >=2 and <1.26",
              "  - numpy>=2\n  - numpy<1.26\n",
              "conflict.unsatisfiable",
              { { 5, 10 } } },
            { "empty range in one spec",
              "  - numpy>=2,<1.26\n",
              "conflict.unsatisfiable",
              { { 4, 10 } } },
            { "pip pins that exclude each other",
              "  - pip=24.0\n  - pip:\n      - requests==2.31.0\n      - requests>=2.32\n",
              "conflict.unsatisfiable",
              { { 7, 17 } } },
            { "conda and pip",
              "  - scipy=1.13.1\n  - pip=24.0\n  - pip:\n      - scipy==1.13.1\n",
              "conflict.conda-and-pip",
              { { 7, 9 } } },
            { "pytorch and torch",
              "  - pytorch=2.1.2\n  - pip=24.0\n  - pip:\n      - torch==2.1.2\n",
              "conflict.conda-and-pip",
              { { 7, 9 } } },
            { "unpinned conda and pip",
              "  - numpy\n  - pip=24.0\n  - pip:\n      - rich\n",
              "repro.unpinned",
              { { 4, 5 }, { 7, 9 } } },
            { "vcs branch",
              "  - pip=24.0\n  - pip:\n      - git+https://github.com/psf/requests.git@main\n",
              "repro.pip-url-unpinned",
              { { 6, 9 } } },
            { "url without hash",
              "  - pip=24.0\n  - pip:\n      - https://example.org/pkg-1.0-py3-none-any.whl\n",
              "repro.pip-url-unpinned",
              { { 6, 9 } } },
            { "cudatoolkit vs pytorch-cuda",
              "  - pytorch-cuda=12.1\n  - cudatoolkit=11.8\n",
              "cuda.version-mismatch",
              { { 5, 5 } } },
            { "cuda-version vs build string",
              "  - cuda-version=12.4\n  - pytorch=2.4.1=cuda118*\n",
              "cuda.version-mismatch",
              { { 5, 5 } } },
            { "cuda build vs cpuonly",
              "  - pytorch=2.2.2=*cuda*\n  - cpuonly=2.0\n",
              "cuda.gpu-build-with-cpuonly",
              { { 4, 19 } } },
            { "pytorch-cuda vs cpuonly",
              "  - cpuonly=2.0\n  - pytorch-cuda=12.1\n",
              "cuda.gpu-build-with-cpuonly",
              { { 5, 5 } } },
            { "pytorch 2.0 with pytorch-cuda 12.1",
              "  - pytorch::pytorch=2.0.1\n  - pytorch-cuda=12.1\n",
              "cuda.pytorch-cuda-unpublished",
              { { 5, 17 } } },
            { "pytorch 2.6 with pytorch-cuda",
              "  - pytorch::pytorch=2.6.0\n  - pytorch-cuda=12.4\n",
              "cuda.pytorch-cuda-unpublished",
              { { 5, 17 } } },
            // conda's classic parser drops pip extras; rattler and pixi reject them: a warning
            { "pip extras in a conda spec",
              "  - imageio[ffmpeg]\n  - fsspec[http]>=0.6\n",
              "syntax.matchspec-lenient",
              { { 4, 12 }, { 5, 11 } } },
            { "the legacy (optional) block",
              "  - numpy=1.26 (optional)\n",
              "syntax.matchspec-lenient",
              { { 4, 16 } } },
            // conda-forge's cuda112 builds need CUDA 11.2 or a newer 11.x
            { "cuda112 build with cudatoolkit 11.0",
              "  - cudatoolkit=11.0\n  - cupy=9.6.0=py39hc3c280e_0_cuda112\n",
              "cuda.version-mismatch",
              { { 5, 5 } } },
            // pytorch 1.x from the pytorch channel: GPU builds for some cudatoolkit minors only
            { "pytorch 1.9 with cudatoolkit 11.3",
              "  - pytorch::pytorch=1.9.1\n  - cudatoolkit=11.3\n",
              "cuda.pytorch-cuda-unpublished",
              { { 5, 16 } } },
            // PyPI: two pins of nvidia-cuda-runtime-cu12 (torch 2.3 pins 12.1.105)
            { "torch 2.3 from PyPI with the CUDA 12.4 runtime wheel",
              "  - pip=24.0\n  - pip:\n      - torch==2.3.1\n"
              "      - nvidia-cuda-runtime-cu12==12.4.127\n",
              "cuda.version-mismatch",
              { { 7, 9 } } },
            { "cpuonly and a CUDA build for the same platform",
              "  - pytorch=2.2.2=*cuda*  # [linux]\n  - cpuonly=2.0  # [linux64]\n",
              "cuda.gpu-build-with-cpuonly",
              { { 4, 19 } } },
            { "py39 build with python 3.10",
              "  - python=3.10\n  - pytorch=2.0.1=py3.9_cuda11.8_cudnn8.7.0_0\n",
              "python.build-mismatch",
              { { 5, 19 } } },
            { "py310 build with python 3.9",
              "  - python=3.9\n  - numpy=1.26.4=py310h5f9d8c6_0\n",
              "python.build-mismatch",
              { { 5, 18 } } },
        };
        for (const auto& item : cases)
        {
            SECTION(item.name)
            {
                const auto findings = findings_of(header + item.dependencies);
                INFO(describe(findings));
                const auto matching = with_rule(findings, item.rule);
                REQUIRE(matching.size() == item.positions.size());
                for (std::size_t i = 0; i < matching.size(); ++i)
                {
                    CHECK(matching[i].position.line == item.positions[i].first);
                    if (item.positions[i].second != 0)
                    {
                        CHECK(matching[i].position.column == item.positions[i].second);
                    }
                    CHECK_FALSE(matching[i].message.empty());
                    CHECK_FALSE(matching[i].fix.empty());
                }
            }
        }
    }

    TEST_CASE("conflict.unsatisfiable names the pin that empties a long group", "[checks][lint]")
    {
        // 400 compatible pins of one name (conda, then pip), the contradicting one at `at`,
        // the rest after it: the finding is on the first pin the group cannot take, wherever
        // it is (the rule halves the group, issue 19).
        for (const std::size_t at : { 0UL, 1UL, 2UL, 199UL, 200UL, 398UL, 399UL })
        {
            INFO("the contradiction at pin " << at);
            std::string conda;
            std::string pip = "  - pip=24.0\n  - pip:\n";
            for (std::size_t i = 0; i < 400; ++i)
            {
                conda +=
                  i == at ? "  - numpy<0.5\n" : "  - numpy>=1." + std::to_string(i % 9) + "\n";
                pip +=
                  i == at ? "      - rich<1\n" : "      - rich>=13." + std::to_string(i % 9) + "\n";
            }
            const auto found =
              with_rule(findings_of(header + conda + pip), "conflict.unsatisfiable");
            // At 0 the contradicting pin comes first: the next one is what the group cannot take.
            const std::size_t first = std::max<std::size_t>(at, 1);
            REQUIRE(found.size() == 2);
            CHECK(found[0].position.line == 4 + first);
            CHECK(found[1].position.line == 4 + 400 + 2 + first);
        }
    }

    TEST_CASE("lint rules stay quiet on good environments", "[checks][lint]")
    {
        const std::vector<std::pair<std::string, std::string>> cases{
            { "exact pins", "  - python=3.11.9\n  - numpy=1.26.4\n" },
            { "a range", "  - numpy>=1.26,<2\n" },
            { "selectors are not duplicates",
              "  - pytorch-cuda=12.1  # [linux]\n  - pytorch-cuda=11.8  # [win]\n" },
            { "pytorch 2.1 with pytorch-cuda 12.1", "  - pytorch=2.1.2\n  - pytorch-cuda=12.1\n" },
            { "cuda-version with a matching build",
              "  - cuda-version=12.4\n  - pytorch=2.4.1=cuda12*\n" },
            { "py311 build with python 3.11",
              "  - python=3.11\n  - numpy=1.26.4=py311h64a7726_0\n" },
            { "noarch build", "  - python=3.11\n  - rich=13.7.1=pyhd8ed1ab_0\n" },
            { "cpuonly with a cpu build", "  - pytorch=2.2.2=*cpu*\n  - cpuonly=2.0\n" },
            { "vcs at a commit", "  - pip=24.0\n  - pip:\n      - "
                                 "git+https://github.com/psf/"
                                 "requests.git@0e322af87745eff34caffe4df68456ebc20d9068\n" },
            { "url with a hash",
              "  - pip=24.0\n  - pip:\n      - https://example.org/pkg-1.0-py3-none-any.whl#sha256="
              "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n" },
            { "pip options", "  - pip=24.0\n  - pip:\n      - --extra-index-url "
                             "https://download.pytorch.org/whl/cu121\n"
                             "      - -r requirements.txt\n      - -e .\n" },
            { "cpuonly needs no version", "  - cpuonly\n" },
            // A full conda-forge export: cuda112 builds run on cudatoolkit 11.8 (issue 12).
            { "cuda112 build with cudatoolkit 11.8",
              "  - cudatoolkit=11.8.0=h6a678d5_0\n  - cupy=9.6.0=py39hc3c280e_0_cuda112\n"
              "  - nccl=2.11.4.1=h97a9cb7_0\n" },
            { "cuda120 build with cuda-version 12.4",
              "  - cuda-version=12.4\n  - pytorch=2.3.1=cuda120_py311h0b47f0e_300\n" },
            // cudatoolkit and the nvidia channel's split 11.x packages live side by side (a
            // real export: AnyLoc's conda-environment.yml, shared corpus).
            { "cudatoolkit 11.3 next to the cuda 11.7 metapackage",
              "  - cudatoolkit=11.3.1=h2bc3f7f_2\n  - cuda=11.7.1=0\n"
              "  - faiss-gpu=1.7.3=py3.8_h28a55e0_0_cuda11.3\n" },
            { "pytorch 1.10 from the pytorch channel with cudatoolkit 11.3",
              "  - pytorch::pytorch=1.10.1\n  - cudatoolkit=11.3\n" },
            // conda's CUDA and PyPI's wheels do not share packages
            { "cudatoolkit next to cu121 wheels",
              "  - cudatoolkit=11.8\n  - pip=24.0\n  - pip:\n      - torch==2.3.1+cu121\n" },
            { "cpuonly on osx, a CUDA build on linux",
              "  - pytorch=2.2.2=*cuda*  # [linux]\n  - cpuonly=2.0  # [osx]\n" },
            { "python by platform", "  - python=3.10  # [linux]\n  - python=3.9  # [win]\n"
                                    "  - numpy=1.26.4=py310h5f9d8c6_0  # [linux]\n" },
            // PEP 508 markers split a pip requirement by environment, as selectors do.
            { "pip pins by python version",
              "  - pip=24.0\n  - pip:\n      - numpy<2; python_version < '3.10'\n"
              "      - numpy>=2; python_version >= '3.10'\n" },
        };
        for (const auto& [name, dependencies] : cases)
        {
            SECTION(name)
            {
                const auto findings = findings_of(header + dependencies);
                INFO(describe(findings));
                CHECK(findings.empty());
            }
        }
    }

    TEST_CASE("lint channel rules", "[checks][lint]")
    {
        const auto none = findings_of("name: t\ndependencies:\n  - python=3.11\n");
        REQUIRE(with_rule(none, "repro.no-channels").size() == 1);
        CHECK(with_rule(none, "repro.no-channels")[0].position == TextPosition{ 1, 1 });
        CHECK(with_rule(none, "repro.nodefaults").empty());

        const auto empty = findings_of("channels: []\ndependencies:\n  - python=3.11\n");
        REQUIRE(with_rule(empty, "repro.no-channels").size() == 1);
        CHECK(with_rule(empty, "repro.no-channels")[0].position == TextPosition{ 1, 1 });

        const auto mixed =
          findings_of("channels:\n  - conda-forge\n  - defaults\ndependencies:\n  - python=3.11\n");
        REQUIRE(with_rule(mixed, "repro.defaults-mixed").size() == 1);
        CHECK(with_rule(mixed, "repro.defaults-mixed")[0].position == TextPosition{ 3, 5 });
        CHECK(with_rule(mixed, "repro.nodefaults").empty());

        const auto url = findings_of("channels:\n  - https://conda.anaconda.org/conda-forge/\n  - "
                                     "defaults\ndependencies:\n  - python=3.11\n");
        CHECK(with_rule(url, "repro.defaults-mixed").size() == 1);
        // The anaconda channel is Anaconda's defaults under another name.
        for (const std::string anaconda :
             { "anaconda", "pkgs/main", "https://repo.anaconda.com/pkgs/main" })
        {
            CAPTURE(anaconda);
            const auto mixed_anaconda = findings_of("channels:\n  - " + anaconda +
                                                    "\n  - conda-forge\ndependencies:\n  - "
                                                    "python=3.11\n");
            REQUIRE(with_rule(mixed_anaconda, "repro.defaults-mixed").size() == 1);
            CHECK(with_rule(mixed_anaconda, "repro.defaults-mixed")[0].position ==
                  TextPosition{ 3, 5 });
        }
        CHECK(with_rule(findings_of("channels:\n  - bioconda/label/main\n  - conda-forge\n"
                                    "dependencies:\n  - python=3.11\n"),
                        "repro.defaults-mixed")
                .empty());

        // conda-forge before pytorch: pytorch comes from conda-forge, pytorch-cuda goes unused.
        const auto shadowed =
          findings_of("channels:\n  - conda-forge\n  - pytorch\n  - nvidia\ndependencies:\n"
                      "  - pytorch=2.0.1\n  - pytorch-cuda=12.1\n");
        REQUIRE(with_rule(shadowed, "cuda.pytorch-cuda-shadowed").size() == 1);
        CHECK(with_rule(shadowed, "cuda.pytorch-cuda-shadowed")[0].position ==
              TextPosition{ 6, 5 });
        CHECK(with_rule(shadowed, "cuda.pytorch-cuda-shadowed")[0].severity ==
              envcheck::model::Severity::warning);
        // ... and the pytorch channel's table does not apply to conda-forge's pytorch.
        CHECK(with_rule(shadowed, "cuda.pytorch-cuda-unpublished").empty());
        for (const std::string fine :
             { "channels:\n  - pytorch\n  - nvidia\n  - conda-forge\ndependencies:\n"
               "  - pytorch=2.1.2\n  - pytorch-cuda=12.1\n",
               "channels:\n  - conda-forge\n  - pytorch\n  - nvidia\ndependencies:\n"
               "  - pytorch::pytorch=2.1.2\n  - pytorch::pytorch-cuda=12.1\n" })
        {
            CAPTURE(fine);
            CHECK(with_rule(findings_of(fine), "cuda.pytorch-cuda-shadowed").empty());
        }
        // pytorch 1.x with cudatoolkit: only pytorch from the pytorch channel is judged.
        CHECK(with_rule(findings_of("channels:\n  - pytorch\n  - conda-forge\ndependencies:\n"
                                    "  - pytorch=1.9.1\n  - cudatoolkit=11.3\n"),
                        "cuda.pytorch-cuda-unpublished")
                .size() == 1);
        CHECK(with_rule(findings_of("channels:\n  - conda-forge\n  - pytorch\ndependencies:\n"
                                    "  - pytorch=1.9.1\n  - cudatoolkit=11.3\n"),
                        "cuda.pytorch-cuda-unpublished")
                .empty());

        const auto advice =
          findings_of("channels:\n  - conda-forge\ndependencies:\n  - python=3.11\n");
        REQUIRE(with_rule(advice, "repro.nodefaults").size() == 1);
        CHECK(to_string(with_rule(advice, "repro.nodefaults")[0].severity) == "info");
        CHECK(with_rule(advice, "repro.nodefaults")[0].position == TextPosition{ 1, 1 });

        const auto nvidia =
          findings_of("channels:\n  - pytorch\n  - nodefaults\ndependencies:\n  - pytorch=2.1.2\n"
                      "  - pytorch-cuda=12.1\n");
        REQUIRE(with_rule(nvidia, "cuda.pytorch-cuda-needs-nvidia").size() == 1);
        CHECK(with_rule(nvidia, "cuda.pytorch-cuda-needs-nvidia")[0].position ==
              TextPosition{ 6, 5 });
        const auto with_nvidia =
          findings_of("channels:\n  - pytorch\n  - nvidia\n  - nodefaults\ndependencies:\n"
                      "  - pytorch=2.1.2\n  - pytorch-cuda=12.1\n");
        CHECK(with_rule(with_nvidia, "cuda.pytorch-cuda-needs-nvidia").empty());
    }

    TEST_CASE("lint --strict makes repro.unpinned an error", "[checks][lint]")
    {
        const std::string text = header + "  - numpy\n";
        const auto relaxed = with_rule(findings_of(text), "repro.unpinned");
        REQUIRE(relaxed.size() == 1);
        CHECK(to_string(relaxed[0].severity) == "warning");
        LintOptions strict;
        strict.strict = true;
        const auto strict_findings = with_rule(findings_of(text, strict), "repro.unpinned");
        REQUIRE(strict_findings.size() == 1);
        CHECK(to_string(strict_findings[0].severity) == "error");
    }

    TEST_CASE("lint driver rules", "[checks][lint]")
    {
        const std::string text = header + "  - cuda-version=12.4\n  - pytorch=2.5.1=cuda12*\n";
        CHECK(with_rule(findings_of(text), "cuda.driver-too-old").empty());

        struct DriverCase
        {
            std::string driver;
            std::string cuda;
            std::string rule; // "" when nothing fires
        };
        const std::vector<DriverCase> cases{
            { "520.61.05", "", "cuda.driver-too-old" },
            { "535.104.05", "", "cuda.driver-minor-compat" },
            { "550.54.14", "", "" },
            { "580.95.05", "", "" },
            { "", "11.8", "cuda.driver-too-old" },
            { "", "12.2", "cuda.driver-minor-compat" },
            { "", "12.4", "" },
            { "", "13.0", "" },
        };
        for (const auto& item : cases)
        {
            CAPTURE(item.driver, item.cuda);
            LintOptions options;
            if (!item.driver.empty())
            {
                options.target_driver = parse_driver_version(item.driver);
            }
            if (!item.cuda.empty())
            {
                options.target_cuda = envcheck::model::parse_cuda_version(item.cuda);
            }
            const auto findings = findings_of(text, options);
            INFO(describe(findings));
            const auto too_old = with_rule(findings, "cuda.driver-too-old");
            const auto minor = with_rule(findings, "cuda.driver-minor-compat");
            CHECK(too_old.size() == (item.rule == "cuda.driver-too-old" ? 1U : 0U));
            CHECK(minor.size() == (item.rule == "cuda.driver-minor-compat" ? 1U : 0U));
            for (const auto& finding : too_old)
            {
                CHECK(finding.position == TextPosition{ 4, 5 });
                CHECK(to_string(finding.severity) == "error");
            }
            for (const auto& finding : minor)
            {
                CHECK(to_string(finding.severity) == "warning");
            }
        }
    }

    TEST_CASE("lint driver rules judge what the solver installs", "[checks][lint]")
    {
        struct DriverCase
        {
            std::string name;
            std::string dependencies;
            std::string driver;
            std::string rule;    // "" when nothing fires
            std::string message; // a part of the message
        };
        const std::string pip = "  - pip=24.0\n  - pip:\n";
        const std::vector<DriverCase> cases{
            // CUDA from PyPI counts (issue 12)
            { "a CUDA 12.4 runtime wheel on driver 470",
              pip + "      - nvidia-cuda-runtime-cu12==12.4.127\n", "470.82.01",
              "cuda.driver-too-old", "needs CUDA 12.4" },
            { "CUDA 13 runtime wheels lost the suffix",
              pip + "      - nvidia-cuda-runtime==13.0.96\n", "570.86.10", "cuda.driver-too-old",
              "needs CUDA 13.0" },
            { "torch 2.5 from PyPI brings CUDA 12.4", pip + "      - torch==2.5.1\n", "520.61.05",
              "cuda.driver-too-old", "torch 2.5 from PyPI brings CUDA 12.4" },
            { "torch from the cu118 index instead",
              pip + "      - --extra-index-url https://download.pytorch.org/whl/cu118\n"
                    "      - torch==2.5.1\n",
              "470.82.01", "cuda.driver-minor-compat", "needs CUDA 11.8" },
            { "an open torch range: pip picks the newest", pip + "      - torch>=2.3\n",
              "550.54.14", "cuda.driver-too-old", "pip picks torch 2.15" },
            { "tensorflow[and-cuda] 2.15", pip + "      - tensorflow[and-cuda]==2.15.1\n",
              "470.82.01", "cuda.driver-too-old", "needs CUDA 12.2" },
            { "jax[cuda12]", pip + "      - jax[cuda12]==0.4.30\n", "470.82.01",
              "cuda.driver-too-old", "CUDA 12" },
            { "cupy-cuda12x", pip + "      - cupy-cuda12x==13.3.0\n", "470.82.01",
              "cuda.driver-too-old", "needs CUDA 12.0" },
            { "torch wheels with a local version", pip + "      - torch==2.3.1+cu121\n",
              "470.82.01", "cuda.driver-too-old", "needs CUDA 12.1" },
            // open conda ranges: the newest pytorch-cuda published for those pytorch versions
            { "pytorch>=2.3 with pytorch-cuda>=11.6",
              "  - pytorch::pytorch>=2.3\n  - pytorch-cuda>=11.6\n", "535.104.05",
              "cuda.driver-minor-compat", "the solver picks pytorch-cuda 12.4" },
            { "pytorch 2.0 with pytorch-cuda>=11.6",
              "  - pytorch::pytorch=2.0.1\n  - pytorch-cuda>=11.6\n", "535.104.05", "", "" },
            { "a Windows-only pin does not bind a Linux fleet", "  - cuda-version=12.4  # [win]\n",
              "470.82.01", "", "" },
        };
        for (const auto& item : cases)
        {
            SECTION(item.name)
            {
                LintOptions options;
                options.target_driver = parse_driver_version(item.driver);
                const auto findings = findings_of(header + item.dependencies, options);
                INFO(describe(findings));
                const auto too_old = with_rule(findings, "cuda.driver-too-old");
                const auto minor = with_rule(findings, "cuda.driver-minor-compat");
                CHECK(too_old.size() == (item.rule == "cuda.driver-too-old" ? 1U : 0U));
                CHECK(minor.size() == (item.rule == "cuda.driver-minor-compat" ? 1U : 0U));
                for (const auto& finding : too_old.empty() ? minor : too_old)
                {
                    CHECK(finding.message.find(item.message) != std::string::npos);
                }
            }
        }
    }

    auto read_file(const std::string& path) -> std::string
    {
        std::ifstream in(path, std::ios::binary);
        INFO(path);
        REQUIRE(in.good());
        return { std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>() };
    }

    TEST_CASE("issue 12: files that failed a healthy CI gate, and the errors that remain",
              "[checks][lint]")
    {
        struct FileCase
        {
            std::string path; // under tests/data/envfiles, or the shared corpus
            std::string driver;
            // every error and warning: "severity rule line"
            std::set<std::string> expected;
        };
        const std::string data = std::string(ENVCHECK_TEST_DATA_DIR) + "/envfiles/issue12/";
        const std::string corpus = std::string(ENVCHECK_SHARED_DIR) + "/corpus/envs/";
        const std::vector<FileCase> cases{
            { data + "conda-accepts.yml",
              "",
              { "warning syntax.matchspec-lenient 11", "warning syntax.matchspec-lenient 12",
                "warning syntax.matchspec-lenient 13", "warning syntax.matchspec-lenient 15",
                "warning syntax.matchspec-lenient 16", "warning syntax.matchspec-lenient 17" } },
            { data + "conda-forge-export-cuda112.yml", "", {} },
            { data + "pypi-cuda12.yml", "470.82.01", { "error cuda.driver-too-old 12" } },
            { data + "pytorch-after-conda-forge.yml",
              "",
              { "warning cuda.pytorch-cuda-shadowed 12" } },
            { data + "pytorch1-cudatoolkit.yml", "", { "error cuda.pytorch-cuda-unpublished 12" } },
            { data + "open-ranges.yml", "535.104.05", { "warning cuda.driver-minor-compat 13" } },
            { data + "cpuonly-by-platform.yml", "", {} },
            // Real files (shared corpus, from public repositories): an export with cudatoolkit
            // 11.3 for faiss next to the nvidia channel's cuda 11.7 for pytorch-cuda, which
            // reported three cuda.version-mismatch errors; pairs the pytorch channel did publish.
            { corpus + "AnyLoc__AnyLoc__conda-environment.yml",
              "",
              { "warning repro.defaults-mixed 6" } },
            { corpus + "NVlabs__stylegan3__environment.yml", "", {} },
            { corpus + "NVlabs__eg3d__eg3d_environment.yml", "", {} },
            { corpus + "rapidsai__cudf__conda_environments_cudf_dev_cuda10.1.yml",
              "",
              { "warning syntax.matchspec-lenient 36", "warning repro.defaults-mixed 9",
                "warning repro.pip-url-unpinned 64", "warning repro.pip-url-unpinned 65",
                "warning repro.pip-url-unpinned 66" } },
        };
        for (const auto& item : cases)
        {
            SECTION(item.path.substr(item.path.rfind('/') + 1))
            {
                LintOptions options;
                if (!item.driver.empty())
                {
                    options.target_driver = parse_driver_version(item.driver);
                }
                const auto findings = lint_text(read_file(item.path), options);
                INFO(describe(findings));
                std::set<std::string> actual;
                for (const auto& finding : findings)
                {
                    if (finding.severity != envcheck::model::Severity::info &&
                        finding.rule != "repro.unpinned")
                    {
                        actual.insert(std::string(envcheck::model::to_string(finding.severity)) +
                                      " " + finding.rule + " " +
                                      std::to_string(finding.position.line));
                    }
                }
                CHECK(actual == item.expected);
            }
        }
    }

    TEST_CASE("lint reports a file that does not load as one finding", "[checks][lint]")
    {
        const auto findings = findings_of("name: a\nname: b\ndependencies: []\n");
        REQUIRE(findings.size() == 1);
        CHECK(findings[0].rule == "yaml.duplicate-key");
        CHECK(findings[0].position == TextPosition{ 2, 1 });
    }

    TEST_CASE("lint keeps loader diagnostics and sorts by position", "[checks][lint]")
    {
        const auto findings =
          findings_of("chanels: [conda-forge]\ndependencies:\n  - numpy\n  - 3.10\n");
        INFO(describe(findings));
        std::vector<std::string> rules;
        for (const auto& item : findings)
        {
            rules.push_back(item.rule);
        }
        CHECK(rules == std::vector<std::string>{ "env.unknown-key", "repro.no-channels",
                                                 "repro.unpinned", "yaml.wrong-type" });
        CHECK(std::is_sorted(findings.begin(), findings.end(),
                             [](const auto& a, const auto& b)
                             {
                                 return a.position.line < b.position.line ||
                                        (a.position.line == b.position.line &&
                                         a.position.column < b.position.column);
                             }));
    }

    TEST_CASE("lint_rules registry", "[checks][lint]")
    {
        std::set<std::string_view> ids;
        for (const auto& rule : rule_catalog())
        {
            CAPTURE(rule.id);
            CHECK(ids.insert(rule.id).second);
            const auto dot = rule.id.find('.');
            REQUIRE(dot != std::string_view::npos);
            CHECK(rule.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789.-") ==
                  std::string_view::npos);
            CHECK_FALSE(rule.description.empty());
            CHECK_FALSE(rule.fix.empty());
        }
        for (const auto& rule : lint_rules())
        {
            CHECK(rule.run != nullptr);
        }
        CHECK(ids.size() == envcheck::formats::loader_rules().size() +
                              envcheck::formats::file_kind_rules().size() +
                              1 /* ignore comments */ + lint_rules().size());
    }

    TEST_CASE("the pytorch tables hold what the pytorch channel's repodata holds", "[checks][lint]")
    {
        // The real linux-64 repodata of the pytorch channel (conda/rattler test-data, shared
        // corpus): every GPU build of 1.5 to 2.1 and the CUDA minor it depends on.
        std::ifstream in(std::string(ENVCHECK_SHARED_DIR) +
                         "/corpus/conda-meta/conda__rattler__test-data_channels_pytorch_linux-64_"
                         "repodata.json");
        REQUIRE(in.good());
        const auto repodata = nlohmann::json::parse(in);
        std::set<std::pair<std::string, std::string>> builds; // {pytorch minor, cuda minor}
        for (const char* key : { "packages", "packages.conda" })
        {
            if (!repodata.contains(key) || !repodata.at(key).is_object())
            {
                continue;
            }
            for (const auto& [file, record] : repodata.at(key).items())
            {
                if (record.at("name") != "pytorch")
                {
                    continue;
                }
                const std::string version = record.at("version");
                const std::string minor = version.substr(0, version.rfind('.'));
                for (const auto& depend : record.at("depends"))
                {
                    const std::string text = depend;
                    for (const std::string prefix : { "cudatoolkit >=", "pytorch-cuda >=" })
                    {
                        if (text.rfind(prefix, 0) == 0)
                        {
                            builds.emplace(
                              minor, text.substr(prefix.size(), text.find(',') - prefix.size()));
                        }
                    }
                }
            }
        }
        REQUIRE(builds.size() > 30);
        auto row_of = [](const std::vector<PytorchCudaRow>& table, const std::string& minor)
        {
            const auto row = std::find_if(table.begin(), table.end(),
                                          [&](const auto& r) { return r.pytorch == minor; });
            return row == table.end() ? std::vector<std::string_view>{} : row->cuda;
        };
        std::set<std::string> minors;
        for (const auto& [minor, cuda] : builds)
        {
            CAPTURE(minor, cuda);
            minors.insert(minor);
            const auto published = minor == "1.13" || minor.rfind("2.", 0) == 0
                                     ? row_of(pytorch_cuda_table(), minor)
                                     : row_of(pytorch_cudatoolkit_table(), minor);
            CHECK(std::find(published.begin(), published.end(), cuda) != published.end());
        }
        // ... and nothing more for the releases the repodata covers (1.5 is also 1.5.0's).
        for (const auto& minor : minors)
        {
            CAPTURE(minor);
            const bool pytorch_cuda = minor == "1.13" || minor.rfind("2.", 0) == 0;
            const auto published = pytorch_cuda ? row_of(pytorch_cuda_table(), minor)
                                                : row_of(pytorch_cudatoolkit_table(), minor);
            for (const auto cuda : published)
            {
                CHECK(builds.count({ minor, std::string(cuda) }) == 1);
            }
        }
    }

    TEST_CASE("pytorch_cuda_table", "[checks][lint]")
    {
        // pytorch channel repodata (shared corpus) and pytorch.org "previous versions".
        const auto& table = pytorch_cuda_table();
        REQUIRE(table.size() == 7);
        CHECK(table.front().pytorch == "1.13");
        CHECK(table.front().cuda == std::vector<std::string_view>{ "11.6", "11.7" });
        CHECK(table.back().pytorch == "2.5");
        CHECK(table.back().cuda == std::vector<std::string_view>{ "11.8", "12.1", "12.4" });
    }

    TEST_CASE("CUDA claims", "[checks][lint]")
    {
        CHECK(cuda_in_build("cuda118py39h6183b62_0") == "11.8");
        CHECK(cuda_in_build("cuda120_py311h1234567_300") == "12.0");
        CHECK(cuda_in_build("cuda12*") == "12");
        CHECK(cuda_in_build("*cuda*") == "");
        CHECK(cuda_in_build("py3.9_cuda11.8_cudnn8.7.0_0") == "11.8");
        CHECK(cuda_in_build("gpu_cuda118py39he342708_0") == "11.8");
        CHECK(cuda_in_build("cpu_py39h1234567_0") == "");
        CHECK(cuda_in_wheel_tag("torch==2.3.1+cu121") == "12.1");
        CHECK(cuda_in_wheel_tag("--extra-index-url https://download.pytorch.org/whl/cu118") ==
              "11.8");
        CHECK(cuda_in_wheel_tag("torch==2.3.1+cpu") == "");
        CHECK(cuda_build_spec("cuda112py39h6183b62_0") == ">=11.2,<12");
        CHECK(cuda_build_spec("cuda120_py311h1234567_300") == ">=12.0,<13");
        CHECK(cuda_build_spec("py3.9_cuda11.8_cudnn8.7.0_0") == "11.8.*");
        CHECK(cuda_build_spec("cuda12*") == "12.*");
        CHECK(cuda_build_spec("cpu_py39h1234567_0").empty());
        CHECK(cuda_in_wheel_tag("jaxlib==0.4.20+cuda12.cudnn89") == "12");
        CHECK(selectors_overlap("", "win"));
        CHECK(selectors_overlap("linux", "linux64"));
        CHECK(selectors_overlap("unix", "osx"));
        CHECK_FALSE(selectors_overlap("linux", "win"));
        CHECK_FALSE(selectors_overlap("osx", "not unix"));
        CHECK(selectors_overlap("py>=38", "win")); // not a platform: assumed to overlap
        CHECK(is_anaconda_channel("anaconda"));
        CHECK(is_anaconda_channel("https://repo.anaconda.com/pkgs/main/"));
        CHECK(is_anaconda_channel("https://conda.anaconda.org/anaconda"));
        CHECK_FALSE(is_anaconda_channel("conda-forge"));
        CHECK_FALSE(is_anaconda_channel("pkgs/msys2"));
        CHECK(is_cuda_package("cudatoolkit"));
        CHECK(is_cuda_package("cuda-version"));
        CHECK(is_cuda_package("pytorch-cuda"));
        CHECK(is_cuda_package("cuda-cudart"));
        CHECK_FALSE(is_cuda_package("cuda-python"));
        CHECK_FALSE(is_cuda_package("cupy"));

        CHECK(lowest_cuda("11.8") == envcheck::model::CudaVersion{ 11, 8 });
        CHECK(lowest_cuda(">=12.0,<13") == envcheck::model::CudaVersion{ 12, 0 });
        CHECK(lowest_cuda("12.*") == envcheck::model::CudaVersion{ 12, 0 });
        CHECK(lowest_cuda("=12.4") == envcheck::model::CudaVersion{ 12, 4 });
        CHECK_FALSE(lowest_cuda("<6"));
    }
}
