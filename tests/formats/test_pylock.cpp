// pylock.toml (PEP 751): packages selected by their markers, sources and hashes, and the
// version refusals (formats/pylock.hpp). The fixture tests/data/locks/pylock.toml was exported
// by uv (README there).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/lock.hpp"
#include "formats/pylock.hpp"
#include "tests/catch.hpp"
#include "util/strings.hpp"

using namespace envcheck;
namespace fs = std::filesystem;

namespace
{
    auto fixture(const std::string& name) -> std::string
    {
        std::ifstream in(fs::path(ENVCHECK_TEST_DATA_DIR) / "locks" / name, std::ios::binary);
        std::ostringstream out;
        out << in.rdbuf();
        return out.str();
    }

    auto labels(const std::vector<model::Package>& packages) -> std::vector<std::string>
    {
        std::vector<std::string> out;
        for (const auto& package : packages)
        {
            out.push_back(package.name + (package.version.empty() ? "" : " " + package.version));
        }
        return out;
    }

    auto find(const model::Lock& lock, std::string_view name) -> const model::Package&
    {
        const auto found = std::find_if(lock.packages.begin(), lock.packages.end(),
                                        [&](const model::Package& p) { return p.name == name; });
        REQUIRE(found != lock.packages.end());
        return *found;
    }

    TEST_CASE("parse_pylock: the packages each environment gets", "[formats][Pylock]")
    {
        const std::string text = fixture("pylock.toml");
        struct Case
        {
            std::string platform;
            std::string python;
            std::vector<std::string> packages;
            std::string left_out;
        };
        const std::vector<Case> cases{
            { "linux-64",
              "3.11.7",
              { "attrs 25.3.0", "demo", "idna", "iniconfig 2.1.0", "packaging 26.4", "six 1.17.0" },
              "left out for linux-64, python 3.11.7: colorama 0.4.6 (sys_platform == 'win32'), "
              "packaging 23.2 (python_full_version < '3.11')" },
            { "osx-arm64",
              "3.9.18",
              { "attrs 25.3.0", "demo", "idna", "iniconfig 2.1.0", "packaging 23.2", "six 1.17.0" },
              "packaging 26.4 (python_full_version >= '3.11')" },
            { "win-64",
              "3.13.0",
              { "attrs 25.3.0", "colorama 0.4.6", "demo", "idna", "iniconfig 2.1.0",
                "packaging 26.4", "six 1.17.0" },
              "left out for win-64, python 3.13.0: packaging 23.2" },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.platform, c.python);
            const auto lock =
              formats::parse_pylock(text, "pylock.toml", { c.platform, "default", {}, c.python });
            REQUIRE(lock.has_value());
            CHECK(lock->format == model::LockFormat::pylock);
            CHECK(lock->format_version == "1.0");
            CHECK(labels(lock->packages) == c.packages);
            // Behind `'cli' in extras`: not a default, but an extra the lock offers.
            CHECK(labels(lock->optional_packages) ==
                  std::vector<std::string>{ "sampleproject 4.0.0" });
            CAPTURE(util::join(lock->notes, " | "));
            CHECK(std::any_of(lock->notes.begin(), lock->notes.end(),
                              [&](const std::string& n)
                              { return n.find(c.left_out) != std::string::npos; }));
        }
    }

    TEST_CASE("parse_pylock: sources and hashes", "[formats][Pylock]")
    {
        const auto lock = formats::parse_pylock(fixture("pylock.toml"), "pylock.toml",
                                                { "linux-64", "default", {}, "3.11" });
        REQUIRE(lock.has_value());
        const auto& attrs = find(*lock, "attrs");
        CHECK(attrs.sha256 == "427318ce031701fea540783410126f03899a97ffc6f61596ad581ac2e40e3bc3");
        CHECK(attrs.filename == "attrs-25.3.0-py3-none-any.whl");
        CHECK(attrs.url.empty());
        const auto& idna = find(*lock, "idna");
        REQUIRE(idna.direct_url.has_value());
        CHECK(idna.direct_url->vcs == "git");
        CHECK(idna.direct_url->commit_id == "729225d5a8b0e2ba4e94ce5b8d2d0b2d0a9e8f19");
        CHECK(idna.direct_url->requested_revision == "v3.10");
        const auto& demo = find(*lock, "demo");
        REQUIRE(demo.direct_url.has_value());
        CHECK(demo.direct_url->editable);
        const auto& sample = lock->optional_packages.front();
        REQUIRE(sample.direct_url.has_value());
        CHECK(sample.direct_url->archive_sha256 ==
              "1c3a1f9e2d4f41cf6dbb2e3d0f1b4d5f4a06d5d0c10dd2f3c3a46a9a7d0a3e8b");
        CHECK(lock->pip_options.empty());
    }

    TEST_CASE("parse_pylock: environments and indexes", "[formats][Pylock]")
    {
        const std::string text = R"(lock-version = "1.0"
created-by = "hand"
environments = ["sys_platform == 'linux'"]

[[packages]]
name = "torch"
version = "2.5.1"
index = "https://download.pytorch.org/whl/cu124"
wheels = [{ url = "https://download.pytorch.org/whl/cu124/torch-2.5.1-cp311-cp311-linux_x86_64.whl", hashes = { sha256 = "AB12" } }]
)";
        const auto linux_lock =
          formats::parse_pylock(text, "pylock.toml", { "linux-64", "default", {}, "3.11" });
        REQUIRE(linux_lock.has_value());
        CHECK(find(*linux_lock, "torch").sha256 == "ab12");
        CHECK(linux_lock->pip_options ==
              std::vector<std::string>{ "--index-url https://download.pytorch.org/whl/cu124" });
        const auto mac =
          formats::parse_pylock(text, "pylock.toml", { "osx-arm64", "default", {}, "3.11" });
        REQUIRE_FALSE(mac.has_value());
        CHECK(mac.error().kind == util::ErrorKind::usage);
        CHECK(mac.error().where.line == 3);
        CHECK(mac.error().message.find("do not include osx-arm64, python 3.11") !=
              std::string::npos);
    }

    TEST_CASE("parse_pylock negative: file, line, column and kind", "[formats][Pylock]")
    {
        struct Case
        {
            std::string text;
            util::ErrorKind kind;
            std::size_t line;
            std::size_t column;
            std::string message;
        };
        const std::string head = "lock-version = \"1.0\"\n[[packages]]\nname = \"a\"\n";
        const std::vector<Case> cases{
            { "lock-version = \"2.0\"\n", util::ErrorKind::unsupported, 1, 16,
              "pylock.toml lock-version '2.0' is not supported (this envcheck reads 1.x)" },
            { "lock-version = \"x\"\n", util::ErrorKind::unsupported, 1, 16,
              "'x' is not supported" },
            { "created-by = \"x\"\n", util::ErrorKind::parse, 1, 1, "no `lock-version`" },
            { "lock-version = \"1.0\"\n[[packages]\n", util::ErrorKind::parse, 2, 12,
              "not valid TOML" },
            { head + "index = \"https://pypi.org/simple\"\nwheels = [{ url = "
                     "\"https://x/a-1-py3-none-any.whl\" }]\n",
              util::ErrorKind::parse, 2, 1, "package 'a' has no version" },
            { head + "version = \"1\"\n", util::ErrorKind::parse, 2, 1,
              "needs exactly one source" },
            { head + "version = \"1\"\nvcs = { type = \"git\", url = \"u\", commit-id = \"c\" }\n"
                     "directory = { path = \".\" }\n",
              util::ErrorKind::parse, 2, 1, "not vcs and directory" },
            { head + "vcs = { type = \"git\", url = \"https://h/r\" }\n", util::ErrorKind::parse, 4,
              7, "vcs needs a commit-id" },
            { head + "marker = \"os_name ~= 'x'\"\ndirectory = { path = \".\" }\n",
              util::ErrorKind::parse, 4, 11, "" },
            { "lock-version = \"1.0\"\n[[packages]]\nversion = \"1\"\n", util::ErrorKind::parse, 2,
              1, "a package has no name" },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.text);
            const auto lock =
              formats::parse_pylock(c.text, "pylock.toml", { "linux-64", "default", {}, "3.11" });
            REQUIRE_FALSE(lock.has_value());
            CAPTURE(lock.error().to_string());
            CHECK(lock.error().kind == c.kind);
            CHECK(lock.error().where.file == "pylock.toml");
            CHECK(lock.error().where.line == c.line);
            CHECK(lock.error().where.column == c.column);
            CHECK(lock.error().message.find(c.message) != std::string::npos);
        }
    }

    TEST_CASE("parse_pylock: a newer minor lock-version is read, with a note", "[formats][Pylock]")
    {
        const auto lock = formats::parse_pylock("lock-version = \"1.7\"\n", "pylock.toml",
                                                { "linux-64", "default", {}, "3.11" });
        REQUIRE(lock.has_value());
        CHECK(lock->format_version == "1.7");
        CHECK(lock->notes.front().find("lock-version 1.7 is newer than envcheck knows (1.0)") !=
              std::string::npos);
    }

    TEST_CASE("pylock.toml in the lock-format registry", "[formats][Pylock]")
    {
        const std::string text = fixture("pylock.toml");
        for (const auto* name : { "pylock.toml", "x/pylock.dev.toml", "exported.toml" })
        {
            CAPTURE(name);
            const auto format = formats::detect_lock_format(text, name);
            REQUIRE(format.has_value());
            CHECK(*format == model::LockFormat::pylock);
        }
        CHECK_FALSE(formats::lock_format_by_file_name("mypylock.toml").has_value());
        CHECK(formats::lock_format_by_file_name("pylock.gpu.toml") == model::LockFormat::pylock);
        const auto outline = formats::outline_lock(text, "pylock.toml");
        REQUIRE(outline.has_value());
        CHECK(outline->format == model::LockFormat::pylock);
        CHECK(outline->format_version == "1.0");
        CHECK(outline->packages == 9);
    }
}
