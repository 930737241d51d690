// The probe child process (CUDA builds only): the one place where envcheck initialises CUDA.
#ifdef ENVCHECK_WITH_CUDA
#include <chrono>
#include <random>

#include "gpu/probes.hpp"
#include "gpu/wire.hpp"
#include "kernels/device.cuh"

namespace envcheck::gpu
{
    namespace
    {
        auto to_device(int index, const kernels::DeviceProperties& props) -> model::GpuDevice
        {
            model::GpuDevice device;
            device.index = index;
            device.name = props.name;
            device.uuid = props.uuid;
            device.pci_bus_id = props.pci_bus_id;
            device.compute_capability_major = props.compute_capability_major;
            device.compute_capability_minor = props.compute_capability_minor;
            device.multiprocessors = props.multiprocessors;
            device.memory_bytes = props.memory_bytes;
            device.sm_clock_mhz = props.sm_clock_khz / 1000;
            device.memory_clock_mhz = props.memory_clock_khz / 1000;
            device.memory_bus_width_bits = props.memory_bus_width_bits;
            device.l2_cache_bytes = static_cast<std::uint64_t>(props.l2_cache_bytes);
            device.async_engine_count = props.async_engine_count;
            device.concurrent_kernels = props.concurrent_kernels;
            device.ecc_enabled = props.ecc_enabled;
            return device;
        }

        auto skipped(std::string_view id, std::string reason) -> model::ProbeResult
        {
            model::ProbeResult result;
            result.id = std::string(id);
            result.status = model::Status::skip;
            result.message = std::move(reason);
            return result;
        }

        // Every probe of one device; false when the parent is gone.
        auto run_device(const SmokeRequest& request, int index, std::uint32_t seed, LineWriter& out)
          -> bool
        {
            const kernels::CudaStatus opened = kernels::select_device(index);
            const kernels::DeviceProperties props = kernels::device_properties(index);
            model::GpuDevice device = to_device(index, props);
            if (!out.write_line(encode_event(DeviceEvent{ device })))
            {
                return false;
            }
            // Why the remaining probes cannot run; empty while they can.
            std::string blocked;
            if (!opened.ok() || !props.status.ok())
            {
                blocked = "the device could not be opened: " +
                          (opened.ok() ? props.status : opened).to_string();
            }
            for (const auto& id : request.probes)
            {
                const Probe* probe = find_probe(id);
                model::ProbeResult result;
                if (probe == nullptr)
                {
                    result = skipped(id, "no such probe in this build");
                    result.status = model::Status::error;
                }
                else if (!blocked.empty())
                {
                    result = skipped(id, blocked);
                }
                else if (auto unmet = probe->unmet(device))
                {
                    result =
                      skipped(id, "requires " + std::string(probe->requirement) + ": " + *unmet);
                }
                else
                {
                    if (!out.write_line(encode_event(StartEvent{ index, id })))
                    {
                        return false;
                    }
                    const auto started = std::chrono::steady_clock::now();
                    result = probe->run(ProbeContext{ device, request.mode, seed });
                    result.duration_seconds =
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
                        .count();
                    if (probe->gate && result.status != model::Status::pass)
                    {
                        blocked = "skipped because '" + id + "' did not pass on this device";
                    }
                    else if (result.cuda_error)
                    {
                        // A fault is sticky: if the context no longer works, nothing after it will.
                        if (const auto health = kernels::device_health(); !health.ok())
                        {
                            blocked = "skipped: the CUDA context was lost after '" + id + "' (" +
                                      health.to_string() + ")";
                        }
                    }
                }
                if (!out.write_line(encode_event(ResultEvent{ index, std::move(result) })))
                {
                    return false;
                }
            }
            return true;
        }
    }

    auto run_probe_child(const SmokeRequest& request, LineWriter& out) -> int
    {
        const kernels::RuntimeInfo info = kernels::runtime_info();
        RuntimeEvent runtime{ info.driver_version, info.runtime_version, info.device_count,
                              std::nullopt };
        if (!info.status.ok())
        {
            runtime.error =
              model::CudaError{ info.status.code, info.status.name, info.status.message };
        }
        if (!out.write_line(encode_event(runtime)))
        {
            return 1;
        }
        if (info.status.ok())
        {
            std::random_device entropy;
            const std::uint32_t seed = entropy();
            for (int index = 0; index < info.device_count; ++index)
            {
                if (request.device && *request.device != index)
                {
                    continue;
                }
                if (!run_device(request, index, seed, out))
                {
                    return 1;
                }
            }
        }
        return out.write_line(encode_event(FinishEvent{})) ? 0 : 1;
    }
}
#endif
