#include "system/machine_probe.hpp"
#include "tests/catch.hpp"
#include "tests/system/fixture_root.hpp"

using namespace envcheck;
using namespace envcheck::system;

namespace
{
    TEST_CASE("probe_machine under --root", "[system][machine_probe]")
    {
        const envcheck::tests::FixtureRoot fixture("h200-ok");
        ProbeOptions options;
        options.root = fixture.path();
        options.environment = { { "CUDA_VISIBLE_DEVICES", "0" }, { "HF_TOKEN", "secret" } };
        const auto facts = probe_machine(options);
        CHECK_FALSE(facts.live);
        CHECK(facts.root == fixture.path());
        CHECK(facts.hostname == "gpu-node-07");
        CHECK(facts.pci.gpu_count() == 1);
        CHECK(facts.kernel.version == "580.65.06");
        CHECK(facts.device_nodes.size() == 4);
        CHECK(facts.libraries.libcuda.size() == 1);
        // Nothing was loaded.
        CHECK_FALSE(facts.nvml.attempted);
        CHECK_FALSE(facts.cuda.attempted);
        CHECK(model::driver_version(facts) == "580.65.06");
        REQUIRE(facts.environment.size() == 1);
        CHECK(facts.environment[0].name == "CUDA_VISIBLE_DEVICES");
    }

    TEST_CASE("probe_machine live", "[system][machine_probe]")
    {
        ProbeOptions options;
        options.environment = read_environment();
        const auto facts = probe_machine(options);
        CHECK(facts.live);
        CHECK(facts.root == "/");
        CHECK(facts.nvml.attempted);
        CHECK(facts.cuda.attempted);
        CHECK_FALSE(facts.nvml.failure.failed());
        CHECK_FALSE(facts.cuda.failure.failed());
        CHECK_FALSE(facts.os.kernel_release.empty());
    }

    TEST_CASE("probe_machine without loading drivers", "[system][machine_probe]")
    {
        ProbeOptions options;
        options.load_drivers = false;
        const auto facts = probe_machine(options);
        CHECK_FALSE(facts.live);
        CHECK_FALSE(facts.cuda.attempted);
    }
}
