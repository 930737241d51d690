// libFuzzer target for conda-meta records: the fast reader and the full JSON reader take any
// bytes without a crash, and when the full reader accepts a record, so does the fast path (which
// hands every record it rejects to the full reader).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/conda_meta.hpp"
#include "fuzz_require.hpp"

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const envcheck::formats::CondaMetaOptions options{ true };
    const auto fast = envcheck::formats::parse_conda_meta(text, "conda-meta/fuzz.json", options);
    const auto full =
      envcheck::formats::parse_conda_meta_full(text, "conda-meta/fuzz.json", options);
    ENVCHECK_FUZZ_REQUIRE(!full || fast); // the fast reader accepts what the full one does
    return 0;
}
