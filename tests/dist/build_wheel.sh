#!/usr/bin/env bash
# Builds the portable envcheck wheel, the one to publish: the binary compiled against
# bullseye's glibc (src/dist/bullseye.cmake, sysroot from make_sysroot.sh) with the CUDA
# kernels, installed into a py3-none wheel by scikit-build-core, then checked and retagged
# manylinux by auditwheel. Prints the repaired wheel's path. Run as root (debootstrap).
#   tests/dist/build_wheel.sh OUT_DIR [SYSROOT]
# OUT_DIR/wheel-build is kept, so a second run rebuilds only what changed.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "${1:?usage: build_wheel.sh OUT_DIR [SYSROOT]}" && cd "$1" && pwd)
sysroot=${2:-$out/sysroot}

nice -n 15 "$src/tests/dist/make_sysroot.sh" "$sysroot"

rm -rf "$out/dist" "$out/wheelhouse"
# CMake reads the toolchain file from the environment (3.21+); scikit-build-core passes the
# rest of the environment through (CUDA wheels folder, compiler launcher).
ENVCHECK_SYSROOT="$sysroot" CMAKE_TOOLCHAIN_FILE="$src/src/dist/bullseye.cmake" \
    nice -n 15 python3 -m pip wheel --quiet --disable-pip-version-check --no-deps \
        --config-settings=build-dir="$out/wheel-build" --wheel-dir "$out/dist" "$src" >&2
python3 -m auditwheel repair --only-plat --plat manylinux_2_31_x86_64 --wheel-dir "$out/wheelhouse" \
    "$out"/dist/envcheck_gpu-*.whl >&2
ls "$out"/wheelhouse/envcheck_gpu-*.whl
