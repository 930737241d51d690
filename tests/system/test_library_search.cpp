#include <filesystem>
#include <fstream>
#include <tuple>
#include <vector>

#include "system/library_search.hpp"
#include "tests/catch.hpp"
#include "tests/system/fixture_root.hpp"

using namespace envcheck::system;

namespace
{
    TEST_CASE("parse_ld_so_conf", "[system][library_search]")
    {
        const auto entries =
          parse_ld_so_conf("# comment\ninclude /etc/ld.so.conf.d/*.conf\n/usr/local/lib  # tail\n"
                           "/opt/a:/opt/b,/opt/c\n\nhwcap 0 nosegneg\ninclude a.conf b.conf\n");
        REQUIRE(entries.size() == 7);
        CHECK(entries[0].include);
        CHECK(entries[0].value == "/etc/ld.so.conf.d/*.conf");
        CHECK(entries[1].value == "/usr/local/lib");
        CHECK(entries[2].value == "/opt/a");
        CHECK(entries[3].value == "/opt/b");
        CHECK(entries[4].value == "/opt/c");
        CHECK(entries[5].include);
        CHECK(entries[6].value == "b.conf");
        CHECK(parse_ld_so_conf("").empty());
    }

    TEST_CASE("library_version_from_name", "[system][library_search]")
    {
        CHECK(library_version_from_name("libcuda.so.580.65.06") == "580.65.06");
        CHECK(library_version_from_name("libnvidia-ml.so.570.26") == "570.26");
        CHECK_FALSE(library_version_from_name("libcuda.so.1"));
        CHECK_FALSE(library_version_from_name("libcuda.so.1.1")); // WSL's soname
        CHECK_FALSE(library_version_from_name("libcuda.so"));
        CHECK_FALSE(library_version_from_name("libcuda.so.580.65.06.bak"));
    }

    TEST_CASE("stub and compat paths", "[system][library_search]")
    {
        CHECK(is_stub_path("/usr/local/cuda/lib64/stubs/libcuda.so"));
        CHECK_FALSE(is_stub_path("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
        CHECK(is_compat_path("/usr/local/cuda-12.8/compat/libcuda.so.1"));
        CHECK(is_compat_path("/opt/conda/pkgs/cuda-compat-12.8/lib/libcuda.so.1"));
        CHECK_FALSE(is_compat_path("/usr/lib64/libcuda.so.1"));
    }

    TEST_CASE("search_libraries", "[system][library_search]")
    {
        SECTION("the driver's libraries through ld.so.conf.d")
        {
            const envcheck::tests::FixtureRoot fixture("h200-ok");
            const auto search = search_libraries(SystemRoot(fixture.path()), {});
            REQUIRE(search.libcuda.size() == 1);
            const auto& libcuda = search.libcuda[0];
            CHECK(libcuda.path == "/usr/lib/x86_64-linux-gnu/libcuda.so.1");
            CHECK(libcuda.real_path == "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06");
            CHECK(libcuda.version == "580.65.06");
            CHECK(libcuda.found_via == "ld.so.conf");
            CHECK_FALSE(libcuda.stub);
            CHECK_FALSE(libcuda.compat);
            REQUIRE(search.libnvidia_ml.size() == 1);
            CHECK(search.libnvidia_ml[0].version == "580.65.06");
            // ld.so.conf first, then the defaults, each once.
            CHECK(search.search_dirs.front() == "/usr/local/lib/x86_64-linux-gnu");
            CHECK(std::count(search.search_dirs.begin(), search.search_dirs.end(),
                             "/usr/lib/x86_64-linux-gnu") == 1);
        }
        SECTION("LD_LIBRARY_PATH comes first")
        {
            const envcheck::tests::FixtureRoot fixture("compat");
            const auto search =
              search_libraries(SystemRoot(fixture.path()),
                               { { "LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu:/nowhere" } });
            REQUIRE(search.libcuda.size() == 2);
            CHECK(search.libcuda[0].found_via == "LD_LIBRARY_PATH");
            CHECK(search.libcuda[0].version == "570.148.08");
            CHECK(search.libcuda[1].compat);
            CHECK(search.search_dirs[1] == "/nowhere");
        }
        SECTION("the forward-compatibility library")
        {
            const envcheck::tests::FixtureRoot fixture("compat");
            const auto search = search_libraries(SystemRoot(fixture.path()), {});
            REQUIRE(search.libcuda.size() == 2);
            CHECK(search.libcuda[0].compat);
            CHECK(search.libcuda[0].version == "580.65.06");
            CHECK(search.libnvidia_ml.size() == 1); // cuda-compat has no NVML
        }
        SECTION("the toolkit's stub")
        {
            const envcheck::tests::FixtureRoot fixture("stub");
            const auto search = search_libraries(SystemRoot(fixture.path()), {});
            REQUIRE(search.libcuda.size() == 1);
            CHECK(search.libcuda[0].stub);
            CHECK(search.libcuda[0].path ==
                  "/usr/local/cuda-13.0/targets/x86_64-linux/lib/stubs/libcuda.so");
            CHECK_FALSE(search.libcuda[0].version);
        }
        SECTION("nothing")
        {
            const envcheck::tests::FixtureRoot fixture("no-libcuda");
            const auto search = search_libraries(SystemRoot(fixture.path()), {});
            CHECK(search.libcuda.empty());
            CHECK(search.libnvidia_ml.empty());
            CHECK_FALSE(search.search_dirs.empty());
        }
    }
}

namespace
{
    TEST_CASE("is_soname_of", "[system][library_search]")
    {
        const std::vector<std::tuple<std::string_view, std::string_view, bool>> cases{
            { "libcudnn", "libcudnn.so.9", true },      { "libcudnn", "libcudnn.so.8", true },
            { "libcudart", "libcudart.so.11.0", true }, { "libcudnn", "libcudnn.so", false },
            { "libcudnn", "libcudnn.so.9.1.0", false }, { "libcublas", "libcublasLt.so.12", false },
            { "libcudnn", "libcudnn_ops.so.9", false }, { "libnccl", "libnccl.so.", false },
            { "libnccl", "libnccl.so.x", false },
        };
        for (const auto& [library, file, expected] : cases)
        {
            CAPTURE(library, file);
            CHECK(is_soname_of(library, file) == expected);
        }
    }

    TEST_CASE("toolkit_library_version", "[system][library_search]")
    {
        CHECK(toolkit_library_version("libcudnn.so.9.1.0") == "9.1.0");
        CHECK(toolkit_library_version("libcublas.so.12.4.5.8") == "12.4.5.8");
        CHECK(toolkit_library_version("libnccl.so.2.23.4") == "2.23.4");
        CHECK_FALSE(toolkit_library_version("libcudnn.so.9"));
        CHECK_FALSE(toolkit_library_version("libcudart.so.11.0"));
        CHECK_FALSE(toolkit_library_version("libcudnn.so"));
        CHECK_FALSE(toolkit_library_version("libcudnn.so.9.1.x"));
    }

    TEST_CASE("find_loadable_libraries: LD_LIBRARY_PATH, then the environment, then the system",
              "[system][library_search]")
    {
        const envcheck::tests::TempDir temp;
        const auto make = [&](const std::string& dir, const std::string& file)
        {
            std::filesystem::create_directories(temp.path() / dir);
            std::ofstream(temp.path() / dir / file) << "not a library";
        };
        make("ld", "libcudnn.so.9.0.0");
        std::filesystem::create_symlink("libcudnn.so.9.0.0", temp.path() / "ld" / "libcudnn.so.9");
        make("env/nvidia/cudnn/lib", "libcudnn.so.9");
        make("env/nvidia/cublas/lib", "libcublas.so.12");
        make("env/nvidia/cublas/lib", "libcublasLt.so.12");
        const Environment environment{ { "LD_LIBRARY_PATH", temp.string() + "/ld:" } };
        const std::vector<SearchDir> env_dirs{
            { temp.string() + "/env/nvidia/cudnn/lib", "pip nvidia-cudnn-cu12 9.1.0.70" },
            { temp.string() + "/env/nvidia/cublas/lib", "pip nvidia-cublas-cu12 12.8.4.1" },
            { temp.string() + "/env/missing", "pip nothing" },
        };
        // The live system's directories may hold copies too (the GPU machine's): only the
        // temporary directory's are this test's.
        std::vector<envcheck::model::LoadableLibrary> found;
        for (auto& library : find_loadable_libraries(SystemRoot("/"), environment, env_dirs,
                                                     { "libcudnn", "libcublas" }))
        {
            if (library.file.path.starts_with(temp.string()))
            {
                found.push_back(std::move(library));
            }
        }
        REQUIRE(found.size() == 3);
        CHECK(found[0].library == "libcudnn");
        CHECK(found[0].file.name == "libcudnn.so.9");
        CHECK(found[0].file.found_via == "LD_LIBRARY_PATH");
        CHECK(found[0].file.version == "9.0.0");
        CHECK(found[0].source.empty());
        CHECK(found[1].file.found_via == "environment");
        CHECK(found[1].source == "pip nvidia-cudnn-cu12 9.1.0.70");
        CHECK_FALSE(found[1].file.version);
        CHECK(found[2].library == "libcublas");
        CHECK(found[2].file.name == "libcublas.so.12");
    }
}
