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
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>

#include "formats/environment_yaml.hpp"
#include "formats/yaml_document.hpp"
#include "tests/bench/bench_support.hpp"

using namespace envcheck;

namespace
{
    using bench::median_seconds;

    // A reading that fails ends the bench: its time would say nothing.
    auto median_reading_seconds(int runs, const std::function<bool()>& read) -> double
    {
        return median_seconds(runs,
                              [&]
                              {
                                  if (!read())
                                  {
                                      std::fprintf(stderr, "the reading failed\n");
                                      std::exit(2);
                                  }
                              });
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
    const double ours = median_reading_seconds(
      runs, [&] { return formats::load_environment_yaml(text).has_value(); });
    const double yaml_cpp = median_reading_seconds(
      runs, [&] { return formats::read_environment_yaml_with_yaml_cpp(text).has_value(); });
    const double parse =
      median_reading_seconds(runs, [&] { return formats::yaml::parse(text, argv[1]).has_value(); });
    std::printf("load_environment_yaml\t%.9f\nyaml-cpp reading\t%.9f\nlibyaml parse alone\t%.9f\n",
                ours, yaml_cpp, parse);
    return 0;
}
