#include <string>
#include <vector>

#include "specs/channel.hpp"
#include "tests/catch.hpp"

using envcheck::specs::Channel;

namespace
{
    TEST_CASE("split_subdir", "[specs][Channel]")
    {
        struct Case
        {
            const char* text;
            const char* channel;
            const char* subdir;
        };
        const std::vector<Case> table = {
            { "conda-forge", "conda-forge", "" },
            { "conda-forge/linux-64", "conda-forge", "linux-64" },
            { "conda-forge/label/dev", "conda-forge/label/dev", "" },
            { "https://conda.anaconda.org/conda-forge/osx-arm64/",
              "https://conda.anaconda.org/conda-forge", "osx-arm64" },
            { "*/noarch", "*", "noarch" },
        };
        for (const auto& c : table)
        {
            CAPTURE(c.text);
            const auto split = envcheck::specs::split_subdir(c.text);
            CHECK(split.channel == c.channel);
            CHECK(std::string(split.subdir.value_or("")) == c.subdir);
        }
    }

    TEST_CASE("record_channel_names", "[specs][Channel]")
    {
        struct Case
        {
            const char* record;
            const char* name;
            const char* canonical;
        };
        const std::vector<Case> table = {
            { "https://conda.anaconda.org/conda-forge/", "conda-forge", "conda-forge" },
            { "https://conda.anaconda.org/conda-forge/linux-64", "conda-forge", "conda-forge" },
            { "http://conda.anaconda.org/pytorch", "pytorch", "pytorch" },
            { "conda-forge", "conda-forge", "conda-forge" },
            { "https://repo.anaconda.com/pkgs/main/osx-64", "pkgs/main", "defaults" },
            { "pkgs/r", "pkgs/r", "defaults" },
            { "defaults", "defaults", "defaults" },
            // Not part of defaults on Linux (conda.models on Linux, differential testing).
            { "pkgs/msys2", "pkgs/msys2", "pkgs/msys2" },
            { "https://repo.anaconda.com/pkgs/msys2/win-64", "https://repo.anaconda.com/pkgs/msys2",
              "https://repo.anaconda.com/pkgs/msys2" },
            { "https://repo.prefix.dev/my-channel/", "https://repo.prefix.dev/my-channel",
              "https://repo.prefix.dev/my-channel" },
            { "", "", "" },
        };
        for (const auto& c : table)
        {
            CAPTURE(c.record);
            const auto names = envcheck::specs::record_channel_names(c.record);
            CHECK(names.name == c.name);
            CHECK(names.canonical == c.canonical);
        }
    }

    TEST_CASE("Channel::parse and matches (conda ChannelMatch)", "[specs][Channel]")
    {
        struct Case
        {
            const char* spec;
            const char* record;
            bool match;
        };
        const std::vector<Case> table = {
            { "conda-forge", "https://conda.anaconda.org/conda-forge/linux-64", true },
            { "Conda-Forge", "conda-forge", true },
            { "https://conda.anaconda.org/conda-forge", "conda-forge", true },
            { "conda-forge", "https://repo.anaconda.com/pkgs/main", false },
            { "defaults", "pkgs/main", true },
            { "defaults", "https://repo.anaconda.com/pkgs/r/noarch", true },
            { "pkgs/main", "defaults", false },
            { "defaults", "https://repo.anaconda.com/pkgs/msys2/win-64", false },
            { "pkgs/msys2", "https://repo.anaconda.com/pkgs/main", false },
            { "https://repo.anaconda.com/pkgs/main", "defaults", false },
            { "https://repo.anaconda.com/pkgs/main", "https://repo.anaconda.com/pkgs/main/linux-64",
              true },
            { "https://repo.prefix.dev/my-channel", "https://repo.prefix.dev/my-channel/", true },
            { "conda-*", "https://conda.anaconda.org/conda-forge", true },
            { "conda-*", "bioconda", false },
            { "*", "anything", true },
            { "conda-forge", "", false },
        };
        for (const auto& c : table)
        {
            INFO(c.spec << " on " << c.record);
            const auto channel = Channel::parse(c.spec);
            REQUIRE(channel.has_value());
            CHECK(channel->matches(c.record) == c.match);
        }
    }

    TEST_CASE("Channel names and display", "[specs][Channel]")
    {
        const auto alias = Channel::parse("https://conda.anaconda.org/conda-forge/").value();
        CHECK(alias.kind() == Channel::Kind::url);
        CHECK(alias.name() == "conda-forge");
        CHECK(alias.to_string() == "conda-forge");
        const auto main = Channel::parse("https://repo.anaconda.com/pkgs/main").value();
        CHECK(main.to_string() == "https://repo.anaconda.com/pkgs/main");
        CHECK(main.canonical_name() == "defaults");
        CHECK(main.for_spec() == main);
        const auto member = Channel::parse("pkgs/main").value();
        CHECK(member.canonical_name() == "defaults");
        CHECK(member.for_spec().to_string() == "defaults");
        const auto msys2 = Channel::parse("pkgs/msys2").value();
        CHECK(msys2.canonical_name() == "pkgs/msys2"); // conda on Linux: not in defaults
        CHECK(msys2.for_spec().to_string() == "pkgs/msys2");
        CHECK(Channel::parse("/srv/channel").value().kind() == Channel::Kind::path);
        CHECK(Channel::parse("C:\\channel").value().kind() == Channel::Kind::path);
        CHECK(Channel::parse("http://host:8080/channel").value().kind() == Channel::Kind::url);
        CHECK(Channel::parse("*").value().is_free());
        CHECK(Channel().is_free());
    }

    TEST_CASE("Channel::parse negative", "[specs][Channel]")
    {
        struct Bad
        {
            const char* text;
            std::size_t offset;
            const char* message;
        };
        const std::vector<Bad> table = {
            { "", 0, "expected a channel" },
            { "conda forge", 5, "invalid character ' '" },
            { "conda-forge::", 11, "unexpected ':'" },
            { "a=b", 1, "invalid character '='" },
            { "^(x$", 1, "missing ')'" },
            { "con(optional)da", 3, "invalid character '('" }, // would read as a legacy block
        };
        for (const auto& bad : table)
        {
            CAPTURE(bad.text);
            const auto channel = Channel::parse(bad.text);
            REQUIRE_FALSE(channel.has_value());
            CHECK(channel.error().offset == bad.offset);
            CHECK(channel.error().message.find(bad.message) != std::string::npos);
        }
    }
}
