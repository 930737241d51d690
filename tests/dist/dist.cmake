# Packaging: one portable wheel (tests/dist/build_wheel.sh: the bullseye sysroot, the CUDA
# kernels, auditwheel) built once as a ctest fixture and shared by every tests/dist/test_*.py:
# the binary's dependencies and glibc floor, the wheel in a fresh venv here and in a bullseye
# chroot, the conda package, the GitHub Action's steps and the Dockerfile's stages. Labelled
# `dist`: the README's test command and CI leave them out (about half an hour of builds of their
# own, root for debootstrap); `ctest -L dist` runs them.
set(ENVCHECK_DIST_DIR "${CMAKE_BINARY_DIR}/dist")
set(ENVCHECK_DIST_SYSROOT "${ENVCHECK_DIST_DIR}/sysroot" CACHE PATH
    "The bullseye sysroot of the portable build (made when missing; one can serve several builds)")
add_test(NAME dist_build_wheel
         COMMAND "${CMAKE_CURRENT_LIST_DIR}/build_wheel.sh" "${ENVCHECK_DIST_DIR}"
                 "${ENVCHECK_DIST_SYSROOT}")
set_tests_properties(dist_build_wheel PROPERTIES FIXTURES_SETUP dist_wheel LABELS dist
                     TIMEOUT 3600)

file(GLOB dist_tests CONFIGURE_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/test_*.py")
foreach(script IN LISTS dist_tests)
    get_filename_component(name "${script}" NAME_WE)
    set_tests_properties(py_dist_${name} PROPERTIES FIXTURES_REQUIRED dist_wheel LABELS dist)
    set_property(TEST py_dist_${name} APPEND PROPERTY ENVIRONMENT
                 "ENVCHECK_DIST_DIR=${ENVCHECK_DIST_DIR}" "ENVCHECK_DIST_SYSROOT=${ENVCHECK_DIST_SYSROOT}")
endforeach()

# The pre-commit test builds its own envcheck (the hooks are `language: python`): it does not
# exercise the binary under test, so the sanitizer run leaves it out (label selfbuild); unlike
# the packaging tests above it runs with the README's test command.
if(TEST py_cli_test_precommit)
    set_property(TEST py_cli_test_precommit APPEND PROPERTY LABELS selfbuild)
endif()

# The profile-guided build's test builds envcheck twice of its own (ENVCHECK_PGO,
# tests/bench/test_pgo.py): selfbuild as well.
if(TEST py_bench_test_pgo)
    set_property(TEST py_bench_test_pgo APPEND PROPERTY LABELS selfbuild)
endif()
