// libFuzzer target for formats::parse_condarc and channel resolution: any text must give a
// configuration or an error with a position, never a crash or an escaping exception.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "formats/channel_config.hpp"

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int
{
    using namespace envcheck::formats;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const auto config = parse_condarc(text, ".condarc");
    if (!config)
    {
        return 0;
    }
    const auto params =
      make_resolve_params(*config, choose_channel_alias("", "", *config), "linux-64");
    if (config->channels)
    {
        static_cast<void>(resolve_channels(*config->channels, params));
    }
    static_cast<void>(resolve_channel("defaults", params));
    return 0;
}
