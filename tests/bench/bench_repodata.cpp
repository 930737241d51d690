// Repodata indexing: how long `lint --check-channels` needs to answer a realistic environment's
// lookups in a conda-forge-sized repodata.json, against peers in the same run.
//
//   build/bench/bench_repodata [--size-mb 300] [--dir DIR] [--runs 5] [--python python3]
//
// Generates a deterministic repodata.json of about --size-mb MB in DIR (records shaped like
// conda-forge's: pretty-printed, sorted keys, depends/constrains lists, md5/sha256, sizes,
// timestamps, licenses), then measures:
//   envcheck  formats::RepodataIndex::build for the 30 package names of a CUDA training
//             environment plus checks::check_channel_availability over its specs (median of
//             --runs), and the index of every name;
//   python    json.load of the same file (Python's C accelerated decoder);
//   rattler   py-rattler's SparseRepoData (lazy, Rust) opening the file and loading the same
//             30 names, when the rattler module is importable.
// and prints the rates and the ratios. Results go to tests/bench/RESULTS.md.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "checks/channel_availability.hpp"
#include "formats/repodata.hpp"
#include "fsio/files.hpp"
#include "tests/bench/bench_support.hpp"
#include "tests/random.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    using bench::cpu_model;
    using bench::median_seconds;
    using bench::read_flags;
    using bench::run_python_script;
    using tests::Random;

    // The environment whose pins the check looks up: ResNet-50 training with pytorch-cuda.
    const std::vector<std::string> environment_names = {
        "python",          "pytorch",   "pytorch-cuda", "torchvision", "torchaudio", "cuda-version",
        "cudatoolkit",     "numpy",     "scipy",        "pandas",      "matplotlib", "pillow",
        "jupyter",         "ipykernel", "pip",          "setuptools",  "wheel",      "openssl",
        "ca-certificates", "libgcc-ng", "libstdcxx-ng", "zlib",        "xz",         "bzip2",
        "libffi",          "ncurses",   "readline",     "sqlite",      "tk",         "mkl",
    };

    auto synthetic_name(Random& random) -> std::string
    {
        static const std::vector<std::string> parts = {
            "lib",  "py",      "r-",   "cuda", "nv",   "gst",  "qt",     "xorg-",  "perl-",
            "ros-", "jupyter", "data", "geo",  "bio",  "sci",  "tensor", "arrow",  "boost",
            "proj", "hdf",     "net",  "cdf",  "mpi",  "open", "blas",   "lapack", "image",
            "plot", "ml",      "sql",  "http", "json", "yaml", "xml",
        };
        std::string name = parts[random.below(parts.size())];
        const auto syllables = 1 + random.below(3);
        for (std::uint64_t i = 0; i < syllables; ++i)
        {
            name += parts[random.below(parts.size())];
        }
        name += '-';
        name += std::to_string(random.below(1000));
        std::replace(name.begin(), name.end(), '-', name.size() % 2 == 0 ? '-' : '_');
        if (name.back() == '-' || name.back() == '_')
        {
            name += "x";
        }
        return name;
    }

    struct Sizes
    {
        std::uint64_t bytes = 0;
        std::uint64_t records = 0;
        std::uint64_t names = 0;
    };

    // One record, as conda-index writes it (indent 2, keys sorted).
    void write_record(std::ostream& out, Random& random, const std::string& name,
                      const std::string& version, const std::string& build, int build_number,
                      const std::string& ext, bool first)
    {
        static const std::vector<std::string> licenses = { "MIT",           "BSD-3-Clause",
                                                           "Apache-2.0",    "GPL-3.0-or-later",
                                                           "LGPL-2.1-only", "MPL-2.0" };
        static const std::vector<std::string> deps = { "libgcc-ng >=12",
                                                       "libstdcxx-ng >=12",
                                                       "python >=3.11,<3.12.0a0",
                                                       "python_abi 3.11.* *_cp311",
                                                       "libzlib >=1.2.13,<2.0.0a0",
                                                       "openssl >=3.2.1,<4.0a0",
                                                       "numpy >=1.23.5,<2.0a0",
                                                       "libblas >=3.9.0,<4.0a0",
                                                       "liblapack >=3.9.0,<4.0a0",
                                                       "__glibc >=2.17,<3.0.a0",
                                                       "cuda-version >=12.0,<13",
                                                       "libcublas >=12.0.1.189,<13.0a0",
                                                       "xz >=5.2.6,<6.0a0",
                                                       "libffi >=3.4,<4.0a0",
                                                       "ncurses >=6.4,<7.0a0",
                                                       "tk >=8.6.13,<8.7.0a0" };
        if (!first)
        {
            out << ",\n";
        }
        out << "    \"" << name << '-' << version << '-' << build << ext << "\": {\n";
        out << "      \"build\": \"" << build << "\",\n";
        out << "      \"build_number\": " << build_number << ",\n";
        if (random.below(4) == 0)
        {
            out << "      \"constrains\": [\n        \"" << deps[random.below(deps.size())]
                << "\"\n      ],\n";
        }
        out << "      \"depends\": [";
        const auto count = 2 + random.below(12);
        for (std::uint64_t i = 0; i < count; ++i)
        {
            out << (i == 0 ? "\n" : ",\n") << "        \"" << deps[random.below(deps.size())]
                << '"';
        }
        out << "\n      ],\n";
        const auto& license = licenses[random.below(licenses.size())];
        out << "      \"license\": \"" << license << "\",\n";
        out << "      \"license_family\": \"" << license.substr(0, license.find('-')) << "\",\n";
        out << "      \"md5\": \"" << random.hex(32) << "\",\n";
        out << "      \"name\": \"" << name << "\",\n";
        out << "      \"sha256\": \"" << random.hex(64) << "\",\n";
        out << "      \"size\": " << 1000 + random.below(200'000'000) << ",\n";
        out << "      \"subdir\": \"linux-64\",\n";
        out << "      \"timestamp\": " << 1'500'000'000'000ULL + random.below(300'000'000'000ULL)
            << ",\n";
        out << "      \"version\": \"" << version << "\"\n    }";
    }

    auto generate(const fs::path& path, std::uint64_t target_bytes) -> Sizes
    {
        Random random(0x5eed5eedULL);
        std::vector<std::string> names = environment_names;
        // Enough synthetic names that the environment's are a needle in a haystack.
        const std::uint64_t name_count = std::max<std::uint64_t>(1000, target_bytes / 12'000);
        while (names.size() < name_count)
        {
            names.push_back(synthetic_name(random));
        }
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());

        std::ofstream out(path, std::ios::binary);
        out << "{\n  \"info\": {\n    \"subdir\": \"linux-64\"\n  },\n";
        Sizes sizes;
        sizes.names = names.size();
        // Half the bytes in "packages" (.tar.bz2), half in "packages.conda".
        for (const std::string ext : { ".tar.bz2", ".conda" })
        {
            out << "  \"" << (ext == ".conda" ? "packages.conda" : "packages") << "\": {\n";
            // A known pin exists in every section, so the lookups find something to match.
            write_record(out, random, "pytorch-cuda", "11.8", "h7e8668a_5", 5, ext, true);
            ++sizes.records;
            bool first = false;
            const auto section_end = static_cast<std::uint64_t>(out.tellp()) + target_bytes / 2;
            while (static_cast<std::uint64_t>(out.tellp()) < section_end)
            {
                for (const auto& name : names)
                {
                    // The environment's packages are the popular ones, with many builds.
                    const bool popular =
                      std::find(environment_names.begin(), environment_names.end(), name) !=
                      environment_names.end();
                    const auto versions = popular ? 20 + random.below(40) : 1 + random.below(6);
                    for (std::uint64_t v = 0; v < versions; ++v)
                    {
                        const std::string version = std::to_string(random.below(30)) + "." +
                                                    std::to_string(random.below(20)) + "." +
                                                    std::to_string(random.below(10));
                        const int build_number = static_cast<int>(random.below(5));
                        const std::string build =
                          "py311h" + random.hex(7) + "_" + std::to_string(build_number);
                        write_record(out, random, name, version, build, build_number, ext, first);
                        first = false;
                        ++sizes.records;
                    }
                    if (static_cast<std::uint64_t>(out.tellp()) >= section_end)
                    {
                        break;
                    }
                }
            }
            out << "\n  },\n";
        }
        out << "  \"removed\": [],\n  \"repodata_version\": 1\n}\n";
        sizes.bytes = static_cast<std::uint64_t>(out.tellp());
        return sizes;
    }
}

auto main(int argc, char** argv) -> int
{
    std::uint64_t size_mb = 300;
    fs::path dir = fs::temp_directory_path() / "envcheck-bench-repodata";
    int runs = 5;
    std::string python = "python3";
    if (const auto unknown = read_flags(
          argc, argv,
          { { "--size-mb", [&](const std::string& value) { size_mb = std::stoull(value); } },
            { "--dir", [&](const std::string& value) { dir = value; } },
            { "--runs", [&](const std::string& value) { runs = std::max(1, std::stoi(value)); } },
            { "--python", [&](const std::string& value) { python = value; } } }))
    {
        std::cerr << "unknown option " << *unknown << '\n';
        return 2;
    }
    fs::create_directories(dir);
    const fs::path path = dir / "repodata.json";

    std::cout << "machine: " << cpu_model() << '\n';
    Sizes sizes;
    const double generated_in = median_seconds(1, [&] { sizes = generate(path, size_mb << 20); });
    const double mb = static_cast<double>(sizes.bytes) / 1e6;
    std::printf("repodata: %.1f MB, %llu records, %llu package names (generated in %.1f s)\n", mb,
                static_cast<unsigned long long>(sizes.records),
                static_cast<unsigned long long>(sizes.names), generated_in);

    std::string text;
    const double read_s = median_seconds(1, [&] { text = fsio::read_file(path.string()).value(); });
    std::printf("read file: %.3f s\n", read_s);

    // The environment's dependencies as written, checked as `lint --check-channels` does.
    std::vector<formats::EnvDependency> dependencies;
    for (const auto& name : environment_names)
    {
        const std::string pin = name == "pytorch-cuda" ? "=11.8"
                                : name == "numpy"      ? ">=1.23,<2"
                                                       : "";
        dependencies.push_back(
          formats::EnvDependency{ name + pin, { dependencies.size() + 1, 5 }, {} });
    }
    const auto specs = checks::availability_specs(dependencies);
    const std::vector<formats::Channel> channels = { { "bench", "https://bench.test/bench" } };
    std::size_t found = 0;
    std::size_t findings = 0;
    const double env_s = median_seconds(
      runs,
      [&]
      {
          auto index =
            formats::RepodataIndex::build(text, checks::package_names_to_index(specs)).value();
          found = index.indexed_count();
          const std::vector<checks::ChannelSubdir> repodata = {
              { channels[0], "linux-64", &index, false }, { channels[0], "noarch", nullptr, true }
          };
          findings =
            checks::check_channel_availability(specs, channels, "linux-64", repodata, {}).size();
      });
    std::size_t all_records = 0;
    const double all_s = median_seconds(std::max(1, runs / 2),
                                        [&]
                                        {
                                            auto index =
                                              formats::RepodataIndex::build(text, {}).value();
                                            all_records = index.indexed_count();
                                        });
    std::printf(
      "envcheck index, 30 names + check: %.3f s = %.0f MB/s (%zu records kept, %zu findings)\n",
      env_s, mb / env_s, found, findings);
    std::printf("envcheck index, every name:          %.3f s = %.0f MB/s (%zu records)\n", all_s,
                mb / all_s, all_records);

    const std::string names_list = [&]
    {
        std::string out = "[";
        for (const auto& name : environment_names)
        {
            out += "'" + name + "',";
        }
        return out + "]";
    }();
    const std::string json_script = "import json, time\n"
                                    "start = time.perf_counter()\n"
                                    "with open(r'" +
                                    path.string() +
                                    "', 'rb') as f:\n"
                                    "    data = json.load(f)\n"
                                    "print(time.perf_counter() - start)\n";
    const std::string json_out =
      run_python_script(python, json_script, dir, {}, std::chrono::seconds(600));
    const std::string rattler_script =
      "import time, rattler\n"
      "names = " +
      names_list +
      "\n"
      "fmt = getattr(rattler, 'PackageFormatSelection', None)\n"
      "kw = {'package_format_selection': fmt.BOTH} if fmt is not None and hasattr(fmt, 'BOTH') "
      "else {}\n"
      "samples = []\n"
      "for _ in range(3):\n"
      "    start = time.perf_counter()\n"
      "    sparse = rattler.SparseRepoData(rattler.Channel('bench'), 'linux-64', r'" +
      path.string() +
      "')\n"
      "    count = sum(len(sparse.load_records(rattler.PackageName(n), **kw)) for n in names)\n"
      "    samples.append(time.perf_counter() - start)\n"
      "    sparse.close()\n"
      "samples.sort()\n"
      "print(samples[1], count)\n";
    const std::string rattler_out =
      run_python_script(python, rattler_script, dir, {}, std::chrono::seconds(600));

    auto report_peer = [&](const char* label, const std::string& out)
    {
        if (out.starts_with("unavailable"))
        {
            std::printf("%s: %s\n", label, out.c_str());
            return;
        }
        std::istringstream fields(out);
        double seconds = 0;
        fields >> seconds;
        std::string rest;
        std::getline(fields, rest);
        std::printf("%s: %.3f s = %.0f MB/s%s; envcheck (30 names) is %.1fx faster\n", label,
                    seconds, mb / seconds, rest.empty() ? "" : (" (records:" + rest + ")").c_str(),
                    seconds / env_s);
    };
    report_peer("python json.load", json_out);
    report_peer("py-rattler SparseRepoData, 30 names", rattler_out);
    fs::remove(dir / "peer.py");
    return 0;
}
