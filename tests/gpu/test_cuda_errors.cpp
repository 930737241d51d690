#include <string>
#include <utility>
#include <vector>

#include "gpu/cuda_errors.hpp"
#include "tests/catch.hpp"

using envcheck::gpu::classify_cuda_error;
using envcheck::gpu::CudaErrorClass;
using envcheck::gpu::describe_cuda_failure;

namespace
{
    TEST_CASE("classify_cuda_error", "[gpu][CudaErrorClass]")
    {
        const std::pair<int, CudaErrorClass> cases[] = {
            { 0, CudaErrorClass::none },
            { 209, CudaErrorClass::no_kernel_image },
            { 222, CudaErrorClass::ptx_rejected },
            { 218, CudaErrorClass::ptx_rejected },
            { 35, CudaErrorClass::driver_too_old },
            { 34, CudaErrorClass::driver_broken },
            { 803, CudaErrorClass::driver_broken },
            { 100, CudaErrorClass::no_device },
            { 46, CudaErrorClass::device_busy },
            { 2, CudaErrorClass::out_of_memory },
            { 700, CudaErrorClass::kernel_fault },
            { 719, CudaErrorClass::kernel_fault },
            { 214, CudaErrorClass::hardware_error },
            { 999, CudaErrorClass::other },
        };
        for (const auto& [code, expected] : cases)
        {
            CAPTURE(code);
            CHECK(classify_cuda_error(code) == expected);
        }
    }

    TEST_CASE("classify_cuda_error tells 209 apart from every other failure",
              "[gpu][CudaErrorClass]")
    {
        // hello's verdict rests on this: only "no kernel image" means "rebuild for this GPU".
        for (int code = 0; code < 1100; ++code)
        {
            CAPTURE(code);
            CHECK((classify_cuda_error(code) == CudaErrorClass::no_kernel_image) == (code == 209));
        }
    }

    TEST_CASE("classify_cuda_error negative", "[gpu][CudaErrorClass]")
    {
        for (const int code : { -1, 1, 12345, 2147483647 })
        {
            CAPTURE(code);
            CHECK(classify_cuda_error(code) == CudaErrorClass::other);
        }
    }

    TEST_CASE("describe_cuda_failure", "[gpu][CudaErrorClass]")
    {
        SECTION("209 names the device's architecture and what the binary carries")
        {
            const auto text =
              describe_cuda_failure(209, "cudaErrorNoKernelImageForDevice", "vector_add", "sm_100",
                                    { "sm_80", "sm_90" }, { "compute_90" });
            CHECK(text.find("no kernel image for this device") != std::string::npos);
            CHECK(text.find("vector_add returned 209 cudaErrorNoKernelImageForDevice") !=
                  std::string::npos);
            CHECK(
              text.find("the device is sm_100, envcheck carries sm_80 sm_90 and PTX compute_90") !=
              std::string::npos);
        }
        SECTION("other errors do not talk about kernel images")
        {
            const auto text = describe_cuda_failure(2, "cudaErrorMemoryAllocation", "cudaMalloc",
                                                    "sm_90", { "sm_90" }, {});
            CHECK(text.find("out of memory") != std::string::npos);
            CHECK(text.find("kernel image") == std::string::npos);
            CHECK(text.find("carries") == std::string::npos);
        }
    }
}
