#!/usr/bin/env bash
# Development run of the tensor-core and HBM probes on the GPU machine, from prebuilt binaries
# carried in .device/tensor/bin (test_gpu, bench_tensor; built for sm_90 + sm_90a elsewhere).
# Logs under $OUT; a short summary last.
set -uo pipefail
OUT=${OUT:-/tmp/tensor-dev-out}
D=${D:-.device/tensor}
mkdir -p "$OUT"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
for dir in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib \
           /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib \
           /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cublas/lib; do
    [ -d "$dir" ] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$dir
done
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv
    ldd "$D/bin/bench_tensor" | grep -E "not found|cublas|libstdc"
    which cuobjdump
} > "$OUT/machine.txt" 2>&1
cuobjdump --dump-sass "$D/bin/bench_tensor" 2>/dev/null | grep -oE "HGMMA[.A-Z0-9x]*|QGMMA[.A-Z0-9x]*|HMMA[.A-Z0-9]*|UTMALDG[.A-Z0-9]*" | sort | uniq -c > "$OUT/sass.txt"
step() { echo "== [$SECONDS s] $*"; }
step "test_gpu [hbm]"
timeout 90 "$D/bin/test_gpu" "[hbm]" > "$OUT/test_hbm.log" 2>&1; echo "rc=$?" >> "$OUT/test_hbm.log"
step "test_gpu [tensor]"
timeout 150 "$D/bin/test_gpu" "[tensor]" > "$OUT/test_tensor.log" 2>&1; echo "rc=$?" >> "$OUT/test_tensor.log"
step "bench_tensor"
timeout 200 "$D/bin/bench_tensor" --json "$OUT/bench.json" ${BENCH_ARGS:-} > "$OUT/bench.log" 2>&1; echo "rc=$?" >> "$OUT/bench.log"
step "compute-sanitizer memcheck"
timeout 100 compute-sanitizer --tool memcheck "$D/bin/test_gpu" "tensor kernels under compute-sanitizer" > "$OUT/sanitizer.log" 2>&1; echo "rc=$?" >> "$OUT/sanitizer.log"
step "summary"
cat "$OUT/machine.txt" "$OUT/sass.txt"
tail -4 "$OUT/test_hbm.log"
grep -E "FAILED|failed|REQUIRE|CHECK|with expansion|:[0-9]+: " "$OUT/test_tensor.log" | head -40
tail -4 "$OUT/test_tensor.log"
tail -8 "$OUT/sanitizer.log"
cat "$OUT/bench.log"
