// libFuzzer target for specs::MatchSpec::parse: never crash; the canonical string re-parses,
// to an equal spec (package-URL specs: to the same canonical string, as conda's form drops
// url and fn), and matching a record does not crash. Where the fast path for the common shapes
// answers, the full grammar gives the same spec, text, spans and warnings; a cache of version
// specs changes nothing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_require.hpp"
#include "specs/match_spec.hpp"
#include "specs/match_spec_fast_path.hpp"

using envcheck::specs::MatchSpec;
using envcheck::specs::PackageRecord;
using envcheck::specs::SpecField;
using envcheck::specs::Version;

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    if (const auto common = envcheck::specs::parse_match_spec_common_shape(text))
    {
        const auto full = envcheck::specs::parse_match_spec_full(text);
        bool same = full && *full == *common && full->to_string() == common->to_string() &&
                    full->warnings().size() == common->warnings().size();
        for (const auto field : { SpecField::name, SpecField::version, SpecField::build })
        {
            const auto a = common->span(field);
            const auto b = full ? full->span(field) : a;
            same = same && a.has_value() == b.has_value() &&
                   (!a || (a->offset == b->offset && a->length == b->length));
        }
        ENVCHECK_FUZZ_REQUIRE(same); // the fast path and the full grammar agree
    }
    const auto spec = MatchSpec::parse(text);
    // With a cache of version specs: the same spec, from a miss and then from a hit.
    envcheck::specs::VersionSpecCache versions;
    for (int round = 0; round < 2; ++round)
    {
        const auto cached = MatchSpec::parse(text, versions);
        ENVCHECK_FUZZ_REQUIRE(cached.has_value() == spec.has_value());
        ENVCHECK_FUZZ_REQUIRE(!cached ||
                              (*cached == *spec && cached->to_string() == spec->to_string() &&
                               cached->warnings().size() == spec->warnings().size()));
    }
    if (!spec)
    {
        return 0;
    }
    const std::string printed = spec->to_string();
    const auto again = MatchSpec::parse(printed);
    ENVCHECK_FUZZ_REQUIRE(again && again->to_string() == printed);
    ENVCHECK_FUZZ_REQUIRE(spec->is_package_file() || *again == *spec);
    static const PackageRecord record = []
    {
        PackageRecord r;
        r.name = "numpy";
        r.version = Version::parse("1.26.4").value();
        r.build = "py312h8753938_0";
        r.build_number = 0;
        r.channel = "https://conda.anaconda.org/conda-forge/";
        r.subdir = "linux-64";
        r.md5 = "0123456789abcdef0123456789abcdef";
        r.track_features = { "mkl" };
        return r;
    }();
    (void)spec->matches(record);
    (void)spec->conda_build_form();
    (void)spec->conda_env_form();
    return 0;
}
