#!/usr/bin/env bash
# The one script for the GPU machine: builds envcheck with CUDA (sm_90 only, to save build time),
# runs the GPU tests and the gpu module's CPU tests, the end-to-end smoke test, the benchmarks,
# `envcheck smoke` in every form and 10 quick runs for the spread, then compute-sanitizer on the
# kernel tests. Everything goes under $OUT (at most 8 files come back); a short table is printed
# last. Run from anywhere: tests/device/run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/envcheck-device-out}
BUILD=${BUILD:-/tmp/envcheck-device-build}
mkdir -p "$OUT"
CMAKE=/opt/torch/.venv/bin/cmake
[ -x "$CMAKE" ] || CMAKE=cmake
PYTHON=python3
export PYTHONUNBUFFERED=1
started=$(date +%s)
step() { echo "== [$(( $(date +%s) - started )) s] $*"; }

step "machine" | tee "$OUT/build.log"
{
    nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,pcie.link.width.max,clocks.sm,clocks.max.sm,clocks_event_reasons.active,persistence_mode,compute_mode --format=csv
    nvcc --version | tail -1; g++ --version | head -1; "$CMAKE" --version | head -1; nproc
    dpkg -l 2>/dev/null | grep -E "yaml-cpp|cli11|catch2|nlohmann|libcurl.*-dev" | awk '{print $2, $3}'
} >> "$OUT/build.log" 2>&1

step "configure and build" | tee -a "$OUT/build.log"
"$CMAKE" -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DENVCHECK_CUDA=ON \
    -DCMAKE_CUDA_ARCHITECTURES=90 >> "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
# Mine first, so that another module's half-finished code cannot keep them from building.
for target in test_gpu bench_gpu test_model test_checks test_report envcheck; do
    "$CMAKE" --build "$BUILD" --target "$target" -j "$(nproc)" >> "$OUT/build.log" 2>&1 \
        || echo "BUILD FAILED: $target" | tee -a "$OUT/build.log"
done
grep -E "warning" "$OUT/build.log" | grep -E "src/(gpu|model/smoke|checks/perf|report/smoke|cli/cmd_smoke)|kernels/|tests/(gpu|bench)" \
    | sort -u | head -20 | sed 's/^/OUR WARNING: /' | tee -a "$OUT/build.log"
cuobjdump --dump-resource-usage "$BUILD/kernels/libenvcheck_kernels.a" 2>&1 | grep -E "Function|REG" \
    | paste - - | sed -E 's/.*Function ([^ :]+).*REG:([0-9]+) STACK:([0-9]+) SHARED:([0-9]+) LOCAL:([0-9]+).*/\1 reg=\2 stack=\3 shared=\4 local=\5/' \
    | c++filt | cut -c1-160 >> "$OUT/build.log" 2>&1
# What the matmul and copy kernels compile to: 16-byte shared/global accesses, FFMA count,
# local-memory traffic (LDL/STL would mean a register array spilled).
cuobjdump -sass "$BUILD/kernels/libenvcheck_kernels.a" 2>/dev/null | awk '
    /Function :/ { name = $3; next }
    name ~ /matmul|copy_kernel/ && /\/\*[0-9a-f]+\*\// {
        n[name]++
        if (/FFMA/) ffma[name]++
        if (/LDS\.128/) lds128[name]++; else if (/LDS/) lds[name]++
        if (/LDG[A-Z.0-9]*\.128/) ldg128[name]++
        if (/STG[A-Z.0-9]*\.128/) stg128[name]++
        if (/LDL|STL/) local[name]++
    }
    END { for (f in n) printf "SASS %s instr=%d FFMA=%d LDS.128=%d LDS=%d LDG.128=%d STG.128=%d LDL/STL=%d\n",
          f, n[f], ffma[f], lds128[f], lds[f], ldg128[f], stg128[f], local[f] }' \
    | c++filt | sed -E 's/\((float const\*, float const\*, float\*, int, int, int|uint4 const\*, uint4\*, unsigned long, unsigned char const\*, unsigned char\*, unsigned long)\)//; s/envcheck::kernels::\(anonymous namespace\):://g; s/\((Layout|Hint)\)/\1=/g' \
    | tee -a "$OUT/build.log"

step "tests" | tee "$OUT/tests.log"
{
    timeout 300 "$BUILD/tests/test_gpu" "[.gpu]" 2>&1 | tail -40
    "$BUILD/tests/test_gpu" 2>&1 | tail -3
    "$BUILD/tests/test_model" "[SmokeMode],[SmokeReport],[GpuDevice],[PerfBaseline]" 2>&1 | tail -3
    "$BUILD/tests/test_checks" "[PerfTolerance],[PerfComparison]" 2>&1 | tail -3
    "$BUILD/tests/test_report" "[smoke],[PerfBaseline]" 2>&1 | tail -3
    ENVCHECK="$BUILD/envcheck" ENVCHECK_SOURCE_DIR="$PWD" ENVCHECK_SHARED_DIR=/nonexistent \
        $PYTHON -m pytest -q -p no:cacheprovider tests/gpu/test_smoke.py 2>&1 | tail -15
} >> "$OUT/tests.log" 2>&1
grep -E "passed|failed|FAILED|error" "$OUT/tests.log" | head -20

step "benchmarks" | tee "$OUT/bench.log"
timeout 240 "$BUILD/bench/bench_gpu" "$OUT/bench_gpu.json" >> "$OUT/bench.log" 2>&1 || echo "bench_gpu failed" | tee -a "$OUT/bench.log"

step "smoke" | tee "$OUT/smoke.txt"
{
    for mode in --quick --full; do
        echo "---- envcheck smoke $mode"; TIMEFORMAT="wall %R s"; time "$BUILD/envcheck" smoke $mode; echo "exit $?"
    done
    echo "---- envcheck smoke --quick --format json"; "$BUILD/envcheck" smoke --quick --format json; echo "exit $?"
} >> "$OUT/smoke.txt" 2>&1
"$BUILD/envcheck" smoke --full --format json > "$OUT/smoke_full.json" 2>&1
$PYTHON tests/bench/bench_gpu_smoke.py "$BUILD/envcheck" 10 "$OUT/smoke_runs.json" >> "$OUT/bench.log" 2>&1

step "compute-sanitizer" | tee "$OUT/sanitizer.log"
{
    for tool in memcheck racecheck synccheck initcheck; do
        echo "---- $tool"
        timeout 90 compute-sanitizer --tool "$tool" "$BUILD/tests/test_gpu" "[.gpu][sanitize]" 2>&1 | tail -6
    done
} >> "$OUT/sanitizer.log" 2>&1

step "summary"
grep -E "^SASS" "$OUT/build.log" | grep -E "matmul|copy" | cut -c1-150
grep -vE "^== \[" "$OUT/bench.log" | tail -40
grep -E "^----|SUMMARY|passed|failed" "$OUT/sanitizer.log" | head -16
grep -E "^(  )?(pass|fail|skip|error) |passed,|wall" "$OUT/smoke.txt" | head -30
