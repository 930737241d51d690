#include "report/version_text.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

namespace
{
    TEST_CASE("render_version: a build without CUDA says so", "[report][version]")
    {
        CHECK(report::render_version("0.1.0", model::EmbeddedRuntime{}) ==
              "envcheck 0.1.0\n"
              "CUDA runtime: none (built without CUDA; the GPU probes are not available)\n");
    }

    TEST_CASE("render_version: a CUDA build names its runtime and architectures",
              "[report][version]")
    {
        model::EmbeddedRuntime runtime{
            true, model::parse_cuda_version("13.0"), { "sm_80", "sm_90" }, {}
        };
        CHECK(report::render_version("0.1.0", runtime) ==
              "envcheck 0.1.0\nCUDA runtime: 13.0 (linked statically)\nGPU code: sm_80 sm_90\n");
        runtime.runtime.reset();
        runtime.ptx_architectures = { "compute_120" };
        CHECK(report::render_version("0.1.0", runtime) ==
              "envcheck 0.1.0\nCUDA runtime: unknown (linked statically)\n"
              "GPU code: sm_80 sm_90, PTX compute_120\n");
    }
}
