# Profile-guided optimization of the envcheck binary (ENVCHECK_PGO=ON; GCC): an instrumented
# envcheck is built first, an ExternalProject of this same tree in <build>/pgo/instrumented; it
# runs the training workload (tests/bench/pgo_training.py: lock, check, lint, diff and export of
# a generated 1,500-record conda prefix and its environment file), which writes GCC's profiles;
# then every C and C++ file of this build is compiled with them. About twice the build's time
# for 4 to 9% less time checking and linting (tests/bench/RESULTS.md, "Profile-guided
# optimization"). Files the training does not reach, and those built differently (the instrumented
# build has no CUDA kernels), are optimized as without a profile.
#
# -fprofile-prefix-path: the profiles are named after each object's path relative to its build
# tree, so that the instrumented build's apply to this one's.
set(ENVCHECK_PGO_GENERATE "" CACHE PATH
    "Internal (ENVCHECK_PGO's instrumented build): instrument the code, profiles to this folder")
mark_as_advanced(ENVCHECK_PGO_GENERATE)

if(ENVCHECK_PGO_GENERATE)
    # prefer-atomic: the records are read on several threads.
    add_compile_options(
        "$<$<COMPILE_LANGUAGE:C,CXX>:-fprofile-generate=${ENVCHECK_PGO_GENERATE};-fprofile-update=prefer-atomic;-fprofile-prefix-path=${CMAKE_BINARY_DIR}>")
    add_link_options(-fprofile-generate=${ENVCHECK_PGO_GENERATE})
elseif(ENVCHECK_PGO)
    set(pgo_excluded "")
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU" OR NOT CMAKE_C_COMPILER_ID STREQUAL "GNU")
        set(pgo_excluded "it needs GCC (the compilers are ${CMAKE_C_COMPILER_ID} and ${CMAKE_CXX_COMPILER_ID})")
    elseif(ENVCHECK_SANITIZE OR ENVCHECK_FUZZ)
        set(pgo_excluded "sanitizer and fuzzing builds are not profiled")
    elseif(NOT EXISTS ${PROJECT_SOURCE_DIR}/tests/bench/pgo_training.py)
        set(pgo_excluded "its training workload, tests/bench/pgo_training.py, is not in this tree (the sdist leaves tests/ out)")
    endif()
    find_package(Python3 COMPONENTS Interpreter)
    if(pgo_excluded STREQUAL "" AND NOT Python3_Interpreter_FOUND)
        set(pgo_excluded "its training workload needs python3")
    endif()
    if(NOT pgo_excluded STREQUAL "")
        message(FATAL_ERROR "ENVCHECK_PGO=ON, but ${pgo_excluded}")
    endif()
    message(STATUS "envcheck: profile-guided optimization (an instrumented build first)")

    set(pgo_dir ${CMAKE_BINARY_DIR}/pgo)
    set(pgo_profiles ${pgo_dir}/profiles)
    set(pgo_instrumented ${pgo_dir}/instrumented/envcheck)
    # The instrumented build: this build's compilers, flags, toolchain and linking, without
    # the CUDA kernels, the tests and the benchmarks.
    set(pgo_forwarded "")
    foreach(variable IN ITEMS CMAKE_BUILD_TYPE CMAKE_TOOLCHAIN_FILE ENVCHECK_SYSROOT
                              CMAKE_MAKE_PROGRAM CMAKE_C_COMPILER CMAKE_CXX_COMPILER
                              CMAKE_C_FLAGS CMAKE_CXX_FLAGS
                              CMAKE_EXE_LINKER_FLAGS CMAKE_C_COMPILER_LAUNCHER
                              CMAKE_CXX_COMPILER_LAUNCHER ENVCHECK_PORTABLE
                              ENVCHECK_STATIC_RUNTIME ENVCHECK_JEMALLOC)
        if(DEFINED ${variable} AND NOT "${${variable}}" STREQUAL "")
            list(APPEND pgo_forwarded "-D${variable}=${${variable}}")
        endif()
    endforeach()
    include(ExternalProject)
    ExternalProject_Add(envcheck_pgo_instrumented
        SOURCE_DIR ${PROJECT_SOURCE_DIR}
        BINARY_DIR ${pgo_dir}/instrumented
        PREFIX ${pgo_dir}/external
        CMAKE_ARGS ${pgo_forwarded} -DENVCHECK_CUDA=OFF -DENVCHECK_TESTS=OFF
                   -DENVCHECK_BENCH=OFF -DENVCHECK_PGO=OFF
                   -DENVCHECK_PGO_GENERATE=${pgo_profiles}
        BUILD_COMMAND ${CMAKE_COMMAND} --build <BINARY_DIR> --target envcheck
        BUILD_ALWAYS TRUE
        BUILD_BYPRODUCTS ${pgo_instrumented}
        INSTALL_COMMAND "")
    set(pgo_training ${PROJECT_SOURCE_DIR}/tests/bench/pgo_training.py)
    add_custom_command(
        OUTPUT ${pgo_dir}/trained.stamp
        COMMAND ${CMAKE_COMMAND} -E rm -rf ${pgo_profiles}
        COMMAND Python3::Interpreter ${pgo_training} --envcheck ${pgo_instrumented}
                --work ${pgo_dir}/work --profiles ${pgo_profiles}
        COMMAND ${CMAKE_COMMAND} -E touch ${pgo_dir}/trained.stamp
        DEPENDS ${pgo_instrumented} ${pgo_training}
                ${PROJECT_SOURCE_DIR}/tests/bench/bench_check_scaling.py
                ${PROJECT_SOURCE_DIR}/tests/bench/bench_check.py
        COMMENT "Training the instrumented envcheck (profile-guided optimization)"
        VERBATIM)
    add_custom_target(envcheck_pgo_profiles DEPENDS ${pgo_dir}/trained.stamp)
    add_compile_options(
        "$<$<COMPILE_LANGUAGE:C,CXX>:-fprofile-use=${pgo_profiles};-fprofile-partial-training;-fprofile-prefix-path=${CMAKE_BINARY_DIR};-Wno-missing-profile;-Wno-coverage-mismatch>")
endif()

# Every target compiled in `directory` waits for the profiles (ENVCHECK_PGO): its objects read
# them.
function(envcheck_pgo_wait_for_profiles directory)
    if(NOT TARGET envcheck_pgo_profiles)
        return()
    endif()
    get_property(targets DIRECTORY ${directory} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target IN LISTS targets)
        get_target_property(type ${target} TYPE)
        if(type MATCHES "^(STATIC_LIBRARY|OBJECT_LIBRARY|SHARED_LIBRARY|EXECUTABLE)$")
            add_dependencies(${target} envcheck_pgo_profiles)
        endif()
    endforeach()
endfunction()
