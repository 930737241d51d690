# Toolchain file of the portable build: this machine's g++ (12) and nvcc, compiling against and
# linking to the glibc of Debian 11 "bullseye" (2.31, the oldest release the Debian mirror
# serves), in a sysroot that tests/dist/make_sysroot.sh prepares. The binary then runs on any
# x86_64 Linux with glibc 2.31 or newer (Debian 11, Ubuntu 20.04, EL9; tests/dist checks it).
#
#   cmake -S . -B build-portable -G Ninja -DCMAKE_TOOLCHAIN_FILE=src/dist/bullseye.cmake \
#         -DENVCHECK_SYSROOT=/path/to/sysroot -DENVCHECK_TESTS=OFF
if(NOT ENVCHECK_SYSROOT AND DEFINED ENV{ENVCHECK_SYSROOT})
    set(ENVCHECK_SYSROOT "$ENV{ENVCHECK_SYSROOT}")
endif()
if(NOT ENVCHECK_SYSROOT OR NOT EXISTS "${ENVCHECK_SYSROOT}/envcheck-sysroot-v3.stamp")
    message(FATAL_ERROR "src/dist/bullseye.cmake needs ENVCHECK_SYSROOT, a sysroot made by "
                        "tests/dist/make_sysroot.sh (got '${ENVCHECK_SYSROOT}')")
endif()
set(ENVCHECK_SYSROOT "${ENVCHECK_SYSROOT}" CACHE PATH "The bullseye sysroot" FORCE)
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ENVCHECK_SYSROOT)

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_SYSROOT "${ENVCHECK_SYSROOT}")
set(CMAKE_C_COMPILER gcc)
set(CMAKE_CXX_COMPILER g++)
set(CMAKE_CUDA_HOST_COMPILER g++)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)  # cmake, python3, nvcc: this machine's
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(envcheck_libdirs "${ENVCHECK_SYSROOT}/usr/lib/x86_64-linux-gnu ${ENVCHECK_SYSROOT}/lib/x86_64-linux-gnu")
# The start files and libraries of the sysroot before g++'s own directories, which hold this
# machine's glibc; libgcc_eh from bullseye's gcc (libgcc-envcheck/): gcc 12's unwinder calls
# _dl_find_object, which glibc 2.31 lacks. --sysroot here too: CMake adds it to C and C++ links
# but not to those of CUDA targets (its try_compile checks link one).
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "--sysroot=${ENVCHECK_SYSROOT} -B${ENVCHECK_SYSROOT}/usr/lib/x86_64-linux-gnu -L${ENVCHECK_SYSROOT}/libgcc-envcheck -L${ENVCHECK_SYSROOT}/usr/lib/x86_64-linux-gnu -L${ENVCHECK_SYSROOT}/lib/x86_64-linux-gnu")
# nvcc runs the host compiler itself: give it the sysroot's headers too.
set(CMAKE_CUDA_FLAGS_INIT "-Xcompiler=--sysroot=${ENVCHECK_SYSROOT}")

set(ENVCHECK_PORTABLE ON CACHE BOOL "" FORCE)
set(ENVCHECK_GLIBC_FLOOR 2.31 CACHE STRING "The glibc the binary is built against" FORCE)
