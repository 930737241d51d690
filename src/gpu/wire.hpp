// The probe child's report to its parent: one JSON object per line, written as things happen
// (the runtime, each device, each probe's start and result, the finish), so that when the child
// hangs or dies the parent still knows what completed and which probe was running.
#ifndef ENVCHECK_GPU_WIRE_HPP
#define ENVCHECK_GPU_WIRE_HPP

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "model/smoke.hpp"
#include "util/result.hpp"

namespace envcheck::gpu
{
    // What cudaGetDeviceCount and the version queries said.
    struct RuntimeEvent
    {
        int driver_version = 0; // encoded (13000); 0 when unknown
        int runtime_version = 0;
        int device_count = 0;
        std::optional<model::CudaError> error;

        auto operator==(const RuntimeEvent&) const -> bool = default;
    };

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

    // The child reported everything it meant to.
    struct FinishEvent
    {
        auto operator==(const FinishEvent&) const -> bool = default;
    };

    using ChildEvent =
      std::variant<RuntimeEvent, DeviceEvent, StartEvent, ResultEvent, FinishEvent>;

    // One line, without the newline.
    [[nodiscard]] auto encode_event(const ChildEvent& event) -> std::string;
    // The error says what is wrong with the line (not JSON, unknown event, a missing field).
    [[nodiscard]] auto decode_event(std::string_view line) -> util::Result<ChildEvent, std::string>;
}

#endif
