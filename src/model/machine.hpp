// What `envcheck probe` finds out about a machine, as plain values: the OS, the PCI bus, the
// kernel driver, device nodes, the driver libraries, what NVML and the CUDA driver API answered,
// and the CUDA runtime envcheck embeds. Every value that could not be learnt is std::nullopt (or
// empty), never guessed; where a fact came from a library, the library's real path is recorded.
//
// The same struct is what `envcheck lock` stores as "the machine" (driver_version(),
// driver_cuda_version(), gpu_summaries()) and what `envcheck smoke` uses to explain a performance
// drop (PCIe link below its maximum, clocks held back and why, ECC errors, other processes).
#ifndef ENVCHECK_MODEL_MACHINE_HPP
#define ENVCHECK_MODEL_MACHINE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/cuda_version.hpp"
#include "model/gpu_device.hpp"

namespace envcheck::model
{
    // A shared library found on disk or loaded with dlopen.
    struct LibraryFile
    {
        std::string name;      // what was asked for: "libcuda.so.1"
        std::string path;      // where it was found (under the root, without the root prefix)
        std::string real_path; // after following symbolic links
        std::string found_via; // "LD_LIBRARY_PATH", "ld.so.conf", "default", "dlopen"
        std::optional<std::string> version; // from the real file name: libcuda.so.580.65.06
        std::optional<std::uint64_t> size_bytes;
        bool stub = false;   // the link-time stub of the toolkit (.../stubs/...)
        bool compat = false; // the forward-compatibility driver (.../compat/..., cuda-compat)

        auto operator==(const LibraryFile&) const -> bool = default;
    };

    struct OsFacts
    {
        std::string pretty_name;    // os-release PRETTY_NAME
        std::string id;             // os-release ID
        std::string version_id;     // os-release VERSION_ID
        std::string kernel_release; // "6.1.0-18-amd64"
        std::string architecture;   // "x86_64"
        std::optional<std::string> glibc_version;
        std::vector<std::string> wsl_markers; // why this looks like WSL2; empty when it is not

        [[nodiscard]] auto wsl() const -> bool { return !wsl_markers.empty(); }
        auto operator==(const OsFacts&) const -> bool = default;
    };

    struct CpuFacts
    {
        std::string model;
        std::optional<int> logical_cpus;

        auto operator==(const CpuFacts&) const -> bool = default;
    };

    struct ContainerFacts
    {
        std::vector<std::string> markers; // "/.dockerenv", "cgroup: kubepods", ...

        [[nodiscard]] auto detected() const -> bool { return !markers.empty(); }
        auto operator==(const ContainerFacts&) const -> bool = default;
    };

    struct EnvironmentVariable
    {
        std::string name;
        std::string value;     // already redacted when `redacted`
        bool redacted = false; // the value, or credentials inside it, were replaced

        auto operator==(const EnvironmentVariable&) const -> bool = default;
    };

    inline constexpr unsigned nvidia_vendor_id = 0x10de;

    // An NVIDIA function on the PCI bus, from sysfs.
    struct PciDevice
    {
        std::string address; // "0000:17:00.0"
        unsigned vendor_id = 0;
        unsigned device_id = 0;
        unsigned class_code = 0;           // 0x030200: 3D controller
        std::optional<std::string> driver; // bound kernel driver: "nvidia", "nouveau", "vfio-pci"
        std::optional<std::string> current_link_speed; // "16.0 GT/s PCIe"
        std::optional<std::string> max_link_speed;
        std::optional<int> current_link_width;
        std::optional<int> max_link_width;
        std::optional<int> numa_node;

        // Display or 3D controller (class 0x03xxxx).
        [[nodiscard]] auto is_gpu() const -> bool { return (class_code >> 16) == 0x03; }
        // NVSwitch: a bridge of class 0x0680xx.
        [[nodiscard]] auto is_nvswitch() const -> bool { return (class_code >> 8) == 0x0680; }
        auto operator==(const PciDevice&) const -> bool = default;
    };

    struct PciFacts
    {
        bool sysfs_visible = false;     // /sys/bus/pci/devices could be listed
        std::vector<PciDevice> devices; // NVIDIA functions only

        [[nodiscard]] auto gpu_count() const -> int;
        [[nodiscard]] auto has_nvswitch() const -> bool;
        auto operator==(const PciFacts&) const -> bool = default;
    };

    struct KernelModule
    {
        std::string name; // "nvidia", "nvidia_uvm", "nvidia_modeset", "nvidia_drm", "nouveau"
        bool loaded = false;
        std::optional<std::string> version;

        auto operator==(const KernelModule&) const -> bool = default;
    };

    struct KernelDriverFacts
    {
        std::optional<std::string> version; // "580.65.06"
        std::string version_source; // "/proc/driver/nvidia/version", "/sys/module/nvidia/version"
        std::optional<std::string> nvrm_line; // the NVRM line of /proc/driver/nvidia/version
        std::vector<KernelModule> modules;
        std::vector<std::string> proc_gpus; // bus ids under /proc/driver/nvidia/gpus

        [[nodiscard]] auto module(std::string_view name) const -> const KernelModule*;
        [[nodiscard]] auto loaded(std::string_view name) const -> bool;
        auto operator==(const KernelDriverFacts&) const -> bool = default;
    };

    struct DeviceNode
    {
        std::string path; // "/dev/nvidia0"
        bool exists = false;
        bool character_device = false;
        std::optional<unsigned> mode; // permission bits, e.g. 0666
        std::optional<unsigned> uid;
        std::optional<unsigned> gid;
        // Readable and writable by this user: access(2) on a live system; under --root, the
        // permission bits for others (the tool cannot know the user of the image).
        std::optional<bool> accessible;
        // open(2) for reading and writing, tried by the probe child on a live system: a node
        // that passes access() but cannot be opened is blocked by the device cgroup.
        std::optional<bool> openable;
        std::string open_error;

        auto operator==(const DeviceNode&) const -> bool = default;
    };

    // Candidates for the driver libraries, in the order the dynamic loader searches.
    struct LibrarySearch
    {
        std::vector<std::string> search_dirs;
        std::vector<LibraryFile> libcuda;
        std::vector<LibraryFile> libnvidia_ml;

        auto operator==(const LibrarySearch&) const -> bool = default;
    };

    enum class FabricState
    {
        not_supported,
        not_started,
        in_progress,
        completed,
    };

    [[nodiscard]] auto to_string(FabricState state) -> std::string_view;
    [[nodiscard]] auto parse_fabric_state(std::string_view text) -> std::optional<FabricState>;

    // One GPU as NVML sees it.
    struct NvmlGpu
    {
        int index = 0;
        std::string name;
        std::string uuid;         // "GPU-..."
        std::string pci_bus_id;   // "00000000:17:00.0"
        std::optional<int> brand; // nvmlBrandType_t; 2 = data center ("Tesla")
        std::optional<int> compute_capability_major;
        std::optional<int> compute_capability_minor;
        std::optional<std::uint64_t> memory_total_bytes;
        std::optional<std::uint64_t> memory_used_bytes;
        std::optional<int> pcie_generation_current;
        std::optional<int> pcie_generation_max;
        std::optional<int> pcie_width_current;
        std::optional<int> pcie_width_max;
        std::optional<int> sm_clock_mhz;
        std::optional<int> sm_clock_max_mhz;
        std::optional<int> memory_clock_mhz;
        std::optional<int> memory_clock_max_mhz;
        std::optional<std::uint64_t>
          clock_event_reasons; // bitmask; names: clock_event_reason_names()
        std::optional<bool> ecc_enabled;
        std::optional<bool> ecc_pending;
        std::optional<std::uint64_t> ecc_corrected_volatile;
        std::optional<std::uint64_t> ecc_uncorrected_volatile;
        std::optional<std::uint64_t> ecc_corrected_aggregate;
        std::optional<std::uint64_t> ecc_uncorrected_aggregate;
        std::optional<int> remapped_rows_correctable;
        std::optional<int> remapped_rows_uncorrectable;
        std::optional<bool> remapping_pending;
        std::optional<bool> remapping_failed;
        // Dynamic page retirement (before Ampere; later GPUs remap rows instead): pages retired
        // for multiple single-bit and for double-bit errors, and a retirement waiting for the
        // next driver reload.
        std::optional<int> retired_pages_single_bit;
        std::optional<int> retired_pages_double_bit;
        std::optional<bool> retired_pages_pending;
        // NVLink: how many links NVML reports a state for (0: the GPU has no NVLink; nullopt:
        // not asked) and which of them are down.
        std::optional<int> nvlink_links;
        std::vector<int> nvlink_links_down;
        std::optional<ComputeMode> compute_mode;
        std::optional<bool> mig_enabled;
        std::optional<bool> mig_pending; // the mode after the next GPU reset
        std::optional<int> mig_devices;  // MIG devices (GPU + compute instances) that exist
        std::optional<bool> persistence_mode;
        std::optional<int> temperature_c;
        std::optional<double> power_w;
        std::optional<double> power_limit_w;
        std::optional<int> compute_processes;           // processes with a context on this GPU
        std::vector<std::uint32_t> compute_process_ids; // their PIDs (as NVML sees them)
        std::optional<FabricState> fabric_state;
        std::vector<std::string> errors; // queries that failed other than "not supported"

        auto operator==(const NvmlGpu&) const -> bool = default;
    };

    // How a probing child process ended when it did not deliver its findings.
    struct ProbeFailure
    {
        bool timed_out = false;
        std::string step;    // the call in progress: "cuInit", "nvmlInit_v2", ...
        std::string message; // "timed out after 20 s in cuInit", "crashed (signal 11)"

        [[nodiscard]] auto failed() const -> bool { return !message.empty(); }
        auto operator==(const ProbeFailure&) const -> bool = default;
    };

    struct NvmlFacts
    {
        bool attempted = false;             // false under --root: nothing is loaded
        std::optional<LibraryFile> library; // the file that answered
        std::string load_error;             // dlerror() when it could not be loaded
        std::optional<int> init_result;     // nvmlInit_v2's nvmlReturn_t
        std::optional<std::string> driver_version;
        std::optional<CudaVersion> cuda_driver_version; // nvmlSystemGetCudaDriverVersion_v2
        std::optional<std::string> nvml_version;
        std::optional<int> device_count;
        std::vector<NvmlGpu> gpus;
        ProbeFailure failure;

        [[nodiscard]] auto initialized() const -> bool { return init_result && *init_result == 0; }
        auto operator==(const NvmlFacts&) const -> bool = default;
    };

    struct CudaDriverFacts
    {
        bool attempted = false;
        std::optional<LibraryFile> library;
        std::string load_error;
        std::optional<CudaVersion> driver_version; // cuDriverGetVersion: the newest CUDA it runs
        std::optional<int> init_result;            // cuInit(0)'s CUresult
        std::optional<int> device_count;
        std::vector<GpuDevice> devices;
        ProbeFailure failure;

        [[nodiscard]] auto initialized() const -> bool { return init_result && *init_result == 0; }
        auto operator==(const CudaDriverFacts&) const -> bool = default;
    };

    // The CUDA runtime this envcheck carries (linked statically) and its kernels' architectures.
    struct EmbeddedRuntime
    {
        bool cuda_enabled = false;
        std::optional<CudaVersion> runtime;
        std::vector<std::string> sass_architectures; // "sm_90"
        std::vector<std::string> ptx_architectures;  // "compute_120"

        auto operator==(const EmbeddedRuntime&) const -> bool = default;
    };

    // An "NVRM: Xid (PCI:0000:17:00): 79, pid=..., ..." line of the kernel log.
    struct XidEvent
    {
        std::string pci_bus_id; // as the line gives it: "0000:17:00"
        int xid = 0;
        std::string message; // the text after the number, bounded

        auto operator==(const XidEvent&) const -> bool = default;
    };

    // The kernel's messages since boot, as far as they concern the GPUs: on a live system
    // /dev/kmsg (read without blocking), under --root the file <root>/dev/kmsg (a capture of
    // /dev/kmsg, `dmesg` or `journalctl -k`). An NVML event set would only see events after it
    // is registered, so it cannot say what happened since boot.
    struct KernelLogFacts
    {
        std::string source;         // the file read: "/dev/kmsg"
        bool readable = false;      // it could be read
        std::string error;          // why not: "Operation not permitted"
        std::vector<XidEvent> xids; // in log order, at most max_xid_events
        bool truncated = false;     // more Xid lines than were kept

        auto operator==(const KernelLogFacts&) const -> bool = default;
    };

    inline constexpr std::size_t max_xid_events = 1024;

    // The Xid lines of kernel log text (kmsg records "6,123,456,-;NVRM: Xid ...", dmesg or
    // journal lines): every line that holds "NVRM: Xid (PCI:<bus id>): <number>".
    void add_xid_events(std::string_view text, KernelLogFacts& log);

    // A shared library a framework loads (libcudnn, libcublas, libnccl, libcudart), where the
    // dynamic loader finds it (envcheck report).
    struct LoadableLibrary
    {
        std::string library; // "libcudnn"
        // file.name: the file name the loader asks for ("libcudnn.so.9"); file.found_via:
        // "LD_LIBRARY_PATH", "environment", "ld.so.conf" or "default"
        LibraryFile file;
        std::string source; // the environment's directories: what put it there

        auto operator==(const LoadableLibrary&) const -> bool = default;
    };

    struct MachineFacts
    {
        std::string root = "/"; // where /proc, /sys, /dev and the libraries were read
        bool live = true;       // false under --root: files only, nothing loaded or run
        std::string hostname;
        OsFacts os;
        CpuFacts cpu;
        std::optional<std::uint64_t> memory_total_bytes; // MemTotal of /proc/meminfo
        ContainerFacts container;
        std::vector<EnvironmentVariable> environment;
        PciFacts pci;
        KernelDriverFacts kernel;
        std::vector<DeviceNode> device_nodes;
        LibrarySearch libraries;
        NvmlFacts nvml;
        CudaDriverFacts cuda;
        EmbeddedRuntime runtime;
        KernelLogFacts kernel_log;
        std::vector<std::string> processes; // GPU daemons running: "nv-fabricmanager", ...

        [[nodiscard]] auto environment_value(std::string_view name) const
          -> std::optional<std::string>;
        [[nodiscard]] auto device_node(std::string_view path) const -> const DeviceNode*;
        [[nodiscard]] auto process_running(std::string_view name) const -> bool;
        auto operator==(const MachineFacts&) const -> bool = default;
    };

    // A framework asked, in the environment's own python, whether it can use the GPU.
    struct FrameworkDevice
    {
        std::string name;
        std::string capability; // "9.0"

        auto operator==(const FrameworkDevice&) const -> bool = default;
    };

    struct FrameworkFacts
    {
        std::string framework; // "torch", "jax", "tensorflow"
        std::string python;    // the interpreter that was run
        bool installed = false;
        std::optional<std::string> version;
        std::optional<std::string>
          cuda_build;                  // torch.version.cuda, tf's cuda_version, jax's plugin
        std::optional<bool> gpu_build; // false: a CPU-only build
        std::optional<bool> cuda_available;
        std::optional<int> device_count;
        std::vector<std::string> arch_list; // torch.cuda.get_arch_list(): "sm_90", "compute_120"
        std::vector<FrameworkDevice> devices;
        std::optional<bool> operation_ok; // one small operation on the GPU gave the right answer
        std::string operation;            // what was run, or why it failed
        std::string error;                // the framework's own error, or how the process ended
        bool timed_out = false;
        double seconds = 0.0;

        auto operator==(const FrameworkFacts&) const -> bool = default;
    };

    // --- summaries for `lock` and `smoke` ------------------------------------------------------

    // The driver's version: NVML's, else the kernel module's, else the system libcuda's file name.
    [[nodiscard]] auto driver_version(const MachineFacts& facts) -> std::optional<std::string>;
    // The newest CUDA the driver runs: cuDriverGetVersion, else NVML's.
    [[nodiscard]] auto driver_cuda_version(const MachineFacts& facts) -> std::optional<CudaVersion>;

    struct GpuSummary
    {
        int index = 0;
        std::string name;
        std::string uuid;
        std::string pci_bus_id;
        std::optional<int> compute_capability_major;
        std::optional<int> compute_capability_minor;
        std::optional<std::uint64_t> memory_total_bytes;

        [[nodiscard]] auto compute_capability() const -> std::optional<std::string>; // "9.0"
        auto operator==(const GpuSummary&) const -> bool = default;
    };

    // The GPUs from NVML, else from the CUDA driver API; empty when neither answered.
    [[nodiscard]] auto gpu_summaries(const MachineFacts& facts) -> std::vector<GpuSummary>;

    // --- codes and bitmasks -------------------------------------------------------------------

    // nvmlClocksEventReasons bits, lowest first: "gpu_idle", "sw_power_cap", "hw_slowdown", ...;
    // unknown bits as "0x...".
    [[nodiscard]] auto clock_event_reason_names(std::uint64_t mask) -> std::vector<std::string>;
    // "NVML_ERROR_DRIVER_NOT_LOADED"; "NVML error 123" for codes it does not know.
    [[nodiscard]] auto nvml_error_name(int code) -> std::string;
    // "CUDA_ERROR_NO_DEVICE"; "CUDA error 123" for codes it does not know.
    [[nodiscard]] auto cuda_error_name(int code) -> std::string;
    // "0x10de" style: lowercase hex with at least `digits` digits.
    [[nodiscard]] auto hex_id(std::uint64_t value, int digits) -> std::string;
}

#endif
