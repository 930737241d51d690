// A pip package's requirement line and back (formats/pip_reference.hpp): every kind of source
// keeps where it came from, and reading the line gives the package again.
#include <optional>
#include <string>
#include <vector>

#include "formats/pip_reference.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    auto pip(std::string name, std::string version) -> model::Package
    {
        model::Package package;
        package.manager = model::Manager::pip;
        package.name = std::move(name);
        package.version = std::move(version);
        return package;
    }

    auto with_url(model::Package package, std::string url, std::string sha256 = {})
      -> model::Package
    {
        package.url = std::move(url);
        package.sha256 = std::move(sha256);
        return package;
    }

    auto with_direct(model::Package package, std::string url, std::string vcs = {},
                     std::string commit = {}, bool editable = false) -> model::Package
    {
        package.direct_url =
          model::DirectUrl{ std::move(url), std::move(vcs), std::move(commit), "", "", editable };
        return package;
    }

    const std::string sha = "7f2ba7f7c0459320a521696f6b5bccc187f59890b23c9dfb6c49b0b87c6bfc97";
    const std::string commit = "2b90b9f5ceec907a1c18123530e92e794ad901a4";

    TEST_CASE("pip_requirement keeps where a package came from", "[formats][PipReference]")
    {
        struct Case
        {
            model::Package package;
            std::string line;
        };
        const std::vector<Case> cases{
            // a release from PyPI: the version is enough
            { pip("requests", "2.32.3"), "requests==2.32.3" },
            { with_url(
                pip("six", "1.17.0"),
                "https://files.pythonhosted.org/packages/b7/ce/six-1.17.0-py2.py3-none-any.whl",
                sha),
              "six==1.17.0" },
            // a wheel from another index keeps its URL and hash
            { with_url(pip("torch", "2.6.0+cu124"),
                       "https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp310-cp310-"
                       "linux_x86_64.whl",
                       sha),
              "torch @ https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp310-cp310-"
              "linux_x86_64.whl#sha256=" +
                sha },
            // version control keeps its commit (pixi writes it as the fragment)
            { with_url(pip("sam-2", "1.0"),
                       "git+https://github.com/facebookresearch/sam2.git?branch=main#" + commit),
              "sam-2 @ git+https://github.com/facebookresearch/sam2.git@" + commit },
            { with_direct(pip("tool", "0.1"), "https://github.com/x/tool.git", "git", commit),
              "tool @ git+https://github.com/x/tool.git@" + commit },
            { with_direct(pip("tool", "0.1"), "https://github.com/x/tool.git", "git", commit, true),
              "-e git+https://github.com/x/tool.git@" + commit + "#egg=tool" },
            // local projects and archives
            { with_direct(pip("coastseg", "1.7.2"), "./", "", "", true), "-e ./" },
            { with_direct(pip("proj", "1.0"), "file:///home/u/proj", "", "", true),
              "-e file:///home/u/proj" },
            { with_direct(pip("proj", "1.0"), "file:///home/u/dist/proj-1.0.tar.gz"),
              "proj @ file:///home/u/dist/proj-1.0.tar.gz" },
            { with_direct(pip("minimal-project", "0.1"), "../pkgs/minimal-project"),
              "../pkgs/minimal-project" },
            // an archive installed from a URL (direct_url.json archive_info)
            { [&]
              {
                  auto package = with_direct(pip("x", "1.0"), "https://example.com/x-1.0.tar.gz");
                  package.direct_url->archive_sha256 = sha;
                  return package;
              }(),
              "x @ https://example.com/x-1.0.tar.gz#sha256=" + sha },
            { pip("unversioned", ""), "unversioned" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.line);
            CHECK(formats::pip_requirement(test.package) == test.line);
        }
    }

    TEST_CASE("package_from_pip_line reads what pip_requirement writes", "[formats][PipReference]")
    {
        struct Case
        {
            std::string line;
            std::string name;
            std::string version;
            std::string url;
            std::string vcs_url;
            std::string commit;
            bool editable = false;
        };
        const std::vector<Case> cases{
            { "requests==2.32.3", "requests", "2.32.3", "", "", "", false },
            { "requests === 2.32.3", "requests", "2.32.3", "", "", "", false },
            { "numpy>=1.26", "numpy", "", "", "", "", false },
            { "torch @ https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp310-cp310-"
              "linux_x86_64.whl#sha256=" +
                sha,
              "torch", "2.6.0+cu124",
              "https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp310-cp310-"
              "linux_x86_64.whl",
              "", "", false },
            { "sam-2 @ git+https://github.com/facebookresearch/sam2.git@" + commit, "sam-2", "", "",
              "https://github.com/facebookresearch/sam2.git", commit, false },
            { "-e git+https://github.com/x/tool.git@" + commit + "#egg=tool", "tool", "", "",
              "https://github.com/x/tool.git", commit, true },
            { "-e ./", "", "", "", "./", "", true },
            { "proj @ file:///home/u/dist/proj-1.0.tar.gz", "proj", "1.0", "",
              "file:///home/u/dist/proj-1.0.tar.gz", "", false },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.line);
            const auto package = formats::package_from_pip_line(test.line);
            REQUIRE(package.has_value());
            CHECK(package->manager == model::Manager::pip);
            CHECK(package->name == test.name);
            CHECK(package->version == test.version);
            CHECK(package->url == test.url);
            CHECK(package->direct_url.has_value() == !test.vcs_url.empty());
            if (package->direct_url)
            {
                CHECK(package->direct_url->url == test.vcs_url);
                CHECK(package->direct_url->commit_id == test.commit);
                CHECK(package->direct_url->editable == test.editable);
            }
            if (!package->name.empty())
            {
                // and writing it again gives a line that reads the same
                const auto again =
                  formats::package_from_pip_line(formats::pip_requirement(*package));
                REQUIRE(again.has_value());
                CHECK(again->name == package->name);
                CHECK(again->direct_url == package->direct_url);
            }
        }
        for (const std::string not_a_package :
             { "", "# a comment", "--extra-index-url https://x/simple", "not a requirement!" })
        {
            CAPTURE(not_a_package);
            CHECK_FALSE(formats::package_from_pip_line(not_a_package).has_value());
        }
    }

    TEST_CASE("vcs_direct_url reads the lock formats' VCS locators", "[formats][PipReference]")
    {
        struct Case
        {
            std::string locator;
            std::string url;
            std::string commit;
            std::string requested;
        };
        const std::vector<Case> cases{
            { "git+https://github.com/dateutil/dateutil@" + commit,
              "https://github.com/dateutil/dateutil", commit, "" },
            { "git+https://github.com/a/b.git?rev=v1.2#" + commit, "https://github.com/a/b.git",
              commit, "v1.2" },
            { "git+https://github.com/a/b.git?subdirectory=pkg&branch=dev#" + commit,
              "https://github.com/a/b.git#subdirectory=pkg", commit, "dev" },
            { "git+ssh://git@github.com/a/b.git@main", "ssh://git@github.com/a/b.git", "", "main" },
            { "git+https://github.com/a/b.git@v2#egg=b", "https://github.com/a/b.git", "", "v2" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.locator);
            const auto url = formats::vcs_direct_url(test.locator);
            REQUIRE(url.has_value());
            CHECK(url->vcs == "git");
            CHECK(url->url == test.url);
            CHECK(url->commit_id == test.commit);
            CHECK(url->requested_revision == test.requested);
        }
        CHECK(formats::pip_requirement(with_direct(
                pip("b", ""), "https://github.com/a/b.git#subdirectory=pkg", "git", commit)) ==
              "b @ git+https://github.com/a/b.git@" + commit + "#subdirectory=pkg");
        for (const std::string not_vcs :
             { "https://x/y.whl", "./pkg", "git+notaurl", "C:\\pkgs\\x", "" })
        {
            CHECK_FALSE(formats::vcs_direct_url(not_vcs).has_value());
        }
    }
}
