// The line protocol of envcheck's probe children: the one codec for what the NVML and CUDA driver
// probes (src/system) and the GPU probe child (src/gpu) tell their parent over the pipe of
// fsio::run_child. Every line is one JSON object whose "event" member names its kind; a child
// writes a line as soon as it knows something, and a step line before each call that can hang,
// so that when it hangs or dies the parent still knows what completed and where it stopped.
// Not a user-facing format (schemas/ has those); only the two ends of the pipe must agree.
#ifndef ENVCHECK_WIRE_EVENTS_HPP
#define ENVCHECK_WIRE_EVENTS_HPP

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "model/gpu_device.hpp"
#include "model/machine.hpp"
#include "model/smoke.hpp"
#include "util/result.hpp"

namespace envcheck::wire
{
    // The call the child is about to make: "dlopen libcuda.so.1", "cuInit", "nvmlInit_v2".
    struct StepEvent
    {
        std::string step;

        auto operator==(const StepEvent&) const -> bool = default;
    };

    // A device node the NVML child tried to open.
    struct NodeOpen
    {
        std::string path;
        bool ok = false;
        std::string error;

        auto operator==(const NodeOpen&) const -> bool = default;
    };

    // What the NVML child found so far (the last one it wrote is its answer).
    struct NvmlProbe
    {
        model::NvmlFacts facts;
        std::vector<NodeOpen> opens;

        auto operator==(const NvmlProbe&) const -> bool = default;
    };

    struct NvmlEvent
    {
        NvmlProbe probe;

        auto operator==(const NvmlEvent&) const -> bool = default;
    };

    // What the CUDA driver child found so far (attempted and failure are the parent's to set).
    struct CudaEvent
    {
        model::CudaDriverFacts facts;

        auto operator==(const CudaEvent&) const -> bool = default;
    };

    // The GPU probe child's own dlopen of libcuda.so.1, before the CUDA runtime's.
    struct DriverEvent
    {
        bool loaded = false;
        std::string library; // the file that was loaded
        std::string error;   // dlerror() when it was not

        auto operator==(const DriverEvent&) const -> bool = default;
    };

    // What cudaGetDeviceCount and the version queries said.
    struct RuntimeEvent
    {
        int driver_version = 0; // encoded (13000); 0 when unknown
        int runtime_version = 0;
        int device_count = 0;
        std::optional<model::CudaError> error;

        auto operator==(const RuntimeEvent&) const -> bool = default;
    };

    // A device the GPU probe child opened.
    struct DeviceEvent
    {
        model::GpuDevice device;

        auto operator==(const DeviceEvent&) const -> bool = default;
    };

    struct StartEvent
    {
        int device = 0;
        std::string probe;

        auto operator==(const StartEvent&) const -> bool = default;
    };

    struct ResultEvent
    {
        int device = 0;
        model::ProbeResult result;

        auto operator==(const ResultEvent&) const -> bool = default;
    };

    // The child reported everything it meant to; what it does afterwards (a driver's shutdown)
    // cannot change its answer.
    struct FinishEvent
    {
        auto operator==(const FinishEvent&) const -> bool = default;
    };

    using Event = std::variant<StepEvent, NvmlEvent, CudaEvent, DriverEvent, RuntimeEvent,
                               DeviceEvent, StartEvent, ResultEvent, FinishEvent>;

    // The parent's one line to the GPU probe child (on its stdin), once it knows which GPUs
    // others compute on: the child opens the rest and only describes these, each probe skipped
    // with the reason. The child waits for it after the driver and the device count, before
    // any device is opened.
    struct GoAhead
    {
        std::map<int, std::string> spared; // CUDA ordinal -> why it is left alone

        auto operator==(const GoAhead&) const -> bool = default;
    };

    [[nodiscard]] auto encode(const GoAhead& go_ahead) -> std::string;
    [[nodiscard]] auto decode_go_ahead(std::string_view line) -> util::Result<GoAhead, std::string>;

    // One line, without the newline. Text from a driver that is not UTF-8 is replaced, not
    // thrown on.
    [[nodiscard]] auto encode(const Event& event) -> std::string;
    // The error says what is wrong with the line (not JSON, an unknown event, a missing field).
    [[nodiscard]] auto decode(std::string_view line) -> util::Result<Event, std::string>;

    // The most devices a child describes: a driver that claims more (a broken one reporting
    // INT_MAX) gets its first ones described and its count reported as it was given.
    inline constexpr int max_devices = 256;
}

#endif
