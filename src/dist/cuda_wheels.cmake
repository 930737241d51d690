# A CUDA toolkit made of PyPI's NVIDIA wheels, for machines without one: nvcc, cicc, ptxas, the
# CUDA headers, CCCL and the static CUDA runtime, pinned by version and sha256, unpacked into
# the build directory. The kernels built with it are the ones a CUDA 13.0 toolkit builds.
#
#   ENVCHECK_CUDA_WHEELS=DIR   take the wheels from DIR (a machine without network); otherwise
#                              `python3 -m pip download` fetches them into the build directory.

# name, version, file, sha256: the CUDA 13.0 toolkit's parts (the GPU machine's toolkit is 13.0).
set(ENVCHECK_CUDA_WHEEL_PINS
    "nvidia-cuda-nvcc|13.0.88|nvidia_cuda_nvcc-13.0.88-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl|56fe502eb77625a12f25172caa3cdddb4e4c8ba2c8c17dba44b164761b380f03"
    "nvidia-nvvm|13.0.88|nvidia_nvvm-13.0.88-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl|c5f41ffeb6466944a026dfa5317d7d85355c119bbec279205d22f1869d1054e0"
    "nvidia-cuda-crt|13.0.88|nvidia_cuda_crt-13.0.88-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl|2c8043c7c9e02492716426e9919fc78d2c5b3b2a7a768a88e952676b08aa55a4"
    "nvidia-cuda-runtime|13.0.96|nvidia_cuda_runtime-13.0.96-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl|7f82250d7782aa23b6cfe765ecc7db554bd3c2870c43f3d1821f1d18aebf0548"
    "nvidia-cuda-cccl|13.0.85|nvidia_cuda_cccl-13.0.85-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl|e0da7ad981f3a8aff08241b5bfc1af868742a63e2762f53a5171c492ef242649")

# Sets ${out_var} to the root of the unpacked toolkit (its bin/nvcc).
function(envcheck_cuda_from_wheels out_var)
    if(NOT CMAKE_HOST_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
        message(FATAL_ERROR "envcheck: the pinned CUDA wheels are for x86_64; on "
                            "${CMAKE_HOST_SYSTEM_PROCESSOR} install a CUDA toolkit "
                            "(CMAKE_CUDA_COMPILER=.../nvcc) or configure with -DENVCHECK_CUDA=OFF")
    endif()
    set(base "${CMAKE_BINARY_DIR}/_cuda")
    set(root "${base}/toolkit/nvidia/cu13")
    string(SHA256 pins_id "${ENVCHECK_CUDA_WHEEL_PINS}")
    if(EXISTS "${base}/toolkit.stamp")
        file(READ "${base}/toolkit.stamp" stamp)
        if(stamp STREQUAL pins_id AND EXISTS "${root}/bin/nvcc")
            set(${out_var} "${root}" PARENT_SCOPE)
            return()
        endif()
    endif()

    if(ENVCHECK_CUDA_WHEELS)
        set(wheel_dir "${ENVCHECK_CUDA_WHEELS}")
    else()
        set(wheel_dir "${base}/wheels")
        set(requirements "")
        foreach(pin IN LISTS ENVCHECK_CUDA_WHEEL_PINS)
            string(REPLACE "|" ";" fields "${pin}")
            list(GET fields 0 name)
            list(GET fields 1 version)
            list(APPEND requirements "${name}==${version}")
        endforeach()
        find_package(Python3 COMPONENTS Interpreter)
        if(NOT Python3_Interpreter_FOUND)
            message(FATAL_ERROR "envcheck: no CUDA toolkit was found, and no python3 to download "
                                "the CUDA wheels with. Install python3 and python3-pip, or a CUDA "
                                "toolkit, or configure with -DENVCHECK_CUDA=OFF (no GPU kernels)")
        endif()
        message(STATUS "envcheck: no CUDA toolkit found; downloading the pinned CUDA 13.0 wheels "
                       "(about 100 MB) from PyPI into ${wheel_dir}")
        execute_process(
            COMMAND "${Python3_EXECUTABLE}" -m pip download --quiet --disable-pip-version-check
                    --no-deps --only-binary=:all: --dest "${wheel_dir}" ${requirements}
            RESULT_VARIABLE pip_result ERROR_VARIABLE pip_error OUTPUT_QUIET)
        if(NOT pip_result EQUAL 0)
            message(FATAL_ERROR "envcheck: no CUDA toolkit was found, and pip could not download "
                                "the CUDA wheels (${pip_error}). Without network, download them "
                                "elsewhere (python3 -m pip download --no-deps ${requirements}) and "
                                "pass the folder as -DENVCHECK_CUDA_WHEELS=DIR; or install a CUDA "
                                "toolkit; or configure with -DENVCHECK_CUDA=OFF (no GPU kernels)")
        endif()
    endif()

    file(REMOVE_RECURSE "${base}/toolkit")
    foreach(pin IN LISTS ENVCHECK_CUDA_WHEEL_PINS)
        string(REPLACE "|" ";" fields "${pin}")
        list(GET fields 2 wheel)
        list(GET fields 3 expected)
        set(path "${wheel_dir}/${wheel}")
        if(NOT EXISTS "${path}")
            message(FATAL_ERROR "envcheck: ${path} is missing: ENVCHECK_CUDA_WHEELS must hold "
                                "the pinned wheels (src/dist/cuda_wheels.cmake lists them)")
        endif()
        file(SHA256 "${path}" actual)
        if(NOT actual STREQUAL expected)
            message(FATAL_ERROR "envcheck: ${path} has sha256 ${actual}, expected ${expected}")
        endif()
        file(ARCHIVE_EXTRACT INPUT "${path}" DESTINATION "${base}/toolkit")
    endforeach()

    # The layout nvcc.profile and FindCUDAToolkit expect of a toolkit: targets/<arch>/{include,lib}
    # and an unversioned libcudart.so beside the static runtime.
    file(MAKE_DIRECTORY "${root}/targets/x86_64-linux")
    file(CREATE_LINK "../../include" "${root}/targets/x86_64-linux/include" SYMBOLIC)
    file(CREATE_LINK "../../lib" "${root}/targets/x86_64-linux/lib" SYMBOLIC)
    file(CREATE_LINK "libcudart.so.13" "${root}/lib/libcudart.so" SYMBOLIC)
    file(WRITE "${base}/toolkit.stamp" "${pins_id}")
    set(${out_var} "${root}" PARENT_SCOPE)
endfunction()
