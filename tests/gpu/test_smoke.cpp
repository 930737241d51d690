// The parent half of `envcheck smoke` against fake probe children (real processes, no GPU):
// what the report says when the child succeeds, hangs, crashes, writes garbage or finds no GPU.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <poll.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "gpu/probes.hpp"
#include "gpu/smoke.hpp"
#include "tests/catch.hpp"
#include "wire/events.hpp"

using namespace std::chrono_literals;
using namespace envcheck;
using fsio::LineWriter;
using model::GpuAvailability;
using model::Status;

namespace
{
    auto request_for(std::optional<int> device = 0) -> gpu::SmokeRequest
    {
        gpu::SmokeRequest request;
        request.device = device;
        request.probes = { "hello", "matmul-shared", "bandwidth" };
        request.probe_timeout = 300ms;
        return request;
    }

    auto device(int index) -> model::GpuDevice
    {
        model::GpuDevice gpu;
        gpu.index = index;
        gpu.name = "Fake GPU " + std::to_string(index);
        gpu.compute_capability_major = 9;
        return gpu;
    }

    auto passed(const std::string& id) -> model::ProbeResult
    {
        model::ProbeResult result;
        result.id = id;
        result.status = Status::pass;
        result.message = id + " fine";
        result.metrics = { model::Metric{ "value_gbps", 1.0, "GB/s", 0.01, 3,
                                          model::MetricDirection::higher_is_better } };
        return result;
    }

    void say(LineWriter& out, const wire::Event& event)
    {
        out.write_line(wire::encode(event));
    }

    void hello_runtime(LineWriter& out, int devices = 1)
    {
        say(out, wire::RuntimeEvent{ 13000, 13000, devices, std::nullopt });
    }

    [[noreturn]] void hang()
    {
        while (true)
        {
            pause();
        }
    }

    [[noreturn]] void segfault()
    {
        struct sigaction action = {};
        action.sa_handler = SIG_DFL;
        sigaction(SIGSEGV, &action, nullptr);
        raise(SIGSEGV);
        _exit(99);
    }

    // Runs the first probe, starts the second, then does `then`.
    template<class Then>
    auto second_probe_then(Then then) -> fsio::ChildMain
    {
        return [then](LineWriter& out) -> int
        {
            hello_runtime(out);
            say(out, wire::DeviceEvent{ device(0) });
            say(out, wire::StartEvent{ 0, "hello" });
            say(out, wire::ResultEvent{ 0, passed("hello") });
            say(out, wire::StartEvent{ 0, "matmul-shared" });
            return then(out);
        };
    }

    auto statuses(const model::DeviceSmoke& smoke) -> std::vector<Status>
    {
        std::vector<Status> out;
        for (const auto& probe : smoke.probes)
        {
            out.push_back(probe.status);
        }
        return out;
    }

    TEST_CASE("supervise_probes", "[gpu][smoke]")
    {
        SECTION("a clean run: every probe reported, progress in order")
        {
            std::vector<std::string> progress;
            const auto report = gpu::supervise_probes(
              request_for(),
              [](LineWriter& out)
              {
                  hello_runtime(out);
                  say(out, wire::DeviceEvent{ device(0) });
                  for (const char* id : { "hello", "matmul-shared", "bandwidth" })
                  {
                      say(out, wire::StartEvent{ 0, id });
                      say(out, wire::ResultEvent{ 0, passed(id) });
                  }
                  say(out, wire::FinishEvent{});
                  return 0;
              },
              [&](const gpu::ProgressEvent& event)
              {
                  progress.push_back(event.kind == gpu::ProgressEvent::Kind::device
                                       ? "device " + event.device.name
                                       : event.probe + " " + std::to_string(event.number) + "/" +
                                           std::to_string(event.count));
              });
            CHECK(report.availability == GpuAvailability::available);
            CHECK(report.diagnosis.empty());
            CHECK(report.driver_cuda == model::CudaVersion{ 13, 0 });
            REQUIRE(report.devices.size() == 1);
            CHECK(report.devices[0].device.name == "Fake GPU 0");
            CHECK(statuses(report.devices[0]) ==
                  std::vector<Status>{ Status::pass, Status::pass, Status::pass });
            CHECK(report.devices[0].probes[2].metrics[0].value == 1.0);
            CHECK(report.passed());
            CHECK(progress == std::vector<std::string>{
                                "device Fake GPU 0", "hello 1/3", "hello 1/3", "matmul-shared 2/3",
                                "matmul-shared 2/3", "bandwidth 3/3", "bandwidth 3/3" });
        }
        SECTION("every device of --all-devices")
        {
            const auto report = gpu::supervise_probes(
              request_for(std::nullopt),
              [](LineWriter& out)
              {
                  hello_runtime(out, 2);
                  for (int index : { 0, 1 })
                  {
                      say(out, wire::DeviceEvent{ device(index) });
                      for (const char* id : { "hello", "matmul-shared", "bandwidth" })
                      {
                          say(out, wire::ResultEvent{ index, passed(id) });
                      }
                  }
                  say(out, wire::FinishEvent{});
                  return 0;
              },
              {});
            REQUIRE(report.devices.size() == 2);
            CHECK(report.devices[1].device.index == 1);
            CHECK(report.devices[1].probes.size() == 3);
            CHECK(report.passed());
        }
    }

    // The child's stdin: the go-ahead lines it was sent, each without its newline; reads until
    // nothing more comes within `quiet` after the first.
    auto go_aheads_heard(std::chrono::milliseconds quiet) -> std::vector<std::string>
    {
        std::string text;
        char buffer[4096];
        for (bool first = true;; first = false)
        {
            pollfd input{ STDIN_FILENO, POLLIN, 0 };
            if (poll(&input, 1, first ? 5000 : static_cast<int>(quiet.count())) <= 0)
            {
                break;
            }
            const auto got = read(STDIN_FILENO, buffer, sizeof buffer);
            if (got <= 0)
            {
                break;
            }
            text.append(buffer, static_cast<std::size_t>(got));
        }
        std::vector<std::string> lines;
        for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
             start = end + 1)
        {
            lines.push_back(text.substr(start, end - start));
        }
        return lines;
    }

    TEST_CASE("PendingSmoke: the first go-ahead stands", "[gpu][smoke]")
    {
        // The child reports, as its one probe's message, each go-ahead it heard.
        const fsio::ChildMain child = [](LineWriter& out)
        {
            hello_runtime(out);
            const auto lines = go_aheads_heard(200ms);
            say(out, wire::DeviceEvent{ device(0) });
            auto result = passed("hello");
            for (const auto& line : lines)
            {
                const auto go = wire::decode_go_ahead(line);
                result.message +=
                  go && go->spared.contains(1) ? " [" + go->spared.at(1) + "]" : " [none spared]";
            }
            say(out, wire::ResultEvent{ 0, result });
            say(out, wire::FinishEvent{});
            return 0;
        };
        auto request = request_for();
        request.probes = { "hello" };
        request.probe_timeout = 2000ms;

        SECTION("go() early, then proceed(): one go-ahead, the early one")
        {
            gpu::PendingSmoke smoke(request, child, {});
            smoke.go({ { 1, "early" } });
            smoke.go({ { 1, "again" } });
            const auto report = smoke.proceed({ { 1, "late" } });
            REQUIRE(report.devices.size() == 1);
            REQUIRE(report.devices[0].probes.size() == 1);
            CHECK(report.devices[0].probes[0].message == "hello fine [early]");
        }
        SECTION("proceed() alone sends its own")
        {
            gpu::PendingSmoke smoke(request, child, {});
            const auto report = smoke.proceed({});
            REQUIRE(report.devices.size() == 1);
            CHECK(report.devices[0].probes.at(0).message == "hello fine [none spared]");
        }
    }

    TEST_CASE("supervise_probes negative", "[gpu][smoke]")
    {
        SECTION("a hung probe is killed and reported as an error; later probes are errors too")
        {
            const auto report = gpu::supervise_probes(
              request_for(), second_probe_then([](LineWriter&) -> int { hang(); }), {});
            REQUIRE(report.availability == GpuAvailability::available);
            REQUIRE(report.devices.size() == 1);
            const auto& probes = report.devices[0].probes;
            CHECK(statuses(report.devices[0]) ==
                  std::vector<Status>{ Status::pass, Status::error, Status::error });
            CHECK(probes[1].id == "matmul-shared");
            CHECK(probes[1].message.find("without progress") != std::string::npos);
            CHECK(probes[1].message.find("while this probe ran") != std::string::npos);
            CHECK(probes[2].id == "bandwidth");
            CHECK(probes[2].message.find("not run") != std::string::npos);
            CHECK(probes[2].message.find("during 'matmul-shared'") != std::string::npos);
            CHECK_FALSE(report.passed());
        }
        SECTION("a crashed probe is reported with the signal")
        {
            const auto report = gpu::supervise_probes(
              request_for(), second_probe_then([](LineWriter&) -> int { segfault(); }), {});
            REQUIRE(report.devices.size() == 1);
            const auto& probes = report.devices[0].probes;
            CHECK(statuses(report.devices[0]) ==
                  std::vector<Status>{ Status::pass, Status::error, Status::error });
            CHECK(probes[1].message.find("killed by signal 11 (SIGSEGV)") != std::string::npos);
            CHECK_FALSE(report.passed());
        }
        SECTION("garbage on the pipe is an error, whatever follows it")
        {
            const auto report =
              gpu::supervise_probes(request_for(),
                                    second_probe_then(
                                      [](LineWriter& out)
                                      {
                                          out.write_line("Segmentation fault (core dumped)");
                                          say(out, wire::ResultEvent{ 0, passed("matmul-shared") });
                                          say(out, wire::FinishEvent{});
                                          return 0;
                                      }),
                                    {});
            REQUIRE(report.devices.size() == 1);
            const auto& probes = report.devices[0].probes;
            CHECK(statuses(report.devices[0]) ==
                  std::vector<Status>{ Status::pass, Status::error, Status::error });
            CHECK(probes[1].message.find("unreadable output") != std::string::npos);
            CHECK(probes[1].message.find("Segmentation fault (core dumped)") != std::string::npos);
        }
        SECTION("a child that stops early without finishing")
        {
            const auto report = gpu::supervise_probes(
              request_for(), second_probe_then([](LineWriter&) { return 0; }), {});
            REQUIRE(report.devices.size() == 1);
            CHECK(report.devices[0].probes[1].status == Status::error);
            CHECK(report.devices[0].probes[1].message.find("exited with status 0") !=
                  std::string::npos);
        }
        SECTION("no device: the CUDA error of cudaGetDeviceCount")
        {
            const auto report = gpu::supervise_probes(
              request_for(),
              [](LineWriter& out)
              {
                  say(out, wire::RuntimeEvent{
                             13000, 13000, 0,
                             model::CudaError{ 100, "cudaErrorNoDevice",
                                               "no CUDA-capable device is detected" } });
                  say(out, wire::FinishEvent{});
                  return 0;
              },
              {});
            CHECK(report.availability == GpuAvailability::no_usable_device);
            REQUIRE(report.cuda_error);
            CHECK(report.cuda_error->code == 100);
            CHECK(report.diagnosis.find("cudaGetDeviceCount returned 100 (cudaErrorNoDevice") !=
                  std::string::npos);
            CHECK(report.devices.empty());
            CHECK_FALSE(report.passed());
        }
        SECTION("a driver older than the runtime says both versions")
        {
            const auto report = gpu::supervise_probes(
              request_for(),
              [](LineWriter& out)
              {
                  say(out, wire::RuntimeEvent{
                             12020, 13000, 0,
                             model::CudaError{
                               35, "cudaErrorInsufficientDriver",
                               "CUDA driver version is insufficient for CUDA runtime version" } });
                  say(out, wire::FinishEvent{});
                  return 0;
              },
              {});
            CHECK(report.availability == GpuAvailability::no_usable_device);
            CHECK(report.diagnosis.find("older than the CUDA runtime") != std::string::npos);
            CHECK(report.diagnosis.find(
                    "the driver supports CUDA 12.2, envcheck's runtime is CUDA 13.0") !=
                  std::string::npos);
        }
        SECTION("a device ordinal the machine does not have")
        {
            const auto report = gpu::supervise_probes(request_for(3),
                                                      [](LineWriter& out)
                                                      {
                                                          hello_runtime(out, 1);
                                                          say(out, wire::FinishEvent{});
                                                          return 0;
                                                      },
                                                      {});
            CHECK(report.availability == GpuAvailability::no_such_device);
            CHECK(report.diagnosis == "device 3 was asked for; this machine has 1 CUDA device (0)");
        }
        SECTION("a child that dies before saying anything")
        {
            const auto report =
              gpu::supervise_probes(request_for(), [](LineWriter&) { return 1; }, {});
            CHECK(report.availability == GpuAvailability::probe_process_failed);
            CHECK(report.diagnosis ==
                  "the probe process exited with status 1 before it reported the CUDA runtime");
        }
        SECTION("a child that hangs while it loads the driver names the step")
        {
            const auto report =
              gpu::supervise_probes(request_for(),
                                    [](LineWriter& out) -> int
                                    {
                                        say(out, wire::StepEvent{ "dlopen libcuda.so.1" });
                                        hang();
                                    },
                                    {});
            CHECK(report.availability == GpuAvailability::probe_process_failed);
            CHECK(report.diagnosis ==
                  "the probe process was stopped after 0.3 s without progress (SIGKILL) in "
                  "dlopen libcuda.so.1 before it reported the CUDA runtime");
        }
        SECTION("a child that crashes in cuInit names the step and what it printed")
        {
            const auto report = gpu::supervise_probes(
              request_for(),
              [](LineWriter& out) -> int
              {
                  say(out, wire::StepEvent{ "dlopen libcuda.so.1" });
                  say(out, wire::DriverEvent{ true, "/usr/lib/libcuda.so.1", "" });
                  say(out, wire::StepEvent{ "cuInit" });
                  std::printf("NVRM: GPU has fallen off the bus\n");
                  std::fflush(stdout);
                  segfault();
              },
              {});
            CHECK(report.availability == GpuAvailability::probe_process_failed);
            CHECK(report.diagnosis ==
                  "the probe process was killed by signal 11 (SIGSEGV) in cuInit (its output: "
                  "'NVRM: GPU has fallen off the bus') before it reported the CUDA runtime");
        }
        SECTION("no driver library: the child says so, the parent never loads it")
        {
            const auto report = gpu::supervise_probes(
              request_for(),
              [](LineWriter& out)
              {
                  say(out, wire::DriverEvent{
                             false, "",
                             "libcuda.so.1: cannot open shared object file: No such file or "
                             "directory" });
                  say(out, wire::FinishEvent{});
                  return 0;
              },
              {});
            CHECK(report.availability == GpuAvailability::no_driver);
            CHECK(report.diagnosis == "no NVIDIA driver (libcuda.so.1 not found)");
        }
        SECTION("a driver library that cannot be loaded for another reason is quoted")
        {
            const auto report = gpu::supervise_probes(
              request_for(),
              [](LineWriter& out)
              {
                  say(out, wire::DriverEvent{ false, "", "libcuda.so.1: wrong ELF class" });
                  say(out, wire::FinishEvent{});
                  return 0;
              },
              {});
            CHECK(report.availability == GpuAvailability::no_driver);
            CHECK(report.diagnosis == "the NVIDIA driver library libcuda.so.1 could not be "
                                      "loaded: libcuda.so.1: wrong ELF class");
        }
        SECTION("a child that reports more devices than any machine has is not believed")
        {
            const auto report =
              gpu::supervise_probes(request_for(std::nullopt),
                                    [](LineWriter& out)
                                    {
                                        hello_runtime(out, 2147483647);
                                        for (int index = 0; index < 100000; ++index)
                                        {
                                            say(out, wire::DeviceEvent{ device(index) });
                                        }
                                        return 0;
                                    },
                                    {});
            CHECK(report.devices.size() == 256);
            CHECK_FALSE(report.passed());
            CHECK(report.devices.back().probes.back().message.find(
                    "reported more than 256 devices") != std::string::npos);
        }
        SECTION("a child that hangs in CUDA initialisation")
        {
            const auto report =
              gpu::supervise_probes(request_for(), [](LineWriter&) -> int { hang(); }, {});
            CHECK(report.availability == GpuAvailability::probe_process_failed);
            CHECK(report.diagnosis.find("without progress") != std::string::npos);
        }
    }

    TEST_CASE("warmup_ms: the clocks' ramp on a cold device, the first launches on a warm one",
              "[gpu][probes]")
    {
        CHECK(gpu::warmup_ms(false, 25.0) == 25.0);
        CHECK(gpu::warmup_ms(true, 25.0) == 2.0);
        CHECK(gpu::warmup_ms(true, 1.0) == 1.0); // never more than the cold figure
        CHECK(gpu::warmup_ms(false, 0.0) == 0.0);
    }
}
