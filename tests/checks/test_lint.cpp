#include <algorithm>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "checks/lint.hpp"
#include "checks/lint_input.hpp"
#include "checks/lint_rules.hpp"
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
              "  - pytorch=2.0.1\n  - pytorch-cuda=12.1\n",
              "cuda.pytorch-cuda-unpublished",
              { { 5, 17 } } },
            { "pytorch 2.6 with pytorch-cuda",
              "  - pytorch=2.6.0\n  - pytorch-cuda=12.4\n",
              "cuda.pytorch-cuda-unpublished",
              { { 5, 17 } } },
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
        CHECK(ids.size() == envcheck::formats::loader_rules().size() + lint_rules().size());
    }

    TEST_CASE("pytorch_cuda_table", "[checks][lint]")
    {
        // pytorch channel repodata (shared corpus) and pytorch.org "previous versions".
        const auto& table = rules::pytorch_cuda_table();
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
