/* A stand-in libcuda.so.1 (see fake_driver.h for what FAKE_CUDA makes it do): the CUDA driver
 * API calls envcheck's driver probe and probe child make, with the documented signatures. */
#include "fake_driver.h"

#define FAKE "FAKE_CUDA"

__attribute__((constructor)) static void fake_libcuda_loaded(void)
{
    fake_on_load(FAKE, "fake libcuda");
}

int cuDriverGetVersion(int* version)
{
    *version = 12080;
    return 0;
}

int cuInit(unsigned flags)
{
    (void)flags;
    return fake_init(FAKE, "fake libcuda cuInit", 100);
}

int cuDeviceGetCount(int* count)
{
    *count = fake_count(FAKE);
    return 0;
}

int cuDeviceGet(int* device, int ordinal)
{
    *device = ordinal;
    return 0;
}

int cuDeviceGetName(char* name, int length, int device)
{
    (void)device;
    fake_string(FAKE, name, (size_t)length, "Fake GPU", 'N');
    return 0;
}

int cuDeviceTotalMem_v2(size_t* bytes, int device)
{
    (void)device;
    *bytes = (size_t)80 << 30;
    return 0;
}

int cuDeviceGetUuid_v2(unsigned char* uuid, int device)
{
    for (int i = 0; i < 16; ++i)
    {
        uuid[i] = (unsigned char)(device + i);
    }
    return 0;
}

int cuDeviceGetPCIBusId(char* bus_id, int length, int device)
{
    char text[32];
    snprintf(text, sizeof text, "0000:%02x:00.0", (unsigned)(device & 0xff));
    fake_string(FAKE, bus_id, (size_t)length, text, 'P');
    return 0;
}

int cuDeviceGetAttribute(int* value, int attribute, int device)
{
    (void)device;
    switch (attribute)
    {
        case 75: /* compute capability major */
            *value = 9;
            return 0;
        case 76: /* compute capability minor */
            *value = 0;
            return 0;
        case 16: /* multiprocessors */
            *value = 132;
            return 0;
        case 10: /* warp size */
            *value = 32;
            return 0;
        case 13: /* clock rate, kHz */
            *value = 1980000;
            return 0;
        case 40: /* copy engines */
            *value = 3;
            return 0;
        default:
            return 1; /* CUDA_ERROR_INVALID_VALUE: not answered */
    }
}
