// Versions and specifiers: whatever parses must print, parse back to an equal value and answer
// queries without crashing; a specifier set must agree with its clauses one by one (the range
// intersection is an optimisation of that conjunction) and never call a set it matches
// unsatisfiable. The input is tried whole, and as "specifier\nversion".
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_require.hpp"
#include "pypi/specifier.hpp"
#include "pypi/version.hpp"

using envcheck::pypi::Operator;
using envcheck::pypi::Specifier;
using envcheck::pypi::SpecifierSet;
using envcheck::pypi::Version;

namespace
{
    void check_version(std::string_view text)
    {
        const auto version = Version::parse(text);
        if (!version)
        {
            ENVCHECK_FUZZ_REQUIRE(version.error().offset <= text.size());
            return;
        }
        const std::string printed = version->to_string();
        const auto again = Version::parse(printed);
        ENVCHECK_FUZZ_REQUIRE(again.has_value());
        ENVCHECK_FUZZ_REQUIRE(*again == *version);
        ENVCHECK_FUZZ_REQUIRE(again->to_string() == printed);
        ENVCHECK_FUZZ_REQUIRE((*version <=> *again) == 0);
        ENVCHECK_FUZZ_REQUIRE(Version::from_parts(version->parts()) == *version);
        ENVCHECK_FUZZ_REQUIRE(version->public_version().size() <= printed.size());
        ENVCHECK_FUZZ_REQUIRE(!version->base_version().empty());
    }

    // Versions next to the ones a specifier names, where range bugs would show.
    auto probes(const SpecifierSet& set) -> std::vector<Version>
    {
        std::vector<Version> out;
        for (const char* text : { "0", "0.dev0", "1.0", "1.0a1", "1.0.post1", "1.0+local", "1!0" })
        {
            out.push_back(Version::parse(text).value());
        }
        for (const auto& spec : set.specifiers())
        {
            if (!spec.version())
            {
                continue;
            }
            const Version& v = *spec.version();
            out.push_back(v);
            auto parts = v.parts();
            for (int variant = 0; variant < 6; ++variant)
            {
                auto p = parts;
                switch (variant)
                {
                    case 0:
                        p.local = "local";
                        break;
                    case 1:
                        p.post = p.post ? *p.post + 1 : 0;
                        break;
                    case 2:
                        p.dev = 0;
                        break;
                    case 3:
                        p.pre.reset();
                        p.dev.reset();
                        break;
                    case 4:
                        p.release.push_back(1);
                        break;
                    default:
                        p.post = p.post ? *p.post + 1 : 0;
                        p.dev = 0;
                        break;
                }
                out.push_back(Version::from_parts(p));
            }
        }
        return out;
    }

    void check_set(std::string_view text, const Version* candidate)
    {
        const auto set = SpecifierSet::parse(text);
        if (!set)
        {
            ENVCHECK_FUZZ_REQUIRE(set.error().offset <= text.size());
            return;
        }
        const std::string printed = set->to_string();
        const auto again = SpecifierSet::parse(printed);
        ENVCHECK_FUZZ_REQUIRE(again.has_value());
        ENVCHECK_FUZZ_REQUIRE(*again == *set);
        ENVCHECK_FUZZ_REQUIRE(again->to_string() == printed);
        const bool satisfiable = set->is_satisfiable();
        auto versions = probes(*set);
        if (candidate != nullptr)
        {
            versions.push_back(*candidate);
        }
        bool arbitrary = false;
        for (const auto& spec : set->specifiers())
        {
            arbitrary = arbitrary || spec.op() == Operator::arbitrary;
            ENVCHECK_FUZZ_REQUIRE(Specifier::parse(spec.to_string()).has_value());
        }
        for (const auto& version : versions)
        {
            const bool in_set = set->contains(version, true);
            if (!arbitrary)
            {
                bool all = true;
                for (const auto& spec : set->specifiers())
                {
                    all = all && spec.contains(version, true);
                }
                ENVCHECK_FUZZ_REQUIRE(in_set == all);
            }
            if (in_set)
            {
                ENVCHECK_FUZZ_REQUIRE(satisfiable);
            }
            (void)set->contains(version);
            (void)set->contains(version, false, true);
        }
        std::vector<std::string> strings;
        for (const auto& version : versions)
        {
            strings.push_back(version.to_string());
        }
        strings.emplace_back(text);
        const std::vector<std::string_view> views(strings.begin(), strings.end());
        for (const auto& item : set->filter(views))
        {
            ENVCHECK_FUZZ_REQUIRE(set->contains(item, true));
        }
        (void)set->filter(views, false);
    }
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    check_version(text);
    if (const auto spec = Specifier::parse(text))
    {
        ENVCHECK_FUZZ_REQUIRE(Specifier::parse(spec->to_string()).value() == *spec);
        (void)spec->prereleases();
    }
    const std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos)
    {
        check_set(text, nullptr);
        return 0;
    }
    const auto version = Version::parse(text.substr(newline + 1));
    check_version(text.substr(newline + 1));
    check_set(text.substr(0, newline), version ? &*version : nullptr);
    return 0;
}
