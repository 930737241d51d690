// uv.lock: the packages that apply to one environment, their sources and hashes, what markers
// left out, and the version refusals (formats/uv_lock.hpp). The fixture tests/data/locks/uv.lock
// was written by uv (README there).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "formats/lock.hpp"
#include "formats/uv_lock.hpp"
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
            out.push_back(package.name + " " + package.version);
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

    TEST_CASE("parse_uv_lock: the packages each environment gets", "[formats][UvLock]")
    {
        const std::string text = fixture("uv.lock");
        struct Case
        {
            std::string platform;
            std::string python;
            std::vector<std::string> packages;
            std::vector<std::string> optional;
            std::string left_out; // in the note
        };
        const std::vector<Case> cases{
            { "linux-64",
              "3.11.7",
              { "attrs 25.3.0", "demo 0.1.0", "idna 3.10", "iniconfig 2.1.0", "localtool 0.3.0",
                "packaging 26.4" },
              { "sampleproject 4.0.0", "six 1.17.0" },
              "left out for linux-64, python 3.11.7: colorama 0.4.6 (sys_platform == 'win32'), "
              "packaging 23.2 (python_full_version < '3.11')" },
            { "linux-64",
              "3.10.4",
              { "attrs 25.3.0", "demo 0.1.0", "idna 3.10", "iniconfig 2.1.0", "localtool 0.3.0",
                "packaging 23.2" },
              { "sampleproject 4.0.0", "six 1.17.0" },
              "left out for linux-64, python 3.10.4: colorama 0.4.6 (sys_platform == 'win32'), "
              "packaging 26.4 (python_full_version >= '3.11')" },
            { "win-64",
              "3.12.1",
              { "attrs 25.3.0", "colorama 0.4.6", "demo 0.1.0", "idna 3.10", "iniconfig 2.1.0",
                "localtool 0.3.0", "packaging 26.4" },
              { "sampleproject 4.0.0", "six 1.17.0" },
              "left out for win-64, python 3.12.1: packaging 23.2 (python_full_version < '3.11')" },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.platform, c.python);
            const auto lock =
              formats::parse_uv_lock(text, "uv.lock", { c.platform, "default", {}, c.python });
            REQUIRE(lock.has_value());
            CHECK(lock->format == model::LockFormat::uv);
            CHECK(lock->format_version == "1");
            CHECK(labels(lock->packages) == c.packages);
            CHECK(labels(lock->optional_packages) == c.optional);
            const auto note = std::find_if(lock->notes.begin(), lock->notes.end(),
                                           [&](const std::string& n)
                                           { return n.find(c.left_out) != std::string::npos; });
            CAPTURE(util::join(lock->notes, " | "));
            CHECK(note != lock->notes.end());
        }
    }

    TEST_CASE("parse_uv_lock: sources and hashes", "[formats][UvLock]")
    {
        const auto lock = formats::parse_uv_lock(fixture("uv.lock"), "uv.lock",
                                                 { "linux-64", "default", {}, "3.11" });
        REQUIRE(lock.has_value());
        const auto& attrs = find(*lock, "attrs"); // from PyPI: its pure wheel
        CHECK(attrs.manager == model::Manager::pip);
        CHECK(attrs.sha256 == "427318ce031701fea540783410126f03899a97ffc6f61596ad581ac2e40e3bc3");
        CHECK(attrs.filename == "attrs-25.3.0-py3-none-any.whl");
        CHECK(attrs.url.empty()); // a PyPI release is name==version
        CHECK_FALSE(attrs.direct_url.has_value());
        CHECK(attrs.requested);
        CHECK_FALSE(find(*lock, "iniconfig").direct_url.has_value());
        const auto& idna = find(*lock, "idna");
        REQUIRE(idna.direct_url.has_value());
        CHECK(idna.direct_url->vcs == "git");
        CHECK(idna.direct_url->url == "https://github.com/kjd/idna");
        CHECK(idna.direct_url->commit_id == "729225d5a8b0e2ba4e94ce5b8d2d0b2d0a9e8f19");
        const auto& demo = find(*lock, "demo");
        REQUIRE(demo.direct_url.has_value());
        CHECK(demo.direct_url->editable);
        CHECK(demo.direct_url->url == ".");
        const auto& local = find(*lock, "localtool");
        REQUIRE(local.direct_url.has_value());
        CHECK_FALSE(local.direct_url->editable);
        CHECK(local.direct_url->url == "tools/localtool");
        const auto& sample = lock->optional_packages.front();
        REQUIRE(sample.direct_url.has_value());
        CHECK(sample.direct_url->url == "https://example.org/dist/sampleproject-4.0.0.tar.gz");
        CHECK(sample.direct_url->archive_sha256 ==
              "1c3a1f9e2d4f41cf6dbb2e3d0f1b4d5f4a06d5d0c10dd2f3c3a46a9a7d0a3e8b");
        CHECK(lock->pip_options.empty()); // PyPI alone
    }

    TEST_CASE("parse_uv_lock: indexes, find-links, virtual roots and workspaces",
              "[formats][UvLock]")
    {
        const std::string text = R"(version = 1
revision = 3
requires-python = ">=3.10"

[manifest]
members = ["app", "lib"]

[[package]]
name = "app"
version = "1.0.0"
source = { virtual = "packages/app" }
dependencies = [{ name = "torch" }, { name = "lib" }]

[[package]]
name = "lib"
version = "2.0.0"
source = { editable = "packages/lib" }
dependencies = [{ name = "tiny", marker = "platform_machine == 'x86_64'" }]

[[package]]
name = "torch"
version = "2.5.1+cu124"
source = { registry = "https://download.pytorch.org/whl/cu124" }
wheels = [
    { url = "https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl", hash = "sha256:AB12" },
    { url = "https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl", hash = "sha256:cd34" },
]

[[package]]
name = "tiny"
version = "0.1"
source = { registry = "../wheels" }
wheels = [{ path = "tiny-0.1-py3-none-any.whl" }]
)";
        const auto x86 =
          formats::parse_uv_lock(text, "uv.lock", { "linux-64", "default", {}, "3.11" });
        REQUIRE(x86.has_value());
        // The virtual member is not installed; both members' dependencies are.
        CHECK(labels(x86->packages) ==
              std::vector<std::string>{ "lib 2.0.0", "tiny 0.1", "torch 2.5.1+cu124" });
        CHECK(x86->pip_options ==
              std::vector<std::string>{ "--index-url https://download.pytorch.org/whl/cu124",
                                        "--find-links ../wheels" });
        const auto& torch = find(*x86, "torch"); // no pure wheel, no sdist: the first wheel
        CHECK(torch.sha256 == "ab12");
        CHECK(torch.url == "https://download.pytorch.org/whl/cu124/"
                           "torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl");
        const auto arm =
          formats::parse_uv_lock(text, "uv.lock", { "linux-aarch64", "default", {}, "3.11" });
        REQUIRE(arm.has_value());
        CHECK(labels(arm->packages) ==
              std::vector<std::string>{ "lib 2.0.0", "torch 2.5.1+cu124" });
    }

    TEST_CASE("parse_uv_lock: without a python version, the lowest requires-python allows",
              "[formats][UvLock]")
    {
        const auto lock =
          formats::parse_uv_lock(fixture("uv.lock"), "uv.lock", { "linux-64", "default", {}, "" });
        REQUIRE(lock.has_value());
        CHECK(find(*lock, "packaging").version == "23.2"); // python 3.9
        CHECK(std::any_of(
          lock->notes.begin(), lock->notes.end(),
          [](const std::string& note)
          {
              return note.find("evaluated for python 3.9, the lowest requires-python allows") !=
                     std::string::npos;
          }));
    }

    TEST_CASE("parse_uv_lock negative: file, line, column and kind", "[formats][UvLock]")
    {
        struct Case
        {
            std::string text;
            util::ErrorKind kind;
            std::size_t line;
            std::size_t column;
            std::string message;
        };
        const std::string package = "[[package]]\nname = \"a\"\n";
        const std::vector<Case> cases{
            { "version = 2\n[[package]]\n", util::ErrorKind::unsupported, 1, 11,
              "uv.lock version 2 is not supported (this envcheck reads version 1)" },
            { "revision = 3\n", util::ErrorKind::parse, 1, 1, "no integer `version`" },
            { "version = 1\n[[package\n", util::ErrorKind::parse, 2, 10, "not valid TOML" },
            { "version = 1\n" + package + "source = { registry = \"https://pypi.org/simple\" }\n",
              util::ErrorKind::parse, 2, 1,
              "package 'a' (from registry https://pypi.org/simple) has no version" },
            { "version = 1\n" + package + "version = \"1\"\nsource = { svn = \"x\" }\n",
              util::ErrorKind::unsupported, 5, 18, "has a source of unknown kind 'svn'" },
            { "version = 1\n" + package + "version = \"1\"\n", util::ErrorKind::parse, 2, 1,
              "package 'a' needs a source" },
            { "version = 1\n" + package +
                "version = \"1\"\nsource = { virtual = \".\" }\ndependencies = [{ name = \"b\" "
                "}]\n",
              util::ErrorKind::parse, 6, 17, "dependency 'b' is not a package of the lock" },
            { "version = 1\n" + package +
                "version = \"1\"\nsource = { virtual = \".\" }\n"
                "dependencies = [{ name = \"a\", marker = \"python_version >< '3'\" }]\n",
              util::ErrorKind::parse, 6, 57, "expected a marker variable" },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.text);
            const auto lock =
              formats::parse_uv_lock(c.text, "uv.lock", { "linux-64", "default", {}, "3.11" });
            REQUIRE_FALSE(lock.has_value());
            CAPTURE(lock.error().to_string());
            CHECK(lock.error().kind == c.kind);
            CHECK(lock.error().where.file == "uv.lock");
            CHECK(lock.error().where.line == c.line);
            CHECK(lock.error().where.column == c.column);
            CHECK(lock.error().message.find(c.message) != std::string::npos);
        }
    }

    TEST_CASE("parse_uv_lock: a newer revision is read, with a note", "[formats][UvLock]")
    {
        const auto lock = formats::parse_uv_lock("version = 1\nrevision = 99\n", "uv.lock",
                                                 { "linux-64", "default", {}, "3.11" });
        REQUIRE(lock.has_value());
        CHECK(lock->packages.empty());
        CHECK(lock->notes.front() ==
              "uv.lock: uv.lock revision 99 is newer than envcheck knows (5); fields added since "
              "are not read");
    }

    TEST_CASE("uv.lock in the lock-format registry", "[formats][UvLock]")
    {
        const std::string text = fixture("uv.lock");
        for (const auto* name : { "uv.lock", "project/uv.lock", "any-name.toml" })
        {
            CAPTURE(name);
            const auto format = formats::detect_lock_format(text, name);
            REQUIRE(format.has_value());
            CHECK(*format == model::LockFormat::uv);
        }
        CHECK(formats::lock_format_by_file_name("sub/uv.lock") == model::LockFormat::uv);
        CHECK(formats::lock_format_info(model::LockFormat::uv).description == "a uv.lock");
        const auto outline = formats::outline_lock(text, "uv.lock");
        REQUIRE(outline.has_value());
        CHECK(outline->format == model::LockFormat::uv);
        CHECK(outline->format_version == "1");
        CHECK(outline->packages == 10);
        const auto any =
          formats::parse_any_lock(text, "uv.lock", { "linux-64", "default", {}, "3.11" });
        REQUIRE(any.has_value());
        CHECK(any->packages.size() == 6);
        const auto categories =
          formats::parse_any_lock(text, "uv.lock", { "linux-64", "default", { "dev" }, "3.11" });
        REQUIRE_FALSE(categories.has_value());
        CHECK(categories.error().kind == util::ErrorKind::usage);
    }
}
