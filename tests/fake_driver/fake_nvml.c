/* A stand-in libnvidia-ml.so.1 (see fake_driver.h for what FAKE_NVML makes it do): the NVML calls
 * envcheck's driver probe makes, with the documented signatures; the rest are absent, as in an
 * old driver. The health queries answer as a healthy, idle H200 without NVLink unless FAKE_NVML
 * names a fault (fake_driver.h). */
#include "fake_driver.h"

#define FAKE "FAKE_NVML"

__attribute__((constructor)) static void fake_nvml_loaded(void)
{
    fake_on_load(FAKE, "fake libnvidia-ml");
}

int nvmlInit_v2(void)
{
    return fake_init(FAKE, "fake libnvidia-ml nvmlInit_v2", 9);
}

int nvmlShutdown(void)
{
    return 0;
}

int nvmlSystemGetDriverVersion(char* version, unsigned length)
{
    fake_string(FAKE, version, length, "580.65.06", 'D');
    return 0;
}

int nvmlSystemGetNVMLVersion(char* version, unsigned length)
{
    fake_string(FAKE, version, length, "13.580.65.06", 'V');
    return 0;
}

int nvmlSystemGetCudaDriverVersion_v2(int* version)
{
    *version = 13000;
    return 0;
}

int nvmlDeviceGetCount_v2(unsigned* count)
{
    *count = (unsigned)fake_count(FAKE);
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** device)
{
    *device = (void*)(size_t)(index + 1);
    return 0;
}

int nvmlDeviceGetName(void* device, char* name, unsigned length)
{
    (void)device;
    fake_string(FAKE, name, length, "Fake GPU", 'N');
    return 0;
}

/* Handles are index + 1: GPU N has the UUID ...-00000000000N and the bus 0x17 + N. */
static unsigned fake_index(void* device)
{
    return (unsigned)((size_t)device - 1);
}

int nvmlDeviceGetUUID(void* device, char* uuid, unsigned length)
{
    char text[64];
    snprintf(text, sizeof text, "GPU-00000000-0000-0000-0000-%012u", fake_index(device));
    fake_string(FAKE, uuid, length, text, 'U');
    return 0;
}

/* nvmlPciInfo_t as filled by nvmlDeviceGetPciInfo_v3. */
struct PciInfo
{
    char bus_id_legacy[16];
    unsigned domain;
    unsigned bus;
    unsigned device;
    unsigned pci_device_id;
    unsigned pci_subsystem_id;
    char bus_id[32];
};

int nvmlDeviceGetPciInfo_v3(void* device, struct PciInfo* pci)
{
    memset(pci, 0, sizeof *pci);
    char legacy[32];
    char bus_id[32];
    snprintf(legacy, sizeof legacy, "0000:%02X:00.0", (0x17 + fake_index(device)) & 0xff);
    snprintf(bus_id, sizeof bus_id, "00000000:%02X:00.0", (0x17 + fake_index(device)) & 0xff);
    fake_string(FAKE, pci->bus_id_legacy, sizeof pci->bus_id_legacy, legacy, 'L');
    fake_string(FAKE, pci->bus_id, sizeof pci->bus_id, bus_id, 'B');
    pci->bus = (unsigned)(size_t)device;
    return 0;
}

int nvmlDeviceGetCudaComputeCapability(void* device, int* major, int* minor)
{
    (void)device;
    *major = 9;
    *minor = 0;
    return 0;
}

/* --- health: a healthy H200-like GPU unless FAKE_NVML says otherwise ------------------------ */

int nvmlDeviceGetCurrPcieLinkGeneration(void* device, unsigned* generation)
{
    (void)device;
    *generation = fake_has(FAKE, "pcie-degraded") ? 3 : 5;
    return 0;
}

int nvmlDeviceGetMaxPcieLinkGeneration(void* device, unsigned* generation)
{
    (void)device;
    *generation = 5;
    return 0;
}

int nvmlDeviceGetCurrPcieLinkWidth(void* device, unsigned* width)
{
    (void)device;
    *width = fake_has(FAKE, "pcie-degraded") ? 8 : 16;
    return 0;
}

int nvmlDeviceGetMaxPcieLinkWidth(void* device, unsigned* width)
{
    (void)device;
    *width = 16;
    return 0;
}

/* Idle (GpuIdle) unless busy or pcie-degraded (working); throttle-hw adds HwSlowdown and
 * HwThermalSlowdown. */
int nvmlDeviceGetCurrentClocksEventReasons(void* device, unsigned long long* reasons)
{
    (void)device;
    const int working = fake_has(FAKE, "busy") || fake_has(FAKE, "pcie-degraded");
    *reasons = (working ? 0x0ull : 0x1ull) | (fake_has(FAKE, "throttle-hw") ? 0x48ull : 0x0ull);
    return 0;
}

int nvmlDeviceGetEccMode(void* device, int* current, int* pending)
{
    (void)device;
    *current = 1;
    *pending = 1;
    return 0;
}

/* type 1: uncorrected; counter 0: volatile, 1: aggregate. */
int nvmlDeviceGetTotalEccErrors(void* device, int type, int counter, unsigned long long* count)
{
    (void)device;
    (void)counter;
    *count = (type == 1 && fake_has(FAKE, "ecc-uncorrectable")) ? 2 : 0;
    return 0;
}

int nvmlDeviceGetRemappedRows(void* device, unsigned* correctable, unsigned* uncorrectable,
                              unsigned* pending, unsigned* failed)
{
    (void)device;
    *correctable = 0;
    *uncorrectable = fake_has(FAKE, "remap-failed") ? 512 : 0;
    *pending = fake_has(FAKE, "remap-pending") ? 1 : 0;
    *failed = fake_has(FAKE, "remap-failed") ? 1 : 0;
    return 0;
}

/* Hopper retires no pages (it remaps rows): NOT_SUPPORTED unless retired-pending. */
int nvmlDeviceGetRetiredPages(void* device, int cause, unsigned* count,
                              unsigned long long* addresses)
{
    (void)device;
    (void)cause;
    (void)addresses;
    if (!fake_has(FAKE, "retired-pending"))
    {
        return 3;
    }
    *count = 2;
    return 0;
}

int nvmlDeviceGetRetiredPagesPendingStatus(void* device, int* pending)
{
    (void)device;
    if (!fake_has(FAKE, "retired-pending"))
    {
        return 3;
    }
    *pending = 1;
    return 0;
}

/* No NVLink (NOT_SUPPORTED) unless nvlink (18 links up) or nvlink-down (links 3 and 7 down). */
int nvmlDeviceGetNvLinkState(void* device, unsigned link, int* active)
{
    (void)device;
    if (!fake_has(FAKE, "nvlink") && !fake_has(FAKE, "nvlink-down"))
    {
        return 3;
    }
    if (link >= 18)
    {
        return 2;
    }
    *active = !(fake_has(FAKE, "nvlink-down") && (link == 3 || link == 7));
    return 0;
}

int nvmlDeviceGetPersistenceMode(void* device, int* mode)
{
    (void)device;
    *mode = fake_has(FAKE, "persistence-off") ? 0 : 1;
    return 0;
}

/* nvmlProcessInfo_t (v2). */
struct ProcessInfo
{
    unsigned pid;
    unsigned long long used_gpu_memory;
    unsigned gpu_instance_id;
    unsigned compute_instance_id;
};

/* busy: two processes of others, pids 4242 and 4343; busy-pid=N: and pid N. */
int nvmlDeviceGetComputeRunningProcesses_v3(void* device, unsigned* count,
                                            struct ProcessInfo* infos)
{
    (void)device;
    const long extra = fake_number(FAKE, "busy-pid", 0);
    const unsigned running = (fake_has(FAKE, "busy") ? 2 : 0) + (extra > 0 ? 1 : 0);
    if (infos == NULL || *count < running)
    {
        const int enough = *count >= running;
        *count = running;
        return enough ? 0 : 7;
    }
    for (unsigned i = 0; i < running; ++i)
    {
        memset(&infos[i], 0, sizeof infos[i]);
        infos[i].pid = extra > 0 && i + 1 == running ? (unsigned)extra : 4242 + 101 * i;
        infos[i].used_gpu_memory = 1ull << 30;
    }
    *count = running;
    return 0;
}
