// libFuzzer target for formats::RepodataIndex: any bytes must give an index or an error, never a
// crash; and when the full index builds, indexing a few names keeps exactly their records.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/repodata.hpp"
#include "fuzz_require.hpp"

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int
{
    using envcheck::formats::RepodataIndex;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    static const std::vector<std::string> names = { "numpy", "pytorch-cuda", "a" };
    const auto all = RepodataIndex::build(text, {});
    const auto some = RepodataIndex::build(text, names);
    if (all)
    {
        // Skipped entries are not validated, so only this direction holds.
        ENVCHECK_FUZZ_REQUIRE(some.has_value());
        for (const auto& name : names)
        {
            const auto expected = all->records(name);
            const auto got = some->records(name);
            ENVCHECK_FUZZ_REQUIRE(
              std::equal(expected.begin(), expected.end(), got.begin(), got.end()));
        }
    }
    return 0;
}
