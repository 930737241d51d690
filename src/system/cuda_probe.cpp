// The CUDA driver child of driver_probe.hpp: loads libcuda.so.1 through driver::CudaDriver.
#include <algorithm>

#include "driver/cuda_driver.hpp"
#include "system/driver_children.hpp"
#include "system/library_search.hpp"
#include "system/system_root.hpp"
#include "wire/events.hpp"

namespace envcheck::system
{
    namespace
    {
        void say(fsio::LineWriter& out, wire::Event event)
        {
            out.write_line(wire::encode(event));
        }

        void step(fsio::LineWriter& out, std::string text)
        {
            say(out, wire::StepEvent{ std::move(text) });
        }

        // The findings so far, then the end of the answer.
        auto finish(fsio::LineWriter& out, const model::CudaDriverFacts& facts) -> int
        {
            say(out, wire::CudaEvent{ facts });
            say(out, wire::FinishEvent{});
            return 0;
        }
    }

    auto cuda_child(fsio::LineWriter& out) -> int
    {
        model::CudaDriverFacts facts;
        step(out, "dlopen " + std::string(driver::libcuda_name));
        std::string error;
        const auto cuda = driver::CudaDriver::open(error);
        if (!cuda)
        {
            facts.load_error = error;
            return finish(out, facts);
        }
        facts.library =
          describe_library(SystemRoot("/"), driver::libcuda_name, cuda->path(), "dlopen");
        if (const auto version = cuda->driver_version())
        {
            facts.driver_version = model::decode_cuda_version(*version);
        }
        if (!cuda->has_init())
        {
            facts.load_error = "cuInit not found in " + facts.library->real_path;
            return finish(out, facts);
        }
        // Loaded: if cuInit hangs, the parent still knows which library it was.
        say(out, wire::CudaEvent{ facts });
        step(out, "cuInit");
        facts.init_result = cuda->init();
        if (*facts.init_result != 0)
        {
            return finish(out, facts);
        }
        say(out, wire::CudaEvent{ facts });
        step(out, "cuDeviceGetCount");
        facts.device_count = cuda->device_count();
        // A driver claiming more devices than exist (INT_MAX) gets its first ones described.
        const int described = std::min(facts.device_count.value_or(0), wire::max_devices);
        for (int ordinal = 0; ordinal < described; ++ordinal)
        {
            step(out, "CUDA queries of device " + std::to_string(ordinal));
            auto device = cuda->describe(ordinal);
            if (!device)
            {
                device.emplace();
                device->index = ordinal;
            }
            facts.devices.push_back(std::move(*device));
        }
        return finish(out, facts);
    }
}
