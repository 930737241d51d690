// libFuzzer target for specs::Version::parse: never crash; whatever parses re-parses from its
// text to an equal version, and the order stays consistent with a few fixed versions.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_require.hpp"
#include "specs/version.hpp"

using envcheck::specs::Version;

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto version = Version::parse(text);
    if (!version)
    {
        return 0;
    }
    const auto again = Version::parse(version->to_string());
    ENVCHECK_FUZZ_REQUIRE(again && *again == *version);
    ENVCHECK_FUZZ_REQUIRE(again->to_string() == version->to_string());
    ENVCHECK_FUZZ_REQUIRE(version->starts_with(*version) && *version <= *version);
    static const Version fixed[] = { Version::parse("0").value(), Version::parse("1.2.3").value(),
                                     Version::parse("1.2.3post1").value(),
                                     Version::parse("1!0.1dev").value(),
                                     Version::parse("1.0+local.2").value() };
    for (const auto& other : fixed)
    {
        const bool less = *version < other;
        const bool greater = *version > other;
        const bool equal = *version == other;
        ENVCHECK_FUZZ_REQUIRE(
          static_cast<int>(less) + static_cast<int>(greater) + static_cast<int>(equal) == 1);
        (void)version->starts_with(other);
        (void)other.starts_with(*version);
        (void)version->compatible_with(other);
    }
    if (const auto floor = version->prefix_floor())
    {
        const auto ceiling = version->next_prefix_bound();
        ENVCHECK_FUZZ_REQUIRE(ceiling && *floor < *version && *version < *ceiling);
    }
    return 0;
}
