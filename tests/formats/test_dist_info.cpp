#include <optional>
#include <string>
#include <vector>

#include "formats/dist_info.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    TEST_CASE("parse_core_metadata", "[formats][DistInfo]")
    {
        const auto metadata = formats::parse_core_metadata(
          "Metadata-Version: 2.3\r\n"
          "Name: Requests\r\n"
          "Version: 2.32.3\r\n"
          "Summary: Python HTTP for Humans.\r\n"
          "Requires-Dist: charset-normalizer<4,>=2\r\n"
          "Requires-Dist: PySocks!=1.5.7,>=1.5.6; extra == \"socks\"\r\n"
          "License: Apache 2.0\r\n"
          "        continued license text\r\n"
          "\r\n"
          "Version: 9.9 (the description body is not read)\r\n",
          "METADATA");
        REQUIRE(metadata.has_value());
        CHECK(metadata->name == "Requests");
        CHECK(metadata->version == "2.32.3");
        CHECK(metadata->requires_dist ==
              std::vector<std::string>{ "charset-normalizer<4,>=2",
                                        "PySocks!=1.5.7,>=1.5.6; extra == \"socks\"" });

        const auto folded = formats::parse_core_metadata(
          "Name: a\nRequires-Dist: b;\n  python_version<'3.8'\nVersion: 1\n", "M");
        REQUIRE(folded.has_value());
        CHECK(folded->requires_dist == std::vector<std::string>{ "b; python_version<'3.8'" });
    }

    TEST_CASE("parse_core_metadata negative", "[formats][DistInfo]")
    {
        const auto no_version =
          formats::parse_core_metadata("Metadata-Version: 2.1\nName: a\n", "x/METADATA");
        REQUIRE_FALSE(no_version.has_value());
        CHECK(no_version.error().message == "the metadata has no Version field");
        CHECK(no_version.error().where.file == "x/METADATA");
        const auto no_name = formats::parse_core_metadata("Version: 1\n", "M");
        REQUIRE_FALSE(no_name.has_value());
        CHECK(no_name.error().message == "the metadata has no Name field");
        const auto garbage = formats::parse_core_metadata("Name: a\nthis is not a header\n", "M");
        REQUIRE_FALSE(garbage.has_value());
        CHECK(garbage.error().where.line == 2);
        CHECK_FALSE(formats::parse_core_metadata("", "M").has_value());
    }

    TEST_CASE("parse_direct_url", "[formats][DistInfo]")
    {
        const auto vcs = formats::parse_direct_url(
          R"({"url": "https://github.com/pypa/pip.git", "vcs_info": {"vcs": "git", "requested_revision": "1.3.1",
                "commit_id": "7921be1537eac1e97bc40179a57f0349c2aee67d"}})",
          "direct_url.json");
        REQUIRE(vcs.has_value());
        CHECK(vcs->vcs == "git");
        CHECK(vcs->commit_id == "7921be1537eac1e97bc40179a57f0349c2aee67d");
        CHECK(vcs->requested_revision == "1.3.1");
        const auto archive = formats::parse_direct_url(
          R"({"url": "https://x/pip-23.0-py3-none-any.whl", "archive_info": {"hashes": {"sha256": "ABCD"}}})",
          "d");
        REQUIRE(archive.has_value());
        CHECK(archive->archive_sha256 == "abcd");
        const auto legacy = formats::parse_direct_url(
          R"({"url": "file:///x.whl", "archive_info": {"hash": "sha256=ef"}})", "d");
        REQUIRE(legacy.has_value());
        CHECK(legacy->archive_sha256 == "ef");
        const auto editable = formats::parse_direct_url(
          R"({"url": "file:///home/u/proj", "dir_info": {"editable": true}})", "d");
        REQUIRE(editable.has_value());
        CHECK(editable->editable);
        CHECK_FALSE(formats::parse_direct_url("{}", "d").has_value());
        CHECK_FALSE(formats::parse_direct_url("[", "d").has_value());
    }

    TEST_CASE("parse_installer and parse_dist_directory_name", "[formats][DistInfo]")
    {
        CHECK(formats::parse_installer("pip\n") == "pip");
        CHECK(formats::parse_installer("uv-pixi\r\n") == "uv-pixi");
        CHECK(formats::parse_installer("") == "");
        struct Case
        {
            const char* directory;
            const char* name; // nullptr: not a distribution directory
            const char* version;
            bool egg_info;
        };
        const std::vector<Case> cases{
            { "six-1.16.0.dist-info", "six", "1.16.0", false },
            { "typing_extensions-4.12.2.dist-info", "typing_extensions", "4.12.2", false },
            { "certifi-2018.8.13-py2.7.egg-info", "certifi", "2018.8.13", true },
            { "foo.egg-info", "foo", "", true },
            { "six.dist-info", nullptr, nullptr, false },
            { "six-1.16.0", nullptr, nullptr, false },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.directory);
            const auto parsed = formats::parse_dist_directory_name(test.directory);
            if (test.name == nullptr)
            {
                CHECK_FALSE(parsed.has_value());
                continue;
            }
            REQUIRE(parsed.has_value());
            CHECK(parsed->name == test.name);
            CHECK(parsed->version == test.version);
            CHECK(parsed->egg_info == test.egg_info);
        }
    }
}

namespace
{
    TEST_CASE("decode_base64url", "[formats][DistInfo][Record]")
    {
        struct Case
        {
            std::string_view text;
            std::optional<std::string> bytes;
        };
        const std::vector<Case> cases{
            { "", std::string() },
            { "YQ", std::string("a") },
            { "YWI", std::string("ab") },
            { "YWJj", std::string("abc") },
            { "YQ==", std::string("a") },          // padding tolerated
            { "_-8", std::string("\xff\xef", 2) }, // the urlsafe alphabet
            { "/+8", std::string("\xff\xef", 2) }, // and the standard one
            { "Y", std::nullopt },                 // no length leaves 6 bits over
            { "YQ!", std::nullopt },
        };
        for (const auto& [text, bytes] : cases)
        {
            CAPTURE(text);
            CHECK(formats::decode_base64url(text) == bytes);
        }
    }

    TEST_CASE("parse_record", "[formats][DistInfo][Record]")
    {
        // six 1.16.0's RECORD as pip writes it (hash of an empty file for the last line).
        const auto entries = formats::parse_record(
          "six.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,34549\r\n"
          "six-1.16.0.dist-info/RECORD,,\n"
          "__pycache__/six.cpython-311.pyc,,\n"
          "\"dir,with,commas/a \"\"b\"\".py\",sha1=abc,10\n"
          "../../../bin/tool,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,\n"
          "\n",
          "six-1.16.0.dist-info/RECORD");
        REQUIRE(entries.has_value());
        const std::string empty_sha256 =
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        const std::vector<formats::RecordEntry> expected{
            { "six.py", empty_sha256, "", 34549, 1 },
            { "six-1.16.0.dist-info/RECORD", "", "", std::nullopt, 2 },
            { "__pycache__/six.cpython-311.pyc", "", "", std::nullopt, 3 },
            { "dir,with,commas/a \"b\".py", "", "sha1=abc", 10, 4 },
            { "../../../bin/tool", empty_sha256, "", std::nullopt, 5 },
        };
        CHECK(*entries == expected);
    }

    TEST_CASE("parse_record negative", "[formats][DistInfo][Record]")
    {
        struct Case
        {
            std::string text;
            std::size_t line;
            std::string message;
        };
        const std::vector<Case> cases{
            { "a.py,,\nb.py,sha256=abc\n", 2, "expected 3 fields (path,hash,size) but found 2" },
            { "a.py,,,\n", 1, "expected 3 fields" },
            { ",,\n", 1, "an empty path" },
            { "a.py,sha256=@@,1\n", 1, "is not a sha256" },
            { "a.py,sha256=YWJj,1\n", 1, "is not a sha256" }, // 3 bytes, not 32
            { "a.py,md5,1\n", 1, "is not ALGORITHM=DIGEST" },
            { "a.py,,-1\n", 1, "is not a number of bytes" },
            { "a.py,,99999999999999999999999\n", 1, "is not a number of bytes" },
            { "\"a.py,,\n", 1, "an unterminated quoted field" },
            { std::string("a\0.py,,\n", 8), 1, "a NUL byte" },
        };
        for (const auto& [text, line, message] : cases)
        {
            CAPTURE(text);
            const auto parsed = formats::parse_record(text, "x.dist-info/RECORD");
            REQUIRE_FALSE(parsed.has_value());
            CHECK(parsed.error().where.file == "x.dist-info/RECORD");
            CHECK(parsed.error().where.line == line);
            CHECK(parsed.error().message.find(message) != std::string::npos);
        }
    }
}
