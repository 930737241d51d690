#!/usr/bin/env bash
# `envcheck lock` / `check` on the GPU machine (issue 4): the machine part (driver, CUDA version
# the driver supports, GPUs) and the performance baselines that only a GPU can fill, against the
# machine's real pip venv with CUDA torch (/opt/torch/.venv). Also compiles and runs this
# module's C++ tests with that machine's toolchain (g++ 13, yaml-cpp 0.8, CLI11 2.4, Catch2 3).
# Records under $OUT: build.log, tests.txt, torch.lock.json, lock.txt, check.txt, check.json.
# Run from the repository root: bash tests/prefix/device_lock.sh
set -u
OUT=${OUT:-/tmp/envcheck-device-lock}
mkdir -p "$OUT"
export PATH=/opt/torch/.venv/bin:$PATH
PREFIX=/opt/torch/.venv

{ g++ --version | head -n 1; cmake --version | head -n 1; nproc; } > "$OUT/build.log" 2>&1
if ! { cmake -S . -B build-dev -G Ninja -DENVCHECK_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90-real \
        && cmake --build build-dev --target envcheck test_formats test_prefix test_checks test_report -j16; } \
        >> "$OUT/build.log" 2>&1; then
    tail -n 80 "$OUT/build.log"
    exit 1
fi
grep -E "warning" "$OUT/build.log" | grep -E "src/(prefix|formats/(conda_meta|dist_info|lock|conda_lock|pixi_lock|explicit|export)|checks/(env|lock)_check|report/check_|cli/cmd_(lock|check|export|default))" \
    | head -n 20

for module in formats prefix checks report; do
    echo "== test_$module" >> "$OUT/tests.txt"
    build-dev/tests/test_$module >> "$OUT/tests.txt" 2>&1
    echo "rc=$?" >> "$OUT/tests.txt"
done
grep -E "^== |^rc=|All tests passed|test cases:" "$OUT/tests.txt"

E=build-dev/envcheck
"$E" lock --prefix "$PREFIX" --output "$OUT/torch.lock.json" > "$OUT/lock.txt" 2>&1
echo "lock rc=$?" | tee -a "$OUT/lock.txt"
cat "$OUT/lock.txt"
"$E" check --prefix "$PREFIX" --lock "$OUT/torch.lock.json" > "$OUT/check.txt" 2>&1
echo "check rc=$?" | tee -a "$OUT/check.txt"
"$E" check --prefix "$PREFIX" --lock "$OUT/torch.lock.json" --format json --output "$OUT/check.json"
echo "check --format json rc=$?"
tail -n 20 "$OUT/check.txt"
python3 - "$OUT/torch.lock.json" <<'PY'
import json, sys
lock = json.load(open(sys.argv[1]))
print("machine:", json.dumps(lock["machine"]))
performance = lock["performance"] or []
print("baselines:", [(b["device_name"], len(b["metrics"])) for b in performance])
print("packages:", len(lock["packages"]))
PY
TIMEFORMAT="check --no-gpu: %R s"
for run in 1 2 3; do time "$E" check --prefix "$PREFIX" --lock "$OUT/torch.lock.json" --no-gpu > /dev/null; done
