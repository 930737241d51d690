/* A stand-in libnvidia-ml.so.1 (see fake_driver.h for what FAKE_NVML makes it do): the NVML calls
 * envcheck's driver probe makes, with the documented signatures; the rest are absent, as in an
 * old driver. */
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

int nvmlDeviceGetUUID(void* device, char* uuid, unsigned length)
{
    (void)device;
    fake_string(FAKE, uuid, length, "GPU-00000000-0000-0000-0000-000000000000", 'U');
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
    fake_string(FAKE, pci->bus_id_legacy, sizeof pci->bus_id_legacy, "0000:17:00.0", 'L');
    fake_string(FAKE, pci->bus_id, sizeof pci->bus_id, "00000000:17:00.0", 'B');
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
