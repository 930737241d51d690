// pip semantics: how fast src/pypi parses and compares what lint and check read (versions,
// specifier sets, requirements), against Python's packaging (the library pip vendors) doing the
// same work on the same inputs in the same run.
//
//   build/bench/bench_pypi [--versions 200000] [--runs 3] [--dir DIR] [--python python3]
//
// Generates a deterministic workload in DIR: version strings shaped like PyPI's (1.26.4,
// 2.4.0+cu121, 0.6.0.post1, 2024.2.12, 1.0rc1, 1!2.0.dev3), specifier sets shaped like
// requirement pins (>=1.2,<2 / ~=3.8 / ==1.26.* / !=1.3.4) and requirement lines. Measures
//   parse     Version::parse of every version string;
//   sort      sorting the parsed versions;
//   contains  SpecifierSet::contains for every (set, version) pair of 500 sets x 400 versions;
//   require   Requirement::parse of the requirement lines;
// the median of --runs for envcheck, and once for packaging, then prints rates and ratios.
// Results go to tests/bench/RESULTS.md ("pip specs").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "pypi/requirement.hpp"
#include "pypi/specifier.hpp"
#include "pypi/version.hpp"
#include "tests/bench/bench_support.hpp"
#include "tests/random.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    using bench::cpu_model;
    using bench::median;
    using bench::median_seconds;
    using bench::read_flags;
    using bench::run_python_script;
    using tests::Random;

    auto make_version(Random& rng) -> std::string
    {
        std::string v;
        const auto shape = rng.below(100);
        if (shape < 8)
        {
            v = "20" + std::to_string(20 + rng.below(6)) + "." + std::to_string(1 + rng.below(12)) +
                "." + std::to_string(1 + rng.below(28)); // calendar versions
        }
        else
        {
            v = std::to_string(rng.below(5)) + "." + std::to_string(rng.below(30));
            if (rng.below(100) < 75)
            {
                v += "." + std::to_string(rng.below(12));
            }
        }
        const auto suffix = rng.below(100);
        if (suffix < 6)
        {
            v += std::string(rng.below(2) == 0 ? "rc" : "b") + std::to_string(1 + rng.below(3));
        }
        else if (suffix < 10)
        {
            v += ".post" + std::to_string(rng.below(3));
        }
        else if (suffix < 12)
        {
            v += ".dev" + std::to_string(rng.below(5));
        }
        else if (suffix < 20)
        {
            v += std::string("+") + (rng.below(2) == 0 ? "cu121" : "cpu");
        }
        if (rng.below(500) == 0)
        {
            v = "1!" + v;
        }
        return v;
    }

    auto make_specifier(Random& rng) -> std::string
    {
        const auto major = std::to_string(rng.below(4));
        const auto minor = std::to_string(rng.below(25));
        switch (rng.below(6))
        {
            case 0:
                return ">=" + major + "." + minor + ",<" + std::to_string(rng.below(4) + 1);
            case 1:
                return "~=" + major + "." + minor;
            case 2:
                return "==" + major + "." + minor + ".*";
            case 3:
                return ">=" + major + "." + minor + ",!=" + major + "." + minor + ".3";
            case 4:
                return "==" + major + "." + minor + "." + std::to_string(rng.below(10));
            default:
                return "<" + major + "." + minor + ",>" + std::to_string(rng.below(2)) + ".1";
        }
    }

    auto make_requirement(Random& rng, const std::string& specifier) -> std::string
    {
        static const char* names[] = {
            "numpy",  "torch",          "scikit-learn",      "typing_extensions",
            "Pillow", "jupyter-server", "nvidia-cudnn-cu12", "ray"
        };
        std::string line = names[rng.below(8)];
        if (rng.below(10) == 0)
        {
            line += "[dev,test]";
        }
        line += specifier;
        if (rng.below(8) == 0)
        {
            line += "; python_version >= \"3.9\" and sys_platform == \"linux\"";
        }
        return line;
    }

    // The peer: packaging doing the same four jobs on the same files.
    const char* peer_script = R"(import sys, time
import packaging
from packaging.version import Version
from packaging.specifiers import SpecifierSet
from packaging.requirements import Requirement
d = sys.argv[1]
versions = open(d + '/versions.txt').read().split('\n')
sets = open(d + '/specifiers.txt').read().split('\n')
reqs = open(d + '/requirements.txt').read().split('\n')
n_probe = int(open(d + '/probe.txt').read())
t = time.perf_counter(); parsed = [Version(v) for v in versions]; parse = time.perf_counter() - t
t = time.perf_counter(); parsed.sort(); sort = time.perf_counter() - t
probe = [Version(v) for v in versions[:n_probe]]
t = time.perf_counter()
hits = 0
for s in sets:
    ss = SpecifierSet(s)
    for v in probe:
        hits += ss.contains(v)
contains = time.perf_counter() - t
t = time.perf_counter(); rs = [Requirement(r) for r in reqs]; require = time.perf_counter() - t
print(parse, sort, contains, require, hits, packaging.__version__)
)";

    auto write_lines(const fs::path& path, const std::vector<std::string>& lines)
    {
        std::ofstream out(path, std::ios::binary);
        for (std::size_t i = 0; i < lines.size(); ++i)
        {
            out << lines[i] << (i + 1 < lines.size() ? "\n" : "");
        }
    }
}

auto main(int argc, char** argv) -> int
{
    std::size_t count = 200000;
    int runs = 3;
    fs::path dir = fs::temp_directory_path() / "envcheck-bench-pypi";
    std::string python = "python3";
    if (const auto unknown = read_flags(
          argc, argv,
          { { "--versions", [&](const std::string& value) { count = std::stoul(value); } },
            { "--runs", [&](const std::string& value) { runs = std::max(1, std::stoi(value)); } },
            { "--dir", [&](const std::string& value) { dir = value; } },
            { "--python", [&](const std::string& value) { python = value; } } }))
    {
        std::cerr << "unknown flag " << *unknown << "\n";
        return 2;
    }
    fs::create_directories(dir);

    Random rng(0x5eed);
    std::vector<std::string> versions;
    for (std::size_t i = 0; i < count; ++i)
    {
        versions.push_back(make_version(rng));
    }
    std::vector<std::string> sets;
    for (int i = 0; i < 500; ++i)
    {
        sets.push_back(make_specifier(rng));
    }
    std::vector<std::string> requirements;
    for (std::size_t i = 0; i < count / 10; ++i)
    {
        requirements.push_back(make_requirement(rng, sets[rng.below(sets.size())]));
    }
    const std::size_t probe_count = std::min<std::size_t>(400, versions.size());
    write_lines(dir / "versions.txt", versions);
    write_lines(dir / "specifiers.txt", sets);
    write_lines(dir / "requirements.txt", requirements);
    std::ofstream(dir / "probe.txt") << probe_count;

    std::vector<pypi::Version> parsed;
    const double parse_s = median_seconds(runs,
                                          [&]
                                          {
                                              parsed.clear();
                                              parsed.reserve(versions.size());
                                              for (const auto& v : versions)
                                              {
                                                  parsed.push_back(pypi::Version::parse(v).value());
                                              }
                                          });
    std::vector<double> sort_samples;
    for (int i = 0; i < runs; ++i)
    {
        auto copy = parsed; // copied outside the timed part: packaging sorts its list in place
        const auto start = std::chrono::steady_clock::now();
        std::sort(copy.begin(), copy.end());
        sort_samples.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    const double sort_s = median(sort_samples);
    std::vector<pypi::Version> probe(parsed.begin(),
                                     parsed.begin() + static_cast<std::ptrdiff_t>(probe_count));
    long hits = 0;
    const double contains_s = median_seconds(runs,
                                             [&]
                                             {
                                                 hits = 0;
                                                 for (const auto& text : sets)
                                                 {
                                                     const auto set =
                                                       pypi::SpecifierSet::parse(text).value();
                                                     for (const auto& v : probe)
                                                     {
                                                         hits += set.contains(v) ? 1 : 0;
                                                     }
                                                 }
                                             });
    const double require_s = median_seconds(runs,
                                            [&]
                                            {
                                                for (const auto& line : requirements)
                                                {
                                                    if (!pypi::Requirement::parse(line))
                                                    {
                                                        std::abort();
                                                    }
                                                }
                                            });

    const std::string out =
      run_python_script(python, peer_script, dir, { dir.string() }, std::chrono::seconds(1200));
    std::printf("machine: %s\n", cpu_model().c_str());
    std::printf("workload: %zu versions, %zu sets x %zu versions, %zu requirements\n",
                versions.size(), sets.size(), probe_count, requirements.size());
    double peer[4] = { 0, 0, 0, 0 };
    long peer_hits = -1;
    std::string peer_version;
    const bool have_peer = !out.starts_with("unavailable");
    if (have_peer)
    {
        std::istringstream fields(out);
        fields >> peer[0] >> peer[1] >> peer[2] >> peer[3] >> peer_hits >> peer_version;
        std::printf("peer: packaging %s (%s)\n", peer_version.c_str(), python.c_str());
    }
    else
    {
        std::printf("peer: %s\n", out.c_str());
    }
    const char* names[] = { "parse versions", "sort versions", "SpecifierSet.contains",
                            "parse requirements" };
    const double ours[] = { parse_s, sort_s, contains_s, require_s };
    const double items[] = { static_cast<double>(versions.size()),
                             static_cast<double>(versions.size()),
                             static_cast<double>(sets.size() * probe_count),
                             static_cast<double>(requirements.size()) };
    std::printf(
      "| what | envcheck | per second | packaging | ratio |\n|---|---:|---:|---:|---:|\n");
    for (int i = 0; i < 4; ++i)
    {
        if (have_peer)
        {
            std::printf("| %s | %.4f s | %.2fM | %.3f s | %.0fx faster |\n", names[i], ours[i],
                        items[i] / ours[i] / 1e6, peer[i], peer[i] / ours[i]);
        }
        else
        {
            std::printf("| %s | %.4f s | %.2fM | - | - |\n", names[i], ours[i],
                        items[i] / ours[i] / 1e6);
        }
    }
    std::printf("contains hits: envcheck %ld, packaging %ld (%s)\n", hits, peer_hits,
                !have_peer ? "no peer" : (hits == peer_hits ? "agree" : "DIFFER"));
    return have_peer && hits != peer_hits ? 1 : 0;
}
