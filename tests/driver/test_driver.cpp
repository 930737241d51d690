// The driver module against the stand-in libcuda.so.1 (tests/fake_driver, on LD_LIBRARY_PATH
// for this binary): each case loads it in a child of its own, as envcheck does, so that a
// fresh dlopen runs the behaviour FAKE_CUDA selects.
#include <cstdlib>
#include <string>
#include <vector>

#include "driver/cuda_driver.hpp"
#include "driver/dl.hpp"
#include "fsio/child.hpp"
#include "system/driver_probe.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using namespace std::chrono_literals;

namespace
{
    // Runs `body` in a child with FAKE_CUDA=`behaviour`; its lines come back.
    template<class Body>
    auto in_child(const char* behaviour, Body body) -> std::vector<std::string>
    {
        std::vector<std::string> lines;
        fsio::ChildLimits limits;
        limits.total = 20s;
        const auto report = fsio::run_child(
          [&](fsio::LineWriter& out)
          {
              ::setenv("FAKE_CUDA", behaviour, 1);
              body(out);
              return 0;
          },
          limits, [&](std::string_view line) { lines.emplace_back(line); });
        INFO(report.describe(limits) << ": " << report.output);
        CHECK(report.clean());
        return lines;
    }

    TEST_CASE("text_from stops at the NUL or at the end of the buffer", "[driver]")
    {
        const char terminated[8] = { 'a', 'b', 'c', '\0', 'x', 'x', 'x', 'x' };
        CHECK(driver::text_from(terminated) == "abc");
        const char full[4] = { 'a', 'b', 'c', 'd' }; // no NUL: not one byte past the end
        CHECK(driver::text_from(full) == "abcd");
        // A 4-byte buffer the driver filled, followed by other bytes: only the buffer is read.
        const char memory[8] = { 'a', 'b', 'c', 'd', 'e', 'f', 'g', '\0' };
        CHECK(driver::text_from(memory, 4) == "abcd");
        const char empty[4] = {};
        CHECK(driver::text_from(empty).empty());
        CHECK(driver::text_from(full, 0).empty());
    }

    TEST_CASE("open_library names what could not be loaded", "[driver]")
    {
        std::string error;
        CHECK(driver::open_library("libenvcheck-no-such-library.so.1", error) == nullptr);
        CHECK(error.find("libenvcheck-no-such-library.so.1") != std::string::npos);
    }

    TEST_CASE("CudaDriver describes a device", "[driver]")
    {
        const auto lines = in_child("init=0,count=2",
                                    [](fsio::LineWriter& out)
                                    {
                                        std::string error;
                                        const auto cuda = driver::CudaDriver::open(error);
                                        out.write_line(error);
                                        if (!cuda)
                                        {
                                            return;
                                        }
                                        out.write_line(cuda->path());
                                        out.write_line(std::to_string(cuda->init()));
                                        out.write_line(std::to_string(*cuda->device_count()));
                                        const auto device = cuda->describe(1);
                                        out.write_line(device->name);
                                        out.write_line(device->pci_bus_id);
                                        out.write_line(device->uuid);
                                        out.write_line(*device->architecture());
                                        out.write_line(std::to_string(*device->sm_clock_mhz));
                                        out.write_line(device->warp_size ? "warp" : "no warp");
                                        out.write_line(device->l2_cache_bytes ? "l2" : "no l2");
                                    });
        REQUIRE(lines.size() == 11);
        CHECK(lines[0].empty());
        CHECK(lines[1].ends_with("/libcuda.so.1"));
        CHECK(lines[2] == "0");
        CHECK(lines[3] == "2");
        CHECK(lines[4] == "Fake GPU");
        CHECK(lines[5] == "0000:01:00.0");
        CHECK(lines[6] == "GPU-01020304-0506-0708-090a-0b0c0d0e0f10");
        CHECK(lines[7] == "sm_90");
        CHECK(lines[8] == "1980");
        CHECK(lines[9] == "warp");
        CHECK(lines[10] == "no l2"); // the stand-in does not answer it: unknown, not 0
    }

    TEST_CASE("CudaDriver reads a string the driver did not terminate only up to its buffer",
              "[driver]")
    {
        // Reproduces the stack-buffer-overflow READ that ASan reported in query_device: the name
        // and the PCI bus id fill their buffers (256 and 32 bytes) without a NUL.
        const auto lines = in_child("init=0,unterminated",
                                    [](fsio::LineWriter& out)
                                    {
                                        std::string error;
                                        const auto cuda = driver::CudaDriver::open(error);
                                        const auto device = cuda->describe(0);
                                        out.write_line(device->name);
                                        out.write_line(device->pci_bus_id);
                                    });
        REQUIRE(lines.size() == 2);
        CHECK(lines[0] == std::string(256, 'N'));
        CHECK(lines[1] == std::string(32, 'P'));
    }

    TEST_CASE("StartedDriverProbes hands out NVML's facts while cuInit still runs", "[driver]")
    {
        // The stand-in NVML answers at once; the stand-in libcuda hangs in cuInit until the
        // deadline. A smoke run's early go-ahead waits on the first, not on the second.
        ::setenv("FAKE_NVML", "init=0", 1);
        ::setenv("FAKE_CUDA", "init-hang", 1);
        const auto start = std::chrono::steady_clock::now();
        system::StartedDriverProbes probes({}, 2s);
        const bool initialized = probes.nvml().initialized();
        const auto heard = std::chrono::steady_clock::now() - start;
        const auto drivers = probes.finish();
        const auto finished = std::chrono::steady_clock::now() - start;
        ::unsetenv("FAKE_NVML");
        ::unsetenv("FAKE_CUDA");
        CHECK(initialized);
        CHECK(heard < 1s);
        CHECK(finished >= 2s);
        CHECK(drivers.nvml.facts.initialized());
        CHECK(drivers.cuda.failure.failed()); // hung in cuInit: killed at the deadline
    }
}
