// conda specs: how fast src/specs parses versions, version specs and MatchSpecs and matches a
// parsed spec against a parsed version, against py-rattler (Rust, the library behind pixi)
// doing the same work on the same pairs in the same run.
//
//   build/bench/bench_specs [--pairs 1000000] [--runs 5] [--dir DIR] [--python python3]
//                           [--peer tests/bench/bench_specs_peer.py]
//
// Generates a deterministic workload in DIR/pairs.tsv: (spec, version) pairs shaped like
// environment files and real versions (specs >=1.21,<2 / 1.26.* / =3.10 / >=2.0.1 / !=1.5.0 /
// ~=1.4 / 2.1.0|2.2.* / ==1.26.4 / <3; versions 1.26.4, 2.1.0.post1, 3.10.13, 2.0.1rc1,
// 2024.2.12, 1!2.0). Measures, median of --runs:
//   version   Version::parse of every version string
//   spec      VersionSpec::parse of every spec string
//   match     VersionSpec::contains for every pair (both already parsed)
//   matchspec MatchSpec::parse of "name spec" for every pair, and MatchSpec::matches against a
//             record of that name and version (the peer's MatchSpec matching needs a full
//             PackageRecord per pair, so only its parsing is compared)
// The peer (bench_specs_peer.py) does the same with rattler.Version, rattler.VersionSpec and
// rattler.MatchSpec, once, and writes its match results; the two are compared pair by pair.
// Results go to tests/bench/RESULTS.md ("conda specs").
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "specs/match_spec.hpp"
#include "specs/package_record.hpp"
#include "specs/version.hpp"
#include "specs/version_spec.hpp"
#include "tests/bench/bench_support.hpp"
#include "tests/random.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    using bench::median_seconds;
    using bench::read_flags;
    using bench::run_python;
    using tests::Random;

    auto number(Random& rng, std::uint64_t below) -> std::string
    {
        return std::to_string(rng.below(below));
    }

    auto make_version(Random& rng) -> std::string
    {
        const auto shape = rng.below(100);
        if (shape < 6)
        {
            return "20" + std::to_string(20 + rng.below(6)) + "." +
                   std::to_string(1 + rng.below(12)) + "." +
                   std::to_string(1 + rng.below(28)); // calendar versions
        }
        if (shape < 8)
        {
            return "1!" + number(rng, 4) + "." + number(rng, 10);
        }
        std::string v = number(rng, 4) + "." + number(rng, 30);
        if (rng.below(100) < 80)
        {
            v += "." + number(rng, 15);
        }
        const auto suffix = rng.below(100);
        if (suffix < 7)
        {
            v += "rc" + std::to_string(1 + rng.below(3));
        }
        else if (suffix < 11)
        {
            v += ".post" + std::to_string(1 + rng.below(3));
        }
        else if (suffix < 13)
        {
            v += ".dev" + number(rng, 20);
        }
        return v;
    }

    auto make_spec(Random& rng) -> std::string
    {
        const std::string major = number(rng, 4);
        const std::string minor = number(rng, 30);
        const std::string patch = number(rng, 15);
        switch (rng.below(10))
        {
            case 0:
                return ">=" + major + "." + minor + ",<" + std::to_string(std::stoi(major) + 1);
            case 1:
                return major + "." + minor + ".*";
            case 2:
                return "=" + major + "." + minor;
            case 3:
                return ">=" + major + "." + minor + "." + patch;
            case 4:
                return "!=" + major + "." + minor + "." + patch;
            case 5:
                return "~=" + major + "." + minor;
            case 6:
                return major + "." + minor + "." + patch + "|" + major + "." +
                       std::to_string(std::stoi(minor) + 1) + ".*";
            case 7:
                return ">=" + major + "." + minor + ",<" + major + "." +
                       std::to_string(std::stoi(minor) + 3);
            case 8:
                return "==" + major + "." + minor + "." + patch;
            default:
                return "<" + major;
        }
    }

    constexpr std::string_view package_names[] = {
        "numpy",        "scipy",   "pandas",  "python", "pytorch",
        "cuda-version", "libblas", "openssl", "zlib",   "matplotlib",
    };

    // "key value" lines from the peer.
    auto peer_value(const std::string& out, const std::string& key) -> std::string
    {
        std::istringstream lines(out);
        std::string line;
        while (std::getline(lines, line))
        {
            if (line.rfind(key + " ", 0) == 0)
            {
                return line.substr(key.size() + 1);
            }
        }
        return {};
    }

    auto ns(double seconds, std::size_t count) -> double
    {
        return seconds * 1e9 / static_cast<double>(count);
    }
}

auto main(int argc, char** argv) -> int
{
    std::size_t pairs = 1000000;
    int runs = 5;
    fs::path dir = fs::temp_directory_path() / "envcheck-bench-specs";
    std::string python = "python3";
    fs::path peer = fs::path(__FILE__).parent_path() / "bench_specs_peer.py";
    if (const auto unknown = read_flags(
          argc, argv,
          { { "--pairs", [&](const std::string& value) { pairs = std::stoul(value); } },
            { "--runs", [&](const std::string& value) { runs = std::max(1, std::stoi(value)); } },
            { "--dir", [&](const std::string& value) { dir = value; } },
            { "--python", [&](const std::string& value) { python = value; } },
            { "--peer", [&](const std::string& value) { peer = value; } } }))
    {
        std::cerr << "unknown option " << *unknown << "\n";
        return 2;
    }

    fs::create_directories(dir);
    Random rng(20260101);
    std::vector<std::string> spec_texts;
    std::vector<std::string> version_texts;
    std::vector<std::string> match_spec_texts;
    std::vector<std::string_view> names;
    spec_texts.reserve(pairs);
    version_texts.reserve(pairs);
    {
        std::ofstream out(dir / "pairs.tsv");
        for (std::size_t i = 0; i < pairs; ++i)
        {
            spec_texts.push_back(make_spec(rng));
            version_texts.push_back(make_version(rng));
            names.push_back(package_names[rng.below(std::size(package_names))]);
            match_spec_texts.push_back(std::string(names.back()) + " " + spec_texts.back());
            out << names.back() << '\t' << spec_texts.back() << '\t' << version_texts.back()
                << '\n';
        }
    }

    std::vector<specs::Version> versions;
    std::vector<specs::VersionSpec> version_specs;
    std::vector<specs::MatchSpec> match_specs;
    const double parse_versions =
      median_seconds(runs,
                     [&]
                     {
                         versions.clear();
                         versions.reserve(pairs);
                         for (const auto& text : version_texts)
                         {
                             versions.push_back(specs::Version::parse(text).value());
                         }
                     });
    const double parse_specs =
      median_seconds(runs,
                     [&]
                     {
                         version_specs.clear();
                         version_specs.reserve(pairs);
                         for (const auto& text : spec_texts)
                         {
                             version_specs.push_back(specs::VersionSpec::parse(text).value());
                         }
                     });
    std::vector<char> matched(pairs, '0');
    std::size_t hits = 0;
    const double match = median_seconds(runs,
                                        [&]
                                        {
                                            hits = 0;
                                            for (std::size_t i = 0; i < pairs; ++i)
                                            {
                                                const bool hit =
                                                  version_specs[i].contains(versions[i]);
                                                matched[i] = hit ? '1' : '0';
                                                hits += hit ? 1 : 0;
                                            }
                                        });
    const double parse_match_specs =
      median_seconds(runs,
                     [&]
                     {
                         match_specs.clear();
                         match_specs.reserve(pairs);
                         for (const auto& text : match_spec_texts)
                         {
                             match_specs.push_back(specs::MatchSpec::parse(text).value());
                         }
                     });
    std::vector<specs::PackageRecord> records(pairs);
    for (std::size_t i = 0; i < pairs; ++i)
    {
        records[i].name = std::string(names[i]);
        records[i].version = versions[i];
        records[i].build = "h0_0";
        records[i].channel = "https://conda.anaconda.org/conda-forge/";
        records[i].subdir = "linux-64";
    }
    std::size_t record_hits = 0;
    const double match_records =
      median_seconds(runs,
                     [&]
                     {
                         record_hits = 0;
                         for (std::size_t i = 0; i < pairs; ++i)
                         {
                             record_hits += match_specs[i].matches(records[i]) ? 1 : 0;
                         }
                     });

    std::cout << "pairs " << pairs << ", runs " << runs << " (median)\n";
    std::cout << "envcheck Version::parse        " << ns(parse_versions, pairs) << " ns\n";
    std::cout << "envcheck VersionSpec::parse    " << ns(parse_specs, pairs) << " ns\n";
    std::cout << "envcheck VersionSpec::contains " << ns(match, pairs) << " ns  (" << hits
              << " hits)\n";
    std::cout << "envcheck MatchSpec::parse      " << ns(parse_match_specs, pairs) << " ns\n";
    std::cout << "envcheck MatchSpec::matches    " << ns(match_records, pairs) << " ns  ("
              << record_hits << " hits)\n";
    if (record_hits != hits)
    {
        std::cout << "error: MatchSpec::matches and VersionSpec::contains disagree\n";
        return 1;
    }

    const std::string out =
      run_python(python, { peer.string(), dir.string() }, std::chrono::seconds(1800));
    if (out.starts_with("unavailable"))
    {
        std::cout << "peer " << out << "\n";
        return 0;
    }
    std::cout << "peer " << peer_value(out, "peer") << "\n";
    const struct
    {
        const char* label;
        const char* key;
        double envcheck;
    } rows[] = {
        { "Version::parse       ", "version", parse_versions },
        { "VersionSpec::parse   ", "spec", parse_specs },
        { "VersionSpec::contains", "match", match },
        { "MatchSpec::parse     ", "matchspec", parse_match_specs },
    };
    for (const auto& row : rows)
    {
        const double seconds = std::stod(peer_value(out, row.key));
        std::cout << "py-rattler " << row.label << " " << ns(seconds, pairs) << " ns  ("
                  << seconds / row.envcheck << "x envcheck's time)\n";
    }
    std::ifstream peer_matches(dir / "peer_matches.txt");
    std::string theirs((std::istreambuf_iterator<char>(peer_matches)),
                       std::istreambuf_iterator<char>());
    std::size_t disagreements = 0;
    for (std::size_t i = 0; i < pairs && i < theirs.size(); ++i)
    {
        if (theirs[i] != matched[i])
        {
            if (disagreements < 5)
            {
                std::cout << "  disagree: '" << spec_texts[i] << "' contains '" << version_texts[i]
                          << "': envcheck " << matched[i] << ", py-rattler " << theirs[i] << "\n";
            }
            ++disagreements;
        }
    }
    std::cout << "match results: "
              << (theirs.size() == pairs ? "" : "(peer wrote a different count) ") << disagreements
              << " of " << pairs << " pairs differ from py-rattler\n";
    return 0;
}
