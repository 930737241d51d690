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
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fsio/files.hpp"
#include "fsio/process.hpp"
#include "pypi/requirement.hpp"
#include "pypi/specifier.hpp"
#include "pypi/version.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    class Random
    {
    public:
        explicit Random(std::uint64_t seed)
          : m_state(seed)
        {
        }
        auto next() -> std::uint64_t
        {
            // xorshift64*: the same workload on every machine.
            m_state ^= m_state >> 12;
            m_state ^= m_state << 25;
            m_state ^= m_state >> 27;
            return m_state * 2685821657736338717ULL;
        }
        auto below(std::uint64_t n) -> std::uint64_t { return next() % n; }

    private:
        std::uint64_t m_state;
    };

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

    template<class F>
    auto median_seconds(int runs, F&& work) -> double
    {
        std::vector<double> samples;
        for (int i = 0; i < runs; ++i)
        {
            const auto start = std::chrono::steady_clock::now();
            work();
            samples.push_back(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(samples.begin(), samples.end());
        return samples[samples.size() / 2];
    }

    auto run_python(const std::string& python, const fs::path& script, const fs::path& dir)
      -> std::string
    {
        fsio::ProcessOptions options;
        options.timeout = std::chrono::seconds(1200);
        const char* path_variable = std::getenv("PATH");
        const std::string program =
          python.find('/') != std::string::npos
            ? python
            : fsio::find_program(python, path_variable != nullptr ? path_variable : "");
        if (program.empty())
        {
            return "unavailable: " + python + " not found";
        }
        auto done = fsio::run_process({ program, script.string(), dir.string() }, options);
        if (!done)
        {
            return "unavailable: " + done.error().message;
        }
        if (!done->succeeded())
        {
            return "unavailable: " + done->describe() + ": " + done->err.substr(0, 300);
        }
        return done->out;
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

    auto cpu_model() -> std::string
    {
        auto text = fsio::read_file("/proc/cpuinfo");
        if (!text)
        {
            return "unknown CPU";
        }
        std::istringstream lines(*text);
        for (std::string line; std::getline(lines, line);)
        {
            if (line.starts_with("model name"))
            {
                return line.substr(line.find(':') + 2);
            }
        }
        return "unknown CPU";
    }
}

auto main(int argc, char** argv) -> int
{
    std::size_t count = 200000;
    int runs = 3;
    fs::path dir = fs::temp_directory_path() / "envcheck-bench-pypi";
    std::string python = "python3";
    for (int i = 1; i + 1 < argc; i += 2)
    {
        const std::string flag = argv[i];
        const std::string value = argv[i + 1];
        if (flag == "--versions")
        {
            count = std::stoul(value);
        }
        else if (flag == "--runs")
        {
            runs = std::max(1, std::stoi(value));
        }
        else if (flag == "--dir")
        {
            dir = value;
        }
        else if (flag == "--python")
        {
            python = value;
        }
        else
        {
            std::cerr << "unknown flag " << flag << "\n";
            return 2;
        }
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
    std::ofstream(dir / "peer.py") << peer_script;

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
    std::sort(sort_samples.begin(), sort_samples.end());
    const double sort_s = sort_samples[sort_samples.size() / 2];
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

    const std::string out = run_python(python, dir / "peer.py", dir);
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
