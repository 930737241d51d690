// A check outcome with every category, shared by the text and JSON renderer tests.
#ifndef ENVCHECK_TESTS_REPORT_TEST_CHECK_REPORT_HPP
#define ENVCHECK_TESTS_REPORT_TEST_CHECK_REPORT_HPP

#include "model/environment.hpp"

namespace envcheck::tests
{
    inline auto sample_check() -> model::EnvironmentCheck
    {
        model::EnvironmentCheck check;
        check.prefix = "/opt/envs/ml";
        check.environment_file = "environment.yml";
        check.lock_file = "environment.lock.json";
        check.lock_format = "envcheck";
        check.deep = true;
        check.notes = { "using ./environment.yml",
                        "using the lock beside it: ./environment.lock.json" };

        model::Package numpy;
        numpy.name = "numpy";
        numpy.version = "1.26.4";
        numpy.build = "py311h64a7726_0";
        numpy.build_number = 0;
        numpy.channel = "https://conda.anaconda.org/conda-forge";
        numpy.subdir = "linux-64";
        numpy.sha256 = "3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149";
        numpy.source = "conda-meta/numpy-1.26.4-py311h64a7726_0.json";
        auto python = numpy;
        python.name = "python";
        python.version = "3.11.7";
        python.build = "hab00c5b_0_cpython";
        auto zlib = numpy;
        zlib.name = "zlib";
        zlib.version = "1.3.1";
        zlib.build = "hb9d3cd8_2";
        auto openssl_locked = numpy;
        openssl_locked.name = "openssl";
        openssl_locked.version = "3.3.1";
        openssl_locked.build = "h4bc722e_2";
        openssl_locked.sha256 = "b294b3cc706ad1048cdb514f0db3da9f37ae3fcc0c53a7104083dd0918adb200";
        auto openssl_installed = openssl_locked;
        openssl_installed.version = "3.3.2";
        openssl_installed.build = "hb9d3cd8_0";
        openssl_installed.channel = "https://repo.anaconda.com/pkgs/main";
        openssl_installed.sha256 =
          "4f42d5e5c4e1b7a5f0e5e7f4b9a7f1c0a8f0e4c9e2e5c0b5e7f1a0e5b4c3d2a1";
        model::Package tiny;
        tiny.manager = model::Manager::pip;
        tiny.name = "tinyextra";
        tiny.version = "0.1";
        tiny.installer = "pip";
        tiny.source = "lib/python3.11/site-packages/tinyextra-0.1.dist-info";

        model::PackageFinding ok;
        ok.name = "numpy";
        ok.spec = "numpy>=1.26,<2";
        ok.spec_location = util::SourceLocation{ "environment.yml", 5, 5 };
        ok.expected = numpy;
        ok.installed = numpy;
        model::PackageFinding unsatisfied;
        unsatisfied.name = "python";
        unsatisfied.spec = "python=3.12";
        unsatisfied.spec_location = util::SourceLocation{ "environment.yml", 4, 5 };
        unsatisfied.expected = python;
        unsatisfied.installed = python;
        unsatisfied.status = model::PackageStatus::unsatisfied;
        unsatisfied.reason = "installed 3.11.7 hab00c5b_0_cpython does not satisfy 'python=3.12'";
        model::PackageFinding missing;
        missing.name = "zlib";
        missing.expected = zlib;
        missing.status = model::PackageStatus::missing;
        missing.reason = "locked 1.3.1 hb9d3cd8_2, not installed";
        model::PackageFinding changed;
        changed.name = "openssl";
        changed.expected = openssl_locked;
        changed.installed = openssl_installed;
        changed.status = model::PackageStatus::changed;
        changed.reason = "installed 3.3.2 hb9d3cd8_0, locked 3.3.1 h4bc722e_2 (sha256 differs)";
        changed.notes = { "channel pkgs/main, locked conda-forge" };
        model::PackageFinding extra;
        extra.name = "tinyextra";
        extra.manager = model::Manager::pip;
        extra.installed = tiny;
        extra.status = model::PackageStatus::extra;
        extra.reason = "installed 0.1 by pip, not in the lock";
        model::PackageFinding broken;
        broken.name = "tinyextra";
        broken.manager = model::Manager::pip;
        broken.installed = tiny;
        broken.status = model::PackageStatus::broken_dependency;
        broken.reason = "requires 'six>=1.16', but six 1.15.0 is installed";
        model::PackageFinding conflicting;
        conflicting.name = "python";
        conflicting.installed = python;
        conflicting.status = model::PackageStatus::conflicting_constraint;
        conflicting.reason = "constrains 'zlib >=1.3', but zlib 1.2.13 h0_0 is installed";
        check.packages = { ok, changed, unsatisfied, missing, extra, broken, conflicting };

        check.files = { { "hello", "bin/hello", model::FileStatus::modified, "sha256 differs" },
                        { "hello", "share/hello/gone.txt", model::FileStatus::missing,
                          "not in the prefix" },
                        { "tinyextra", "lib/python3.11/site-packages/tinyextra/stray.py",
                          model::FileStatus::untracked, "listed by no RECORD" },
                        { "tinyextra", "lib/python3.11/site-packages/tinyextra/data.bin",
                          model::FileStatus::wrong_record_hash,
                          "sha256 differs, but the file is not newer than RECORD: so since "
                          "install, the wheel's RECORD is wrong (as in uv#11723), not a later "
                          "change" } };
        check.deep_summary = model::DeepSummary{ 1234, 56789012, true };
        check.problems = { util::make_error(
          util::ErrorKind::parse, "expected ',' or '}' after the value of 'version' but found '\"'",
          util::SourceLocation{ "conda-meta/broken-1.0-0.json", 4, 5 }) };
        model::CheckOutcome platform;
        platform.id = "machine.platform";
        platform.status = model::Status::pass;
        platform.message = "platform linux-64";
        model::CheckOutcome driver;
        driver.id = "machine.driver_version";
        driver.status = model::Status::skip;
        driver.message = "not known on this machine";
        model::CheckOutcome cuda;
        cuda.id = "machine.cuda_driver_version";
        cuda.status = model::Status::fail;
        cuda.message = "CUDA supported by the driver is 12.2, locked 12.4";
        cuda.fix = "update the NVIDIA driver to one that supports CUDA 12.4";
        check.machine = { platform, driver, cuda };
        model::CheckOutcome bandwidth;
        bandwidth.id = "perf.bandwidth.h2d_pinned_gbps";
        bandwidth.status = model::Status::pass;
        bandwidth.message = "54.9 GB/s (baseline 55.1 GB/s)";
        bandwidth.metrics = { { "baseline", 55.125 }, { "measured", 54.9 } };
        check.performance = { bandwidth };
        return check;
    }
}

#endif
