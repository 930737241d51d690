#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "checks/consistency.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    auto conda(std::string name, std::string version, std::vector<std::string> depends = {})
      -> model::Package
    {
        model::Package package;
        package.name = std::move(name);
        package.version = std::move(version);
        package.build = "h0_0";
        package.depends = std::move(depends);
        return package;
    }

    auto pip(std::string name, std::string version, std::vector<std::string> requires_dist = {})
      -> model::Package
    {
        model::Package package;
        package.manager = model::Manager::pip;
        package.name = std::move(name);
        package.version = std::move(version);
        package.depends = std::move(requires_dist);
        return package;
    }

    using Row = std::pair<std::string, std::string>; // (package, "status: reason")

    auto rows(const checks::ConsistencyCheck& check) -> std::vector<Row>
    {
        std::vector<Row> out;
        for (const auto& finding : check.packages)
        {
            out.emplace_back(finding.name,
                             std::string(model::to_string(finding.status)) + ": " + finding.reason);
        }
        return out;
    }

    auto venv(std::vector<model::Package> packages) -> model::InstalledEnvironment
    {
        model::InstalledEnvironment environment;
        environment.kind = model::PrefixKind::venv;
        environment.python_version = "3.11.7";
        environment.packages = std::move(packages);
        return environment;
    }

    TEST_CASE("check_consistency: pip Requires-Dist, as pip check", "[checks][Consistency]")
    {
        struct Case
        {
            std::string name;
            std::vector<model::Package> packages;
            std::vector<Row> expected;
        };
        const std::vector<Case> cases{
            { "all met, names normalized, pre-release installed",
              { pip("requests", "2.32.3", { "charset-normalizer<4,>=2", "Urllib3>=1.21.1" }),
                pip("charset_normalizer", "3.4.0"), pip("urllib3", "2.3.0rc1") },
              {} },
            { "not installed",
              { pip("requests", "2.32.3", { "idna<4,>=2.5" }) },
              { { "requests",
                  "broken-dependency: requires 'idna<4,>=2.5', which is not installed" } } },
            { "wrong version",
              { pip("requests", "2.32.3", { "idna<4,>=2.5" }), pip("idna", "1.0") },
              { { "requests",
                  "broken-dependency: requires 'idna<4,>=2.5', but idna 1.0 is installed" } } },
            { "marker false for python 3.11 on linux-64",
              { pip("a", "1",
                    { "tomli>=1; python_version < '3.11'", "pywin32; sys_platform == 'win32'" }) },
              {} },
            { "marker true",
              { pip("a", "1", { "typing-extensions>=4; python_version >= '3.8'" }) },
              { { "a",
                  "broken-dependency: requires 'typing-extensions>=4; python_version >= '3.8'', "
                  "which is not installed" } } },
            { "an extra nobody asked for is not checked (pip check neither)",
              { pip("requests", "2.32.3", { "PySocks>=1.5.6; extra == 'socks'" }) },
              {} },
            { "an extra another distribution asks for is checked",
              { pip("requests", "2.32.3", { "PySocks>=1.5.6; extra == 'socks'" }),
                pip("app", "1", { "requests[socks]>=2" }) },
              { { "requests",
                  "broken-dependency: requires 'PySocks>=1.5.6; extra == 'socks'', which "
                  "is not installed" } } },
            { "extras asked through an extra",
              { pip("a", "1", { "b[x]; extra == 'full'" }), pip("b", "1", { "c; extra == 'x'" }),
                pip("app", "1", { "a[full]" }) },
              { { "b",
                  "broken-dependency: requires 'c; extra == 'x'', which is not installed" } } },
            { "a direct reference is met by name",
              { pip("a", "1", { "b @ https://example.com/b-1.whl" }), pip("b", "7") },
              {} },
        };
        for (const auto& [name, packages, expected] : cases)
        {
            CAPTURE(name);
            const auto check = checks::check_consistency(venv(packages), "linux-64");
            CHECK(rows(check) == expected);
        }
    }

    TEST_CASE("check_consistency: conda-installed distributions satisfy pip",
              "[checks][Consistency]")
    {
        auto environment = venv({ pip("torch", "2.5.1", { "numpy", "sympy==1.13.1" }) });
        environment.kind = model::PrefixKind::conda;
        auto numpy = pip("numpy", "2.1.3");
        numpy.installer = "conda";
        environment.conda_owned_distributions.push_back(numpy);
        auto sympy = pip("sympy", "1.13.3");
        sympy.installer = "conda";
        environment.conda_owned_distributions.push_back(sympy);
        CHECK(rows(checks::check_consistency(environment, "linux-64")) ==
              std::vector<Row>{ { "torch", "broken-dependency: requires 'sympy==1.13.1', but "
                                           "sympy 1.13.3 is installed" } });
    }

    TEST_CASE("check_consistency: unknown python leaves markers unjudged", "[checks][Consistency]")
    {
        auto environment = venv({ pip("a", "1", { "b; python_version < '3.11'", "c" }) });
        environment.python_version.reset();
        const auto check = checks::check_consistency(environment, "linux-64");
        CHECK(
          rows(check) ==
          std::vector<Row>{ { "a", "broken-dependency: requires 'c', which is not installed" } });
        REQUIRE(check.notes.size() == 1);
        CHECK(check.notes[0].find("was not evaluated") != std::string::npos);
    }

    TEST_CASE("check_consistency: conda depends and constrains", "[checks][Consistency]")
    {
        struct Case
        {
            std::string name;
            std::vector<model::Package> packages;
            std::vector<std::pair<std::string, std::vector<std::string>>> constrains;
            std::vector<Row> expected;
        };
        const std::vector<Case> cases{
            { "all met, virtual packages skipped",
              { conda("numpy", "2.1.3",
                      { "libblas >=3.9.0,<4.0a0", "python >=3.11,<3.12.0a0", "__glibc >=2.17" }),
                conda("libblas", "3.9.0"), conda("python", "3.11.9") },
              {},
              {} },
            { "depends not installed",
              { conda("numpy", "2.1.3", { "libblas >=3.9.0" }) },
              {},
              { { "numpy",
                  "broken-dependency: depends on 'libblas >=3.9.0', which is not installed" } } },
            { "depends not met, with build",
              { conda("numpy", "2.1.3", { "python 3.12.* *_cpython" }), conda("python", "3.11.9") },
              {},
              { { "numpy", "broken-dependency: depends on 'python 3.12.* *_cpython', but python "
                           "3.11.9 h0_0 is installed" } } },
            { "constrains met, or on a package not installed",
              { conda("pytorch", "2.5.1"), conda("cuda-version", "12.4") },
              { { "pytorch", { "cuda-version >=12.0,<13", "triton 3.1.0" } } },
              {} },
            { "constrains not met",
              { conda("pytorch", "2.5.1"), conda("cuda-version", "11.8") },
              { { "pytorch", { "cuda-version >=12.0,<13" } } },
              { { "pytorch", "conflicting-constraint: constrains 'cuda-version >=12.0,<13', but "
                             "cuda-version 11.8 h0_0 is installed" } } },
        };
        for (const auto& [name, packages, constrains, expected] : cases)
        {
            CAPTURE(name);
            auto environment = venv(packages);
            environment.kind = model::PrefixKind::conda;
            environment.constrains = constrains;
            CHECK(rows(checks::check_consistency(environment, "linux-64")) == expected);
        }
    }

    TEST_CASE("check_consistency: each conda spec text judged once, in any order",
              "[checks][Consistency]")
    {
        // The same text from several packages, a text that is not a MatchSpec (a note for each
        // asker), and an installed version conda cannot read (a note, counted as checked).
        model::InstalledEnvironment environment;
        environment.kind = model::PrefixKind::conda;
        environment.packages = { conda("a", "1.0", { "b >=2", "b[version=", "b >=2", "odd" }),
                                 conda("c", "1.0", { "b >=2", "b[version=" }), conda("b", "1.5"),
                                 conda("odd", "1..0") };
        const auto serial = checks::check_consistency(environment, "linux-64");
        const std::vector<Row> expected{
            { "a", "broken-dependency: depends on 'b >=2', but b 1.5 h0_0 is installed" },
            { "a", "broken-dependency: depends on 'b >=2', but b 1.5 h0_0 is installed" },
            { "c", "broken-dependency: depends on 'b >=2', but b 1.5 h0_0 is installed" },
        };
        CHECK(rows(serial) == expected);
        CHECK(serial.notes ==
              std::vector<std::string>{ "a: 'b[version=' is not a valid MatchSpec, not checked",
                                        "odd 1..0: not a conda version, 'odd' not checked",
                                        "c: 'b[version=' is not a valid MatchSpec, not checked" });
        CHECK(serial.requirements_checked == 4);
        // The distinct texts may be judged in any order (app runs them on its worker threads):
        // the same findings, notes and count.
        const auto backwards =
          checks::check_consistency(environment, "linux-64",
                                    [](std::size_t count, const util::IndexWork& work)
                                    {
                                        for (std::size_t index = count; index > 0; --index)
                                        {
                                            work(index - 1);
                                        }
                                    });
        CHECK(rows(backwards) == expected);
        CHECK(backwards.notes == serial.notes);
        CHECK(backwards.requirements_checked == serial.requirements_checked);
    }

    TEST_CASE("check_consistency: thousands of uses, numbered alike on any worker order",
              "[checks][Consistency]")
    {
        // Enough uses for several runs of hashes and of judgements, texts that repeat across
        // packages, and a distinct table that wraps around.
        model::InstalledEnvironment environment;
        environment.kind = model::PrefixKind::conda;
        for (int i = 0; i < 600; ++i)
        {
            std::vector<std::string> depends;
            for (int j = 0; j < 5; ++j)
            {
                const int target = (i * 7 + j * 13) % 650; // 600 to 649 are not installed
                std::string text("p");
                text.append(std::to_string(target)).append(" >=").append(std::to_string(j));
                depends.push_back(std::move(text));
            }
            std::string name("p");
            environment.packages.push_back(conda(name.append(std::to_string(i)), "3", depends));
        }
        std::sort(environment.packages.begin(), environment.packages.end(),
                  [](const auto& a, const auto& b) { return a.name < b.name; });
        const auto serial = checks::check_consistency(environment, "linux-64");
        const auto backwards =
          checks::check_consistency(environment, "linux-64",
                                    [](std::size_t count, const util::IndexWork& work)
                                    {
                                        for (std::size_t index = count; index > 0; --index)
                                        {
                                            work(index - 1);
                                        }
                                    });
        // Of 3,000 uses: ">=4" is unmet by version 3, a name of 600 to 649 is not installed.
        std::size_t unmet = 0;
        std::size_t absent = 0;
        for (int i = 0; i < 600; ++i)
        {
            for (int j = 0; j < 5; ++j)
            {
                const bool missing = (i * 7 + j * 13) % 650 >= 600;
                absent += missing ? 1 : 0;
                unmet += !missing && j == 4 ? 1 : 0;
            }
        }
        const auto findings = rows(serial);
        CHECK(findings.size() == unmet + absent);
        CHECK(std::count_if(findings.begin(), findings.end(),
                            [](const Row& row) {
                                return row.second.ends_with("which is not installed");
                            }) == static_cast<std::ptrdiff_t>(absent));
        CHECK(serial.requirements_checked == 3000);
        CHECK(rows(backwards) == findings);
        CHECK(backwards.notes == serial.notes);
        CHECK(backwards.requirements_checked == serial.requirements_checked);
    }
}
