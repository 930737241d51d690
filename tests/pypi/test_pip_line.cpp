#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pypi/pip_line.hpp"
#include "tests/catch.hpp"

using envcheck::pypi::has_archive_extension;
using envcheck::pypi::parse_pip_line;
using envcheck::pypi::PipLine;
using envcheck::pypi::PipLineErrorKind;
using envcheck::pypi::PipLineKind;

namespace
{
    auto line(std::string_view text) -> PipLine
    {
        auto parsed = parse_pip_line(text);
        INFO("pip line " << text);
        if (!parsed)
        {
            INFO(parsed.error().error.to_string());
        }
        REQUIRE(parsed.has_value());
        return *parsed;
    }

    using Options = std::vector<std::pair<std::string, std::string>>;

    auto options_of(const PipLine& parsed) -> Options
    {
        Options out;
        for (const auto& option : parsed.options)
        {
            out.emplace_back(option.name, option.value);
        }
        return out;
    }

    TEST_CASE("parse_pip_line options", "[pypi][PipLine]")
    {
        const std::pair<std::string_view, Options> cases[] = {
            { "--index-url https://x/simple", { { "--index-url", "https://x/simple" } } },
            { "-i https://x/simple", { { "--index-url", "https://x/simple" } } },
            { "--pypi-url https://x/simple", { { "--index-url", "https://x/simple" } } },
            { "--extra-index-url=https://download.pytorch.org/whl/cu121",
              { { "--extra-index-url", "https://download.pytorch.org/whl/cu121" } } },
            { "--extra-index https://x",
              { { "--extra-index-url", "https://x" } } }, // optparse prefix
            { "-r requirements.txt", { { "--requirement", "requirements.txt" } } },
            { "-rrequirements.txt", { { "--requirement", "requirements.txt" } } },
            { "--requirement=req.txt", { { "--requirement", "req.txt" } } },
            { "-c constraints.txt", { { "--constraint", "constraints.txt" } } },
            { "--pre", { { "--pre", "" } } },
            { "--no-index", { { "--no-index", "" } } },
            { "--prefer-binary", { { "--prefer-binary", "" } } },
            { "--require-hashes", { { "--require-hashes", "" } } },
            { "--no-binary :all:", { { "--no-binary", ":all:" } } },
            { "--only-binary=numpy,scipy", { { "--only-binary", "numpy,scipy" } } },
            { "--trusted-host pypi.example.com", { { "--trusted-host", "pypi.example.com" } } },
            { "--use-feature=truststore", { { "--use-feature", "truststore" } } },
            { "-f https://data.pyg.org/whl/torch-2.1.0+cu121.html",
              { { "--find-links", "https://data.pyg.org/whl/torch-2.1.0+cu121.html" } } },
            { "--index-url https://a/simple --trusted-host a  # mirror",
              { { "--index-url", "https://a/simple" }, { "--trusted-host", "a" } } },
            { "--find-links 'a dir/with space'", { { "--find-links", "a dir/with space" } } },
        };
        for (const auto& [text, expected] : cases)
        {
            CAPTURE(text);
            const auto parsed = line(text);
            CHECK(parsed.kind == PipLineKind::option);
            CHECK(options_of(parsed) == expected);
            CHECK_FALSE(parsed.is_pinned());
            CHECK_FALSE(parsed.is_direct_reference());
        }
        for (const std::string_view text : { "", "   ", "# just a comment", "  # indented" })
        {
            CAPTURE(text);
            CHECK(line(text).kind == PipLineKind::comment);
        }
    }

    TEST_CASE("parse_pip_line requirements", "[pypi][PipLine]")
    {
        const auto pinned = line("numpy==1.26.4 --hash=sha256:abc --hash sha256:def  # pinned");
        CHECK(pinned.kind == PipLineKind::requirement);
        CHECK(pinned.text == "numpy==1.26.4 --hash=sha256:abc --hash sha256:def");
        CHECK(pinned.name == "numpy");
        CHECK(pinned.hashes == std::vector<std::string>{ "sha256:abc", "sha256:def" });
        CHECK(pinned.is_pinned());
        CHECK(pinned.is_verifiable());
        CHECK_FALSE(pinned.is_direct_reference());

        const auto ranged = line("numpy>=1.0; python_version<'3.12'");
        CHECK(ranged.kind == PipLineKind::requirement);
        CHECK_FALSE(ranged.is_pinned());
        REQUIRE(ranged.marker.has_value());
        REQUIRE(ranged.requirement.has_value());
        CHECK(ranged.requirement->to_string() == "numpy>=1.0; python_version < \"3.12\"");

        CHECK(line("torch==2.4.0+cu121").is_pinned());
        CHECK(line("flit-core === 3.9.0 --hash=sha256:1234").is_pinned());
        CHECK_FALSE(line("gradio==3.50.*").is_pinned());
        CHECK(line("wavio >=0.0.5").name == "wavio");

        const auto settings = line("numpy -C setup-args=-Dblas=openblas");
        CHECK(options_of(settings) ==
              Options{ { "--config-settings", "setup-args=-Dblas=openblas" } });

        // pip reads --no-binary on a requirement line and ignores it: not an error.
        const auto odd = line("k-means-constrained --no-binary 0.6.0");
        CHECK(odd.kind == PipLineKind::requirement);
        CHECK(odd.option("--no-binary") != nullptr);
        CHECK(odd.option("--no-binary")->value == "0.6.0");
        CHECK(odd.option("--pre") == nullptr);
    }

    TEST_CASE("parse_pip_line direct references", "[pypi][PipLine]")
    {
        const auto tagged = line("git+https://github.com/x/y.git@v1.0#egg=y");
        CHECK(tagged.kind == PipLineKind::vcs);
        CHECK(tagged.name == "y");
        REQUIRE(tagged.vcs.has_value());
        CHECK(tagged.vcs->vcs == "git");
        CHECK(tagged.vcs->url == "git+https://github.com/x/y.git");
        CHECK(tagged.vcs->ref == "v1.0");
        CHECK_FALSE(tagged.vcs->ref_is_commit());
        CHECK_FALSE(tagged.is_pinned());
        CHECK_FALSE(tagged.is_verifiable());
        CHECK(tagged.is_direct_reference());

        const auto commit =
          line("git+https://github.com/x/y.git@4b41059694619831a7db195b7e0988fc4ff3a307");
        CHECK(commit.name.empty());
        CHECK(commit.is_pinned());
        CHECK(commit.is_verifiable());

        const auto ssh = line("git+ssh://git@github.com/x/y.git@main#egg=y");
        REQUIRE(ssh.vcs.has_value());
        CHECK(ssh.vcs->ref == "main");
        CHECK(ssh.vcs->url == "git+ssh://git@github.com/x/y.git");

        const auto bare = line("git+https://github.com/fbcotter/pytorch_wavelets");
        REQUIRE(bare.vcs.has_value());
        CHECK(bare.vcs->ref.empty());
        CHECK(bare.name.empty());

        const auto named = line("openfold @ "
                                "git+https://github.com/aqlaboratory/"
                                "openfold.git@4b41059694619831a7db195b7e0988fc4ff3a307");
        CHECK(named.kind == PipLineKind::vcs);
        CHECK(named.name == "openfold");
        REQUIRE(named.requirement.has_value());
        CHECK_FALSE(named.requirement->url().empty());
        CHECK(named.is_pinned());

        const auto wheel = line("https://files.pythonhosted.org/packages/24/21/x/"
                                "typing_extensions-4.8.0-py3-none-any.whl#sha256=8f92fc88");
        CHECK(wheel.kind == PipLineKind::url);
        CHECK(wheel.name == "typing-extensions");
        REQUIRE(wheel.file_version.has_value());
        CHECK(wheel.file_version->to_string() == "4.8.0");
        CHECK(wheel.hashes == std::vector<std::string>{ "sha256:8f92fc88" });
        REQUIRE(wheel.requirement.has_value());
        CHECK(wheel.requirement->to_string() == "typing-extensions==4.8.0");
        CHECK(wheel.is_pinned());
        CHECK(wheel.is_verifiable());

        const auto quoted = line("https://download.pytorch.org/whl/cu118/"
                                 "torch-2.0.0%2Bcu118-cp310-cp310-linux_x86_64.whl");
        REQUIRE(quoted.file_version.has_value());
        CHECK(quoted.file_version->to_string() == "2.0.0+cu118");

        const auto with_marker = line("https://x/y-1.0-py3-none-any.whl; python_version < '3.12'");
        REQUIRE(with_marker.marker.has_value());
        CHECK(with_marker.target == "https://x/y-1.0-py3-none-any.whl");
        REQUIRE(with_marker.requirement.has_value());
        CHECK(with_marker.requirement->marker().has_value());

        const auto archive = line("https://github.com/ESMValGroup/dummydata/archive/dev.zip");
        CHECK(archive.kind == PipLineKind::url);
        CHECK(archive.name.empty());
        CHECK_FALSE(archive.is_pinned());
        CHECK_FALSE(archive.is_verifiable());

        const auto dir = line("./env/SE3Transformer/");
        CHECK(dir.kind == PipLineKind::path);
        CHECK(dir.target == "./env/SE3Transformer/");
        const auto local_wheel = line("../dist/foo-1.0-py3-none-any.whl");
        CHECK(local_wheel.kind == PipLineKind::path);
        CHECK(local_wheel.name == "foo");
        CHECK(local_wheel.is_pinned());
        const auto extras = line("./pkg[dev, test]");
        CHECK(extras.target == "./pkg");
        CHECK(extras.extras == std::vector<std::string>{ "dev", "test" });
        const auto sdist = line("foo-1.0.tar.gz");
        CHECK(sdist.kind == PipLineKind::path);
        CHECK(sdist.name == "foo");
    }

    TEST_CASE("parse_pip_line editable", "[pypi][PipLine]")
    {
        const auto here = line("-e .");
        CHECK(here.kind == PipLineKind::editable);
        CHECK(here.target == ".");
        CHECK(here.is_direct_reference());
        CHECK_FALSE(here.is_pinned());
        const auto test_extra = line("-e .[test]");
        CHECK(test_extra.target == ".");
        CHECK(test_extra.extras == std::vector<std::string>{ "test" });
        const auto vcs = line(
          "-e "
          "git+https://github.com/CompVis/taming-transformers.git@master#egg=taming-transformers");
        CHECK(vcs.kind == PipLineKind::editable);
        CHECK(vcs.name == "taming-transformers");
        REQUIRE(vcs.vcs.has_value());
        CHECK(vcs.vcs->ref == "master");
        CHECK_FALSE(vcs.is_pinned());
        const auto long_form = line("--editable=./module_to_install_in_editable_mode");
        CHECK(long_form.target == "./module_to_install_in_editable_mode");
        const auto trailing = line("-e ./pkg extra");
        CHECK(trailing.ignored == std::vector<std::string>{ "extra" });
    }

    TEST_CASE("has_archive_extension: what pip reads as a file", "[pypi][PipLine]")
    {
        const std::vector<std::pair<std::string_view, bool>> cases{
            { "dist/x-1.0-py3-none-any.whl", true },
            { "X-1.0.TAR.GZ", true },
            { "k===1.whl", true },
            { "x===1.tlz", true },
            { "pkg.zip", true },
            { "numpy==1.26", false },
            { "x.whl.txt", false },
            { "tar", false },
        };
        for (const auto& [text, archive] : cases)
        {
            CAPTURE(text);
            CHECK(has_archive_extension(text) == archive);
        }
    }

    TEST_CASE("parse_pip_line negative", "[pypi][PipLine]")
    {
        struct Case
        {
            std::string_view text;
            PipLineErrorKind kind;
            std::size_t offset;
            std::string_view suggestion;
        };
        const Case cases[] = {
            { "--indx-url https://x", PipLineErrorKind::unknown_option, 0, "--index-url" },
            { "--extra-indx-url https://x", PipLineErrorKind::unknown_option, 0,
              "--extra-index-url" },
            { "--no https://x", PipLineErrorKind::ambiguous_option, 0, "" },
            { "--index-url", PipLineErrorKind::missing_value, 0, "" },
            { "-r", PipLineErrorKind::missing_value, 0, "" },
            { "--pre=yes", PipLineErrorKind::unexpected_value, 0, "" },
            { "-x foo", PipLineErrorKind::unknown_option, 0, "" },
            { "numpy --hash=md5:abc", PipLineErrorKind::invalid_value, 6, "sha256" },
            { "numpy --hash=sha256", PipLineErrorKind::invalid_value, 6, "" },
            { "--trusted-host 'unbalanced", PipLineErrorKind::unbalanced_quotes, 15, "" },
            { "gradio=3.36.1", PipLineErrorKind::invalid_requirement, 6, "==" },
            { "numpy>=1.0 ; python_version", PipLineErrorKind::invalid_requirement, 27, "" },
            { "-e https://example.com/pkg.tar.gz", PipLineErrorKind::invalid_reference, 3, "" },
            { "-e git+{ARGH_PATH_PLACEHOLDER}#egg=argh", PipLineErrorKind::invalid_reference, 3,
              "" },
            { "https://x/bad-name.whl", PipLineErrorKind::invalid_reference, 0, "" },
            { "git+https://github.com/x/y.git@", PipLineErrorKind::invalid_reference, 0, "" },
            { "foo --install-option=--x", PipLineErrorKind::unknown_option, 4, "" },
            { "; \r\r", PipLineErrorKind::invalid_requirement, 0, "" }, // found by fuzz_requirement
            { "-e", PipLineErrorKind::missing_value, 0, "" },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.text);
            const auto parsed = parse_pip_line(c.text);
            REQUIRE_FALSE(parsed.has_value());
            const auto& error = parsed.error();
            CHECK(error.kind == c.kind);
            CHECK(error.error.offset == c.offset);
            CHECK(error.error.input == c.text);
            if (!c.suggestion.empty())
            {
                CHECK(error.suggestion == c.suggestion);
            }
        }
        CHECK(parse_pip_line("--indx-url https://x").error().option == "--indx-url");
        CHECK(to_string(PipLineErrorKind::unknown_option) == "unknown_option");
        CHECK(to_string(PipLineKind::vcs) == "vcs");
    }

    // The items of every "pip:" list in an environment file, by a line scan: a "pip:" key
    // (after "- " or not), then "- item" lines indented at least as far as the key.
    auto scan_pip_items(const std::string& text) -> std::vector<std::string>
    {
        std::vector<std::string> items;
        std::istringstream in(text);
        std::string raw;
        bool in_pip = false;
        std::size_t key_column = 0;
        while (std::getline(in, raw))
        {
            if (!raw.empty() && raw.back() == '\r')
            {
                raw.pop_back();
            }
            const std::size_t indent = raw.find_first_not_of(' ');
            if (indent == std::string::npos || raw[indent] == '#')
            {
                continue;
            }
            std::string_view content = std::string_view(raw).substr(indent);
            if (in_pip)
            {
                const bool item = content.starts_with("- ");
                if (indent > key_column || (indent == key_column && item))
                {
                    if (item)
                    {
                        std::string_view value = content.substr(2);
                        value.remove_prefix(std::min(value.find_first_not_of(' '), value.size()));
                        if (!value.empty() && (value.front() == '"' || value.front() == '\''))
                        {
                            const std::size_t close = value.find(value.front(), 1);
                            value = value.substr(1, close == std::string_view::npos
                                                      ? std::string_view::npos
                                                      : close - 1);
                        }
                        else if (const std::size_t comment = value.find(" #");
                                 comment != std::string_view::npos)
                        {
                            value = value.substr(0, comment);
                        }
                        while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
                        {
                            value.remove_suffix(1);
                        }
                        items.emplace_back(value);
                    }
                    continue;
                }
                in_pip = false;
            }
            std::size_t column = indent;
            if (content.starts_with("- "))
            {
                const std::size_t after = content.find_first_not_of(' ', 1);
                column += after;
                content = content.substr(after);
            }
            if (content.starts_with("pip:"))
            {
                const std::string_view rest = content.substr(4);
                const std::size_t next = rest.find_first_not_of(' ');
                if (next == std::string_view::npos || rest[next] == '#')
                {
                    in_pip = true;
                    key_column = column;
                }
            }
        }
        return items;
    }

    TEST_CASE("parse_pip_line corpus", "[pypi][PipLine]")
    {
        const std::filesystem::path dir =
          std::filesystem::path(ENVCHECK_SHARED_DIR) / "corpus" / "envs";
        if (!std::filesystem::is_directory(dir))
        {
            FAIL("shared corpus missing (configure with -DENVCHECK_SHARED_DIR): " << dir.string());
            return;
        }
        // The lines of the corpus that pip itself would reject, and why.
        const std::map<std::string, std::pair<PipLineErrorKind, std::string>> invalid = {
            { "gradio=3.36.1",
              { PipLineErrorKind::invalid_requirement, "a single '=' is not a PEP 440 operator" } },
            { "-e git+{ARGH_PATH_PLACEHOLDER}#egg=argh",
              { PipLineErrorKind::invalid_reference,
                "an unfilled template placeholder from conda's test fixture: no VCS URL" } },
        };
        std::map<std::string, int> invalid_seen;
        std::map<PipLineKind, int> kinds;
        int files = 0;
        int lines = 0;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
        {
            std::ifstream in(entry.path(), std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            ++files;
            for (const auto& item : scan_pip_items(text.str()))
            {
                ++lines;
                CAPTURE(entry.path().filename().string(), item);
                const auto parsed = parse_pip_line(item);
                const auto known = invalid.find(item);
                if (known != invalid.end())
                {
                    REQUIRE_FALSE(parsed.has_value());
                    CHECK(parsed.error().kind == known->second.first);
                    ++invalid_seen[item];
                    continue;
                }
                if (!parsed)
                {
                    FAIL_CHECK(parsed.error().error.to_string());
                    continue;
                }
                ++kinds[parsed->kind];
                if (parsed->kind == PipLineKind::requirement)
                {
                    // Round trip: the requirement's printed form parses to the same requirement.
                    const auto again = parse_pip_line(parsed->requirement->to_string());
                    REQUIRE(again.has_value());
                    CHECK(again->requirement == parsed->requirement);
                }
            }
        }
        // Every listed invalid line is still in the corpus, so the list cannot go stale.
        for (const auto& [item, reason] : invalid)
        {
            CAPTURE(item, reason.second);
            CHECK(invalid_seen[item] > 0);
        }
        CHECK(files > 100);
        CHECK(lines > 700);
        CHECK(kinds[PipLineKind::requirement] > 600);
        CHECK(kinds[PipLineKind::option] > 5);
        CHECK(kinds[PipLineKind::editable] > 5);
        CHECK(kinds[PipLineKind::vcs] > 5);
        CHECK(kinds[PipLineKind::url] > 5);
        CHECK(kinds[PipLineKind::path] >= 1);
    }
}
