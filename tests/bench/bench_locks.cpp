// Lock reading: how long envcheck needs to read a conda-lock.yml, a pixi.lock and an @EXPLICIT
// file from disk into packages, against py-rattler reading the same files in the same run.
//
//   build/bench/bench_locks [--dir DIR] [--runs 5] [--python python3] [--sizes 0.1,1,10]
//
// Generates, for each size (MB), a lock of each format in DIR, shaped like real ones: conda
// entries with URLs, md5 and sha256, depends lists, licenses, sizes and timestamps, and a tenth
// of PyPI wheels. Then measures (best and median of --runs, file read included; each input's
// peer right after envcheck on it, so that both see the same load):
//   envcheck  fsio::read_file + formats::parse_any_lock (one platform: the file has one);
//   yaml-cpp  YAML::Load of the same text, the parse of the reader libyaml replaced;
//   rattler   py-rattler's LockFile.from_path (conda-lock.yml, pixi.lock) and
//             ExplicitEnvironmentSpec.from_path (@EXPLICIT), timed inside Python;
// and, for the largest real pixi.lock and conda-lock.yml of ../shared/corpus/locks, the whole
// file (formats::outline_lock: every environment and platform) against LockFile.from_path.
// Prints the times, rates and ratios; results go to tests/bench/RESULTS.md.
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
#include <vector>

#include <yaml-cpp/yaml.h>

#include "formats/lock.hpp"
#include "fsio/files.hpp"
#include "tests/bench/bench_support.hpp"
#include "tests/random.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    using bench::median;
    using bench::read_flags;
    using bench::run_python_script;
    using bench::run_seconds;
    using tests::Random;

    struct Artifact
    {
        std::string name;
        std::string version;
        std::string build;
        std::string subdir;
        std::string url;
        std::string md5;
        std::string sha256;
        std::vector<std::string> depends;
        bool pypi = false;
    };

    auto make_artifact(Random& random, std::size_t index) -> Artifact
    {
        static const std::vector<std::string> stems{ "lib", "py", "cuda-", "r-", "perl-", "" };
        static const std::vector<std::string> words{ "numpy", "arrow",  "torch",  "zlib",
                                                     "curl",  "gdal",   "cublas", "nccl",
                                                     "scipy", "pillow", "proj",   "hdf5" };
        Artifact a;
        a.name = stems[random.below(stems.size())] + words[random.below(words.size())] + "-" +
                 std::to_string(index);
        a.version = std::to_string(random.below(30)) + "." + std::to_string(random.below(20)) +
                    "." + std::to_string(random.below(10));
        a.md5 = random.hex(32);
        a.sha256 = random.hex(64);
        // Distinct names: conda-lock's dependencies are a mapping.
        const std::size_t first = random.below(words.size());
        for (std::uint64_t i = random.below(8); i > 0; --i)
        {
            a.depends.push_back(words[(first + i) % words.size()] +
                                " >=" + std::to_string(random.below(5)) + "." +
                                std::to_string(random.below(10)) + ",<" +
                                std::to_string(random.below(5) + 5) + ".0a0");
        }
        a.pypi = random.below(10) == 0;
        if (a.pypi)
        {
            a.url = "https://files.pythonhosted.org/packages/" + random.hex(2) + "/" +
                    random.hex(2) + "/" + random.hex(60) + "/" + a.name + "-" + a.version +
                    "-py3-none-any.whl";
            std::replace(a.url.begin() + static_cast<std::ptrdiff_t>(a.url.rfind('/')) + 1,
                         a.url.begin() + static_cast<std::ptrdiff_t>(a.url.rfind('/')) + 1 +
                           static_cast<std::ptrdiff_t>(a.name.size()),
                         '-', '_');
            return a;
        }
        a.build = (random.below(2) == 0 ? "py312h" : "h") + random.hex(7) + "_" +
                  std::to_string(random.below(4));
        a.subdir = random.below(4) == 0 ? "noarch" : "linux-64";
        a.url = "https://conda.anaconda.org/conda-forge/" + a.subdir + "/" + a.name + "-" +
                a.version + "-" + a.build + (random.below(3) == 0 ? ".tar.bz2" : ".conda");
        return a;
    }

    auto artifacts_for(std::size_t bytes_per_entry, double megabytes) -> std::vector<Artifact>
    {
        Random random(20261201);
        const auto count = static_cast<std::size_t>(megabytes * 1e6) / bytes_per_entry + 1;
        std::vector<Artifact> out;
        for (std::size_t i = 0; i < count; ++i)
        {
            out.push_back(make_artifact(random, i));
        }
        return out;
    }

    auto conda_lock_text(const std::vector<Artifact>& artifacts) -> std::string
    {
        std::string text =
          "version: 1\nmetadata:\n  content_hash:\n    linux-64: " + std::string(64, 'a') +
          "\n  channels:\n  - url: conda-forge\n    used_env_vars: []\n"
          "  platforms:\n  - linux-64\n  sources:\n  - environment.yml\n"
          "package:\n";
        for (const auto& a : artifacts)
        {
            text += "- name: " + a.name + "\n  version: " + a.version +
                    "\n  manager: " + (a.pypi ? "pip" : "conda") +
                    "\n  platform: linux-64\n  dependencies:";
            if (a.depends.empty())
            {
                text += " {}\n";
            }
            else
            {
                text += "\n";
                for (const auto& depend : a.depends)
                {
                    const auto space = depend.find(' ');
                    text +=
                      "    " + depend.substr(0, space) + ": '" + depend.substr(space + 1) + "'\n";
                }
            }
            text += "  url: " + a.url + "\n  hash:\n";
            if (!a.pypi)
            {
                text += "    md5: " + a.md5 + "\n";
            }
            text += "    sha256: " + a.sha256 + "\n  category: main\n  optional: false\n";
        }
        return text;
    }

    auto pixi_lock_text(const std::vector<Artifact>& artifacts) -> std::string
    {
        std::string text = "version: 6\nenvironments:\n  default:\n    channels:\n"
                           "    - url: https://conda.anaconda.org/conda-forge/\n"
                           "    indexes:\n    - https://pypi.org/simple\n    packages:\n"
                           "      linux-64:\n";
        for (const auto& a : artifacts)
        {
            text += std::string("      - ") + (a.pypi ? "pypi: " : "conda: ") + a.url + "\n";
        }
        text += "packages:\n";
        for (const auto& a : artifacts)
        {
            if (a.pypi)
            {
                text += "- pypi: " + a.url + "\n  name: " + a.name + "\n  version: " + a.version +
                        "\n  sha256: " + a.sha256 +
                        "\n  requires_dist:" + (a.depends.empty() ? " []\n" : "\n");
                for (const auto& depend : a.depends)
                {
                    text += "  - " + depend.substr(0, depend.find(' ')) + ">=1.0\n";
                }
                text += "  requires_python: '>=3.9'\n";
                continue;
            }
            text += "- conda: " + a.url + "\n  sha256: " + a.sha256 + "\n  md5: " + a.md5 +
                    "\n  depends:" + (a.depends.empty() ? " []\n" : "\n");
            for (const auto& depend : a.depends)
            {
                text += "  - " + depend + "\n";
            }
            text += "  license: BSD-3-Clause\n  license_family: BSD\n  size: 123456\n"
                    "  timestamp: 1733332029649\n";
        }
        return text;
    }

    auto explicit_text(const std::vector<Artifact>& artifacts) -> std::string
    {
        std::string text = "# This file may be used to create an environment using:\n"
                           "# $ conda create --name <env> --file <this file>\n"
                           "# platform: linux-64\n@EXPLICIT\n";
        for (const auto& a : artifacts)
        {
            if (!a.pypi)
            {
                text += a.url + "#" + a.md5 + "\n";
            }
        }
        return text;
    }

    // The fastest and the middle of `runs` timings.
    template<class Body>
    auto best_and_median(int runs, Body&& body) -> std::pair<double, double>
    {
        const auto seconds = run_seconds(runs, std::forward<Body>(body));
        return { *std::min_element(seconds.begin(), seconds.end()), median(seconds) };
    }

    struct Input
    {
        std::string label; // "pixi.lock 1 MB"
        fs::path path;
        std::string kind;   // conda-lock, pixi, explicit
        bool whole = false; // every environment and platform (real files)
        double envcheck_s = 0;
        double yaml_cpp_s = 0;
        std::size_t packages = 0;
    };

    auto split_sizes(const std::string& text) -> std::vector<double>
    {
        std::vector<double> out;
        std::stringstream stream(text);
        for (std::string item; std::getline(stream, item, ',');)
        {
            out.push_back(std::stod(item));
        }
        return out;
    }
}

auto main(int argc, char** argv) -> int
{
    fs::path dir = fs::temp_directory_path() / "envcheck-bench-locks";
    int runs = 5;
    std::string python = "python3";
    std::string sizes = "0.1,1,10";
    fs::path shared = fs::path(ENVCHECK_BENCH_SHARED_DIR) / "corpus/locks";
    if (const auto unknown =
          read_flags(argc, argv,
                     { { "--dir", [&](const std::string& value) { dir = value; } },
                       { "--runs", [&](const std::string& value)
                         { runs = std::max(1, std::atoi(value.c_str())); } },
                       { "--python", [&](const std::string& value) { python = value; } },
                       { "--sizes", [&](const std::string& value) { sizes = value; } } }))
    {
        std::cerr << "unknown option " << *unknown << "\n";
        return 2;
    }
    fs::create_directories(dir);

    std::vector<Input> inputs;
    for (const double mb : split_sizes(sizes))
    {
        char size_label[32];
        std::snprintf(size_label, sizeof size_label, "%g MB", mb);
        // Bytes one entry takes in each format, so that each file is about `mb` long.
        const std::vector<std::tuple<std::string, std::string, std::size_t>> kinds{
            { "conda-lock", "conda-lock.yml", 445 },
            { "pixi", "pixi.lock", 500 },
            { "explicit", "explicit.txt", 122 },
        };
        for (const auto& [kind, file, bytes] : kinds)
        {
            const auto artifacts = artifacts_for(bytes, mb);
            const std::string text = kind == "conda-lock" ? conda_lock_text(artifacts)
                                     : kind == "pixi"     ? pixi_lock_text(artifacts)
                                                          : explicit_text(artifacts);
            const fs::path path =
              dir /
              (std::string(size_label).substr(0, std::string(size_label).find(' ')) + "MB-" + file);
            std::ofstream(path, std::ios::binary) << text;
            inputs.push_back(Input{ file + " " + size_label, path, kind, false });
        }
    }
    for (const char* real :
         { "ESMValGroup__ESMValCore__pixi.lock", "Clay-foundation__model__conda-lock.yml" })
    {
        if (fs::exists(shared / real))
        {
            const std::string name = real;
            inputs.push_back(Input{ name + " (real, whole file)", shared / real,
                                    name.ends_with("pixi.lock") ? "pixi" : "conda-lock", true });
        }
    }

    // py-rattler reads one file per process (its start is not timed): each input is measured
    // right after envcheck's runs on it, so that both see the same load on a shared machine.
    const std::string script =
      "import sys, time\n"
      "from rattler import LockFile\n"
      "from rattler.explicit_environment import ExplicitEnvironmentSpec\n"
      "path, kind, whole, runs = sys.argv[1], sys.argv[2], sys.argv[3] == '1', int(sys.argv[4])\n"
      "reader = ExplicitEnvironmentSpec if kind == 'explicit' else LockFile\n"
      "samples = []\n"
      "try:\n"
      "    for _ in range(runs):\n"
      "        start = time.perf_counter(); value = reader.from_path(path)\n"
      "        samples.append(time.perf_counter() - start)\n"
      "    if kind == 'explicit':\n"
      "        n = len(value.packages)\n"
      "    elif whole:\n"
      "        n = sum(len(e.packages(p) or []) for _, e in value.environments() for p in "
      "e.platforms())\n"
      "    else:\n"
      "        e = value.default_environment()\n"
      "        n = sum(len(e.packages(p) or []) for p in e.platforms())\n"
      "    samples.sort()\n"
      "    print(samples[0], samples[len(samples) // 2], n)\n"
      "except Exception as error:\n"
      "    print(-1, -1, repr(error)[:200].replace('\\n', ' '))\n";
    struct Peer
    {
        double best_s = -1;
        double median_s = -1;
        std::string packages;
    };
    std::vector<Peer> peers(inputs.size());
    std::vector<double> envcheck_median(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        auto& input = inputs[i];
        const int times = fs::file_size(input.path) > 5'000'000 ? std::max(3, runs / 2) : runs;
        const auto [best, median] = best_and_median(
          times,
          [&]
          {
              const auto text = fsio::read_file(input.path.string());
              if (!text)
              {
                  std::cerr << text.error().to_string() << "\n";
                  std::exit(1);
              }
              if (input.whole)
              {
                  const auto outline = formats::outline_lock(*text, input.path.string());
                  if (!outline)
                  {
                      std::cerr << outline.error().to_string() << "\n";
                      std::exit(1);
                  }
                  input.packages = outline->packages;
                  return;
              }
              const auto lock = formats::parse_any_lock(*text, input.path.string(), { "linux-64" });
              if (!lock)
              {
                  std::cerr << lock.error().to_string() << "\n";
                  std::exit(1);
              }
              input.packages = lock->packages.size();
          });
        input.envcheck_s = best;
        envcheck_median[i] = median;
        if (input.kind != "explicit")
        {
            const auto text = fsio::read_file(input.path.string());
            input.yaml_cpp_s =
              best_and_median(std::max(1, times / 2), [&] { (void)YAML::Load(*text); }).first;
        }
        const std::string out = run_python_script(
          python, script, dir,
          { input.path.string(), input.kind, input.whole ? "1" : "0", std::to_string(times) },
          std::chrono::seconds(1800), 600);
        if (out.starts_with("unavailable"))
        {
            peers[i].packages = out;
            continue;
        }
        std::istringstream fields(out);
        fields >> peers[i].best_s >> peers[i].median_s;
        std::getline(fields, peers[i].packages);
    }

    std::printf("%-44s %6s %8s | %9s %9s | %9s %9s | %9s | %7s %7s\n", "input", "MB", "packages",
                "envcheck", "(median)", "rattler", "(median)", "yaml-cpp", "ratio", "(median)");
    std::printf("%-44s %6s %8s | %9s %9s | %9s %9s | %9s | %7s %7s\n", "", "", "", "best ms", "ms",
                "best ms", "ms", "parse ms", "best", "");
    for (std::size_t i = 0; i < inputs.size(); ++i)
    {
        const auto& input = inputs[i];
        const auto& peer = peers[i];
        const double mb = static_cast<double>(fs::file_size(input.path)) / 1e6;
        const auto ms = [](double seconds)
        {
            char text[32];
            std::snprintf(text, sizeof text, seconds > 0 ? "%.2f" : "n/a", seconds * 1e3);
            return std::string(text);
        };
        const auto ratio = [](double peer_s, double ours_s)
        {
            char text[32];
            std::snprintf(text, sizeof text, peer_s > 0 ? "%.2fx" : "n/a", peer_s / ours_s);
            return std::string(text);
        };
        std::printf("%-44s %6.2f %8zu | %9s %9s | %9s %9s | %9s | %7s %7s  rattler read %s\n",
                    input.label.c_str(), mb, input.packages, ms(input.envcheck_s).c_str(),
                    ms(envcheck_median[i]).c_str(), ms(peer.best_s).c_str(),
                    ms(peer.median_s).c_str(),
                    input.yaml_cpp_s > 0 ? ms(input.yaml_cpp_s).c_str() : "-",
                    ratio(peer.best_s, input.envcheck_s).c_str(),
                    ratio(peer.median_s, envcheck_median[i]).c_str(), peer.packages.c_str());
    }
    fs::remove(dir / "peer.py");
    return 0;
}
