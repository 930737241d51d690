// libFuzzer target for the lock readers (envcheck's JSON, conda-lock.yml, pixi.lock, @EXPLICIT,
// uv.lock, pylock.toml): any bytes give an outline or an error, never a crash, a hang or undefined
// behaviour. Seeds: tests/data/locks, tests/fuzz/corpus/toml_lock (uv.lock and pylock.toml
// edge cases: cycles through extras, every source kind, dangling dependencies, newer versions,
// bad markers) and the shared corpus.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "formats/lock.hpp"

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    static_cast<void>(envcheck::formats::outline_lock(text, "fuzz.lock"));
    static_cast<void>(
      envcheck::formats::parse_any_lock(text, "fuzz.lock", { "linux-64", "default", {}, "3.11" }));
    return 0;
}
