#include <string>
#include <vector>

#include "formats/explicit.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    TEST_CASE("parse_artifact_name", "[formats][Explicit]")
    {
        struct Case
        {
            const char* filename;
            const char* name; // nullptr: not an artifact name
            const char* version;
            const char* build;
        };
        const std::vector<Case> cases{
            { "numpy-1.26.4-py311h64a7726_0.conda", "numpy", "1.26.4", "py311h64a7726_0" },
            { "_libgcc_mutex-0.1-conda_forge.tar.bz2", "_libgcc_mutex", "0.1", "conda_forge" },
            { "cuda-cudart_linux-64-12.9.79-h3f2d84a_0.conda", "cuda-cudart_linux-64", "12.9.79",
              "h3f2d84a_0" },
            { "ld_impl_linux-64-2.44-ha97dd6f_2.conda", "ld_impl_linux-64", "2.44", "ha97dd6f_2" },
            { "numpy-1.26.4.conda", nullptr, nullptr, nullptr },
            { "numpy-1.26.4-py311.whl", nullptr, nullptr, nullptr },
            { "-1.0-0.conda", nullptr, nullptr, nullptr },
            { "a--0.conda", nullptr, nullptr, nullptr },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.filename);
            const auto parsed = formats::parse_artifact_name(test.filename);
            if (test.name == nullptr)
            {
                CHECK_FALSE(parsed.has_value());
                continue;
            }
            REQUIRE(parsed.has_value());
            CHECK(parsed->name == test.name);
            CHECK(parsed->version == test.version);
            CHECK(parsed->build == test.build);
        }
    }

    TEST_CASE("package_from_url and strip_credentials", "[formats][Explicit]")
    {
        const auto package =
          formats::package_from_url("https://user:secret@conda.anaconda.org/t/tk-123-abc/"
                                    "conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda");
        REQUIRE(package.has_value());
        CHECK(package->name == "zlib");
        CHECK(package->version == "1.3.1");
        CHECK(package->build == "hb9d3cd8_2");
        CHECK(package->subdir == "linux-64");
        CHECK(package->channel == "https://conda.anaconda.org/conda-forge");
        CHECK(package->filename == "zlib-1.3.1-hb9d3cd8_2.conda");
        CHECK(package->url ==
              "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda");

        const auto local =
          formats::package_from_url("file:///tmp/channel/noarch/foo-2.1-py_0.tar.bz2");
        REQUIRE(local.has_value());
        CHECK(local->subdir == "noarch");
        CHECK(local->channel == "file:///tmp/channel");
        CHECK_FALSE(formats::package_from_url("https://example.com/pkg.whl").has_value());
        CHECK(formats::strip_credentials("http://u:p@h.example/x@y") == "http://h.example/x@y");
    }

    TEST_CASE("parse_explicit", "[formats][Explicit]")
    {
        const std::string text =
          "# This file may be used to create an environment using:\n"
          "# platform: linux-64\n"
          "@EXPLICIT\n"
          "https://conda.anaconda.org/conda-forge/linux-64/"
          "_libgcc_mutex-0.1-conda_forge.tar.bz2#D7C89558BA9FA0495403155B64376D81\n"
          "https://conda.anaconda.org/conda-forge/noarch/"
          "setuptools-69.5.1-pyhd8ed1ab_0.conda#sha256:"
          "72d143408507043628b32bed089730b6d5f5445eccc44b59911ec9f262e365e7\n"
          "  "
          "https://repo.anaconda.com/pkgs/main/linux-64/"
          "ca-certificates-2025.2.25-h06a4308_0.conda\n"
          "\n"
          "# pip certifi @ "
          "https://files.pythonhosted.org/packages/4c/dd/"
          "certifi-2023.7.22-py3-none-any.whl#sha256="
          "92d6037539857d8206b8f6ae472e8b77db8058fec5937a1ef3f54304089edbb9\n";
        const auto lock = formats::parse_explicit(text, "spec.txt");
        REQUIRE(lock.has_value());
        CHECK(lock->format == model::LockFormat::explicit_);
        CHECK(lock->machine.platform == "linux-64");
        REQUIRE(lock->packages.size() == 4);
        CHECK(lock->packages[0].name == "_libgcc_mutex");
        CHECK(lock->packages[0].md5 == "d7c89558ba9fa0495403155b64376d81");
        CHECK(lock->packages[0].sha256.empty());
        CHECK(lock->packages[1].sha256 ==
              "72d143408507043628b32bed089730b6d5f5445eccc44b59911ec9f262e365e7");
        CHECK(lock->packages[2].channel == "https://repo.anaconda.com/pkgs/main");
        CHECK(lock->packages[2].md5.empty());
        CHECK(lock->packages[3].manager == model::Manager::pip);
        CHECK(lock->packages[3].name == "certifi");
        CHECK(lock->packages[3].version == "2023.7.22");
        CHECK(lock->packages[3].sha256 ==
              "92d6037539857d8206b8f6ae472e8b77db8058fec5937a1ef3f54304089edbb9");
    }

    TEST_CASE("parse_explicit negative", "[formats][Explicit]")
    {
        struct Case
        {
            std::string text;
            std::size_t line;
            std::size_t column;
            const char* message;
        };
        const std::vector<Case> cases{
            { "@EXPLICIT\nhttps://x/linux-64/a-1-0.conda#abc\n", 2, 32, "neither an md5" },
            { "@EXPLICIT\nnumpy=1.26\n", 2, 1, "not a conda package URL" },
            { "https://x/linux-64/a-1-0.conda\n@EXPLICIT\n", 1, 1, "before the @EXPLICIT" },
            { "# only comments\n", 0, 0, "no line reading @EXPLICIT" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.text);
            const auto lock = formats::parse_explicit(test.text, "spec.txt");
            REQUIRE_FALSE(lock.has_value());
            CHECK(lock.error().where.line == test.line);
            CHECK(lock.error().where.column == test.column);
            CAPTURE(lock.error().message);
            CHECK(lock.error().message.find(test.message) != std::string::npos);
        }
    }

    // conda-lock's `# pip` lines are pip requirements: the version of an sdist whose name has
    // dashes is after the name, a "#md5=None" fragment (what conda-lock wrote when it had no
    // hash) is no hash, version control keeps its commit, credentials are dropped.
    TEST_CASE("parse_explicit reads '# pip' lines as pip requirements", "[formats][Explicit]")
    {
        struct Case
        {
            std::string line;
            std::string name;
            std::string version;
            std::string url;
            std::string sha256;
            std::string commit;
        };
        const std::string hash = "7fe089b05cc18e806dcf3bd764708d86dab922a100f3734eb77fb77a70a1d18c";
        const std::vector<Case> cases{
            { "# pip antlr4-python3-runtime @ https://files.pythonhosted.org/packages/3e/38/"
              "antlr4-python3-runtime-4.9.3.tar.gz#sha256=" +
                hash,
              "antlr4-python3-runtime", "4.9.3",
              "https://files.pythonhosted.org/packages/3e/38/antlr4-python3-runtime-4.9.3.tar.gz",
              hash, "" },
            { "# pip class-resolver @ https://files.pythonhosted.org/packages/a1/"
              "class_resolver-0.3.10-py3-none-any.whl#md5=None",
              "class-resolver", "0.3.10",
              "https://files.pythonhosted.org/packages/a1/class_resolver-0.3.10-py3-none-any.whl",
              "", "" },
            { "# pip pycocotools @ https://files.pythonhosted.org/packages/ef/c6/"
              "pycocotools-2.0.6.tar.gz#sha256=" +
                hash,
              "pycocotools", "2.0.6",
              "https://files.pythonhosted.org/packages/ef/c6/pycocotools-2.0.6.tar.gz", hash, "" },
            { "# pip python-dateutil @ git+https://github.com/dateutil/dateutil@"
              "9eaa5de584f9f374c6e4943069925cc53522ad61",
              "python-dateutil", "", "", "", "9eaa5de584f9f374c6e4943069925cc53522ad61" },
            { "# pip mypackage @ "
              "http://username_d:password_d@d.mychannel.cloud/mypackage-1.0.tar.gz",
              "mypackage", "1.0", "http://d.mychannel.cloud/mypackage-1.0.tar.gz", "", "" },
            { "# pip requests === 2.31.0", "requests", "2.31.0", "", "", "" },
        };
        for (const auto& test : cases)
        {
            CAPTURE(test.line);
            const auto lock = formats::parse_explicit(
              "@EXPLICIT\nhttps://x/linux-64/a-1-0.conda\n" + test.line + "\n", "spec.txt");
            REQUIRE(lock.has_value());
            REQUIRE(lock->packages.size() == 2);
            const auto& pip = lock->packages[1];
            CHECK(pip.manager == model::Manager::pip);
            CHECK(pip.name == test.name);
            CHECK(pip.version == test.version);
            CHECK(pip.url == test.url);
            CHECK(pip.sha256 == test.sha256);
            CHECK(pip.direct_url.has_value() == !test.commit.empty());
            if (pip.direct_url)
            {
                CHECK(pip.direct_url->commit_id == test.commit);
            }
        }
        const auto prose =
          formats::parse_explicit("@EXPLICIT\n# pip packages follow, ask Bob\n", "spec.txt");
        REQUIRE(prose.has_value());
        CHECK(prose->packages.empty());
        CHECK(prose->notes == std::vector<std::string>{
                                "line 2: '# pip' line is not a pip requirement; not read" });
    }
}
