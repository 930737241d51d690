#include <filesystem>
#include <fstream>

#include "system/framework_check.hpp"
#include "tests/catch.hpp"
#include "tests/system/fixture_root.hpp"

using namespace envcheck::system;
using namespace std::chrono_literals;

// No CUDA framework can run here (no GPU), so the pass and fail paths run against tiny stand-in
// packages: a `torch` module that has the attributes the check reads. The interpreter, the
// process, the timeout and the parsing are real.
namespace
{
    void write(const std::filesystem::path& path, const std::string& text)
    {
        std::filesystem::create_directories(path.parent_path());
        std::ofstream(path) << text;
    }

    // A prefix with bin/python -> the system python, and a site directory for stand-ins.
    struct FakePrefix
    {
        envcheck::tests::TempDir dir;
        std::string python;
        std::string site;

        FakePrefix()
        {
            std::filesystem::create_directories(dir.path() / "bin");
            std::filesystem::create_symlink("/usr/bin/python3", dir.path() / "bin/python");
            python = find_python(dir.string());
            site = (dir.path() / "site").string();
        }

        [[nodiscard]] auto environment() const -> Environment
        {
            return { { "PYTHONPATH", site }, { "PATH", "/usr/bin:/bin" } };
        }
    };

    const std::string torch_on_gpu = R"PY(
__version__ = "2.11.0+cu130"
class _Version:
    cuda = "13.0"
version = _Version()
float32 = "float32"
class _Tensor:
    def __init__(self, values): self.values = values
    def __mul__(self, k): return _Tensor([v * k for v in self.values])
    def sum(self): return _Tensor(sum(self.values))
    def item(self): return self.values
def arange(n, dtype=None, device=None): return _Tensor(list(range(n)))
class cuda:
    is_available = staticmethod(lambda: True)
    device_count = staticmethod(lambda: 1)
    get_arch_list = staticmethod(lambda: ["sm_80", "sm_90", "compute_90"])
    get_device_name = staticmethod(lambda i: "NVIDIA H200")
    get_device_capability = staticmethod(lambda i: (9, 0))
)PY";

    TEST_CASE("find_python", "[system][framework_check]")
    {
        FakePrefix prefix;
        CHECK(prefix.python == prefix.dir.string() + "/bin/python");
        envcheck::tests::TempDir empty;
        CHECK(find_python(empty.string()).empty());
    }

    TEST_CASE("run_framework_check", "[system][framework_check]")
    {
        FakePrefix prefix;
        SECTION("a framework that is not installed")
        {
            const auto facts =
              run_framework_check(prefix.python, "tensorflow", prefix.environment(), 60s);
            CHECK(facts.framework == "tensorflow");
            CHECK_FALSE(facts.installed);
            CHECK(facts.error.empty());
        }
        SECTION("torch that sees the GPU and computes right")
        {
            write(std::filesystem::path(prefix.site) / "torch/__init__.py", torch_on_gpu);
            const auto facts =
              run_framework_check(prefix.python, "torch", prefix.environment(), 60s);
            INFO(facts.error);
            CHECK(facts.installed);
            CHECK(facts.python == prefix.python);
            CHECK(facts.version == "2.11.0+cu130");
            CHECK(facts.cuda_build == "13.0");
            CHECK(facts.gpu_build == true);
            CHECK(facts.cuda_available == true);
            CHECK(facts.device_count == 1);
            CHECK(facts.arch_list == std::vector<std::string>{ "sm_80", "sm_90", "compute_90" });
            REQUIRE(facts.devices.size() == 1);
            CHECK(facts.devices[0].capability == "9.0");
            CHECK(facts.operation_ok == true);
            CHECK(facts.operation == "sum(2*arange(1024)) on cuda:0 = 1047552");
        }
        SECTION("a CPU-only torch")
        {
            write(std::filesystem::path(prefix.site) / "torch/__init__.py",
                  "__version__ = '2.3.0+cpu'\nclass version:\n    cuda = None\n"
                  "class cuda:\n    is_available = staticmethod(lambda: False)\n");
            const auto facts =
              run_framework_check(prefix.python, "torch", prefix.environment(), 60s);
            CHECK(facts.installed);
            CHECK(facts.gpu_build == false);
            CHECK(facts.cuda_available == false);
            CHECK(facts.device_count == 0);
            CHECK_FALSE(facts.operation_ok);
        }
        SECTION("a framework that fails on import")
        {
            write(std::filesystem::path(prefix.site) / "torch/__init__.py",
                  "raise OSError('libcudart.so.13: cannot open shared object file')\n");
            const auto facts =
              run_framework_check(prefix.python, "torch", prefix.environment(), 60s);
            CHECK(facts.installed);
            CHECK(facts.error == "OSError: libcudart.so.13: cannot open shared object file");
        }
        SECTION("a framework that hangs")
        {
            write(std::filesystem::path(prefix.site) / "torch/__init__.py",
                  "import time\ntime.sleep(60)\n");
            const auto facts =
              run_framework_check(prefix.python, "torch", prefix.environment(), 500ms);
            CHECK(facts.timed_out);
            CHECK(facts.error == "the torch check timed out after 0 s");
        }
        SECTION("a python that crashes")
        {
            write(std::filesystem::path(prefix.site) / "torch/__init__.py",
                  "import os\nos.abort()\n");
            const auto facts =
              run_framework_check(prefix.python, "torch", prefix.environment(), 60s);
            CHECK(facts.installed);
            CHECK(facts.error.find("killed by signal 6") != std::string::npos);
        }
        SECTION("no python at all")
        {
            const auto facts =
              run_framework_check("/nonexistent/bin/python", "torch", prefix.environment(), 60s);
            CHECK_FALSE(facts.installed);
            CHECK_FALSE(facts.error.empty());
        }
    }

    TEST_CASE("parse_framework_output", "[system][framework_check]")
    {
        const auto facts =
          parse_framework_output("noise from an import\nENVCHECK_FRAMEWORK_RESULT {\"framework\": "
                                 "\"jax\", \"installed\": true, "
                                 "\"version\": \"0.11.2\", \"cuda_build\": \"13\", \"gpu_build\": "
                                 "true, \"cuda_available\": true, "
                                 "\"device_count\": 1, \"devices\": [{\"name\": \"NVIDIA H200\", "
                                 "\"capability\": \"9.0\"}], "
                                 "\"operation_ok\": true, \"operation\": \"x\"}\n");
        REQUIRE(facts);
        CHECK(facts->framework == "jax");
        CHECK(facts->cuda_build == "13");
        CHECK(facts->devices.size() == 1);
        CHECK_FALSE(parse_framework_output("nothing"));
        CHECK_FALSE(parse_framework_output("ENVCHECK_FRAMEWORK_RESULT [1]"));
        CHECK_FALSE(parse_framework_output("ENVCHECK_FRAMEWORK_RESULT {broken"));
        // Wrong types are ignored, not trusted.
        const auto odd = parse_framework_output(
          "ENVCHECK_FRAMEWORK_RESULT {\"installed\": \"yes\", \"device_count\": \"1\"}");
        REQUIRE(odd);
        CHECK_FALSE(odd->installed);
        CHECK_FALSE(odd->device_count);
    }
}
