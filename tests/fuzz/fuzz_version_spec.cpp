// libFuzzer target for specs::VersionSpec::parse: never crash; a parsed spec prints to a text
// that re-parses to an equal spec, and satisfiability is never "unsatisfiable" for a spec that
// contains one of a few fixed versions (the interval reasoning must stay sound).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_require.hpp"
#include "specs/version_spec.hpp"

using envcheck::specs::Satisfiability;
using envcheck::specs::Version;
using envcheck::specs::VersionSpec;

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto spec = VersionSpec::parse(text);
    if (!spec)
    {
        return 0;
    }
    const std::string printed = spec->to_string();
    const auto again = VersionSpec::parse(printed);
    ENVCHECK_FUZZ_REQUIRE(again && *again == *spec && again->to_string() == printed);
    static const Version fixed[] = {
        Version::parse("0").value(),      Version::parse("1.2").value(),
        Version::parse("1.2.3").value(),  Version::parse("1.2.3a1").value(),
        Version::parse("1.3dev").value(), Version::parse("2.0.post1").value(),
        Version::parse("1!1.0").value(),  Version::parse("1.2+3").value(),
        Version::parse("10.4.1").value(),
    };
    const Satisfiability alone = spec->satisfiability();
    for (const auto& version : fixed)
    {
        ENVCHECK_FUZZ_REQUIRE(!spec->contains(version) || alone != Satisfiability::unsatisfiable);
    }
    (void)spec->intersects(*spec);
    (void)spec->is_free();
    return 0;
}
