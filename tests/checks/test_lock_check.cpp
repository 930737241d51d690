#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "checks/lock_check.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    auto conda(std::string name, std::string version, std::string build, std::string sha256 = {},
               std::string md5 = {}) -> model::Package
    {
        model::Package package;
        package.name = std::move(name);
        package.version = std::move(version);
        package.build = std::move(build);
        package.sha256 = std::move(sha256);
        package.md5 = std::move(md5);
        package.channel = "https://conda.anaconda.org/conda-forge";
        package.subdir = "linux-64";
        return package;
    }

    auto pip(std::string name, std::string version) -> model::Package
    {
        model::Package package;
        package.manager = model::Manager::pip;
        package.name = std::move(name);
        package.version = std::move(version);
        return package;
    }

    auto status_of(const std::vector<model::PackageFinding>& findings, const std::string& name)
      -> std::string
    {
        for (const auto& finding : findings)
        {
            if (finding.name == name)
            {
                return std::string(model::to_string(finding.status));
            }
        }
        return "absent";
    }

    TEST_CASE("identity_difference", "[checks][LockCheck]")
    {
        struct Case
        {
            const char* description;
            model::Package locked;
            model::Package installed;
            const char* reason; // "" when identical
        };
        const std::vector<Case> cases{
            { "same sha256", conda("a", "1", "0", "aa"), conda("a", "1", "0", "aa"), "" },
            { "sha256 decides over version text", conda("a", "1", "0", "aa"),
              conda("a", "1", "0", "bb"),
              "same version and build, but the sha256 differs (locked aa, installed bb): another "
              "artifact (rebuilt, or "
              "from another channel)" },
            { "sha256 on one side only: md5", conda("a", "1", "0", "aa", "m1"),
              conda("a", "1", "0", "", "m1"), "" },
            { "md5 differs", conda("a", "1", "0", "", "m1"), conda("a", "1", "0", "", "m2"),
              "same version and build, but the md5 differs (locked m1, installed m2): another "
              "artifact (rebuilt, or from "
              "another channel)" },
            { "no hashes: version and build", conda("a", "1", "0"), conda("a", "1", "1"),
              "installed 1 1, locked 1 0" },
            { "no hashes, same", conda("a", "1", "0"), conda("a", "1", "0"), "" },
            { "a lock without build compares the version", conda("a", "1", ""),
              conda("a", "1", "h1"), "" },
            { "another version with hashes", conda("a", "1", "0", "aa"), conda("a", "2", "0", "bb"),
              "installed 2 0, locked 1 0 (sha256 differs)" },
            { "pip PEP 440 equality", pip("A", "1.0"), pip("a", "1.0.0"), "" },
            { "pip version", pip("a", "1.0"), pip("a", "1.1"), "installed 1.1, locked 1.0" },
            { "pip without a locked version", pip("a", ""), pip("a", "3"), "" },
            { "manager", pip("numpy", "1.26.4"), conda("numpy", "1.26.4", "0"),
              "locked as a pip package, installed by conda" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.description);
            CHECK(checks::identity_difference(test.locked, test.installed) == test.reason);
        }

        SECTION("artifact format")
        {
            auto locked = conda("a", "1", "0", "aa");
            locked.filename = "a-1-0.conda";
            auto installed = conda("a", "1", "0", "bb");
            installed.filename = "a-1-0.tar.bz2";
            CHECK(checks::identity_difference(locked, installed)
                    .ends_with("another artifact format (.tar.bz2 instead of .conda)"));
        }
        SECTION("pip direct URL commit")
        {
            auto locked = pip("tool", "0.1");
            locked.direct_url =
              model::DirectUrl{ "https://g/x.git", "git", "1111111111", "", "", false };
            auto installed = locked;
            CHECK(checks::identity_difference(locked, installed).empty());
            installed.direct_url->commit_id = "2222222222";
            CHECK(checks::identity_difference(locked, installed) ==
                  "installed from commit 2222222222, locked at 1111111111");
            installed.direct_url.reset();
            CHECK(checks::identity_difference(locked, installed) ==
                  "locked at commit 1111111111, installed from an index");
        }
    }

    TEST_CASE("compare_to_lock", "[checks][LockCheck]")
    {
        model::Lock lock;
        lock.packages = { conda("python", "3.11.7", "h0", "p1"),
                          conda("numpy", "1.26.4", "py311", "n1"),
                          conda("zlib", "1.3", "h1", "z1"),
                          pip("Requests", "2.32.3"),
                          pip("torch", "2.4.0"),
                          conda("__cuda", "12.4", "0") };
        lock.optional_packages = { conda("pytest", "8.0", "0", "t1"),
                                   conda("ruff", "0.5", "0", "r1") };
        model::InstalledEnvironment installed;
        installed.packages = { conda("python", "3.11.7", "h0", "p1"),
                               conda("numpy", "1.26.4", "py311", "n2"),
                               conda("pytorch", "2.4.0", "cuda", "t9"),
                               pip("requests", "2.32.3"),
                               conda("torch", "2.4.0", "x"),
                               pip("tinyextra", "0.1"),
                               conda("ruff", "0.6", "0", "r2") };
        installed.packages[5].installer = "pip";
        const auto findings = checks::compare_to_lock(lock, installed);
        CHECK(status_of(findings, "python") == "ok");
        CHECK(status_of(findings, "numpy") == "changed");
        CHECK(status_of(findings, "zlib") == "missing");
        CHECK(status_of(findings, "Requests") == "ok");
        CHECK(status_of(findings, "torch") == "changed"); // pip in the lock, conda here
        CHECK(status_of(findings, "pytorch") == "extra");
        CHECK(status_of(findings, "tinyextra") == "extra");
        CHECK(status_of(findings, "pytest") == "absent"); // optional and not installed
        CHECK(status_of(findings, "ruff") == "changed");  // optional, installed, another build
        CHECK(status_of(findings, "__cuda") == "absent"); // virtual
        CHECK(findings.size() == 8);
        // conda first, then pip; by name.
        CHECK(findings.front().name == "numpy");
        CHECK(findings.back().name == "torch"); // locked as pip
        for (const auto& finding : findings)
        {
            if (finding.name == "tinyextra")
            {
                CHECK(finding.reason == "installed 0.1 by pip, not in the lock");
                CHECK_FALSE(finding.expected.has_value());
            }
            if (finding.name == "zlib")
            {
                CHECK(finding.reason == "locked 1.3 h1, not installed");
                CHECK_FALSE(finding.installed.has_value());
            }
        }
    }

    TEST_CASE("compare_to_lock over handed-over packages", "[checks][LockCheck]")
    {
        // The packages move into the findings: the same findings as from the lock and the
        // environment, each holding the very packages it compared.
        model::Lock lock;
        lock.packages = { conda("python", "3.11.7", "h0", "p1"), conda("numpy", "1.26.4", "py311"),
                          conda("zlib", "1.3", "h1"), pip("requests", "2.32.3") };
        lock.optional_packages = { conda("ruff", "0.5", "0"), conda("pytest", "8.0", "0") };
        model::InstalledEnvironment installed;
        installed.packages = { conda("python", "3.11.7", "h0", "p2"),
                               conda("numpy", "1.26.4", "py312"), conda("ruff", "0.5", "0"),
                               conda("extra", "1", "0"), pip("requests", "2.32.3") };
        installed.packages[0].depends = { "libzlib >=1.3", "tzdata" };
        const auto from_lock = checks::compare_to_lock(lock, installed);
        const auto handed_over =
          checks::compare_to_lock(lock.packages, lock.optional_packages, installed.packages);
        REQUIRE(handed_over.size() == from_lock.size());
        REQUIRE(handed_over.size() == 6);
        for (std::size_t i = 0; i < handed_over.size(); ++i)
        {
            const auto& a = handed_over[i];
            const auto& b = from_lock[i];
            INFO(a.name);
            CHECK(a.name == b.name);
            CHECK(a.status == b.status);
            CHECK(a.reason == b.reason);
            CHECK(a.notes == b.notes);
            CHECK(a.expected == b.expected);
            CHECK(a.installed == b.installed);
            const auto locked =
              std::find_if(lock.packages.begin(), lock.packages.end(),
                           [&](const model::Package& p) { return p.name == a.name; });
            const auto optional =
              std::find_if(lock.optional_packages.begin(), lock.optional_packages.end(),
                           [&](const model::Package& p) { return p.name == a.name; });
            if (a.expected)
            {
                CHECK(*a.expected == (locked != lock.packages.end() ? *locked : *optional));
            }
            const auto have =
              std::find_if(installed.packages.begin(), installed.packages.end(),
                           [&](const model::Package& p) { return p.name == a.name; });
            CHECK(a.installed.has_value() == (have != installed.packages.end()));
            if (a.installed)
            {
                CHECK(*a.installed == *have);
            }
        }
        CHECK(status_of(handed_over, "python") == "changed"); // another sha256
        CHECK(status_of(handed_over, "zlib") == "missing");
        CHECK(status_of(handed_over, "extra") == "extra");
        CHECK(status_of(handed_over, "ruff") == "ok");
        CHECK(status_of(handed_over, "pytest") == "absent");
    }

    TEST_CASE("draft_lock_findings reads the installed packages; finish_lock_findings moves them",
              "[checks][LockCheck]")
    {
        // The draft runs beside the consistency check, which reads the same packages: it must
        // leave them as they were, and the two steps give compare_to_lock's findings.
        model::Lock lock;
        lock.packages = { conda("python", "3.11.7", "h0", "p1"), conda("zlib", "1.3", "h1"),
                          pip("requests", "2.32.3") };
        model::InstalledEnvironment installed;
        installed.packages = { conda("python", "3.11.7", "h0", "p2"), conda("extra", "1", "0"),
                               pip("requests", "2.32.3") };
        const auto before = installed.packages;
        auto draft =
          checks::draft_lock_findings(lock.packages, lock.optional_packages, installed.packages);
        CHECK(installed.packages == before);
        REQUIRE(draft.findings.size() == 4);
        REQUIRE(draft.installed.size() == 4);
        for (std::size_t i = 0; i < draft.findings.size(); ++i)
        {
            INFO(draft.findings[i].name);
            CHECK_FALSE(draft.findings[i].installed.has_value());
            CHECK((draft.installed[i] == checks::LockFindingsDraft::not_installed) ==
                  (draft.findings[i].name == "zlib"));
        }
        const auto finished =
          checks::finish_lock_findings(std::move(draft), std::move(installed.packages));
        const auto whole = checks::compare_to_lock(lock.packages, lock.optional_packages, before);
        REQUIRE(finished.size() == whole.size());
        for (std::size_t i = 0; i < finished.size(); ++i)
        {
            INFO(whole[i].name);
            CHECK(finished[i].name == whole[i].name);
            CHECK(finished[i].status == whole[i].status);
            CHECK(finished[i].reason == whole[i].reason);
            CHECK(finished[i].expected == whole[i].expected);
            CHECK(finished[i].installed == whole[i].installed);
        }
        CHECK(status_of(finished, "extra") == "extra");
        CHECK(status_of(finished, "python") == "changed");
    }

    TEST_CASE("compare_to_lock: the keys and findings are independent items", "[checks][LockCheck]")
    {
        // Run in any order, or at once, the items give the serial findings: a key matched twice
        // (numpy installed by conda and by pip), cross-manager matches, a virtual package,
        // optional packages installed and not, and extras.
        model::Lock lock;
        lock.packages = { conda("numpy", "1.26.4", "py311", "n1"),
                          pip("NumPy", "1.26.4"),
                          conda("__cuda", "12.4", "0"),
                          conda("zlib", "1.3", "h1"),
                          pip("requests", "2.32.3"),
                          conda("python", "3.11.7", "h0", "p1") };
        lock.optional_packages = { conda("ruff", "0.5", "0"), conda("pytest", "8.0", "0") };
        model::InstalledEnvironment installed;
        installed.packages = { conda("numpy", "1.26.4", "py311", "n1"),
                               pip("numpy", "1.26.4"),
                               conda("requests", "2.32.3", "pyhd8ed1ab_0"),
                               conda("python", "3.11.7", "h0", "p2"),
                               conda("ruff", "0.5", "0"),
                               conda("extra", "1", "0"),
                               pip("tinyextra", "0.1") };
        const auto serial = checks::compare_to_lock(lock, installed);
        const auto backwards =
          checks::compare_to_lock(lock.packages, lock.optional_packages, installed.packages,
                                  [](std::size_t count, const util::IndexWork& work)
                                  {
                                      for (std::size_t index = count; index > 0; --index)
                                      {
                                          work(index - 1);
                                      }
                                  });
        const auto on_threads =
          checks::compare_to_lock(lock.packages, lock.optional_packages, installed.packages,
                                  [](std::size_t count, const util::IndexWork& work)
                                  {
                                      std::vector<std::thread> threads;
                                      for (std::size_t index = 0; index < count; ++index)
                                      {
                                          threads.emplace_back(work, index);
                                      }
                                      for (auto& thread : threads)
                                      {
                                          thread.join();
                                      }
                                  });
        const auto rows = [](const std::vector<model::PackageFinding>& findings)
        {
            std::vector<std::string> result;
            for (const auto& finding : findings)
            {
                result.push_back(
                  std::string(model::to_string(finding.manager)) + " " + finding.name + ": " +
                  std::string(model::to_string(finding.status)) + " (" + finding.reason + ")" +
                  (finding.expected ? " expected " + finding.expected->version : "") +
                  (finding.installed ? " installed " + finding.installed->version + " by " +
                                         std::string(model::to_string(finding.installed->manager))
                                     : ""));
            }
            return result;
        };
        CHECK(rows(serial) ==
              std::vector<std::string>{
                "conda extra: extra (installed 1 0, not in the lock) installed 1 by conda",
                "conda numpy: ok () expected 1.26.4 installed 1.26.4 by conda",
                "conda python: changed (same version and build, but the sha256 "
                "differs (locked p1, installed p2): another artifact (rebuilt, or "
                "from another channel)) expected 3.11.7 installed 3.11.7 by conda",
                "conda ruff: ok () expected 0.5 installed 0.5 by conda",
                "conda zlib: missing (locked 1.3 h1, not installed) expected 1.3",
                "pip NumPy: ok () expected 1.26.4 installed 1.26.4 by pip",
                "pip requests: changed (locked as a pip package, installed by "
                "conda) expected 2.32.3 installed 2.32.3 by conda",
                "pip tinyextra: extra (installed 0.1, not in the lock) "
                "installed 0.1 by pip" });
        CHECK(rows(backwards) == rows(serial));
        CHECK(rows(on_threads) == rows(serial));
    }

    TEST_CASE("source_notes and channel_name", "[checks][LockCheck]")
    {
        CHECK(checks::channel_name("https://conda.anaconda.org/conda-forge/") == "conda-forge");
        CHECK(checks::channel_name("https://repo.anaconda.com/pkgs/main") == "pkgs/main");
        CHECK(checks::channel_name("conda-forge") == "conda-forge");
        CHECK(checks::channel_name("file:///tmp/channel/") == "file:///tmp/channel");
        auto locked = conda("a", "1", "0", "aa");
        auto installed = locked;
        installed.channel = "conda-forge";
        CHECK(checks::source_notes(locked, installed).empty());
        auto mirrored = locked;
        mirrored.url = "https://conda.anaconda.org/conda-forge/linux-64/a-1-0.conda";
        auto from_mirror = mirrored;
        from_mirror.url = "https://mirror.example/conda-forge/linux-64/a-1-0.conda";
        CHECK(checks::source_notes(mirrored, from_mirror) ==
              std::vector<std::string>{
                "url https://mirror.example/conda-forge/linux-64/a-1-0.conda, locked "
                "https://conda.anaconda.org/conda-forge/linux-64/a-1-0.conda" });
        from_mirror.url = "https://conda.anaconda.org/conda-forge/linux-64/a-1-1.conda";
        CHECK(checks::source_notes(mirrored, from_mirror)
                .empty()); // another file: the identity says so
        installed.channel = "https://repo.anaconda.com/pkgs/main";
        installed.subdir = "noarch";
        CHECK(checks::source_notes(locked, installed) ==
              std::vector<std::string>{ "channel pkgs/main, locked conda-forge",
                                        "subdir noarch, locked linux-64" });
    }

    TEST_CASE("merge_findings", "[checks][LockCheck]")
    {
        model::PackageFinding from_file;
        from_file.name = "numpy";
        from_file.spec = "numpy>=2";
        from_file.status = model::PackageStatus::unsatisfied;
        from_file.reason = "installed 1.26.4 py311 does not satisfy 'numpy>=2'";
        model::PackageFinding only_in_file;
        only_in_file.name = "scipy";
        only_in_file.status = model::PackageStatus::missing;
        model::PackageFinding satisfied;
        satisfied.name = "Requests";
        satisfied.manager = model::Manager::pip;
        satisfied.spec = "requests>=2";
        model::PackageFinding locked_changed;
        locked_changed.name = "numpy";
        locked_changed.status = model::PackageStatus::changed;
        locked_changed.reason = "installed 1.26.4 py311, locked 2.0 py311";
        model::PackageFinding locked_extra;
        locked_extra.name = "requests";
        locked_extra.manager = model::Manager::pip;
        locked_extra.status = model::PackageStatus::extra;
        const auto merged = checks::merge_findings({ from_file, only_in_file, satisfied },
                                                   { locked_changed, locked_extra });
        REQUIRE(merged.size() == 3);
        CHECK(merged[0].name == "numpy");
        CHECK(merged[0].status == model::PackageStatus::unsatisfied);
        CHECK(merged[0].spec == "numpy>=2");
        CHECK(merged[0].notes ==
              std::vector<std::string>{ "lock: installed 1.26.4 py311, locked 2.0 py311" });
        CHECK(merged[1].name == "scipy");
        CHECK(merged[2].name == "requests");
        CHECK(merged[2].status ==
              model::PackageStatus::extra); // satisfies the file, not in the lock
        CHECK(merged[2].spec == "requests>=2");
    }

    TEST_CASE("merge_findings: a package's further problems are notes after the first",
              "[checks][LockCheck]")
    {
        const auto problem = [](std::string name, model::PackageStatus status, std::string reason,
                                std::optional<std::string> spec = std::nullopt)
        {
            model::PackageFinding finding;
            finding.name = std::move(name);
            finding.status = status;
            finding.reason = std::move(reason);
            finding.spec = std::move(spec);
            return finding;
        };
        using enum model::PackageStatus;
        struct Case
        {
            std::string what;
            std::vector<model::PackageFinding> from_environment;
            model::PackageFinding locked;
            model::PackageStatus status;
            std::string reason;
            std::vector<std::string> notes;
            std::optional<std::string> spec;
        };
        const std::vector<Case> cases{
            { "three broken dependencies of a locked package",
              { problem("a", broken_dependency, "depends on 'x', which is not installed"),
                problem("a", broken_dependency, "depends on 'y', which is not installed"),
                problem("a", conflicting_constraint, "constrains 'z <2', installed 2.1") },
              problem("a", ok, ""),
              broken_dependency,
              "depends on 'x', which is not installed",
              { "depends on 'y', which is not installed", "constrains 'z <2', installed 2.1" },
              std::nullopt },
            { "the lock's own problem stays the first note",
              { problem("a", broken_dependency, "depends on 'x', which is not installed"),
                problem("a", broken_dependency, "depends on 'y', which is not installed") },
              problem("a", changed, "installed 1.1 0, locked 1.0 0"),
              broken_dependency,
              "depends on 'x', which is not installed",
              { "lock: installed 1.1 0, locked 1.0 0", "depends on 'y', which is not installed" },
              std::nullopt },
            { "the environment file's spec is kept past a finding without one",
              { problem("a", unsatisfied, "installed 1.1 does not satisfy 'a<1'", "a<1"),
                problem("a", broken_dependency, "depends on 'x', which is not installed") },
              problem("a", ok, ""),
              unsatisfied,
              "installed 1.1 does not satisfy 'a<1'",
              { "depends on 'x', which is not installed" },
              "a<1" },
        };
        for (const auto& item : cases)
        {
            INFO(item.what);
            const auto merged = checks::merge_findings(item.from_environment, { item.locked });
            REQUIRE(merged.size() == 1);
            CHECK(merged[0].status == item.status);
            CHECK(merged[0].reason == item.reason);
            CHECK(merged[0].notes == item.notes);
            CHECK(merged[0].spec == item.spec);
        }
    }

    TEST_CASE("merge_findings: 20,000 problems of one package", "[checks][LockCheck]")
    {
        // As many as a lock of duplicated records gives (each note was once pushed to the
        // front of the others).
        std::vector<model::PackageFinding> from_environment(20'000);
        for (std::size_t i = 0; i < from_environment.size(); ++i)
        {
            from_environment[i].name = "a";
            from_environment[i].status = model::PackageStatus::broken_dependency;
            from_environment[i].reason = "depends on 'x" + std::to_string(i) + "'";
        }
        model::PackageFinding locked;
        locked.name = "a";
        const auto merged = checks::merge_findings(std::move(from_environment), { locked });
        REQUIRE(merged.size() == 1);
        REQUIRE(merged[0].notes.size() == 19'999);
        CHECK(merged[0].reason == "depends on 'x0'");
        CHECK(merged[0].notes.back() == "depends on 'x19999'");
    }

    TEST_CASE("compare_machine", "[checks][LockCheck]")
    {
        model::LockedMachine locked;
        locked.platform = "linux-64";
        locked.python = "3.11.7";
        locked.glibc = "2.36";
        locked.driver_version = "580.65.06";
        locked.cuda_driver_version = "13.0";
        locked.gpus =
          std::vector<model::LockedGpu>{ { 0, "NVIDIA H200", "GPU-a", "0000:19:00.0", "9.0", 1 } };
        const auto statuses = [&](const model::LockedMachine& current)
        {
            std::vector<std::string> out;
            for (const auto& outcome : checks::compare_machine(locked, current))
            {
                out.push_back(outcome.id + "=" + std::string(model::to_string(outcome.status)));
            }
            return out;
        };
        CHECK(statuses(locked) ==
              std::vector<std::string>{ "machine.platform=pass", "machine.python=pass",
                                        "machine.glibc=pass", "machine.driver_version=pass",
                                        "machine.cuda_driver_version=pass", "machine.gpus=pass" });
        auto other = locked;
        other.platform = "linux-aarch64";
        other.python = "3.11.8";
        other.glibc = "2.39";
        other.driver_version = "570.86.15";
        other.cuda_driver_version = "12.8";
        other.gpus =
          std::vector<model::LockedGpu>{ { 0, "NVIDIA H200", "GPU-b", "0000:19:00.0", "9.0", 1 } };
        CHECK(statuses(other) ==
              std::vector<std::string>{ "machine.platform=fail", "machine.python=fail",
                                        "machine.glibc=warn", "machine.driver_version=fail",
                                        "machine.cuda_driver_version=fail", "machine.gpus=warn" });
        auto none = model::LockedMachine{};
        none.platform = "linux-64";
        none.gpus = std::vector<model::LockedGpu>{};
        const auto outcomes = checks::compare_machine(locked, none);
        CHECK(outcomes[1].status == model::Status::skip);
        CHECK(outcomes[1].message == "not known on this machine");
        CHECK(outcomes[5].status == model::Status::fail);
        CHECK(outcomes[5].message ==
              "0 GPU(s) here (no GPU), locked with 1 (NVIDIA H200 (sm 9.0))");
        auto model_change = locked;
        model_change.gpus =
          std::vector<model::LockedGpu>{ { 0, "NVIDIA A100-SXM4-80GB", "GPU-c", "x", "8.0", 1 } };
        CHECK(checks::compare_machine(locked, model_change)[5].status == model::Status::fail);
        const auto unlocked = checks::compare_machine(model::LockedMachine{}, locked);
        CHECK(unlocked[0].message == "the lock does not record it");
    }

    TEST_CASE("compare_dotted", "[checks][LockCheck]")
    {
        CHECK(checks::compare_dotted("2.36", "2.39") == -1);
        CHECK(checks::compare_dotted("12.10", "12.4") == 1);
        CHECK(checks::compare_dotted("580.65.06", "580.65.6") == 0);
        CHECK(checks::compare_dotted("13", "13.0") == 0);
        CHECK_FALSE(checks::compare_dotted("2.36a", "2.36").has_value());
    }
}
