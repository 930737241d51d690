#include "checks/doctor_machine.hpp"

#include <algorithm>

#include "checks/doctor_environment.hpp"
#include "util/strings.hpp"

// Causes, detection and fixes follow gpu-anchors.md §4 (rows cited as "§4.N").
namespace envcheck::checks
{
    namespace
    {
        constexpr int nvml_no_permission = 4;
        constexpr int nvml_driver_not_loaded = 9;
        constexpr int nvml_library_not_found = 12;
        constexpr int nvml_gpu_is_lost = 15;
        constexpr int nvml_reset_required = 16;
        constexpr int nvml_operating_system = 17;
        constexpr int nvml_version_mismatch = 18;
        constexpr int nvml_unknown = 999;

        constexpr int cuda_stub_library = 34;
        constexpr int cuda_device_unavailable = 46;
        constexpr int cuda_no_device = 100;
        constexpr int cuda_not_licensed = 102;
        constexpr int cuda_operating_system = 304;
        constexpr int cuda_system_not_ready = 802;
        constexpr int cuda_driver_mismatch = 803;
        constexpr int cuda_compat_not_supported = 804;
        constexpr int cuda_unknown = 999;

        // nvmlBrandType_t values of consumer GPUs, which forward compatibility does not support.
        constexpr std::array<int, 4> consumer_brands{
            5, 6, 15, 16
        }; // GeForce, Titan, GeForce RTX, Titan RTX

        const std::string fabric_manager_fix =
          "install the nvidia-fabricmanager package of exactly the driver's version and start it: "
          "sudo systemctl enable --now nvidia-fabricmanager";

        auto join_limited(const std::vector<std::string>& items, std::size_t limit) -> std::string
        {
            if (items.size() <= limit)
            {
                return util::join(items, ", ");
            }
            std::vector<std::string> head(items.begin(),
                                          items.begin() + static_cast<std::ptrdiff_t>(limit));
            return util::join(head, ", ") + " and " + std::to_string(items.size() - limit) +
                   " more";
        }

        auto plural(std::size_t count, std::string_view one, std::string_view many) -> std::string
        {
            return std::to_string(count) + " " + std::string(count == 1 ? one : many);
        }

        auto octal_mode(unsigned mode) -> std::string
        {
            std::string text;
            for (int shift = 9; shift >= 0; shift -= 3)
            {
                text += static_cast<char>('0' + ((mode >> static_cast<unsigned>(shift)) & 7u));
            }
            return text;
        }

        auto nvidia_gpus(const model::MachineFacts& machine) -> std::vector<const model::PciDevice*>
        {
            std::vector<const model::PciDevice*> gpus;
            for (const auto& device : machine.pci.devices)
            {
                if (device.is_gpu())
                {
                    gpus.push_back(&device);
                }
            }
            return gpus;
        }

        auto driver_reports_gpus(const model::MachineFacts& machine) -> int
        {
            if (machine.nvml.device_count.value_or(0) > 0)
            {
                return *machine.nvml.device_count;
            }
            if (machine.cuda.device_count.value_or(0) > 0)
            {
                return *machine.cuda.device_count;
            }
            return static_cast<int>(machine.kernel.proc_gpus.size());
        }

        auto numbered_gpu_nodes(const model::MachineFacts& machine)
          -> std::vector<const model::DeviceNode*>
        {
            std::vector<const model::DeviceNode*> nodes;
            for (const auto& node : machine.device_nodes)
            {
                const std::string_view name =
                  std::string_view(node.path).substr(5); // after "/dev/"
                if (node.exists && name.starts_with("nvidia") && name.size() > 6 &&
                    std::all_of(name.begin() + 6, name.end(), util::is_digit))
                {
                    nodes.push_back(&node);
                }
            }
            return nodes;
        }

        // The nodes CUDA itself opens; /dev/nvidia-caps/* (MIG capabilities, read-only by design)
        // and /dev/nvidia-uvm-tools (profilers) are reported by the probe but not required.
        auto cuda_needs_node(std::string_view path) -> bool
        {
            if (path == "/dev/nvidiactl" || path == "/dev/nvidia-uvm" || path == "/dev/dxg")
            {
                return true;
            }
            constexpr std::string_view prefix = "/dev/nvidia";
            const auto rest = path.substr(std::min(path.size(), prefix.size()));
            return path.starts_with(prefix) && !rest.empty() &&
                   std::all_of(rest.begin(), rest.end(), util::is_digit);
        }

        auto node_exists(const model::MachineFacts& machine, std::string_view path) -> bool
        {
            const auto* node = machine.device_node(path);
            return node != nullptr && node->exists;
        }

        // The libcuda in use: the one dlopen() loaded, else the first the loader would find.
        // A probe child that hung or crashed before it reported the library leaves the
        // question open, so the files answer it: that child is named by the checks that need
        // it (driver.libcuda-found, nvml.init, cuda.init), never blamed on the container.
        auto active_libcuda(const model::MachineFacts& machine) -> const model::LibraryFile*
        {
            if (machine.cuda.library)
            {
                return &*machine.cuda.library;
            }
            if (machine.live && machine.cuda.attempted && !machine.cuda.failure.failed())
            {
                return nullptr;
            }
            return machine.libraries.libcuda.empty() ? nullptr : &machine.libraries.libcuda.front();
        }

        auto active_nvml(const model::MachineFacts& machine) -> const model::LibraryFile*
        {
            if (machine.nvml.library)
            {
                return &*machine.nvml.library;
            }
            if (machine.live && machine.nvml.attempted && !machine.nvml.failure.failed())
            {
                return nullptr;
            }
            return machine.libraries.libnvidia_ml.empty() ? nullptr
                                                          : &machine.libraries.libnvidia_ml.front();
        }

        // What to do about a probe child that hung or crashed: in the library's own loading (its
        // constructors), the install is broken; in a driver call, the GPU or driver is wedged.
        auto probe_failure_fix(const model::ProbeFailure& failure, std::string_view library)
          -> std::string
        {
            if (failure.step.starts_with("dlopen"))
            {
                return "loading " + std::string(library) +
                       " hangs or crashes before any call: the driver's user-space libraries are "
                       "broken or do not belong to the kernel module; reinstall the NVIDIA driver "
                       "(the kernel module's version) and reboot, and look at `sudo dmesg` for "
                       "NVRM/Xid messages";
            }
            return "the GPU or driver may be wedged: look for Xid errors (`sudo dmesg | grep -i "
                   "xid`), reset the GPU (`sudo nvidia-smi -r -i <index>` with no process on it) "
                   "or reboot";
        }

        auto describe_library(const model::LibraryFile& library) -> std::string
        {
            std::string text = library.path;
            if (!library.real_path.empty() && library.real_path != library.path)
            {
                text += " -> " + library.real_path;
            }
            if (library.version)
            {
                text += " (" + *library.version + ")";
            }
            return text;
        }

        auto directory_of(std::string_view path) -> std::string
        {
            const auto slash = path.rfind('/');
            return slash == std::string_view::npos ? std::string(path)
                                                   : std::string(path.substr(0, slash));
        }

        auto not_live() -> model::CheckOutcome
        {
            return skip("not probed: with --root only files are read and no library is loaded");
        }

        auto container_gpu_fix() -> std::string
        {
            return "start the container with GPU access: `docker run --gpus all ...` (Docker with "
                   "the NVIDIA "
                   "Container Toolkit), `runtimeClassName: nvidia` plus an nvidia.com/gpu limit "
                   "(Kubernetes), or "
                   "CDI (`--device nvidia.com/gpu=all`); on the host, `sudo nvidia-ctk runtime "
                   "configure "
                   "--runtime=docker && sudo systemctl restart docker`";
        }

        auto gpu_count_known(const model::MachineFacts& machine) -> std::optional<int>
        {
            if (machine.nvml.initialized() && machine.nvml.device_count)
            {
                return machine.nvml.device_count;
            }
            if (machine.cuda.initialized() && machine.cuda.device_count &&
                !machine.environment_value("CUDA_VISIBLE_DEVICES"))
            {
                return machine.cuda.device_count;
            }
            if (!machine.container.detected() && machine.pci.sysfs_visible)
            {
                return machine.pci.gpu_count();
            }
            return std::nullopt;
        }
    }

    auto check_pci_nvidia_present(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        if (machine.os.wsl())
        {
            return skip("WSL2 reaches the GPU through /dev/dxg, not the PCI bus; see wsl.driver");
        }
        const auto gpus = nvidia_gpus(machine);
        if (!gpus.empty())
        {
            std::vector<std::string> names;
            for (const auto* gpu : gpus)
            {
                names.push_back(gpu->address +
                                " (10de:" + model::hex_id(gpu->device_id, 4).substr(2) + ")");
            }
            auto outcome = pass(plural(gpus.size(), "NVIDIA GPU", "NVIDIA GPUs") +
                                " on the PCI bus: " + join_limited(names, 4));
            outcome.metrics["gpus"] = static_cast<double>(gpus.size());
            return outcome;
        }
        if (const int reported = driver_reports_gpus(machine); reported > 0)
        {
            return pass(std::string(machine.pci.sysfs_visible
                                      ? "no NVIDIA GPU in /sys/bus/pci"
                                      : "/sys/bus/pci is not visible here") +
                        " (a sandboxed or virtual PCI view), but the driver reports " +
                        plural(static_cast<std::size_t>(reported), "GPU", "GPUs"));
        }
        const std::string fix = "make an NVIDIA GPU visible to this machine: on a VM or cloud "
                                "instance choose a GPU instance type or pass "
                                "the GPU through (PCI passthrough); on a laptop with hybrid "
                                "graphics enable the discrete GPU in the "
                                "firmware settings; `lspci -nn | grep -i nvidia` must list it";
        if (!machine.pci.sysfs_visible)
        {
            return fail("no NVIDIA device found: /sys/bus/pci is not visible here and no NVIDIA "
                        "driver reports a GPU",
                        fix);
        }
        return fail("no NVIDIA device on the PCI bus", fix);
    }

    auto check_wsl_driver(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        if (!machine.os.wsl())
        {
            return skip("not WSL2");
        }
        const auto& candidates = machine.libraries.libcuda;
        const auto in_wsl = [](const model::LibraryFile& library)
        { return library.path.starts_with("/usr/lib/wsl/"); };
        const auto wsl_lib = std::find_if(candidates.begin(), candidates.end(), in_wsl);
        const std::string remove_linux_driver =
          "remove the Linux driver from the WSL2 distribution (`sudo apt remove --purge "
          "'nvidia-driver-*' "
          "'libnvidia-*'`, then `sudo ldconfig`): WSL2 uses the Windows driver, whose libraries "
          "are in "
          "/usr/lib/wsl/lib";
        if (machine.kernel.loaded("nvidia"))
        {
            return fail("a Linux NVIDIA kernel module is loaded inside WSL2", remove_linux_driver);
        }
        const auto* active = active_libcuda(machine);
        if (active != nullptr && !in_wsl(*active) && !active->stub)
        {
            return fail("libcuda.so.1 resolves to " + describe_library(*active) +
                          ", a Linux driver's library that shadows the one in /usr/lib/wsl/lib",
                        remove_linux_driver);
        }
        if (wsl_lib == candidates.end())
        {
            return fail("WSL2 without the Windows driver's libcuda in /usr/lib/wsl/lib",
                        "install or update the NVIDIA driver on Windows (not inside WSL), then run "
                        "`wsl --shutdown` "
                        "and start the distribution again");
        }
        return pass("WSL2 with the Windows driver's libcuda: " + describe_library(*wsl_lib));
    }

    auto check_kernel_module_loaded(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        if (machine.os.wsl())
        {
            return skip("WSL2: the Windows driver serves the GPU; there is no Linux kernel module");
        }
        const auto& kernel = machine.kernel;
        if (kernel.version || kernel.loaded("nvidia"))
        {
            std::string message = "NVIDIA kernel module";
            if (kernel.version)
            {
                message += " " + *kernel.version + " (" + kernel.version_source + ")";
            }
            return pass(message + " is loaded");
        }
        if (machine.nvml.initialized() || machine.cuda.initialized())
        {
            return pass(
              "the driver answers (" + std::string(machine.nvml.initialized() ? "NVML" : "cuInit") +
              "), though /proc/driver/nvidia and /sys/module/nvidia are not visible here");
        }
        std::vector<std::string> bound;
        bool vfio = false;
        bool nouveau = false;
        for (const auto* gpu : nvidia_gpus(machine))
        {
            bound.push_back(gpu->address + " is bound to " + gpu->driver.value_or("no driver"));
            vfio = vfio || gpu->driver == "vfio-pci";
            nouveau = nouveau || gpu->driver == "nouveau";
        }
        std::string message = "the NVIDIA kernel module is not loaded: no "
                              "/proc/driver/nvidia/version, no /sys/module/nvidia";
        if (!bound.empty())
        {
            message += "; " + join_limited(bound, 4);
        }
        std::string fix;
        if (vfio)
        {
            fix =
              "the GPU is reserved for VM passthrough by vfio-pci: remove its id from the vfio-pci "
              "options (kernel "
              "command line or /etc/modprobe.d), unbind it (`echo <address> | sudo tee "
              "/sys/bus/pci/drivers/vfio-pci/unbind`) and load the driver (`sudo modprobe nvidia`)";
        }
        else if (nouveau)
        {
            fix = "nouveau holds the GPU (see kernel.nouveau-bound): blacklist it, reboot, then "
                  "install and load the "
                  "NVIDIA driver";
        }
        else if (machine.container.detected())
        {
            fix =
              "a container uses the host's kernel: install and load the NVIDIA driver on the host";
        }
        else
        {
            fix = "install the NVIDIA driver for the running kernel" +
                  (machine.os.kernel_release.empty() ? std::string{}
                                                     : " (" + machine.os.kernel_release + ")") +
                  " with DKMS (e.g. `sudo apt install nvidia-driver-580`) and load it with `sudo "
                  "modprobe nvidia`; if "
                  "modprobe says 'Key was rejected by service', Secure Boot refuses the unsigned "
                  "module: enroll the "
                  "DKMS key (`sudo mokutil --import /var/lib/dkms/mok.pub`, then reboot) or "
                  "disable Secure Boot";
        }
        return fail(message, fix);
    }

    auto check_kernel_nouveau_bound(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        if (machine.os.wsl())
        {
            return skip("WSL2: no Linux display driver is involved");
        }
        const std::string fix = "blacklist nouveau: `printf 'blacklist nouveau\\noptions nouveau "
                                "modeset=0\\n' | sudo tee "
                                "/etc/modprobe.d/blacklist-nouveau.conf`, rebuild the initramfs "
                                "(`sudo update-initramfs -u`, or "
                                "`sudo dracut -f`), reboot, then install the NVIDIA driver";
        std::vector<std::string> bound;
        for (const auto* gpu : nvidia_gpus(machine))
        {
            if (gpu->driver == "nouveau")
            {
                bound.push_back(gpu->address);
            }
        }
        if (!bound.empty())
        {
            return fail(join_limited(bound, 4) +
                          " driven by nouveau, the open-source driver; CUDA needs NVIDIA's",
                        fix);
        }
        if (machine.kernel.loaded("nouveau"))
        {
            return warn("the nouveau module is loaded (no NVIDIA GPU is bound to it)", fix);
        }
        return pass("nouveau is not loaded");
    }

    auto check_kernel_module_matches_userspace(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        if (machine.os.wsl())
        {
            return skip("WSL2: the Windows driver serves the GPU; there is no Linux kernel module "
                        "to compare");
        }
        const auto& kernel_version = machine.kernel.version;
        const std::string fix = machine.container.detected()
                                  ? "the driver libraries in this container differ from the host's "
                                    "kernel module: do not install driver "
                                    "libraries (libcuda, libnvidia-ml) in the image; the NVIDIA "
                                    "container runtime mounts the host's"
                                  : "reboot, or unload and reload the modules (`sudo rmmod "
                                    "nvidia_uvm nvidia_drm nvidia_modeset nvidia && "
                                    "sudo modprobe nvidia nvidia_uvm`), so that the kernel module "
                                    "matches the installed libraries; to "
                                    "avoid a repeat, hold the driver packages (`sudo apt-mark "
                                    "hold`) or keep them out of unattended upgrades";
        if (machine.nvml.init_result == nvml_version_mismatch)
        {
            return fail(
              "NVML: Driver/library version mismatch (NVML_ERROR_LIB_RM_VERSION_MISMATCH)" +
                (kernel_version ? "; kernel module " + *kernel_version : std::string{}),
              fix);
        }
        if (!kernel_version)
        {
            return skip(
              "the kernel module's version is not readable here (no /proc/driver/nvidia/version or "
              "/sys/module/nvidia/version)");
        }
        std::vector<std::string> compared;
        std::vector<std::string> mismatched;
        for (const auto* library : { active_libcuda(machine), active_nvml(machine) })
        {
            // cuda-compat is newer than the kernel module by design (driver.compat-misuse).
            if (library == nullptr || !library->version || library->stub || library->compat)
            {
                continue;
            }
            compared.push_back(library->name);
            if (*library->version != *kernel_version)
            {
                mismatched.push_back(library->name + " is " + *library->version + " (" +
                                     library->real_path + ")");
            }
        }
        if (!mismatched.empty())
        {
            return fail("driver/library version mismatch: the kernel module is " + *kernel_version +
                          " but " + util::join(mismatched, ", "),
                        fix);
        }
        if (compared.empty())
        {
            return skip("no user-space driver library with a version in its file name was found");
        }
        return pass("kernel module and " + util::join(compared, ", ") + " are all " +
                    *kernel_version);
    }

    auto check_container_gpu_passed_through(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        if (!machine.container.detected())
        {
            return skip("not in a container");
        }
        const auto visible = machine.environment_value("NVIDIA_VISIBLE_DEVICES");
        const auto capabilities = machine.environment_value("NVIDIA_DRIVER_CAPABILITIES");
        const bool has_ctl = node_exists(machine, "/dev/nvidiactl");
        const auto gpu_nodes = numbered_gpu_nodes(machine);
        const auto* library = active_libcuda(machine);
        const bool compute = !capabilities || capabilities->find("compute") != std::string::npos ||
                             capabilities->find("all") != std::string::npos;
        if (has_ctl && !gpu_nodes.empty() && library != nullptr)
        {
            std::vector<std::string> paths;
            for (const auto* node : gpu_nodes)
            {
                paths.push_back(node->path);
            }
            if (!compute)
            {
                return warn("the container has " + join_limited(paths, 4) +
                              " but NVIDIA_DRIVER_CAPABILITIES='" + *capabilities +
                              "' lacks 'compute'",
                            "set NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all) when starting "
                            "the container");
            }
            return pass("the container has " + join_limited(paths, 4) + " and " + library->name);
        }
        std::vector<std::string> reasons;
        if (!visible)
        {
            reasons.emplace_back("NVIDIA_VISIBLE_DEVICES is not set");
        }
        else if (*visible == "void" || *visible == "none" || visible->empty())
        {
            reasons.push_back("NVIDIA_VISIBLE_DEVICES='" + *visible + "'");
        }
        if (!has_ctl)
        {
            reasons.emplace_back("no /dev/nvidiactl");
        }
        if (gpu_nodes.empty())
        {
            reasons.emplace_back("no /dev/nvidiaN");
        }
        if (library == nullptr)
        {
            reasons.emplace_back("no libcuda.so.1");
        }
        if (!compute)
        {
            reasons.push_back("NVIDIA_DRIVER_CAPABILITIES='" + *capabilities + "' lacks 'compute'");
            return fail("this container has no CUDA driver: " + util::join(reasons, ", "),
                        "set NVIDIA_DRIVER_CAPABILITIES=compute,utility (or all) when starting the "
                        "container");
        }
        return fail("this container was started without GPU access: " + util::join(reasons, ", "),
                    container_gpu_fix());
    }

    auto check_devnodes_present(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        if (machine.os.wsl())
        {
            return skip("WSL2 reaches the GPU through /dev/dxg");
        }
        const bool ctl = node_exists(machine, "/dev/nvidiactl");
        const bool uvm = node_exists(machine, "/dev/nvidia-uvm");
        const auto gpu_nodes = numbered_gpu_nodes(machine);
        std::vector<std::string> missing;
        if (!ctl)
        {
            missing.emplace_back("/dev/nvidiactl");
        }
        if (gpu_nodes.empty())
        {
            missing.emplace_back("/dev/nvidia0 (no /dev/nvidiaN at all)");
        }
        if (!uvm)
        {
            missing.emplace_back("/dev/nvidia-uvm");
        }
        if (!missing.empty())
        {
            std::string fix;
            if (machine.container.detected())
            {
                fix = "the container runtime did not pass the devices in: " + container_gpu_fix();
            }
            else if (ctl && !gpu_nodes.empty())
            {
                fix = "load nvidia_uvm and create its node: `sudo nvidia-modprobe -c 0 -u` (or "
                      "`sudo modprobe "
                      "nvidia_uvm`); if it is missing after every boot, enable the driver's udev "
                      "rules or "
                      "nvidia-persistenced";
            }
            else
            {
                fix = "create the device nodes: `sudo nvidia-modprobe -c 0 -u` (once per GPU "
                      "index), or install the "
                      "driver's udev rules / nvidia-persistenced so that they exist after boot";
            }
            return fail("missing device nodes: " + util::join(missing, ", "), fix);
        }
        const int gpus = machine.pci.gpu_count();
        const auto nodes = static_cast<int>(gpu_nodes.size());
        if (gpus > nodes && !machine.container.detected())
        {
            return warn(
              plural(gpu_nodes.size(), "GPU device node", "GPU device nodes") + " for " +
                plural(static_cast<std::size_t>(gpus), "GPU", "GPUs") + " on the PCI bus",
              "create the missing nodes with `sudo nvidia-modprobe -c <index>` for each GPU index");
        }
        std::string message = "/dev/nvidiactl, /dev/nvidia-uvm and " +
                              plural(gpu_nodes.size(), "GPU node", "GPU nodes") + " are present";
        if (gpus > nodes)
        {
            message += " (" + std::to_string(nodes) + " of the host's " + std::to_string(gpus) +
                       " GPUs were passed into this container)";
        }
        return pass(message);
    }

    auto check_devnodes_permissions(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        std::vector<std::string> denied;
        std::vector<std::string> blocked;
        int checked = 0;
        for (const auto& node : machine.device_nodes)
        {
            if (!node.exists || !cuda_needs_node(node.path))
            {
                continue;
            }
            ++checked;
            if (node.accessible == false)
            {
                std::string text = node.path;
                if (node.mode)
                {
                    text += " (mode " + octal_mode(*node.mode) + ", owner " +
                            std::to_string(node.uid.value_or(0)) + ", group " +
                            std::to_string(node.gid.value_or(0)) + ")";
                }
                denied.push_back(text);
            }
            else if (node.openable == false)
            {
                blocked.push_back(node.path + " (" + node.open_error + ")");
            }
        }
        if (!denied.empty())
        {
            const std::string who =
              machine.live ? "this user"
                           : "every user (under --root only the mode bits for others are known)";
            return fail(
              "not readable and writable by " + who + ": " + join_limited(denied, 4),
              "give the user access: add it to the group that owns the nodes (`sudo usermod -aG "
              "<group> "
              "$USER`, then log in again), or make the nodes world read-write through the driver "
              "option "
              "NVreg_DeviceFileMode=0666 (/etc/modprobe.d) or the udev rule that creates them");
        }
        if (!blocked.empty())
        {
            return fail(
              "access() allows them but open() fails: " + join_limited(blocked, 4) +
                "; the device cgroup blocks them (a container that lost its GPUs, e.g. after "
                "`systemctl daemon-reload` on the host)",
              "restart the container; to prevent it, create the /dev/char links on the host "
              "(`sudo nvidia-ctk system create-dev-char-symlinks --create-all`) or use CDI");
        }
        if (checked == 0)
        {
            return skip("no NVIDIA device node exists");
        }
        return pass(
          plural(static_cast<std::size_t>(checked), "device node is", "device nodes are") +
          (machine.live ? " readable, writable and open()-able" : " read-write for every user"));
    }

    auto check_libcuda_found(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        const std::string fix = machine.container.detected()
                                  ? "start the container with the NVIDIA runtime, which mounts the "
                                    "host's driver libraries: " +
                                      container_gpu_fix()
                                  : "install the NVIDIA driver's user-space libraries matching the "
                                    "kernel module (Debian/Ubuntu: "
                                    "libnvidia-compute-<branch>; RHEL/Fedora: "
                                    "nvidia-driver-cuda-libs), then run `sudo ldconfig`";
        if (machine.live && machine.cuda.attempted)
        {
            if (machine.cuda.library)
            {
                return pass("libcuda.so.1 loaded from " + describe_library(*machine.cuda.library));
            }
            if (machine.cuda.failure.failed() && machine.cuda.load_error.empty())
            {
                return fail(machine.cuda.failure.message,
                            probe_failure_fix(machine.cuda.failure, "libcuda.so.1"));
            }
            std::string message = "libcuda.so.1 cannot be loaded: " + machine.cuda.load_error;
            if (!machine.libraries.libcuda.empty())
            {
                message += " (found " + describe_library(machine.libraries.libcuda.front()) + ")";
            }
            return fail(message, fix);
        }
        if (machine.libraries.libcuda.empty())
        {
            return fail(
              "no libcuda.so.1 in LD_LIBRARY_PATH, the /etc/ld.so.conf directories or the default "
              "library directories",
              fix);
        }
        const auto& first = machine.libraries.libcuda.front();
        return pass("libcuda.so.1 found: " + describe_library(first) + " (via " + first.found_via +
                    ")");
    }

    auto check_libcuda_stub(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        const auto* library = active_libcuda(machine);
        const auto remove_fix = [](const model::LibraryFile& stub)
        {
            const std::string dir = directory_of(stub.path);
            if (stub.found_via == "ld.so.conf")
            {
                return "remove " + dir +
                       " from /etc/ld.so.conf.d and run `sudo ldconfig`: the stub is for linking "
                       "only, the driver's libcuda.so.1 must be found first";
            }
            return "remove " + dir +
                   " from LD_LIBRARY_PATH: the stub is for linking only, the driver's "
                   "libcuda.so.1 must be found first";
        };
        if (machine.cuda.init_result == cuda_stub_library)
        {
            return fail(
              "cuInit returned CUDA_ERROR_STUB_LIBRARY: " +
                (library != nullptr ? describe_library(*library) : std::string("libcuda.so.1")) +
                " is the toolkit's stub",
              library != nullptr ? remove_fix(*library)
                                 : "remove the toolkit's stubs directory from the library path");
        }
        if (library == nullptr)
        {
            return skip("no libcuda.so.1 to look at");
        }
        if (library->stub)
        {
            return fail("libcuda.so.1 resolves to the CUDA toolkit's link-time stub: " +
                          describe_library(*library) + " (via " + library->found_via + ")",
                        remove_fix(*library));
        }
        // A stub earlier in the search path still catches programs that load "libcuda.so".
        for (const auto& candidate : machine.libraries.libcuda)
        {
            if (candidate.real_path == library->real_path)
            {
                break;
            }
            if (candidate.stub)
            {
                return warn(
                  "the driver's libcuda is used, but a stub comes first in the search path: " +
                    describe_library(candidate) + " (via " + candidate.found_via + ")",
                  remove_fix(candidate));
            }
        }
        return pass("libcuda is the driver's, not a stub: " + describe_library(*library));
    }

    auto check_compat_misuse(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        const auto* library = active_libcuda(machine);
        const std::string drop_compat =
          "remove the cuda-compat directory" +
          (library != nullptr && library->compat ? " (" + directory_of(library->path) + ")"
                                                 : std::string{}) +
          " from LD_LIBRARY_PATH and /etc/ld.so.conf.d: forward compatibility works only on data "
          "center GPUs; "
          "upgrade the system driver instead";
        if (machine.cuda.init_result == cuda_compat_not_supported)
        {
            return fail("cuInit returned CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: the "
                        "forward-compatibility driver "
                        "does not support this GPU",
                        drop_compat);
        }
        if (machine.cuda.init_result == cuda_driver_mismatch)
        {
            return fail(
              "cuInit returned CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: the forward-compatibility "
              "libcuda" +
                (library != nullptr && library->version ? " " + *library->version : std::string{}) +
                " does not fit the kernel module" +
                (machine.kernel.version ? " " + *machine.kernel.version : std::string{}),
              "use the cuda-compat package made for the kernel driver's branch, or upgrade the "
              "kernel "
              "driver and drop cuda-compat");
        }
        if (library == nullptr)
        {
            return skip("no libcuda.so.1 to look at");
        }
        if (!library->compat)
        {
            return pass("libcuda is the system driver's (no forward-compatibility library in use)");
        }
        for (const auto& gpu : machine.nvml.gpus)
        {
            if (gpu.brand && std::find(consumer_brands.begin(), consumer_brands.end(),
                                       *gpu.brand) != consumer_brands.end())
            {
                return fail("the forward-compatibility libcuda " + describe_library(*library) +
                              " is in use on GPU " + std::to_string(gpu.index) + " (" + gpu.name +
                              "), which does not support it",
                            drop_compat);
            }
        }
        const auto& kernel = machine.kernel.version;
        if (kernel && library->version)
        {
            const auto branch = [](const std::string& version)
            { return version.substr(0, version.find('.')); };
            const auto compat_branch = util::parse_uint(branch(*library->version));
            const auto kernel_branch = util::parse_uint(branch(*kernel));
            if (compat_branch && kernel_branch && *compat_branch < *kernel_branch)
            {
                return warn("the forward-compatibility libcuda " + *library->version +
                              " is older than the kernel module " + *kernel +
                              ", so it gains nothing",
                            drop_compat);
            }
        }
        return pass("forward compatibility in use: " + describe_library(*library) +
                    (kernel ? " on kernel module " + *kernel : std::string{}));
    }

    auto check_nvml_init(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        const auto& nvml = machine.nvml;
        if (!machine.live || !nvml.attempted)
        {
            return not_live();
        }
        const std::string wedged_fix =
          "the GPU or driver may be wedged: look for Xid errors (`sudo dmesg | grep -i xid`), "
          "reset the GPU "
          "(`sudo nvidia-smi -r -i <index>` with no process on it) or reboot";
        if (nvml.failure.failed())
        {
            return fail(nvml.failure.message, probe_failure_fix(nvml.failure, "libnvidia-ml.so.1"));
        }
        if (!nvml.library)
        {
            const std::string message = "libnvidia-ml.so.1 cannot be loaded: " + nvml.load_error;
            const auto capabilities = machine.environment_value("NVIDIA_DRIVER_CAPABILITIES");
            const std::string fix = machine.container.detected()
                                      ? "add 'utility' to NVIDIA_DRIVER_CAPABILITIES (e.g. "
                                        "compute,utility) when starting the container"
                                      : "install the driver's NVML library (Debian/Ubuntu: "
                                        "libnvidia-compute-<branch>) matching the "
                                        "kernel module";
            if (machine.cuda.initialized())
            {
                return warn(message +
                              "; CUDA works without it, but nvidia-smi and NVML-based tools do not",
                            fix);
            }
            return fail(message, fix);
        }
        if (!nvml.initialized())
        {
            const int code = nvml.init_result.value_or(-1);
            const std::string message = "nvmlInit_v2 returned " + model::nvml_error_name(code);
            switch (code)
            {
                case nvml_driver_not_loaded:
                    return fail(
                      message + ": the NVIDIA kernel module is not loaded",
                      "load the driver: `sudo modprobe nvidia` (see kernel.module-loaded)");
                case nvml_version_mismatch:
                    return fail(message +
                                  ": the kernel module and libnvidia-ml are different versions",
                                "reboot (or reload the nvidia modules) so that the kernel module "
                                "matches the libraries");
                case nvml_no_permission:
                    return fail(message, "give this user read-write access to /dev/nvidia* (see "
                                         "devnodes.permissions)");
                case nvml_operating_system:
                case nvml_unknown:
                    return fail(
                      message +
                        (machine.container.detected()
                           ? ": the device cgroup blocks the GPU (a container that lost its GPUs)"
                           : ""),
                      machine.container.detected()
                        ? "restart the container; on the host, `sudo nvidia-ctk system "
                          "create-dev-char-symlinks --create-all` or CDI prevent it"
                        : wedged_fix);
                case nvml_library_not_found:
                    return fail(message, "install the driver's user-space libraries");
                default:
                    return fail(message, wedged_fix);
            }
        }
        for (const auto& gpu : nvml.gpus)
        {
            for (const auto& error : gpu.errors)
            {
                if (error.find(model::nvml_error_name(nvml_gpu_is_lost)) != std::string::npos ||
                    error.find(model::nvml_error_name(nvml_reset_required)) != std::string::npos)
                {
                    return fail(
                      "GPU " + std::to_string(gpu.index) + " " + gpu.pci_bus_id + ": " + error,
                      "the GPU has fallen off the bus or needs a reset: `sudo nvidia-smi -r -i " +
                        std::to_string(gpu.index) +
                        "` or reboot; if it repeats, check `dmesg` for Xid 79 and the hardware "
                        "(power, "
                        "seating)");
                }
            }
        }
        std::vector<std::string> names;
        for (const auto& gpu : nvml.gpus)
        {
            names.push_back(gpu.name);
        }
        auto outcome =
          pass("NVML " + nvml.nvml_version.value_or("?") + ", driver " +
               nvml.driver_version.value_or("?") + ", " +
               plural(static_cast<std::size_t>(nvml.device_count.value_or(0)), "GPU", "GPUs") +
               (names.empty() ? std::string{} : ": " + join_limited(names, 4)));
        outcome.metrics["gpus"] = nvml.device_count.value_or(0);
        return outcome;
    }

    auto check_cuda_init(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        const auto& cuda = machine.cuda;
        if (!machine.live || !cuda.attempted)
        {
            return not_live();
        }
        const std::string check_dmesg = "look at `sudo dmesg` for NVRM/Xid messages";
        if (cuda.failure.failed())
        {
            return fail(cuda.failure.message, probe_failure_fix(cuda.failure, "libcuda.so.1"));
        }
        if (!cuda.init_result)
        {
            return fail("libcuda.so.1 cannot be loaded: " + cuda.load_error,
                        "see driver.libcuda-found");
        }
        const int code = *cuda.init_result;
        const std::string message = "cuInit(0) returned " + model::cuda_error_name(code);
        if (code == 0)
        {
            return pass(message + (cuda.driver_version ? "; the driver supports CUDA " +
                                                           cuda.driver_version->to_string()
                                                       : std::string{}));
        }
        switch (code)
        {
            case cuda_no_device:
                if (const auto visible = machine.environment_value("CUDA_VISIBLE_DEVICES"))
                {
                    return fail(message + ": CUDA_VISIBLE_DEVICES='" + *visible +
                                  "' hides every GPU",
                                "unset CUDA_VISIBLE_DEVICES, or set it to GPU indexes or UUIDs "
                                "(`nvidia-smi -L`) "
                                "before the process starts");
                }
                return fail(message + ": the driver finds no CUDA-capable device",
                            "check that the GPUs are not all in MIG mode without instances "
                            "(mig.configuration) and "
                            "not hidden by the container runtime; " +
                              check_dmesg);
            case cuda_stub_library:
                return fail(message + ": libcuda.so.1 is the toolkit's stub",
                            "see driver.libcuda-stub");
            case cuda_unknown:
                return fail(
                  message +
                    ": often the nvidia_uvm module is missing or wedged (after suspend/resume), "
                    "or KASLR with HMM (dmesg: 'devmem_alloc_pagemap ... err -34')",
                  "reload nvidia_uvm: `sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm` (or "
                  "`sudo "
                  "nvidia-modprobe -u -c 0`); with the KASLR+HMM message, set `options nvidia_uvm "
                  "uvm_disable_hmm=1` in /etc/modprobe.d or boot with nokaslr");
            case cuda_system_not_ready:
                return fail(message + ": the NVSwitch fabric is not initialized (Fabric Manager)",
                            fabric_manager_fix);
            case cuda_driver_mismatch:
            case cuda_compat_not_supported:
                return fail(message, "see driver.compat-misuse");
            case cuda_not_licensed:
                return fail(message + ": a vGPU without a license",
                            "configure the vGPU license (gridd, /etc/nvidia/gridd.conf) and "
                            "restart nvidia-gridd");
            case cuda_operating_system:
                return fail(message + ": an OS call failed (Fabric Manager/IMEX, cgroups)",
                            check_dmesg);
            case cuda_device_unavailable:
                return fail(message + ": the GPUs are busy or prohibited", "see cuda.compute-mode");
            default:
                return fail(message, check_dmesg);
        }
    }

    auto check_cuda_visible_devices(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        const auto value = machine.environment_value("CUDA_VISIBLE_DEVICES");
        if (!value)
        {
            return pass("CUDA_VISIBLE_DEVICES is not set: every GPU is visible to CUDA");
        }
        std::vector<std::string> uuids;
        for (const auto& gpu : machine.nvml.gpus)
        {
            uuids.push_back(gpu.uuid);
        }
        const auto devices = parse_visible_devices(*value, gpu_count_known(machine), uuids);
        const std::string shown = "CUDA_VISIBLE_DEVICES='" + *value + "'";
        const std::string fix = "unset CUDA_VISIBLE_DEVICES, or set it to GPU indexes (0,1) or "
                                "UUIDs from `nvidia-smi -L`, before the "
                                "process starts";
        if (devices.visible.empty())
        {
            return fail(shown + " makes no GPU visible" +
                          (devices.first_invalid
                             ? ": '" + *devices.first_invalid + "' " + devices.invalid_reason
                             : std::string{}),
                        fix);
        }
        if (devices.first_invalid)
        {
            return warn(shown + ": reading stops at '" + *devices.first_invalid + "' (" +
                          devices.invalid_reason + "), so only " +
                          util::join(devices.visible, ",") + " are used",
                        fix);
        }
        if (devices.mig_entries > 1)
        {
            return warn(shown + " names " + std::to_string(devices.mig_entries) +
                          " MIG devices, but a process uses only the first",
                        "run one process per MIG device");
        }
        return pass(shown + ": " + plural(devices.visible.size(), "GPU", "GPUs") + " visible");
    }

    auto check_cuda_device_count(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        const auto& cuda = machine.cuda;
        if (!machine.live || !cuda.attempted)
        {
            return not_live();
        }
        const int count = cuda.device_count.value_or(0);
        if (count == 0)
        {
            return fail("cuInit succeeded but cuDeviceGetCount finds no device",
                        "check CUDA_VISIBLE_DEVICES and MIG (mig.configuration)");
        }
        std::vector<std::string> names;
        for (const auto& device : cuda.devices)
        {
            std::string text = std::to_string(device.index) + ": " + device.name;
            if (device.compute_capability_major && device.compute_capability_minor)
            {
                text += " (" + std::to_string(*device.compute_capability_major) + "." +
                        std::to_string(*device.compute_capability_minor) + ")";
            }
            names.push_back(text);
        }
        auto outcome = pass(plural(static_cast<std::size_t>(count), "CUDA device", "CUDA devices") +
                            ": " + join_limited(names, 4));
        outcome.metrics["devices"] = count;
        const int nvml_count =
          machine.nvml.initialized() ? machine.nvml.device_count.value_or(0) : 0;
        const bool mig =
          std::any_of(machine.nvml.gpus.begin(), machine.nvml.gpus.end(),
                      [](const model::NvmlGpu& gpu) { return gpu.mig_enabled.value_or(false); });
        if (count < nvml_count && !machine.environment_value("CUDA_VISIBLE_DEVICES") && !mig)
        {
            outcome.status = model::Status::warn;
            outcome.message += "; NVML sees " + std::to_string(nvml_count);
            outcome.fix =
              "look for GPUs in a bad state (`nvidia-smi -q`, `sudo dmesg | grep -i xid`)";
        }
        return outcome;
    }

    auto check_cuda_compute_mode(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        struct Gpu
        {
            std::string label;
            std::optional<model::ComputeMode> mode;
            std::optional<int> processes;
        };
        std::vector<Gpu> gpus;
        if (!machine.nvml.gpus.empty())
        {
            for (const auto& gpu : machine.nvml.gpus)
            {
                gpus.push_back({ "GPU " + std::to_string(gpu.index) + " (" + gpu.name + ")",
                                 gpu.compute_mode, gpu.compute_processes });
            }
        }
        else
        {
            for (const auto& device : machine.cuda.devices)
            {
                gpus.push_back(
                  { "device " + std::to_string(device.index) + " (" + device.name + ")",
                    device.compute_mode, std::nullopt });
            }
        }
        if (std::none_of(gpus.begin(), gpus.end(),
                         [](const Gpu& gpu) { return gpu.mode.has_value(); }))
        {
            return skip("no compute mode known (needs NVML or the CUDA driver)");
        }
        std::vector<std::string> exclusive;
        for (const auto& gpu : gpus)
        {
            if (gpu.mode == model::ComputeMode::prohibited)
            {
                return fail(gpu.label + " is in compute mode PROHIBITED: no process may use it",
                            "sudo nvidia-smi -i <index> -c DEFAULT");
            }
            if (gpu.mode == model::ComputeMode::exclusive_process ||
                gpu.mode == model::ComputeMode::exclusive_thread)
            {
                if (gpu.processes.value_or(0) > 0)
                {
                    return fail(
                      gpu.label + " is in compute mode " +
                        std::string(model::to_string(*gpu.mode)) + " and already used by " +
                        plural(static_cast<std::size_t>(*gpu.processes), "process", "processes"),
                      "wait for or stop the process holding it (`nvidia-smi` lists it), or `sudo "
                      "nvidia-smi "
                      "-i <index> -c DEFAULT`");
                }
                exclusive.push_back(gpu.label);
            }
        }
        if (!exclusive.empty())
        {
            return warn(join_limited(exclusive, 4) +
                          " in an exclusive compute mode: one process at a time",
                        "`sudo nvidia-smi -i <index> -c DEFAULT` to share the GPU");
        }
        return pass("every GPU is in the DEFAULT compute mode");
    }

    auto check_fabric_manager(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        if (machine.cuda.init_result == cuda_system_not_ready)
        {
            return fail(
              "cuInit returned CUDA_ERROR_SYSTEM_NOT_READY: the NVSwitch fabric is not initialized",
              fabric_manager_fix);
        }
        bool nvswitch = machine.pci.has_nvswitch();
        for (const auto& node : machine.device_nodes)
        {
            nvswitch = nvswitch || (node.exists && node.path.starts_with("/dev/nvidia-nvswitch"));
        }
        std::vector<std::string> waiting;
        int completed = 0;
        for (const auto& gpu : machine.nvml.gpus)
        {
            if (gpu.fabric_state == model::FabricState::not_started ||
                gpu.fabric_state == model::FabricState::in_progress)
            {
                waiting.push_back("GPU " + std::to_string(gpu.index) + " " +
                                  std::string(model::to_string(*gpu.fabric_state)));
            }
            completed += gpu.fabric_state == model::FabricState::completed ? 1 : 0;
        }
        if (!waiting.empty())
        {
            const std::string message = "NVLink fabric not set up: " + join_limited(waiting, 4);
            // Without a visible NVSwitch (a VM given one GPU of an HGX board) CUDA may still run.
            return nvswitch ? fail(message, fabric_manager_fix) : warn(message, fabric_manager_fix);
        }
        if (completed > 0)
        {
            return pass("the NVLink fabric is initialized on " +
                        plural(static_cast<std::size_t>(completed), "GPU", "GPUs"));
        }
        if (!nvswitch)
        {
            return skip("no NVSwitch on this machine: Fabric Manager is not needed");
        }
        if (machine.process_running("nv-fabricmanager"))
        {
            return pass("NVSwitch system with nv-fabricmanager running");
        }
        return fail(
          "NVSwitch system without a running Fabric Manager (no nv-fabricmanager process)",
          fabric_manager_fix);
    }

    auto check_mig_configuration(const DoctorInput& input) -> model::CheckOutcome
    {
        const auto& machine = input.machine;
        if (!machine.live || !machine.nvml.initialized())
        {
            return skip(machine.live
                          ? "needs NVML"
                          : "not probed: with --root only files are read and no library is loaded");
        }
        std::vector<std::string> enabled;
        for (const auto& gpu : machine.nvml.gpus)
        {
            const std::string label = "GPU " + std::to_string(gpu.index) + " (" + gpu.name + ")";
            if (gpu.mig_enabled.value_or(false) && gpu.mig_devices.value_or(1) == 0)
            {
                return fail(
                  label +
                    " has MIG enabled but no MIG devices (no GPU or compute instances), so CUDA "
                    "cannot run on it",
                  "create instances (`sudo nvidia-smi mig -i " + std::to_string(gpu.index) +
                    " -cgi <profile> -C`) or disable MIG (`sudo nvidia-smi -i " +
                    std::to_string(gpu.index) + " -mig 0`, then reset the GPU)");
            }
            if (gpu.mig_enabled && gpu.mig_pending && *gpu.mig_enabled != *gpu.mig_pending)
            {
                return warn(label + ": a MIG mode change is pending until the GPU is reset",
                            "reset the GPU with no process on it (`sudo nvidia-smi -r -i " +
                              std::to_string(gpu.index) + "`) or reboot");
            }
            if (gpu.mig_enabled.value_or(false))
            {
                enabled.push_back(label + " with " + std::to_string(gpu.mig_devices.value_or(0)) +
                                  " MIG devices");
            }
        }
        if (enabled.empty())
        {
            return pass("MIG is disabled or not supported on every GPU");
        }
        return pass("MIG enabled: " + join_limited(enabled, 4));
    }
}
