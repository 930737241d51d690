// libFuzzer target for formats::RepodataIndex: any bytes must give an index or an error, never a
// crash; and when the full index builds, indexing a few names keeps exactly their records.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "formats/repodata.hpp"

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
        if (!some)
        {
            __builtin_trap();
        }
        for (const auto& name : names)
        {
            const auto expected = all->records(name);
            const auto got = some->records(name);
            if (!std::equal(expected.begin(), expected.end(), got.begin(), got.end()))
            {
                __builtin_trap();
            }
        }
    }
    return 0;
}
