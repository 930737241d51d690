// Reading one environment file in-process, as lint does before its rules: the medians of --runs
// of each reading, for tests/bench/bench_lint.py, which sets them beside PyYAML's CSafeLoader
// parse of the same text in the same run (RESULTS.md, "lint at scale").
//
//   build/bench/bench_environment_yaml FILE [--runs 21]
//
// Prints one line per reading, "label<TAB>median seconds":
//   load_environment_yaml   what lint reads the file with (libyaml, yaml-cpp where it fails);
//   yaml-cpp reading        read_environment_yaml_with_yaml_cpp, the reading before libyaml;
//   libyaml parse alone     formats::yaml::parse, the tree without the environment file model.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "formats/environment_yaml.hpp"
#include "formats/yaml_document.hpp"

using namespace envcheck;

namespace
{
    auto median_seconds(int runs, const std::function<bool()>& read) -> double
    {
        std::vector<double> seconds;
        for (int run = 0; run < runs; ++run)
        {
            const auto start = std::chrono::steady_clock::now();
            if (!read())
            {
                std::fprintf(stderr, "the reading failed\n");
                std::exit(2);
            }
            seconds.push_back(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        }
        std::sort(seconds.begin(), seconds.end());
        return seconds[seconds.size() / 2];
    }
}

auto main(int argc, char** argv) -> int
{
    if (argc < 2)
    {
        std::fprintf(stderr, "usage: bench_environment_yaml FILE [--runs N]\n");
        return 2;
    }
    int runs = 21;
    if (argc >= 4 && std::string_view(argv[2]) == "--runs")
    {
        runs = std::max(1, std::atoi(argv[3]));
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    const double ours =
      median_seconds(runs, [&] { return formats::load_environment_yaml(text).has_value(); });
    const double yaml_cpp = median_seconds(
      runs, [&] { return formats::read_environment_yaml_with_yaml_cpp(text).has_value(); });
    const double parse =
      median_seconds(runs, [&] { return formats::yaml::parse(text, argv[1]).has_value(); });
    std::printf("load_environment_yaml\t%.9f\nyaml-cpp reading\t%.9f\nlibyaml parse alone\t%.9f\n",
                ours, yaml_cpp, parse);
    return 0;
}
