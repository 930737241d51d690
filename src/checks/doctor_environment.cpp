#include "checks/doctor_environment.hpp"

#include <algorithm>
#include <map>

#include "checks/cuda_driver_table.hpp"
#include "checks/doctor_machine.hpp"
#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        constexpr std::string_view no_environment =
          "no environment given (--prefix, --env, --lock, or an activated one in $VIRTUAL_ENV or "
          "$CONDA_PREFIX)";

        // Package names compared the way both managers allow: lowercase, '_' as '-'.
        auto name_key(std::string_view name) -> std::string
        {
            auto key = util::to_lower(name);
            std::replace(key.begin(), key.end(), '_', '-');
            return key;
        }

        auto contains(std::string_view text, std::string_view part) -> bool
        {
            return text.find(part) != std::string_view::npos;
        }

        auto label(const model::Package& package) -> std::string
        {
            std::string text = package.name + " " + package.version;
            if (!package.build.empty())
            {
                text += " (" + package.build + ")";
            }
            return text;
        }

        auto local_version(std::string_view version) -> std::string_view
        {
            const auto plus = version.find('+');
            return plus == std::string_view::npos ? std::string_view{} : version.substr(plus + 1);
        }

        // "jax-cuda12-plugin" -> 12.
        auto jax_plugin_major(std::string_view key) -> std::optional<int>
        {
            constexpr std::string_view prefix = "jax-cuda";
            if (!key.starts_with(prefix) || !(key.ends_with("-plugin") || key.ends_with("-pjrt")))
            {
                return std::nullopt;
            }
            const auto digits =
              key.substr(prefix.size(), key.find('-', prefix.size()) - prefix.size());
            const auto major = util::parse_uint(digits);
            return major && *major >= 11 && *major <= 99
                     ? std::optional<int>(static_cast<int>(*major))
                     : std::nullopt;
        }

        auto framework_of(std::string_view key) -> std::string
        {
            if (key == "pytorch" || key == "torch" || key == "pytorch-gpu" ||
                key == "pytorch-cpu" || key == "cpuonly")
            {
                return "torch";
            }
            // Not tensorflow-probability, tensorflow-datasets and the like.
            if (key == "tensorflow" || key == "tensorflow-gpu" || key == "tensorflow-cpu" ||
                key == "tensorflow-base" || key == "tf-nightly")
            {
                return "tensorflow";
            }
            if (key == "jaxlib" || key == "jax")
            {
                return "jax";
            }
            return {};
        }

        auto install_fix(std::string_view framework, model::Manager manager) -> std::string
        {
            if (framework == "torch")
            {
                return manager == model::Manager::conda
                         ? "conda: `conda remove cpuonly` and `conda install pytorch "
                           "pytorch-cuda=<X.Y> -c pytorch -c "
                           "nvidia` (or conda-forge's `pytorch=*=cuda*`)"
                         : "pip: `pip install --force-reinstall torch --index-url "
                           "https://download.pytorch.org/whl/cu<XY>` with a CUDA version the "
                           "driver supports";
            }
            if (framework == "jax")
            {
                return manager == model::Manager::conda
                         ? "conda: `conda install -c conda-forge 'jaxlib=*=*cuda*'`"
                         : "pip: `pip install -U 'jax[cuda12]'` (or jax[cuda13])";
            }
            return manager == model::Manager::conda
                     ? "conda: `conda install -c conda-forge 'tensorflow=*=cuda*'`"
                     : "pip: `pip uninstall tensorflow-cpu && pip install "
                       "'tensorflow[and-cuda]'`";
        }

        auto severity(DriverSupport support) -> int
        {
            switch (support)
            {
                case DriverSupport::full:
                    return 0;
                case DriverSupport::minor_compat:
                    return 1;
                case DriverSupport::unsupported:
                    return 2;
            }
            return 2;
        }

        // "sm_90a" -> {9, 0, 'a'}; nullopt when not an architecture name.
        struct Architecture
        {
            bool ptx = false;
            int major = 0;
            int minor = 0;
            bool specific = false; // sm_90a, sm_100f: that exact GPU only
        };

        auto parse_architecture(std::string_view text) -> std::optional<Architecture>
        {
            Architecture arch;
            if (text.starts_with("sm_"))
            {
                text.remove_prefix(3);
            }
            else if (text.starts_with("compute_"))
            {
                text.remove_prefix(8);
                arch.ptx = true;
            }
            else
            {
                return std::nullopt;
            }
            if (!text.empty() && util::is_alpha(text.back()))
            {
                arch.specific = true;
                text.remove_suffix(1);
            }
            const auto number = util::parse_uint(text);
            if (!number || text.size() < 2 || *number > 999)
            {
                return std::nullopt;
            }
            arch.major = static_cast<int>(*number / 10);
            arch.minor = static_cast<int>(*number % 10);
            return arch;
        }
    }

    auto cuda_version_from_tag(std::string_view text) -> std::optional<model::CudaVersion>
    {
        const auto lower = util::to_lower(text);
        const std::string_view view = lower;
        for (const std::string_view marker : { "cuda", "cu" })
        {
            for (auto at = view.find(marker); at != std::string_view::npos;
                 at = view.find(marker, at + 1))
            {
                const auto start = at + marker.size();
                auto end = start;
                while (end < view.size() && (util::is_digit(view[end]) || view[end] == '.'))
                {
                    ++end;
                }
                auto digits = view.substr(start, end - start);
                while (!digits.empty() && digits.back() == '.')
                {
                    digits.remove_suffix(1);
                }
                if (digits.empty() || !util::is_digit(digits.front()))
                {
                    continue;
                }
                if (contains(digits, "."))
                {
                    if (auto version = model::parse_cuda_version(digits))
                    {
                        return version;
                    }
                    continue;
                }
                // "126" -> 12.6, "118" -> 11.8, "12" -> 12.0, "92" -> 9.2.
                const std::size_t major_digits =
                  digits.front() == '1' && digits.size() >= 2 ? 2 : 1;
                const auto major = util::parse_uint(digits.substr(0, major_digits));
                const auto minor = digits.size() > major_digits
                                     ? util::parse_uint(digits.substr(major_digits))
                                     : std::optional<unsigned long long>(0);
                if (major && minor && *major >= 7 && *minor <= 99)
                {
                    return model::CudaVersion{ static_cast<int>(*major), static_cast<int>(*minor) };
                }
            }
        }
        return std::nullopt;
    }

    auto cuda_runtime_requirements(const std::vector<model::Package>& packages,
                                   const std::vector<model::FrameworkFacts>& frameworks)
      -> std::vector<RuntimeRequirement>
    {
        std::vector<RuntimeRequirement> requirements;
        const auto add = [&](std::optional<model::CudaVersion> cuda, std::string source)
        {
            if (!cuda)
            {
                return;
            }
            RuntimeRequirement requirement{ *cuda, std::move(source) };
            if (std::find(requirements.begin(), requirements.end(), requirement) ==
                requirements.end())
            {
                requirements.push_back(std::move(requirement));
            }
        };
        for (const auto& package : packages)
        {
            const auto key = name_key(package.name);
            if (package.manager == model::Manager::conda)
            {
                if (key == "cuda-version" || key == "cudatoolkit" || key == "pytorch-cuda" ||
                    key == "cuda-cudart" || key == "cuda-runtime")
                {
                    add(model::parse_cuda_version(package.version),
                        package.name + " " + package.version);
                }
                else if (!framework_of(key).empty() &&
                         contains(util::to_lower(package.build), "cuda"))
                {
                    add(cuda_version_from_tag(package.build), label(package));
                }
                continue;
            }
            if (key.starts_with("nvidia-cuda-runtime"))
            {
                add(model::parse_cuda_version(package.version),
                    package.name + " " + package.version);
            }
            else if ((key == "torch" || key == "jaxlib") &&
                     contains(local_version(package.version), "cu"))
            {
                add(cuda_version_from_tag(local_version(package.version)),
                    package.name + " " + package.version);
            }
            else if (const auto major = jax_plugin_major(key))
            {
                add(model::CudaVersion{ *major, 0 }, package.name + " " + package.version);
            }
        }
        for (const auto& framework : frameworks)
        {
            if (framework.installed && framework.cuda_build)
            {
                add(model::parse_cuda_version(*framework.cuda_build),
                    framework.framework + " " + framework.version.value_or("") +
                      " built for CUDA " + *framework.cuda_build);
            }
        }
        return requirements;
    }

    auto framework_builds(const std::vector<model::Package>& packages,
                          const std::vector<model::FrameworkFacts>& frameworks)
      -> std::vector<FrameworkBuild>
    {
        std::vector<FrameworkBuild> builds;
        const bool jax_cuda_plugin = std::any_of(
          packages.begin(), packages.end(),
          [](const model::Package& p) { return jax_plugin_major(name_key(p.name)).has_value(); });
        for (const auto& package : packages)
        {
            const auto key = name_key(package.name);
            const auto framework = framework_of(key);
            if (framework.empty() || key == "jax")
            {
                continue;
            }
            FrameworkBuild build{ framework, label(package), false, {} };
            const auto build_string = util::to_lower(package.build);
            if (package.manager == model::Manager::conda)
            {
                if (key == "cpuonly")
                {
                    build.cpu_only = true;
                    build.reason = "cpuonly pins pytorch to its CPU build";
                }
                else if (key == "pytorch-cpu")
                {
                    build.cpu_only = true;
                    build.reason = "the CPU-only package";
                }
                else if (contains(build_string, "cpu"))
                {
                    build.cpu_only = true;
                    build.reason = "build string '" + package.build + "'";
                }
            }
            else if (key == "torch" &&
                     contains(util::to_lower(local_version(package.version)), "cpu"))
            {
                build.cpu_only = true;
                build.reason = "the +cpu wheel";
            }
            else if (key == "tensorflow-cpu")
            {
                build.cpu_only = true;
                build.reason = "the CPU-only package";
            }
            else if (key == "jaxlib" && !contains(util::to_lower(package.version), "cuda") &&
                     !jax_cuda_plugin)
            {
                build.cpu_only = true;
                build.reason = "jaxlib from PyPI without a jax-cudaNN-plugin";
            }
            builds.push_back(std::move(build));
        }
        // What a framework said about itself beats what its package names suggest.
        for (const auto& facts : frameworks)
        {
            if (!facts.installed || !facts.gpu_build)
            {
                continue;
            }
            std::erase_if(builds, [&](const FrameworkBuild& build)
                          { return build.framework == facts.framework; });
            FrameworkBuild build{ facts.framework,
                                  facts.framework + " " + facts.version.value_or(""),
                                  !*facts.gpu_build,
                                  {} };
            if (build.cpu_only)
            {
                build.reason = facts.framework == "torch" ? "torch.version.cuda is None"
                                                          : "it reports no CUDA support";
            }
            builds.push_back(std::move(build));
        }
        return builds;
    }

    auto arch_supported(int major, int minor, const std::vector<std::string>& architectures) -> bool
    {
        for (const auto& text : architectures)
        {
            const auto arch = parse_architecture(text);
            if (!arch)
            {
                continue;
            }
            if (arch->ptx)
            {
                // PTX is JIT-compiled for any GPU at least as new.
                if (std::pair(arch->major, arch->minor) <= std::pair(major, minor))
                {
                    return true;
                }
                continue;
            }
            if (arch->specific)
            {
                if (arch->major == major && arch->minor == minor)
                {
                    return true;
                }
                continue;
            }
            if (arch->major == major && arch->minor <= minor)
            {
                return true;
            }
        }
        return false;
    }

    auto parse_visible_devices(std::string_view value, std::optional<int> gpu_count,
                               const std::vector<std::string>& uuids) -> VisibleDevices
    {
        VisibleDevices devices;
        for (const auto raw : util::split(value, ','))
        {
            const auto entry = std::string(util::trim(raw));
            std::string reason;
            if (entry.empty())
            {
                reason = "is empty";
            }
            else if (std::all_of(entry.begin(), entry.end(), util::is_digit))
            {
                const auto index = util::parse_uint(entry);
                if (gpu_count && (!index || *index >= static_cast<unsigned long long>(*gpu_count)))
                {
                    reason =
                      "is beyond the " + std::to_string(*gpu_count) + " GPU(s) of this machine";
                }
            }
            else if (entry.starts_with("GPU-") || entry.starts_with("MIG-"))
            {
                const bool mig = entry.starts_with("MIG-");
                devices.mig_entries += mig ? 1 : 0;
                if (!mig && !uuids.empty() &&
                    std::none_of(uuids.begin(), uuids.end(),
                                 [&](const std::string& uuid) { return uuid.starts_with(entry); }))
                {
                    reason = "matches no GPU's UUID";
                }
            }
            else
            {
                reason = "is neither a GPU index nor a GPU-/MIG- UUID";
            }
            if (!reason.empty() || std::find(devices.visible.begin(), devices.visible.end(),
                                             entry) != devices.visible.end())
            {
                devices.first_invalid = entry;
                devices.invalid_reason = reason.empty() ? "repeats an earlier entry" : reason;
                break;
            }
            devices.visible.push_back(entry);
        }
        return devices;
    }

    auto check_driver_supports_runtime(const DoctorInput& input) -> model::CheckOutcome
    {
        if (!input.environment)
        {
            return skip(std::string(no_environment));
        }
        const auto& machine = input.machine;
        const auto requirements =
          cuda_runtime_requirements(input.environment->packages, input.environment->frameworks);
        if (requirements.empty())
        {
            return skip("the environment carries no CUDA runtime (no cuda-version, cudatoolkit, "
                        "pytorch-cuda, "
                        "cuda-cudart, nvidia-cuda-runtime or CUDA build of a framework)");
        }
        const auto driver_cuda = machine.cuda.driver_version; // what cudart itself compares against
        const auto driver_text = model::driver_version(machine);
        const auto driver = driver_text ? parse_driver_version(*driver_text) : std::nullopt;
        const auto reported_cuda = driver_cuda ? driver_cuda
                                   : driver    ? newest_cuda_for(*driver)
                                               : machine.nvml.cuda_driver_version;
        if (!driver_cuda && !driver && !reported_cuda)
        {
            return skip("the driver's version is unknown");
        }
        std::string driver_label = "the driver";
        if (driver_text)
        {
            driver_label += " " + *driver_text;
        }
        if (reported_cuda)
        {
            driver_label += " (CUDA " + reported_cuda->to_string() + ")";
        }
        const RuntimeRequirement* binding = nullptr;
        std::optional<DriverSupport> binding_support;
        std::vector<std::string> unknown;
        for (const auto& requirement : requirements)
        {
            std::optional<DriverSupport> support;
            if (driver_cuda)
            {
                support = driver_support(requirement.cuda, *driver_cuda);
            }
            else if (driver)
            {
                support = driver_support(requirement.cuda, *driver);
            }
            else
            {
                support = driver_support(requirement.cuda, *reported_cuda);
            }
            if (!support)
            {
                unknown.push_back("CUDA " + requirement.cuda.to_string() + " (" +
                                  requirement.source + ")");
                continue;
            }
            if (binding == nullptr || severity(*support) > severity(*binding_support) ||
                (severity(*support) == severity(*binding_support) &&
                 requirement.cuda > binding->cuda))
            {
                binding = &requirement;
                binding_support = support;
            }
        }
        if (binding == nullptr)
        {
            return warn("not in the minimum-driver table: " + util::join(unknown, ", "),
                        "compare by hand with NVIDIA's CUDA release notes (Table 3)");
        }
        const auto needed = driver_requirement(binding->cuda);
        const std::string needs =
          "CUDA " + binding->cuda.to_string() + " (" + binding->source + ")";
        switch (*binding_support)
        {
            case DriverSupport::unsupported:
                return fail(
                  "the environment needs " + needs + " but " + driver_label +
                    " is older than that family's minimum, so the runtime fails with "
                    "cudaErrorInsufficientDriver",
                  "upgrade the NVIDIA driver to " + needed->full.to_string() + " or newer (" +
                    needed->family.to_string() +
                    " at least, under minor-version compatibility), or install builds for the CUDA "
                    "version the driver supports" +
                    (reported_cuda ? " (" + reported_cuda->to_string() + " or older)"
                                   : std::string{}));
            case DriverSupport::minor_compat:
                return warn(
                  needs + " runs on " + driver_label +
                    " only under minor-version compatibility: PTX that CUDA " +
                    binding->cuda.to_string() +
                    " produced cannot be JIT-compiled, and calls that need a newer driver fail",
                  "upgrade the driver to " + needed->full.to_string() +
                    " or newer for full support");
            case DriverSupport::full:
                break;
        }
        std::vector<std::string> all;
        for (const auto& requirement : requirements)
        {
            all.push_back(requirement.source);
        }
        return pass(driver_label + " runs the environment's CUDA " + binding->cuda.to_string() +
                    " (" + util::join(all, ", ") + ")");
    }

    auto check_framework_gpu_build(const DoctorInput& input) -> model::CheckOutcome
    {
        if (!input.environment)
        {
            return skip(std::string(no_environment));
        }
        const auto& environment = *input.environment;
        const auto builds = framework_builds(environment.packages, environment.frameworks);
        if (builds.empty())
        {
            return skip("no pytorch, tensorflow or jax in the environment");
        }
        std::vector<std::string> cpu;
        std::vector<std::string> fixes;
        std::vector<std::string> gpu;
        for (const auto& build : builds)
        {
            if (!build.cpu_only)
            {
                gpu.push_back(build.package);
                continue;
            }
            cpu.push_back(build.package + ": " + build.reason);
            const auto manager =
              std::any_of(environment.packages.begin(), environment.packages.end(),
                          [&](const model::Package& p) {
                              return p.manager == model::Manager::conda &&
                                     framework_of(name_key(p.name)) == build.framework;
                          })
                ? model::Manager::conda
                : model::Manager::pip;
            auto fix = install_fix(build.framework, manager);
            if (std::find(fixes.begin(), fixes.end(), fix) == fixes.end())
            {
                fixes.push_back(std::move(fix));
            }
        }
        if (!cpu.empty())
        {
            return fail("CPU-only framework build: " + util::join(cpu, "; "),
                        "reinstall as a CUDA build: " + util::join(fixes, "; "));
        }
        return pass("GPU builds: " + util::join(gpu, ", "));
    }

    auto check_framework_arch_support(const DoctorInput& input) -> model::CheckOutcome
    {
        if (!input.environment)
        {
            return skip(std::string(no_environment));
        }
        std::vector<model::GpuSummary> gpus;
        for (auto& gpu : model::gpu_summaries(input.machine))
        {
            if (gpu.compute_capability())
            {
                gpus.push_back(std::move(gpu));
            }
        }
        if (gpus.empty())
        {
            return skip("no GPU compute capability known (it needs NVML or the CUDA driver)");
        }
        std::vector<std::string> missing;
        std::vector<std::string> covered;
        for (const auto& framework : input.environment->frameworks)
        {
            if (!framework.installed || framework.arch_list.empty())
            {
                continue;
            }
            const std::string name = framework.framework + " " + framework.version.value_or("");
            for (const auto& gpu : gpus)
            {
                const auto gpu_label = "GPU " + std::to_string(gpu.index) + " " + gpu.name +
                                       " (compute capability " + *gpu.compute_capability() + ")";
                if (arch_supported(*gpu.compute_capability_major, *gpu.compute_capability_minor,
                                   framework.arch_list))
                {
                    covered.push_back(name + " covers " + gpu_label);
                }
                else
                {
                    missing.push_back(gpu_label + " is not among " + name + "'s architectures " +
                                      util::join(framework.arch_list, " "));
                }
            }
        }
        // Without an architecture list: CUDA 13 builds carry no code for Maxwell, Pascal or Volta.
        for (const auto& requirement :
             cuda_runtime_requirements(input.environment->packages, input.environment->frameworks))
        {
            if (requirement.cuda.major < 13)
            {
                continue;
            }
            for (const auto& gpu : gpus)
            {
                if (std::pair(*gpu.compute_capability_major, *gpu.compute_capability_minor) <
                    std::pair(7, 5))
                {
                    missing.push_back("GPU " + std::to_string(gpu.index) + " " + gpu.name +
                                      " (compute capability " + *gpu.compute_capability() +
                                      ") predates Turing, which CUDA 13 builds (" +
                                      requirement.source + ") do not support");
                }
            }
        }
        if (!missing.empty())
        {
            return fail(util::join(missing, "; ") +
                          ": kernels fail with 'no kernel image is available for execution "
                          "on the device'",
                        "install a build that carries code (SASS or PTX) for this GPU: for "
                        "pytorch, a wheel index "
                        "whose architecture list includes it (older GPUs: cu126; newest GPUs: "
                        "cu128 or later)");
        }
        if (covered.empty())
        {
            return skip(
              "the frameworks' compiled architectures are unknown (framework.runtime-check reports "
              "torch's)");
        }
        return pass(util::join(covered, "; "));
    }

    auto check_framework_runtime(const DoctorInput& input) -> model::CheckOutcome
    {
        if (!input.environment)
        {
            return skip(std::string(no_environment));
        }
        const auto& environment = *input.environment;
        if (!environment.framework_check_ran)
        {
            return skip(environment.framework_check_skipped.empty()
                          ? "the framework check did not run"
                          : environment.framework_check_skipped);
        }
        std::vector<std::string> good;
        std::vector<std::string> bad;
        std::string python;
        for (const auto& framework : environment.frameworks)
        {
            if (!framework.installed)
            {
                continue;
            }
            python = framework.python;
            std::string name = framework.framework + " " + framework.version.value_or("");
            if (framework.cuda_build)
            {
                name += " (CUDA " + *framework.cuda_build + ")";
            }
            if (framework.timed_out || !framework.error.empty())
            {
                bad.push_back(name + ": " + framework.error);
                continue;
            }
            if (framework.gpu_build == false)
            {
                bad.push_back(name + ": a CPU-only build");
                continue;
            }
            if (!framework.cuda_available.value_or(false) ||
                framework.device_count.value_or(0) == 0)
            {
                bad.push_back(name + ": sees no GPU");
                continue;
            }
            if (framework.operation_ok != true)
            {
                bad.push_back(name + ": the operation failed (" + framework.operation + ")");
                continue;
            }
            std::vector<std::string> devices;
            for (const auto& device : framework.devices)
            {
                devices.push_back(device.name +
                                  (device.capability.empty() ? "" : " " + device.capability));
            }
            good.push_back(name + ": " + std::to_string(*framework.device_count) + " GPU" +
                           (*framework.device_count == 1 ? "" : "s") + " (" +
                           util::join(devices, ", ") + "), " + framework.operation);
        }
        if (good.empty() && bad.empty())
        {
            return skip("none of torch, jax or tensorflow is installed in the environment");
        }
        if (!bad.empty())
        {
            return fail(
              util::join(bad, "; ") + (good.empty() ? "" : "; while " + util::join(good, "; ")),
              "the checks above name the broken link when there is one; otherwise run `" + python +
                " -c 'import torch; torch.zeros(1).cuda()'` (or the framework's equivalent) to see "
                "its "
                "own error, and compare its CUDA build with env.driver-supports-runtime");
        }
        return pass(util::join(good, "; "));
    }
}
