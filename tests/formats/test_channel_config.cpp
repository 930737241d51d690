#include <string>
#include <vector>

#include "formats/channel_config.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using formats::Channel;
using formats::ChannelResolveParams;

namespace
{
    auto resolve(std::string_view channel, const ChannelResolveParams& params = {})
      -> std::vector<Channel>
    {
        auto resolved = formats::resolve_channel(channel, params);
        REQUIRE(resolved);
        return *resolved;
    }

    TEST_CASE("resolve_channel", "[formats][Channel]")
    {
        struct Case
        {
            std::string_view written;
            Channel expected;
        };
        const std::vector<Case> cases = {
            { "conda-forge", { "conda-forge", "https://conda.anaconda.org/conda-forge" } },
            { "nvidia", { "nvidia", "https://conda.anaconda.org/nvidia" } },
            { " pytorch ", { "pytorch", "https://conda.anaconda.org/pytorch" } },
            { "conda-forge/label/dev",
              { "conda-forge/label/dev", "https://conda.anaconda.org/conda-forge/label/dev" } },
            { "https://conda.anaconda.org/conda-forge/",
              { "conda-forge", "https://conda.anaconda.org/conda-forge" } },
            { "https://repo.anaconda.com/pkgs/main",
              { "pkgs/main", "https://repo.anaconda.com/pkgs/main" } },
            { "https://mirror.example.test/conda/nvidia",
              { "https://mirror.example.test/conda/nvidia",
                "https://mirror.example.test/conda/nvidia" } },
            { "HTTP://Example.test/c", { "HTTP://Example.test/c", "HTTP://Example.test/c" } },
            { "file:///srv/channel", { "file:///srv/channel", "file:///srv/channel" } },
            { "/srv/channel/", { "file:///srv/channel", "file:///srv/channel" } },
        };
        for (const auto& [written, expected] : cases)
        {
            CAPTURE(written);
            CHECK(resolve(written) == std::vector<Channel>{ expected });
        }
    }

    TEST_CASE("resolve_channel defaults", "[formats][Channel]")
    {
        CHECK(resolve("defaults") ==
              std::vector<Channel>{ { "pkgs/main", "https://repo.anaconda.com/pkgs/main" },
                                    { "pkgs/r", "https://repo.anaconda.com/pkgs/r" } });
        ChannelResolveParams windows;
        windows.platform = "win-64";
        CHECK(resolve("defaults", windows) ==
              std::vector<Channel>{ { "pkgs/main", "https://repo.anaconda.com/pkgs/main" },
                                    { "pkgs/r", "https://repo.anaconda.com/pkgs/r" },
                                    { "pkgs/msys2", "https://repo.anaconda.com/pkgs/msys2" } });
        ChannelResolveParams mirrored;
        mirrored.default_channels = { "https://mirror.test/main", "extra" };
        CHECK(resolve("defaults", mirrored) ==
              std::vector<Channel>{ { "https://mirror.test/main", "https://mirror.test/main" },
                                    { "extra", "https://conda.anaconda.org/extra" } });
    }

    TEST_CASE("resolve_channel with an alias and custom channels", "[formats][Channel]")
    {
        ChannelResolveParams params;
        params.channel_alias = "https://mirror.test/conda";
        params.custom_channels = { { "nvidia", "https://nv.test/base" },
                                   { "nvidia/label", "https://nv-labels.test" } };
        CHECK(resolve("conda-forge", params) ==
              std::vector<Channel>{ { "conda-forge", "https://mirror.test/conda/conda-forge" } });
        CHECK(resolve("https://mirror.test/conda/bioconda", params) ==
              std::vector<Channel>{ { "bioconda", "https://mirror.test/conda/bioconda" } });
        CHECK(resolve("nvidia", params) ==
              std::vector<Channel>{ { "nvidia", "https://nv.test/base/nvidia" } });
        CHECK(resolve("nvidia/label/cuda-12.1.0", params) ==
              std::vector<Channel>{ { "nvidia/label/cuda-12.1.0",
                                      "https://nv-labels.test/nvidia/label/cuda-12.1.0" } });
        CHECK(resolve("nvidiax", params) ==
              std::vector<Channel>{ { "nvidiax", "https://mirror.test/conda/nvidiax" } });
    }

    TEST_CASE("resolve_channel negative", "[formats][Channel]")
    {
        for (const std::string_view bad :
             { "", "  ", "conda forge", "nodefaults", "./local", "~/channel" })
        {
            CAPTURE(bad);
            auto resolved = formats::resolve_channel(bad, {});
            REQUIRE_FALSE(resolved);
            CHECK(resolved.error().kind == util::ErrorKind::usage);
        }
        ChannelResolveParams looping;
        looping.default_channels = { "defaults" };
        CHECK_FALSE(formats::resolve_channel("defaults", looping));
    }

    TEST_CASE("Channel::repodata_url", "[formats][Channel]")
    {
        const Channel nvidia{ "nvidia", "https://conda.anaconda.org/nvidia" };
        CHECK(nvidia.repodata_url("linux-64") ==
              "https://conda.anaconda.org/nvidia/linux-64/repodata.json");
        CHECK(nvidia.repodata_url("noarch") ==
              "https://conda.anaconda.org/nvidia/noarch/repodata.json");
    }

    TEST_CASE("resolve_channels", "[formats][Channel]")
    {
        const std::vector<std::string> channels = { "pytorch", "nvidia", "nodefaults",
                                                    "https://conda.anaconda.org/nvidia/",
                                                    "defaults" };
        auto resolved = formats::resolve_channels(channels, {});
        REQUIRE(resolved);
        CHECK(*resolved ==
              std::vector<Channel>{ { "pytorch", "https://conda.anaconda.org/pytorch" },
                                    { "nvidia", "https://conda.anaconda.org/nvidia" },
                                    { "pkgs/main", "https://repo.anaconda.com/pkgs/main" },
                                    { "pkgs/r", "https://repo.anaconda.com/pkgs/r" } });
        const std::vector<std::string> bad = { "pytorch", "my channel" };
        CHECK_FALSE(formats::resolve_channels(bad, {}));
    }

    TEST_CASE("environment_channels", "[formats][Channel]")
    {
        const formats::CondaConfig no_condarc;
        const std::vector<std::string> file = { "pytorch", "nvidia" };
        CHECK(formats::environment_channels(file, no_condarc) ==
              std::vector<std::string>{ "pytorch", "nvidia", "defaults" });
        const std::vector<std::string> closed = { "conda-forge", "nodefaults" };
        CHECK(formats::environment_channels(closed, no_condarc) ==
              std::vector<std::string>{ "conda-forge" });
        formats::CondaConfig condarc;
        condarc.channels = std::vector<std::string>{ "conda-forge" };
        CHECK(formats::environment_channels(file, condarc) ==
              std::vector<std::string>{ "pytorch", "nvidia", "conda-forge" });
        condarc.channels = std::vector<std::string>{};
        CHECK(formats::environment_channels(file, condarc) == file);
    }

    TEST_CASE("choose_channel_alias", "[formats][Channel]")
    {
        formats::CondaConfig condarc;
        CHECK(formats::choose_channel_alias("", "", condarc) == "https://conda.anaconda.org");
        condarc.channel_alias = "https://condarc.test";
        CHECK(formats::choose_channel_alias("", "", condarc) == "https://condarc.test");
        CHECK(formats::choose_channel_alias("", "https://env.test/", condarc) ==
              "https://env.test");
        CHECK(formats::choose_channel_alias("option.test/conda", "https://env.test", condarc) ==
              "https://option.test/conda");
        CHECK(formats::choose_channel_alias("  ", "", condarc) == "https://condarc.test");
    }

    TEST_CASE("parse_condarc", "[formats][CondaConfig]")
    {
        auto config = formats::parse_condarc(R"(# a user's .condarc
channels:
  - conda-forge
  - defaults
channel_alias: https://mirror.test/conda/
custom_channels:
  nvidia: https://nv.test/
  internal: artifacts.corp.test/conda
default_channels:
  - https://mirror.test/pkgs/main
show_channel_urls: true
ssl_verify: true
)",
                                             "~/.condarc");
        REQUIRE(config);
        CHECK(config->channel_alias == "https://mirror.test/conda");
        CHECK(config->custom_channels == std::map<std::string, std::string>{
                                           { "internal", "https://artifacts.corp.test/conda" },
                                           { "nvidia", "https://nv.test" } });
        CHECK(config->default_channels ==
              std::vector<std::string>{ "https://mirror.test/pkgs/main" });
        REQUIRE(config->channels);
        CHECK(*config->channels == std::vector<std::string>{ "conda-forge", "defaults" });

        const auto params = formats::make_resolve_params(
          *config, formats::choose_channel_alias("", "", *config), "linux-64");
        CHECK(resolve("pytorch", params) ==
              std::vector<Channel>{ { "pytorch", "https://mirror.test/conda/pytorch" } });
        CHECK(resolve("internal", params) ==
              std::vector<Channel>{ { "internal", "https://artifacts.corp.test/conda/internal" } });
        CHECK(resolve("defaults", params) ==
              std::vector<Channel>{
                { "https://mirror.test/pkgs/main", "https://mirror.test/pkgs/main" } });
    }

    TEST_CASE("parse_condarc of empty files", "[formats][CondaConfig]")
    {
        for (const std::string_view text : { "", "\n", "# only a comment\n", "---\n" })
        {
            CAPTURE(text);
            auto config = formats::parse_condarc(text, ".condarc");
            REQUIRE(config);
            CHECK_FALSE(config->channel_alias);
            CHECK_FALSE(config->channels);
            CHECK(config->custom_channels.empty());
        }
    }

    TEST_CASE("parse_condarc negative", "[formats][CondaConfig]")
    {
        struct Case
        {
            std::string_view text;
            std::size_t line;
            std::string_view message;
        };
        const std::vector<Case> cases = {
            { "channels: [conda-forge\n", 2, "" },
            { "- a\n- b\n", 1, "a .condarc must be a mapping" },
            { "channels: conda-forge\n", 1, "channels must be a list of channels" },
            { "channels:\n  - [a, b]\n", 2, "entries of channels must be strings" },
            { "show_channel_urls: true\nchannel_alias: [a]\n", 2, "'channel_alias' must be a URL" },
            { "channel_alias: ''\n", 1, "'channel_alias' must be a URL" },
            { "custom_channels: [a]\n", 1, "'custom_channels' must map channel names to URLs" },
            { "custom_channels:\n  nvidia: {a: b}\n", 2,
              "'custom_channels' must map channel names to URLs" },
            { "default_channels: {a: b}\n", 1, "default_channels must be a list of channels" },
            // Characters YAML forbids, which yaml-cpp would take (conda refuses the file).
            { std::string_view("\0,\0~\0.", 6), 1,
              "the non-printable character U+0000 is not allowed in YAML (conda's reader "
              "refuses the file)" },
            { "channels:\n  - conda\x01"
              "forge\n",
              2,
              "the non-printable character U+0001 is not allowed in YAML (conda's reader "
              "refuses the file)" },
        };
        for (const auto& [text, line, message] : cases)
        {
            CAPTURE(text);
            auto config = formats::parse_condarc(text, "/home/u/.condarc");
            REQUIRE_FALSE(config);
            CHECK(config.error().kind == util::ErrorKind::parse);
            CHECK(config.error().where.file == "/home/u/.condarc");
            CHECK(config.error().where.line == line);
            if (!message.empty())
            {
                CHECK(config.error().message == message);
            }
        }
    }

    TEST_CASE("parse_platform", "[formats][Channel]")
    {
        for (const std::string_view platform :
             { "linux-64", "linux-aarch64", "osx-arm64", "win-64" })
        {
            auto parsed = formats::parse_platform(platform);
            REQUIRE(parsed);
            CHECK(*parsed == platform);
        }
        CHECK(formats::is_known_subdir("noarch"));
        CHECK_FALSE(formats::is_known_subdir("linux64"));
    }

    TEST_CASE("parse_platform negative", "[formats][Channel]")
    {
        auto typo = formats::parse_platform("linux64");
        REQUIRE_FALSE(typo);
        CHECK(typo.error().message == "unknown platform 'linux64'");
        CHECK(typo.error().hint == "did you mean linux-64?");
        auto noarch = formats::parse_platform("noarch");
        REQUIRE_FALSE(noarch);
        auto nonsense = formats::parse_platform("windows-95-plus");
        REQUIRE_FALSE(nonsense);
        CHECK(nonsense.error().hint.starts_with("platforms: "));
    }
}
