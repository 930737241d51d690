#!/usr/bin/env bash
# `envcheck probe` and `envcheck doctor` on the GPU machine (issue 5). Builds only the envcheck
# binary (SASS for sm_90 only, to keep the build short on the H200), then records, under $OUT:
#   probe.txt, probe.json      envcheck probe [--format json]
#   doctor-machine.txt         envcheck doctor (the machine alone)
#   doctor.txt, doctor.json    envcheck doctor --prefix /opt/torch/.venv [--format json]
#   machine.txt                what the driver tools say, to compare with the probe
#   build.log
# Run from the repository root: bash tests/device/doctor_probe.sh
set -u
OUT=${OUT:-/tmp/envcheck-device}
mkdir -p "$OUT"
export PATH=/opt/torch/.venv/bin:$PATH
PREFIX=/opt/torch/.venv

# The probe kernels belong to another module; if they do not build, envcheck without CUDA still
# probes and diagnoses (only its "runtime" line changes).
build() {
    local dir=$1
    shift
    cmake -S . -B "$dir" -G Ninja -DENVCHECK_TESTS=OFF -DENVCHECK_BENCH=OFF "$@" \
        && cmake --build "$dir" --target envcheck -j16
}
if build build-dev -DCMAKE_CUDA_ARCHITECTURES=90-real > "$OUT/build.log" 2>&1; then
    ENVCHECK=build-dev/envcheck
elif build build-dev-nocuda -DENVCHECK_CUDA=OFF >> "$OUT/build.log" 2>&1; then
    ENVCHECK=build-dev-nocuda/envcheck
    echo "== built without CUDA (the CUDA build failed; see build.log)"
else
    tail -n 60 "$OUT/build.log"
    exit 1
fi

{
    echo "## nvidia-smi -L"; nvidia-smi -L 2>&1
    echo "## /proc/driver/nvidia/version"; cat /proc/driver/nvidia/version 2>&1
    echo "## ls -l /dev/nvidia*"; ls -l /dev/nvidia* 2>&1
    echo "## ldconfig -p | grep -E 'libcuda|libnvidia-ml'"; ldconfig -p 2>&1 | grep -E 'libcuda|libnvidia-ml'
    echo "## LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-}"
    echo "## ls /sys/bus/pci/devices | head"; ls /sys/bus/pci/devices 2>&1 | head
} > "$OUT/machine.txt" 2>&1

run() {
    local name=$1
    shift
    local start=$SECONDS
    "$ENVCHECK" "$@" > "$OUT/$name" 2> "$OUT/$name.err"
    local rc=$?
    echo "== envcheck $* -> exit $rc ($((SECONDS - start)) s)"
    cat "$OUT/$name.err"
    rm -f "$OUT/$name.err"
    return 0
}

run probe.txt probe
run probe.json probe --format json
run doctor-machine.txt doctor
run doctor.txt doctor --prefix "$PREFIX"
run doctor.json doctor --prefix "$PREFIX" --format json
cat "$OUT/probe.txt" "$OUT/doctor.txt"
