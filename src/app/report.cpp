#include "app/report.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <variant>

#include "app/doctor.hpp"
#include "app/machine_state.hpp"
#include "app/version.hpp"
#include "formats/lock.hpp"
#include "model/package.hpp"
#include "report/probe_text.hpp"
#include "util/chars.hpp"
#include "util/strings.hpp"
#include "util/time_format.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::app
{
    namespace
    {
        // The NVIDIA libraries whose copy decides what a framework runs: the CUDA runtime, cuBLAS,
        // cuDNN and NCCL (pytorch#78489, #80637, PR #138076).
        const std::vector<std::string> nvidia_libraries{ "libcudart", "libcublas", "libcudnn",
                                                         "libnccl" };

        struct FrameworkNames
        {
            std::string_view framework;
            std::array<std::string_view, 6> packages; // package keys; empty entries unused
        };

        // The frameworks a report names, by the package keys (conda names, PEP 503 pip names)
        // that install them.
        constexpr std::array<FrameworkNames, 6> known_frameworks{ {
          { "torch", { "torch", "pytorch" } },
          { "jax",
            { "jaxlib", "jax-cuda12-plugin", "jax-cuda13-plugin", "jax-cuda12-pjrt",
              "jax-cuda13-pjrt" } },
          { "tensorflow",
            { "tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tensorflow-base", "tf-nightly" } },
          { "cupy", { "cupy", "cupy-cuda11x", "cupy-cuda12x", "cupy-cuda13x" } },
          { "paddlepaddle", { "paddlepaddle-gpu", "paddlepaddle" } },
          { "onnxruntime", { "onnxruntime-gpu", "onnxruntime" } },
        } };

        // The package's name as its manager compares it (PEP 503 for pip), without the manager.
        auto name_key(const model::Package& package) -> std::string
        {
            auto key = model::package_key(package);
            key.erase(0, key.find(':') + 1);
            return key;
        }

        auto framework_of(const model::Package& package) -> std::optional<std::string_view>
        {
            const auto key = name_key(package);
            for (const auto& known : known_frameworks)
            {
                if (std::find(known.packages.begin(), known.packages.end(), key) !=
                    known.packages.end())
                {
                    return known.framework;
                }
            }
            return std::nullopt;
        }

        auto all_digits(std::string_view text) -> bool
        {
            return !text.empty() && std::all_of(text.begin(), text.end(), util::is_digit);
        }

        // "128" -> "12.8", "121" -> "12.1", "118" -> "11.8", "12" -> "12": CUDA's digits
        // without the dot, as local tags (cu128) and conda builds (cuda126) write them.
        auto dotted_cuda(std::string_view digits) -> std::string
        {
            if (digits.size() == 3)
            {
                return std::string(digits.substr(0, 2)) + "." + std::string(digits.substr(2));
            }
            return std::string(digits);
        }

        auto from_local_tag(std::string_view version) -> std::optional<CudaBuild>
        {
            const auto plus = version.find('+');
            if (plus == std::string_view::npos)
            {
                return std::nullopt;
            }
            const auto tag = version.substr(plus + 1);
            const std::string from = "local version tag +" + std::string(tag);
            if (tag.starts_with("cu") && all_digits(tag.substr(2)))
            {
                return CudaBuild{ dotted_cuda(tag.substr(2)), from };
            }
            if (tag == "cpu" || tag.starts_with("cpu."))
            {
                return CudaBuild{ "none (CPU build)", from };
            }
            if (tag.starts_with("rocm"))
            {
                return CudaBuild{ "none (ROCm " + std::string(tag.substr(4)) + " build)", from };
            }
            return std::nullopt;
        }

        auto from_package_name(std::string_view key) -> std::optional<CudaBuild>
        {
            // cupy-cuda12x, jax-cuda12-plugin, jax-cuda13-pjrt
            const auto at = key.find("-cuda");
            if (at == std::string_view::npos)
            {
                return std::nullopt;
            }
            auto rest = key.substr(at + 5);
            std::size_t digits = 0;
            while (digits < rest.size() && util::is_digit(rest[digits]))
            {
                ++digits;
            }
            if (digits == 0)
            {
                return std::nullopt;
            }
            std::string cuda(rest.substr(0, digits));
            if (rest.substr(digits).starts_with("x"))
            {
                cuda += ".x";
            }
            return CudaBuild{ cuda, "package name " + std::string(key) };
        }

        auto from_conda_build(std::string_view build) -> std::optional<CudaBuild>
        {
            const std::string from = "conda build " + std::string(build);
            // cuda126_py312h..., py3.11_cuda12.1_cudnn8.9.2_0, cuda12_..., cuda120py...
            for (std::size_t at = build.find("cuda"); at != std::string_view::npos;
                 at = build.find("cuda", at + 4))
            {
                const bool word_start = at == 0 || build[at - 1] == '_';
                auto rest = build.substr(at + 4);
                std::size_t end = 0;
                while (end < rest.size() && (util::is_digit(rest[end]) || rest[end] == '.'))
                {
                    ++end;
                }
                const auto number = rest.substr(0, end);
                if (!word_start || number.empty() || !util::is_digit(number.front()))
                {
                    continue;
                }
                if (number.find('.') != std::string_view::npos)
                {
                    return CudaBuild{ std::string(number), from };
                }
                return CudaBuild{ dotted_cuda(number), from };
            }
            if (build.starts_with("cpu") || build.find("_cpu") != std::string_view::npos)
            {
                return CudaBuild{ "none (CPU build)", from };
            }
            return std::nullopt;
        }

        auto frameworks_of(const model::InstalledEnvironment& environment, Files& files)
          -> std::vector<report::BugReportFramework>
        {
            std::vector<report::BugReportFramework> frameworks;
            for (const auto& package : environment.packages)
            {
                const auto framework = framework_of(package);
                if (!framework)
                {
                    continue;
                }
                report::BugReportFramework row;
                row.name = std::string(*framework);
                row.package = package.name;
                row.manager = package.manager == model::Manager::conda ? "conda" : "pip";
                row.version = package.version;
                std::optional<CudaBuild> build;
                if (*framework == "torch")
                {
                    // What torch itself says it was built with, read as text, never imported.
                    for (const auto& site : environment.site_packages)
                    {
                        const auto path = environment.prefix + "/" + site + "/torch/version.py";
                        if (!files.is_regular_file(path))
                        {
                            continue;
                        }
                        if (const auto text = files.read_file(path))
                        {
                            build = cuda_build_from_torch_version_py(*text);
                        }
                        if (build)
                        {
                            break;
                        }
                    }
                }
                if (!build)
                {
                    build = cuda_build_of(package);
                }
                if (build)
                {
                    row.cuda_build = report::Collected::known(build->cuda);
                    row.cuda_build_from = build->from;
                }
                else
                {
                    row.cuda_build = report::Collected::unknown(
                      "neither its version, its name nor its build names a CUDA version");
                }
                frameworks.push_back(std::move(row));
            }
            return frameworks;
        }

        // The environment's own library directories, in the order a framework's RUNPATH lists
        // them: the pip nvidia-* wheels' (nvidia/<component>/lib; nvidia/cu13/lib for CUDA 13's),
        // torch's bundled torch/lib, then a conda prefix's lib. A conda package linked with
        // DT_RPATH instead would read its directory before LD_LIBRARY_PATH: envcheck does not read
        // ELF headers, so the report states the RUNPATH order.
        auto environment_library_dirs(const model::InstalledEnvironment& environment)
          -> std::vector<LibraryDirectory>
        {
            std::vector<LibraryDirectory> dirs;
            const auto add = [&](std::string path, std::string source)
            {
                if (std::none_of(dirs.begin(), dirs.end(),
                                 [&](const LibraryDirectory& dir) { return dir.path == path; }))
                {
                    dirs.push_back({ std::move(path), std::move(source) });
                }
            };
            for (const auto& site : environment.site_packages)
            {
                const auto base = environment.prefix + "/" + site + "/";
                for (const auto& package : environment.packages)
                {
                    const auto key = name_key(package);
                    if (package.manager != model::Manager::pip || !key.starts_with("nvidia-"))
                    {
                        continue;
                    }
                    // nvidia-cudnn-cu12 -> cudnn, nvidia-cuda-runtime-cu12 -> cuda_runtime
                    std::string component = key.substr(7);
                    if (const auto suffix = component.rfind("-cu");
                        suffix != std::string::npos && all_digits(component.substr(suffix + 3)))
                    {
                        component.resize(suffix);
                    }
                    std::replace(component.begin(), component.end(), '-', '_');
                    const auto source = "pip " + package.name + " " + package.version;
                    std::string directory = base;
                    directory += "nvidia/";
                    directory += component;
                    directory += "/lib";
                    add(std::move(directory), source);
                    add(base + "nvidia/cu13/lib", source);
                }
                for (const auto& package : environment.packages)
                {
                    if (package.manager == model::Manager::pip && name_key(package) == "torch")
                    {
                        add(base + "torch/lib", "pip torch " + package.version + " (bundled)");
                    }
                }
            }
            if (environment.kind == model::PrefixKind::conda)
            {
                add(environment.prefix + "/lib", "conda prefix");
            }
            return dirs;
        }

        // Per file name (libcudnn.so.9), the copy the loader takes first and the ones it passes
        // over; libraries with no copy anywhere get a row of their own.
        auto resolve_libraries(const std::vector<model::LoadableLibrary>& found)
          -> std::vector<report::BugReportLibrary>
        {
            std::vector<report::BugReportLibrary> rows;
            for (const auto& name : nvidia_libraries)
            {
                const auto before = rows.size();
                for (const auto& candidate : found)
                {
                    if (candidate.library != name)
                    {
                        continue;
                    }
                    auto row =
                      std::find_if(rows.begin() + static_cast<std::ptrdiff_t>(before), rows.end(),
                                   [&](const report::BugReportLibrary& r)
                                   { return r.file == candidate.file.name; });
                    if (row == rows.end())
                    {
                        rows.push_back({ name, candidate.file.name, candidate, {}, false });
                        continue;
                    }
                    row->passed_over.push_back(candidate);
                    if (candidate.file.found_via == "environment" &&
                        row->loaded->file.found_via != "environment")
                    {
                        row->environment_shadowed = true;
                    }
                }
                if (rows.size() == before)
                {
                    rows.push_back({ name, "", std::nullopt, {}, false });
                }
            }
            return rows;
        }

        struct LocatedRead
        {
            LocatedEnvironment located;
            model::InstalledEnvironment installed;
        };

        // The environment, when one is named or activated. Named and unreadable: an error;
        // nothing activated, or an activated one that cannot be read: why, for the report.
        auto read_environment(const ReportRequest& request, Ports& ports)
          -> util::Result<std::variant<LocatedRead, std::string>>
        {
            const bool named = !request.selection.prefix.empty() || !request.selection.name.empty();
            auto located = ports.prefixes.locate(request.selection);
            if (!located)
            {
                if (named)
                {
                    return util::unexpected(located.error());
                }
                return std::variant<LocatedRead, std::string>(located.error().message);
            }
            auto installed = ports.prefixes.read(located->path, PrefixReadOptions{});
            if (!installed)
            {
                if (named)
                {
                    return util::unexpected(installed.error());
                }
                return std::variant<LocatedRead, std::string>(installed.error().to_string());
            }
            return std::variant<LocatedRead, std::string>(
              LocatedRead{ std::move(*located), std::move(*installed) });
        }

        void fill_machine(const model::MachineFacts& facts, report::BugReportView& view)
        {
            using report::Collected;
            const auto or_unknown = [](const std::string& value, std::string_view what) {
                return value.empty() ? Collected::unknown(std::string(what))
                                     : Collected::known(value);
            };
            view.os = or_unknown(facts.os.pretty_name, "no PRETTY_NAME in /etc/os-release");
            view.kernel = or_unknown(facts.os.kernel_release, "no kernel release");
            view.glibc = facts.os.glibc_version
                           ? Collected::known(*facts.os.glibc_version)
                           : Collected::unknown("no libc.so.6 banner could be read");
            view.architecture = or_unknown(facts.os.architecture, "unknown machine type");
            view.container = facts.container.detected()
                               ? "yes (" + util::join(facts.container.markers, ", ") + ")"
                               : "no";
            view.cpu = or_unknown(facts.cpu.model, "no model name in /proc/cpuinfo");
            view.cpu_count = facts.cpu.logical_cpus
                               ? Collected::known(std::to_string(*facts.cpu.logical_cpus))
                               : Collected::unknown("/proc/cpuinfo lists no processor");
            view.memory = facts.memory_total_bytes
                            ? Collected::known(report::format_bytes(*facts.memory_total_bytes))
                            : Collected::unknown("no MemTotal in /proc/meminfo");
            const auto driver = model::driver_version(facts);
            view.driver_version =
              driver ? Collected::known(*driver)
                     : Collected::unknown("no NVIDIA kernel module, NVML or libcuda reports one");
            const auto cuda = model::driver_cuda_version(facts);
            view.cuda_driver_version =
              cuda ? Collected::known(cuda->to_string())
                   : Collected::unknown(facts.live ? "neither NVML nor cuDriverGetVersion answered"
                                                   : "--root: the driver is not loaded");
            for (const auto& gpu : model::gpu_summaries(facts))
            {
                report::BugReportGpu row;
                row.index = gpu.index;
                row.name = gpu.name;
                row.pci_bus_id = gpu.pci_bus_id;
                row.memory = gpu.memory_total_bytes
                               ? Collected::known(report::format_bytes(*gpu.memory_total_bytes))
                               : Collected::unknown("not reported");
                const auto capability = gpu.compute_capability();
                row.compute_capability =
                  capability ? Collected::known(*capability) : Collected::unknown("not reported");
                view.gpus.push_back(std::move(row));
            }
            if (view.gpus.empty())
            {
                if (!facts.live)
                {
                    view.gpus_why_none = "--root: NVML and the CUDA driver are not loaded (" +
                                         std::to_string(facts.pci.devices.size()) +
                                         " NVIDIA PCI functions in its /sys)";
                }
                else if (!facts.nvml.load_error.empty())
                {
                    view.gpus_why_none = facts.nvml.load_error;
                }
                else if (!facts.cuda.load_error.empty())
                {
                    view.gpus_why_none = facts.cuda.load_error;
                }
                else
                {
                    view.gpus_why_none = "neither NVML nor the CUDA driver reports a GPU";
                }
            }
            view.variables = facts.environment;
        }

        void fill_environment(const LocatedRead& read, Ports& ports, report::BugReportView& view)
        {
            const auto& installed = read.installed;
            view.environment = report::Collected::known(read.located.path);
            view.located_by = read.located.how;
            view.kind = std::string(model::to_string(installed.kind));
            view.python = installed.python_version
                            ? report::Collected::known(*installed.python_version)
                            : report::Collected::unknown("no python record or pyvenv.cfg");
            for (const auto& package : installed.packages)
            {
                if (package.manager == model::Manager::conda)
                {
                    ++view.conda_packages;
                    auto channel = util::redact_url(package.channel, util::redaction_marker);
                    if (!channel.empty() && std::find(view.channels.begin(), view.channels.end(),
                                                      channel) == view.channels.end())
                    {
                        view.channels.push_back(std::move(channel));
                    }
                }
                else
                {
                    ++view.pip_packages;
                }
            }
            std::sort(view.channels.begin(), view.channels.end());
            view.unreadable_records = installed.problems.size();
            view.frameworks = frameworks_of(installed, ports.files);
        }

        auto fill_smoke(const ReportRequest& request, Ports& ports, report::BugReportView& view)
          -> util::Result<void>
        {
            if (request.lock_file.empty())
            {
                view.smoke_source = report::Collected::unknown(
                  "no --lock given: the figures are a lock's performance baselines (envcheck "
                  "lock), or paste `envcheck smoke` beside this report");
                return {};
            }
            auto text = ports.files.read_input(request.lock_file);
            if (!text)
            {
                return util::unexpected(text.error());
            }
            auto lock = formats::parse_any_lock(
              *text, request.lock_file,
              formats::LockSelection{ ports.machine.platform(), "default" });
            if (!lock)
            {
                return util::unexpected(lock.error());
            }
            if (!lock->performance || lock->performance->empty())
            {
                view.smoke_source = report::Collected::unknown(
                  request.lock_file +
                  " records no performance (locked with --no-gpu, without a GPU, or not by "
                  "envcheck)");
                return {};
            }
            std::string source = request.lock_file;
            if (const auto recorded = util::parse_rfc3339_utc(lock->created_at))
            {
                source += ", recorded " + lock->created_at + " (" +
                          report::format_age(ports.clock.unix_seconds() - *recorded) + " ago)";
            }
            else
            {
                source += ", recorded: could not collect: the lock has no creation time";
            }
            view.smoke_source = report::Collected::known(source);
            for (const auto& baseline : *lock->performance)
            {
                report::BugReportSmokeDevice device;
                device.index = baseline.device_index;
                device.name = baseline.device_name;
                for (const auto& metric : baseline.metrics)
                {
                    device.metrics.push_back({ metric.key(), metric.value, metric.unit });
                }
                view.smoke.push_back(std::move(device));
            }
            return {};
        }
    }

    auto cuda_build_of(const model::Package& package) -> std::optional<CudaBuild>
    {
        if (package.manager == model::Manager::pip)
        {
            if (auto build = from_local_tag(package.version))
            {
                return build;
            }
        }
        if (auto build = from_package_name(name_key(package)))
        {
            return build;
        }
        if (package.manager == model::Manager::conda)
        {
            return from_conda_build(package.build);
        }
        return std::nullopt;
    }

    auto cuda_build_from_torch_version_py(std::string_view text) -> std::optional<CudaBuild>
    {
        for (const auto raw : util::split_lines(text))
        {
            const auto line = util::trim(raw);
            // cuda = '12.8'   cuda: Optional[str] = '12.8'   cuda = None
            if (!line.starts_with("cuda") || line.size() < 5 ||
                (line[4] != ' ' && line[4] != ':' && line[4] != '='))
            {
                continue;
            }
            const auto equals = line.find('=');
            if (equals == std::string_view::npos)
            {
                continue;
            }
            auto value = util::trim(line.substr(equals + 1));
            if (value == "None")
            {
                return CudaBuild{ "none (a CPU or ROCm build)", "torch/version.py" };
            }
            if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
                value.back() == value.front())
            {
                value = value.substr(1, value.size() - 2);
                if (!value.empty() &&
                    std::all_of(value.begin(), value.end(),
                                [](char c) { return util::is_digit(c) || c == '.'; }))
                {
                    return CudaBuild{ std::string(value), "torch/version.py" };
                }
            }
            return std::nullopt;
        }
        return std::nullopt;
    }

    auto run_report(const ReportRequest& request, Ports& ports) -> util::Result<ReportOutcome>
    {
        ReportOutcome outcome;
        auto& view = outcome.view;
        view.envcheck_version = std::string(envcheck_version());

        auto environment = read_environment(request, ports);
        if (!environment)
        {
            return util::unexpected(environment.error());
        }
        const auto* read = std::get_if<LocatedRead>(&*environment);

        DoctorRequest doctor;
        doctor.root = request.root;
        doctor.prefix = read != nullptr ? read->located.path : request.selection.prefix;
        doctor.timeout_seconds = request.timeout_seconds;
        doctor.framework_timeout_seconds = request.framework_timeout_seconds;
        doctor.no_framework_check = !request.framework_check;
        doctor.skip = request.skip;
        auto diagnosis = run_doctor(doctor, ports);
        model::MachineFacts facts;
        if (diagnosis)
        {
            facts = diagnosis->machine;
            const auto* broken = report::first_broken_link(diagnosis->view);
            if (broken == nullptr)
            {
                view.doctor_verdict = report::Collected::known("CUDA usable");
            }
            else
            {
                view.doctor_verdict = report::Collected::known("broken at " + broken->id);
                view.doctor_message = broken->message;
                view.doctor_fix = broken->fix;
            }
        }
        else
        {
            // The doctor could not read what it was pointed at; the machine still can be.
            auto probed = probe_machine(request.root, request.timeout_seconds, ports);
            if (!probed)
            {
                return util::unexpected(probed.error());
            }
            facts = std::move(*probed);
            view.doctor_verdict = report::Collected::unknown(diagnosis.error().to_string());
        }
        fill_machine(facts, view);

        LibraryLookupRequest lookup;
        lookup.root = request.root;
        lookup.names = nvidia_libraries;
        if (read != nullptr)
        {
            fill_environment(*read, ports, view);
            lookup.environment_dirs = environment_library_dirs(read->installed);
        }
        else
        {
            view.environment = report::Collected::unknown(std::get<std::string>(*environment));
        }
        // Without an environment, still where LD_LIBRARY_PATH and the system would send a
        // framework.
        view.libraries = resolve_libraries(ports.machine.find_libraries(lookup));
        if (auto smoke = fill_smoke(request, ports, view); !smoke)
        {
            return util::unexpected(smoke.error());
        }
        return outcome;
    }
}
