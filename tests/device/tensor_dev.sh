#!/usr/bin/env bash
# Development run of the tensor-core and HBM probes on the GPU machine, from prebuilt binaries
# carried in .device/tensor/bin (test_gpu, bench_tensor; built for sm_90 + sm_90a elsewhere).
# Logs under $OUT; a short summary last.
set -uo pipefail
OUT=${OUT:-/tmp/tensor-dev-out}
D=${D:-.device/tensor}
mkdir -p "$OUT"
export PATH=/opt/torch/.venv/bin:/usr/local/cuda/bin:$PATH
for dir in /usr/local/cuda/lib64 /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib; do
    [ -d "$dir" ] && export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$dir
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv > "$OUT/machine.txt" 2>&1
step() { echo "== [$SECONDS s] $*"; }
step "test_gpu [.gpu] (every GPU test: probes, matmul, bandwidth, tensor, hbm)"
timeout 240 "$D/bin/test_gpu" "[.gpu]" > "$OUT/test_gpu.log" 2>&1; echo "rc=$?" >> "$OUT/test_gpu.log"
step "test_gpu CPU-side"
timeout 60 "$D/bin/test_gpu" >> "$OUT/test_gpu.log" 2>&1; echo "rc=$?" >> "$OUT/test_gpu.log"
step "bench_tensor"
timeout 200 "$D/bin/bench_tensor" --json "$OUT/bench.json" ${BENCH_ARGS:-} > "$OUT/bench.log" 2>&1; echo "rc=$?" >> "$OUT/bench.log"
for tool in memcheck racecheck synccheck; do
    step "compute-sanitizer $tool"
    timeout 90 compute-sanitizer --tool $tool "$D/bin/test_gpu" "tensor kernels under compute-sanitizer" > "$OUT/sanitizer-$tool.log" 2>&1; echo "rc=$?" >> "$OUT/sanitizer-$tool.log"
done
step "summary"
cat "$OUT/machine.txt"
grep -E "FAILED|with expansion|:= |^test cases|^assertions|All tests passed|rc=" "$OUT/test_gpu.log" | head -40
for tool in memcheck racecheck synccheck; do echo "-- $tool"; grep -E "ERROR SUMMARY|All tests|rc=|failed" "$OUT/sanitizer-$tool.log" | head -5; done
cat "$OUT/bench.log"
