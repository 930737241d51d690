// The probe child process (CUDA builds only): the one place where envcheck initialises the CUDA
// runtime. It loads libcuda.so.1 and calls cuInit itself first, each after a step line, so that
// a driver that hangs or crashes there is named; then the runtime, then each device and probe.
#ifdef ENVCHECK_WITH_CUDA
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <iostream>
#include <random>
#include <unistd.h>

#include "driver/cuda_driver.hpp"
#include "gpu/probes.hpp"
#include "kernels/device.cuh"
#include "wire/events.hpp"

namespace envcheck::gpu
{
    namespace
    {
        auto skipped(std::string_view id, std::string reason) -> model::ProbeResult
        {
            model::ProbeResult result;
            result.id = std::string(id);
            result.status = model::Status::skip;
            result.message = std::move(reason);
            return result;
        }

        auto say(fsio::LineWriter& out, const wire::Event& event) -> bool
        {
            return out.write_line(wire::encode(event));
        }

        // A device another process computes on: described (driver calls, no context), every
        // probe skipped with the parent's reason. False when the parent is gone.
        auto spare_device(const SmokeRequest& request, const driver::CudaDriver& cuda, int index,
                          const std::string& reason, fsio::LineWriter& out) -> bool
        {
            model::GpuDevice device;
            device.index = index;
            if (auto described = cuda.describe(index))
            {
                device = std::move(*described);
            }
            if (!say(out, wire::DeviceEvent{ device }))
            {
                return false;
            }
            for (const auto& id : request.probes)
            {
                if (!say(out, wire::ResultEvent{ index, skipped(id, reason) }))
                {
                    return false;
                }
            }
            return true;
        }

        // The parent's go-ahead: one line on stdin. nullopt (and why, on stderr) when it sent
        // none (end of file: it wants nothing more) or an unreadable one.
        auto await_go_ahead() -> std::optional<wire::GoAhead>
        {
            constexpr std::size_t longest = std::size_t{ 1 } << 20;
            std::string line;
            char buffer[4096];
            while (line.find('\n') == std::string::npos && line.size() < longest)
            {
                const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
                if (n < 0 && errno == EINTR)
                {
                    continue;
                }
                if (n <= 0)
                {
                    return std::nullopt;
                }
                line.append(buffer, static_cast<std::size_t>(n));
            }
            auto go_ahead = wire::decode_go_ahead(line.substr(0, line.find('\n')));
            if (!go_ahead)
            {
                std::cerr << "unreadable go-ahead from the parent: " << go_ahead.error() << '\n';
                return std::nullopt;
            }
            return std::move(*go_ahead);
        }

        // Every probe of one device; false when the parent is gone.
        auto run_device(const SmokeRequest& request, const driver::CudaDriver& cuda, int index,
                        std::uint32_t seed, fsio::LineWriter& out) -> bool
        {
            if (!say(out, wire::StepEvent{ "opening device " + std::to_string(index) }))
            {
                return false;
            }
            const kernels::CudaStatus opened = kernels::select_device(index);
            auto described = cuda.describe(index);
            model::GpuDevice device;
            device.index = index;
            if (described)
            {
                device = std::move(*described);
            }
            if (!say(out, wire::DeviceEvent{ device }))
            {
                return false;
            }
            // Why the remaining probes cannot run; empty while they can.
            std::string blocked;
            bool warm = false; // a probe has run on it (ProbeContext::warm)
            if (!opened.ok())
            {
                blocked = "the device could not be opened: " + opened.to_string();
            }
            else if (!described || !device.architecture())
            {
                blocked = "the CUDA driver did not describe the device (cuDeviceGet, "
                          "cuDeviceGetAttribute)";
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
                    if (!say(out, wire::StartEvent{ index, id }))
                    {
                        return false;
                    }
                    const auto started = std::chrono::steady_clock::now();
                    result = probe->run(ProbeContext{ device, request.mode, seed, warm });
                    warm = true;
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
                if (!say(out, wire::ResultEvent{ index, std::move(result) }))
                {
                    return false;
                }
            }
            return true;
        }
    }

    auto run_probe_child(const SmokeRequest& request, fsio::LineWriter& out) -> int
    {
        // The copy probes' pinned host memory, touched on a thread while cuInit runs.
        kernels::reserve_host_memory(pinned_host_reserve(request.probes, request.mode));
        // The driver first, by the same calls the driver probe makes: if its constructor or
        // cuInit hangs or crashes, the step says where.
        if (!say(out, wire::StepEvent{ "dlopen " + std::string(driver::libcuda_name) }))
        {
            return 1;
        }
        std::string error;
        const auto cuda = driver::CudaDriver::open(error);
        if (!say(out, wire::DriverEvent{ cuda.has_value(), cuda ? cuda->path() : "", error }))
        {
            return 1;
        }
        if (!cuda)
        {
            return say(out, wire::FinishEvent{}) ? 0 : 1;
        }
        if (cuda->has_init())
        {
            // Its result is the runtime's to report (cudaGetDeviceCount classifies it).
            if (!say(out, wire::StepEvent{ "cuInit" }))
            {
                return 1;
            }
            [[maybe_unused]] const int init = cuda->init();
        }
        if (!say(out, wire::StepEvent{ "cudaGetDeviceCount" }))
        {
            return 1;
        }
        const kernels::RuntimeInfo info = kernels::runtime_info();
        wire::RuntimeEvent runtime{ info.driver_version, info.runtime_version, info.device_count,
                                    std::nullopt };
        if (!info.status.ok())
        {
            runtime.error =
              model::CudaError{ info.status.code, info.status.name, info.status.message };
        }
        if (!say(out, runtime))
        {
            return 1;
        }
        if (!say(out, wire::StepEvent{ "waiting for the go-ahead" }))
        {
            return 1;
        }
        const auto go_ahead = await_go_ahead();
        if (!go_ahead)
        {
            return 1;
        }
        if (info.status.ok())
        {
            std::random_device entropy;
            const std::uint32_t seed = entropy();
            // A runtime claiming more devices than exist (INT_MAX) gets its first ones probed.
            const int devices = std::min(info.device_count, wire::max_devices);
            for (int index = 0; index < devices; ++index)
            {
                if (request.device && *request.device != index)
                {
                    continue;
                }
                const auto spared = go_ahead->spared.find(index);
                const bool told = spared != go_ahead->spared.end()
                                    ? spare_device(request, *cuda, index, spared->second, out)
                                    : run_device(request, *cuda, index, seed, out);
                if (!told)
                {
                    return 1;
                }
            }
        }
        return say(out, wire::FinishEvent{}) ? 0 : 1;
    }
}
#endif
