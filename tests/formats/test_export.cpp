#include <string>
#include <vector>

#include "formats/explicit.hpp"
#include "formats/export.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    auto packages() -> std::vector<model::Package>
    {
        auto zlib = formats::package_from_url(
          "https://conda.anaconda.org/conda-forge/linux-64/zlib-1.3.1-hb9d3cd8_2.conda");
        zlib->sha256 = "3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149";
        zlib->md5 = "c9f075ab2f33b3bbee9e62d4ad0a6cd8";
        auto old = formats::package_from_url(
          "https://repo.anaconda.com/pkgs/main/noarch/tzdata-2024a-h04d1e81_0.conda");
        old->md5 = "452af53adae0a5b06eb5d05c707b2f25";
        model::Package local;
        local.name = "mine";
        local.version = "0.1";
        local.build = "0";
        model::Package virtual_package;
        virtual_package.name = "__glibc";
        virtual_package.version = "2.36";
        virtual_package.build = "0";
        model::Package requests;
        requests.manager = model::Manager::pip;
        requests.name = "requests";
        requests.version = "2.32.3";
        model::Package tool;
        tool.manager = model::Manager::pip;
        tool.name = "tool";
        tool.version = "0.1";
        tool.direct_url = model::DirectUrl{ "https://github.com/x/tool.git",
                                            "git",
                                            "0e322af87745eff34caffe4df68456ebc20d9068",
                                            "",
                                            "",
                                            false };
        return { requests, *zlib, tool, *old, local, virtual_package };
    }

    TEST_CASE("render_export explicit", "[formats][Export]")
    {
        formats::ExportOptions options;
        options.platform = "linux-64";
        options.source = "environment.lock.json";
        options.envcheck_version = "0.1.0";
        const auto result =
          formats::render_export(packages(), formats::ExportFormat::explicit_, options);
        CHECK(result.text ==
              "# This file may be used to create an environment using:\n"
              "# $ conda create --name <env> --file <this file>\n"
              "# platform: linux-64\n"
              "# Written by envcheck 0.1.0 from environment.lock.json\n"
              "# 2 pip package(s) follow as '# pip' lines, which micromamba and "
              "conda-lock install read and conda ignores: export --format "
              "requirements lists them for pip\n"
              "@EXPLICIT\n"
              "# no URL for: mine-0.1-0\n"
              "https://repo.anaconda.com/pkgs/main/noarch/"
              "tzdata-2024a-h04d1e81_0.conda#452af53adae0a5b06eb5d05c707b2f25\n"
              "https://conda.anaconda.org/conda-forge/linux-64/"
              "zlib-1.3.1-hb9d3cd8_2.conda#"
              "3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149\n"
              "# pip requests==2.32.3\n"
              "# pip tool @ "
              "git+https://github.com/x/tool.git@0e322af87745eff34caffe4df68456ebc20d9068\n");
        CHECK(result.left_out == std::vector<std::string>{ "mine 0.1 0: no URL recorded" });

        options.hash = formats::ExportHash::md5;
        const auto md5 =
          formats::render_export(packages(), formats::ExportFormat::explicit_, options);
        CHECK(md5.text.find("zlib-1.3.1-hb9d3cd8_2.conda#c9f075ab2f33b3bbee9e62d4ad0a6cd8\n") !=
              std::string::npos);

        // What it writes reads back as the same packages.
        const auto round_trip = formats::parse_explicit(result.text, "exported.txt");
        REQUIRE(round_trip.has_value());
        REQUIRE(round_trip->packages.size() == 4);
        CHECK(round_trip->packages[1].name == "zlib");
        CHECK(round_trip->packages[2].name == "requests");
        CHECK(round_trip->packages[2].version == "2.32.3");
        CHECK(round_trip->packages[3].direct_url->commit_id ==
              "0e322af87745eff34caffe4df68456ebc20d9068");
        CHECK(round_trip->packages[1].sha256 ==
              "3f4365e11b28e244c95ba8579942b0802761ba7bb31c026f50d1a9ea9c728149");
        CHECK(round_trip->machine.platform == "linux-64");
    }

    TEST_CASE("render_export environment and requirements", "[formats][Export]")
    {
        formats::ExportOptions options;
        options.name = "ml";
        const auto environment =
          formats::render_export(packages(), formats::ExportFormat::environment, options);
        CHECK(environment.text == "# Written by envcheck\n"
                                  "name: ml\n"
                                  "channels:\n"
                                  "  - pkgs/main\n"
                                  "  - conda-forge\n"
                                  "dependencies:\n"
                                  "  - mine=0.1=0\n"
                                  "  - pkgs/main::tzdata=2024a=h04d1e81_0\n"
                                  "  - conda-forge::zlib=1.3.1=hb9d3cd8_2\n"
                                  "  - pip:\n"
                                  "      - requests==2.32.3\n"
                                  "      - tool @ git+https://github.com/x/tool.git@"
                                  "0e322af87745eff34caffe4df68456ebc20d9068\n");
        CHECK(environment.left_out.empty());
        const auto requirements =
          formats::render_export(packages(), formats::ExportFormat::requirements, options);
        CHECK(requirements.text ==
              "# Written by envcheck\nrequests==2.32.3\ntool @ "
              "git+https://github.com/x/tool.git@0e322af87745eff34caffe4df68456ebc20d9068\n");
    }

    // From one channel, packages need not name it; pip options come first in the pip section.
    TEST_CASE("render_lock_export", "[formats][Export]")
    {
        model::Lock lock;
        lock.machine.platform = "linux-aarch64"; // a pixi v7 platform named "jetson"
        lock.pip_options = { "--extra-index-url https://download.pytorch.org/whl/cu124" };
        auto zlib = *formats::package_from_url(
          "https://conda.anaconda.org/conda-forge/linux-aarch64/zlib-1.3.1-h86ecc28_2.conda");
        zlib.category = "main";
        model::Package pytest = *formats::package_from_url(
          "https://conda.anaconda.org/conda-forge/noarch/pytest-8.3.4-pyhd8ed1ab_1.conda");
        pytest.category = "dev";
        model::Package torch;
        torch.manager = model::Manager::pip;
        torch.name = "torch";
        torch.version = "2.6.0+cu124";
        torch.url = "https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp310-cp310-"
                    "linux_aarch64.whl";
        torch.sha256 = "7f2ba7f7c0459320a521696f6b5bccc187f59890b23c9dfb6c49b0b87c6bfc97";
        torch.category = "main";
        lock.packages = { zlib, pytest, torch };
        lock.optional_packages = { zlib }; // left out by --category: not exported

        const auto environment =
          formats::render_lock_export(lock, formats::ExportFormat::environment, {});
        CHECK(environment.text ==
              "# Written by envcheck\n"
              "# conda-lock categories: main, dev\n"
              "channels:\n"
              "  - conda-forge\n"
              "dependencies:\n"
              "  - pytest=8.3.4=pyhd8ed1ab_1\n"
              "  - zlib=1.3.1=h86ecc28_2\n"
              "  - pip:\n"
              "      - '--extra-index-url https://download.pytorch.org/whl/cu124'\n"
              "      - torch @ https://download.pytorch.org/whl/cu124/"
              "torch-2.6.0%2Bcu124-cp310-cp310-linux_aarch64.whl"
              "#sha256=7f2ba7f7c0459320a521696f6b5bccc187f59890b23c9dfb6c49b0b87c6bfc97\n");
        const auto explicit_file =
          formats::render_lock_export(lock, formats::ExportFormat::explicit_, {});
        CHECK(explicit_file.text.find("# platform: linux-aarch64\n") != std::string::npos);
        CHECK(explicit_file.text.find(
                "# pip option: --extra-index-url https://download.pytorch.org/whl/cu124\n") !=
              std::string::npos);
        const auto requirements =
          formats::render_lock_export(lock, formats::ExportFormat::requirements, {});
        CHECK(requirements.text ==
              "# Written by envcheck\n"
              "# conda-lock categories: main\n"
              "--extra-index-url https://download.pytorch.org/whl/cu124\n"
              "torch @ https://download.pytorch.org/whl/cu124/torch-2.6.0%2Bcu124-cp310-cp310-"
              "linux_aarch64.whl#sha256="
              "7f2ba7f7c0459320a521696f6b5bccc187f59890b23c9dfb6c49b0b87c6bfc97\n");
    }

    TEST_CASE("parse_export_format", "[formats][Export]")
    {
        for (const auto format :
             { formats::ExportFormat::explicit_, formats::ExportFormat::environment,
               formats::ExportFormat::requirements })
        {
            CHECK(formats::parse_export_format(formats::to_string(format)) == format);
        }
        CHECK_FALSE(formats::parse_export_format("yaml").has_value());
    }
}
