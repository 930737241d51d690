#!/usr/bin/env bash
# The one script for the GPU machine (Ubuntu 24.04: yaml-cpp 0.8, CLI11 2.4, Catch2 3.4, CMake 4
# and ninja in /opt/torch/.venv/bin; one H200). Builds everything with CUDA (SASS for sm_90 only,
# to keep the build short), then, each step bounded and logged under $OUT:
#   build.log      toolchain, configure, build, our warnings, kernel resource usage
#   tests.log      every C++ test binary (the hidden [.gpu] cases too), tests/gpu/test_smoke.py and
#                  tests/cli/test_driver_faults.py (the stand-in broken drivers over the real one)
#   machine.txt    probe, doctor (machine alone and with the torch venv), nfd/prometheus/npd
#                  outputs, the hardware gates (gpu.*) of doctor-torch.json, report of the torch
#                  venv
#   smoke.txt      smoke --quick and --full, wall time of each (smoke-full.html: the --full report
#                  as HTML); timing.txt: the quick probes one by one; smoke on a GPU another process
#                  holds (skipped: busy) and with --even-if-busy; smoke-spread.txt: each
#                  metric's spread over six runs of smoke --full and of smoke --quick
#   lock.txt       lock of /opt/torch/.venv with GPU baselines; check --lock timed with and without
#                  the GPU part; performance as locked (check-inflated.html: as HTML);
#                  slurm-health --prolog on a healthy node
#   bench.log      bench_gpu (kernels vs cuBLAS and cudaMemcpy) and bench_tensor (tensor-core GEMM
#                  vs cuBLAS/cuBLASLt, HBM vs cudaMemcpy) when ENVCHECK_DEVICE_BENCH=1 (=only:
#                  the build and the benchmarks alone)
#   asan.log       with ENVCHECK_DEVICE_ASAN=only, instead of all of the above: every C++ test
#                  binary under ASan and UBSan (asan-test_*.txt: each one's output)
#   dist.txt       the carried packaging artefacts (none are built here: no network): the
#                  portable wheel (tests/device/carried/envcheck_gpu-*.whl, from tests/dist/build_wheel.sh)
#                  pip-installed into a fresh venv, then its smoke and lock/check --lock; and
#                  each binary in tests/device/carried/bin/ (such as README command 1's build/envcheck from a
#                  fresh Debian 12 without a CUDA toolkit) with --version and smoke --quick
# The last lines printed are a summary. Run from the repository root: tests/device/run.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/envcheck-device-out}
BUILD=${BUILD:-/tmp/envcheck-device-build}
PREFIX=/opt/torch/.venv
mkdir -p "$OUT"
export PATH=/opt/torch/.venv/bin:$PATH PYTHONUNBUFFERED=1
BENCH=${ENVCHECK_DEVICE_BENCH:-0}
# ENVCHECK_DEVICE_FOCUS=1 leaves out the slowest steps that a change to the probes and to
# check --lock does not touch (the test binaries other than test_gpu, doctor with the frameworks,
# the stand-in drivers' pytest, the six --full sweeps), for a short session on the machine.
FOCUS=${ENVCHECK_DEVICE_FOCUS:-0}
# How many timed check --lock runs with the GPU part follow the lock (ten without it).
CHECK_RUNS=${ENVCHECK_DEVICE_CHECK_RUNS:-10}
focus_targets=""
[ "$FOCUS" = 1 ] && focus_targets="--target envcheck test_gpu" # the other tests run in CI
# ENVCHECK_DEVICE_BENCH=only: the build and the benchmarks alone (a second call on a warm
# machine, after a run without them: one call of both runs past the ten minutes of a call).
[ "$BENCH" = only ] && focus_targets="--target envcheck bench_gpu bench_tensor"
started=$(date +%s)
since() { awk -v start="$1" -v now="$EPOCHREALTIME" 'BEGIN { printf "%.3f", now - start }'; }
step() { echo "== [$(( $(date +%s) - started )) s] $*"; }
E="$BUILD/envcheck"

step "machine and build" | tee "$OUT/build.log"
{
    nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current,clocks.sm,clocks.max.sm,persistence_mode,compute_mode --format=csv
    nvcc --version | tail -1; g++ --version | head -1; cmake --version | head -1; nproc
    dpkg -l 2>/dev/null | grep -E "yaml-cpp|libyaml|cli11|catch2|nlohmann|libcurl.*-dev" | awk '{print $2, $3}'
} >> "$OUT/build.log" 2>&1
bench_flag=OFF
[ "$BENCH" != 0 ] && bench_flag=ON
# Libraries the machine lacks (it reaches no registry): Debian packages carried in tests/device/carried/debs
# (libyaml-dev, libyaml-0-2, libtomlplusplus-dev, libjemalloc-dev; strace and libunwind8 for the
# timeline of check --lock), unpacked here and found through pkg-config and the loader.
if ls tests/device/carried/debs/*.deb >/dev/null 2>&1; then
    deps=/tmp/envcheck-device-deps
    for deb in tests/device/carried/debs/*.deb; do dpkg-deb -x "$deb" "$deps"; done
    export PKG_CONFIG_SYSROOT_DIR=$deps PKG_CONFIG_PATH=$deps/usr/lib/x86_64-linux-gnu/pkgconfig
    export CPATH=$deps/usr/include${CPATH:+:$CPATH} CMAKE_PREFIX_PATH=$deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
    export LIBRARY_PATH=$deps/usr/lib/x86_64-linux-gnu${LIBRARY_PATH:+:$LIBRARY_PATH}
    # Tests replace LD_LIBRARY_PATH (the stand-in drivers): the runtime libraries go where the
    # loader always looks.
    cp -a "$deps"/usr/lib/x86_64-linux-gnu/lib*.so.* /usr/local/lib/ 2>/dev/null && ldconfig
    export PATH=$PATH:$deps/usr/bin # the machine's own tools first
    echo "carried packages: $(ls tests/device/carried/debs | tr '\n' ' ')" >> "$OUT/build.log"
fi
# The tests that read the shared corpus and vectors fail without them: the device copy has them
# as ./shared when the checkout does, or carried as tests/device/carried/shared.
shared_dir=$PWD/../shared
[ -d tests/device/carried/shared ] && shared_dir=$PWD/tests/device/carried/shared
[ -d shared ] && shared_dir=$PWD/shared
# ENVCHECK_DEVICE_ASAN=only: every C++ test binary built with -fsanitize=address,undefined on
# Ubuntu 24.04's dependency set (GCC 13, yaml-cpp 0.8, CLI11 2.4, Catch2 3.4), as .ci/run's
# sanitizer stage does on Debian 12; host code only (the sanitizers do not reach device code,
# and the kernels' build would take the call's time). asan.log; nothing else runs.
if [ "${ENVCHECK_DEVICE_ASAN:-0}" = only ]; then
    step "sanitizer build and tests" | tee "$OUT/asan.log"
    if ! { cmake -S . -B "$BUILD-asan" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DENVCHECK_CUDA=OFF \
            -DENVCHECK_BENCH=OFF -DENVCHECK_SANITIZE=address,undefined \
            -DENVCHECK_SHARED_DIR="$shared_dir" \
            && cmake --build "$BUILD-asan" -j "$(nproc)"; } >> "$OUT/asan.log" 2>&1; then
        grep -E "error|FAILED" "$OUT/asan.log" | head -30
        exit 1
    fi
    step "sanitized tests" | tee -a "$OUT/asan.log"
    export ASAN_OPTIONS=detect_leaks=1:protect_shadow_gap=0 UBSAN_OPTIONS=print_stacktrace=1
    for binary in "$BUILD-asan"/tests/test_*; do # in parallel: one core each
        [ -x "$binary" ] || continue
        fake=""; [ "$(basename "$binary")" = test_driver ] && fake="$BUILD-asan/tests/fake_driver"
        ( LD_LIBRARY_PATH=${fake:-${LD_LIBRARY_PATH:-}} ENVCHECK_SHARED_DIR="$shared_dir" \
            timeout 480 "$binary" > "$OUT/asan-$(basename "$binary").txt" 2>&1
          echo "---- $(basename "$binary") exit $?: $(tail -2 "$OUT/asan-$(basename "$binary").txt" | tr '\n' ' ')" ) &
    done >> "$OUT/asan.log"
    wait
    grep -l -E "ERROR: (Address|Leak)Sanitizer|runtime error:" "$OUT"/asan-test_*.txt | sed 's/^/SANITIZER: /'
    step "summary"
    grep -E "^----" "$OUT/asan.log"
    exit 0
fi
if ! { cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DENVCHECK_CUDA=ON \
        -DENVCHECK_BENCH="$bench_flag" -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DENVCHECK_SHARED_DIR="$shared_dir" \
        && cmake --build "$BUILD" -j "$(nproc)" $focus_targets; } >> "$OUT/build.log" 2>&1; then
    grep -E "error|FAILED" "$OUT/build.log" | head -30
    exit 1
fi
grep -E "warning:" "$OUT/build.log" | sort -u | head -20 | sed 's/^/WARNING: /' | tee -a "$OUT/build.log"
"$E" --version | tee -a "$OUT/build.log"

benchmarks() { # bench.log: kernels vs cuBLAS and cudaMemcpy; tensor cores and HBM
    step "benchmarks" | tee "$OUT/bench.log"
    timeout 240 "$BUILD/bench/bench_gpu" "$OUT/bench_gpu.json" >> "$OUT/bench.log" 2>&1
    timeout 240 "$BUILD/bench/bench_tensor" --json "$OUT/bench_tensor.json" >> "$OUT/bench.log" 2>&1
}
if [ "$BENCH" = only ]; then
    benchmarks
    step "summary"
    grep -B2 -A40 "== bench_gpu on\|== bench_tensor on" "$OUT/bench.log"
    exit 0
fi

step "tests" | tee "$OUT/tests.log"
{
    for binary in "$BUILD"/tests/test_*; do
        [ -x "$binary" ] || continue
        echo "---- $(basename "$binary")"
        # test_driver runs against the stand-in libcuda.so.1, as ctest runs it.
        fake=""; [ "$(basename "$binary")" = test_driver ] && fake="$BUILD/tests/fake_driver"
        LD_LIBRARY_PATH=${fake:-${LD_LIBRARY_PATH:-}} timeout 300 "$binary" 2>&1 | tail -4
    done
    echo "---- test_gpu [.gpu]"
    timeout 300 "$BUILD/tests/test_gpu" "[.gpu]" 2>&1 | tail -6
    # In a process of its own: it forks the probe child, which cannot use CUDA after its parent
    # has (the [.gpu] cases initialise it in-process).
    echo "---- test_gpu [.gpu-alone]"
    timeout 120 "$BUILD/tests/test_gpu" "[.gpu-alone]" 2>&1 | tail -6
    # Also alone: the host reserve is made once per process, and must be the probes' first.
    echo "---- test_gpu [.gpu-reserve]"
    timeout 120 "$BUILD/tests/test_gpu" "[.gpu-reserve]" 2>&1 | tail -6
    echo "---- tests/gpu/test_smoke.py"
    ENVCHECK="$E" ENVCHECK_SOURCE_DIR="$PWD" ENVCHECK_SHARED_DIR=/nonexistent \
        timeout 200 python3 -m pytest -q -p no:cacheprovider tests/gpu/test_smoke.py 2>&1 | tail -6
    # No py-rattler here: the lock cases, which build a conda environment, are left to CI.
    echo "---- tests/cli/test_driver_faults.py"
    [ "$FOCUS" = 1 ] || ENVCHECK="$E" ENVCHECK_SOURCE_DIR="$PWD" ENVCHECK_SHARED_DIR=/nonexistent \
        ENVCHECK_FAKE_DRIVER_DIR="$BUILD/tests/fake_driver" \
        timeout 250 python3 -m pytest -q -p no:cacheprovider -k "not lock" \
        tests/cli/test_driver_faults.py 2>&1 | tail -8
} >> "$OUT/tests.log" 2>&1

step "probe and doctor" | tee "$OUT/machine.txt"
run() { # run NAME ARGS...: stdout+stderr to $OUT/NAME, exit code and wall time to machine.txt
    local name=$1; shift
    local t0=$EPOCHREALTIME
    "$E" "$@" > "$OUT/$name" 2>&1
    local rc=$?
    printf '%s -> exit %d (%.2f s)\n' "envcheck $*" "$rc" "$(since "$t0")" >> "$OUT/machine.txt"
}
run probe.txt probe
run probe.json probe --format json
run doctor-machine.txt doctor
if [ "$FOCUS" != 1 ]; then
    run doctor-torch.txt doctor --prefix "$PREFIX"
    run doctor-torch.json doctor --prefix "$PREFIX" --format json
fi
run doctor.prom doctor --format prometheus
run doctor.nfd doctor --format nfd --expiry 1800
# NPD's custom plugin (envs/fleet/kubernetes/npd-envcheck.json's command): "OK: doctor ...", exit 0.
run doctor.npd doctor --format npd --npd-max-length 80 --timeout 20 --no-framework-check
# The bug report of the torch venv: the GPU from NVML, torch's CUDA build from torch/version.py,
# the nvidia-* wheels' libcudnn/libcublas/libnccl/libcudart as the loader would take them.
run report-torch.md report --prefix "$PREFIX"
run report-torch.json report --prefix "$PREFIX" --format json
# (doctor-torch.* only without FOCUS: that step is left out then)
for file in probe.txt doctor-torch.txt doctor.nfd doctor.npd report-torch.md; do
    [ -f "$OUT/$file" ] && { echo "---- $file"; cat "$OUT/$file"; }
done >> "$OUT/machine.txt"
# The hardware gates (gpu.*) on the real GPU: each should pass or skip with its reason.
[ -f "$OUT/doctor-torch.json" ] && python3 - "$OUT/doctor-torch.json" >> "$OUT/machine.txt" 2>&1 <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
print("---- hardware gates")
for check in report["checks"]:
    if check["id"].startswith("gpu."):
        print(f"{check['status']:5} {check['id']:22} {check['message']}")
PY

step "smoke" | tee "$OUT/smoke.txt"
for mode in --quick --full; do
    t0=$EPOCHREALTIME
    "$E" smoke $mode >> "$OUT/smoke.txt" 2>&1
    rc=$?
    printf 'smoke %s -> exit %d, wall %.2f s\n' "$mode" "$rc" "$(since "$t0")" >> "$OUT/smoke.txt"
done
"$E" smoke --quick --format json > "$OUT/smoke.json" 2>&1
# Where check --lock's GPU time goes: the quick probes one by one against the whole process, and
# the driver probes (NVML and libcuda children) alone.
{
    for _ in 1 2 3; do
        t0=$EPOCHREALTIME
        "$E" smoke --quick --format json > "$OUT/smoke-timing.json" 2>/dev/null
        wall=$(since "$t0")
        python3 - "$OUT/smoke-timing.json" "$wall" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
probes = report["devices"][0]["probes"]
inside = sum(p.get("duration_seconds") or 0 for p in probes)
print(f"smoke --quick wall {float(sys.argv[2]):.3f} s; probes {inside:.3f} s; report {report.get('duration_seconds')}: " +
      ", ".join(f"{p['id']} {p.get('duration_seconds', 0):.3f}" for p in probes))
PY
    done
    for _ in 1 2 3; do
        t0=$EPOCHREALTIME; "$E" probe --format json > /dev/null 2>&1
        echo "probe (NVML and libcuda children) wall $(since "$t0") s"
    done
} > "$OUT/timing.txt" 2>&1
# The run-to-run spread of what a lock records: six runs of smoke --quick.
for run_number in 1 2 3 4 5 6; do
    "$E" smoke --quick --format json > "$OUT/smoke-quick-$run_number.json" 2>/dev/null
done
# The HTML report of a real sweep (tests/report/test_html_chromium.py renders such pages).
"$E" smoke --full --format html -o "$OUT/smoke-full.html" 2>> "$OUT/smoke.txt"
echo "smoke --full --format html -> exit $?, $(grep -c '<polyline class="series' "$OUT/smoke-full.html") series" >> "$OUT/smoke.txt"
# Run-to-run spread of every metric a lock records (issue 16: a 5% drop must be visible): six
# runs of smoke --full, each metric's (max - min) / median over the runs' medians.
for run_number in 1 2 3 4 5 6; do
    [ "$FOCUS" = 1 ] || "$E" smoke --full --format json > "$OUT/smoke-full-$run_number.json" 2>/dev/null
done
spread_py=$(cat <<'PY'
import json, statistics, sys
runs = [json.load(open(path)) for path in sys.argv[2:]]
mode = sys.argv[1]
values = {}
for run in runs:
    for probe in run["devices"][0]["probes"]:
        for name, value in (probe.get("metrics") or {}).items():
            if isinstance(value, (int, float)):
                values.setdefault((probe["id"], name), []).append(value)
print(f"run-to-run spread over {len(runs)} runs of smoke {mode}: (max - min) / median")
for (probe, name), series in values.items():
    median = statistics.median(series)
    spread = (max(series) - min(series)) / median if median else float("nan")
    flag = "  > 3%" if spread > 0.03 else ""
    print(f"{probe:15s} {name:32s} median {median:12.4g}  spread {100 * spread:6.2f}%{flag}")
PY
)
[ "$FOCUS" = 1 ] || python3 -c "$spread_py" --full "$OUT"/smoke-full-*.json > "$OUT/smoke-spread.txt"
python3 -c "$spread_py" --quick "$OUT"/smoke-quick-*.json >> "$OUT/smoke-spread.txt"
# Passive when busy: while a process of another holds GPU 0 (torch, a context and 1 GiB), smoke
# skips the GPU with the reason; --even-if-busy probes it all the same.
"$PREFIX/bin/python" -c "import torch, time; x = torch.ones(1 << 28, device='cuda'); print('holding', flush=True); time.sleep(120)" > "$OUT/holder.txt" 2>&1 &
holder=$!
for _ in $(seq 120); do grep -q holding "$OUT/holder.txt" && break; sleep 0.5; done
{
    "$E" smoke --quick; echo "smoke --quick, GPU 0 held by pid $holder -> exit $?"
    "$E" smoke --quick --even-if-busy --probe hello; echo "smoke --quick --even-if-busy --probe hello, GPU 0 held -> exit $?"
    "$E" lock --prefix "$PREFIX" --output "$OUT/busy.lock.json" 2>&1 | sed 's/^/busy lock: /'
    echo "lock, GPU 0 held -> exit ${PIPESTATUS[0]}"
} >> "$OUT/smoke.txt" 2>&1
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null

step "lock and check" | tee "$OUT/lock.txt"
{
    lock="$OUT/torch.lock.json"
    "$E" lock --prefix "$PREFIX" --output "$lock"; echo "lock -> exit $?"
    python3 -c "import json,sys; l=json.load(open(sys.argv[1])); print('machine:', json.dumps(l['machine'])); print('baselines:', [(b['device_name'], len(b['metrics'])) for b in (l['performance'] or [])]); [print('  locked', m['probe'] + '.' + m['name'], m['value'], 'spread', m['spread'], '(informational: ' + m['informational'] + ')' if m.get('informational') else '') for b in (l['performance'] or []) for m in b['metrics']]" "$lock"
    # Where the time of check --lock goes: each process's start and end, and each line the
    # children write (the smoke child's steps and probe results) and the go-ahead, in ms from
    # the start (strace -f; the tracing itself adds a little to each of those system calls).
    if command -v strace > /dev/null; then
        strace -f -tt -e trace=execve,clone,clone3,exit_group,wait4,write -e signal=none -s 100 \
            -o "$OUT/check.strace" "$E" check --prefix "$PREFIX" --lock "$lock" > /dev/null 2>&1
        python3 - "$OUT/check.strace" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
stamp = lambda text: sum(float(part) * scale for part, scale in zip(text.split(":"), (3600, 60, 1)))
start = None
print("---- timeline of check --lock (ms, pid, what)")
for line in lines:
    match = re.match(r"(\d+)\s+([\d:.]+)\s+(?:<\.\.\. )?(\w+)(?: resumed>|\()(.*)", line)
    if not match or ("resumed" in line and "wait4" not in line):
        continue
    pid, when, call, rest = match.groups()
    start = stamp(when) if start is None else start
    if call == "write":
        if '"event' not in rest:
            continue
        what = re.sub(r'\\"', '"', rest.split(",", 1)[1])[:90]
    elif call in ("clone", "clone3"):
        what = call + " -> " + line.rsplit("=", 1)[-1].strip()
    elif call == "wait4":
        what = "wait4 (reaped " + line.rsplit("=", 1)[-1].strip() + ")"
        if what.endswith("(reaped 0)") or "unfinished" in line:
            continue
    else:
        what = call + " " + rest[:60]
    print(f"{1000 * (stamp(when) - start):8.1f} {pid:>7} {what}")
PY
    else
        echo "no strace"
    fi | tee "$OUT/0-timeline.txt"
    "$E" check --prefix "$PREFIX" --lock "$lock"; echo "check -> exit $?"
    for variant in "" "--no-gpu"; do
        runs=10
        [ -z "$variant" ] && runs=$CHECK_RUNS
        for run_number in $(seq "$runs"); do
            t0=$EPOCHREALTIME
            "$E" check --prefix "$PREFIX" --lock "$lock" $variant > "$OUT/check-run.txt" 2>&1
            rc=$?
            printf 'check --lock %s run %d -> exit %d, wall %.3f s\n' "$variant" "$run_number" "$rc" "$(since "$t0")"
            # Why a run right after the lock did not pass: a metric's drop, or anything else.
            [ "$rc" = 0 ] || grep -E "^  (fail|warn) |^performance|^packages|^machine" "$OUT/check-run.txt" | sed 's/^/    /'
            # A drop that was not there when measured again: passed, and said.
            grep -E "a transient drop" "$OUT/check-run.txt" | sed 's/^/    /'
        done
    done
    # The peer, side by side: what a job script asks instead, which only says yes or no.
    for run_number in 1 2 3; do
        t0=$EPOCHREALTIME
        "$PREFIX/bin/python" -c "import torch; torch.cuda.is_available()" > /dev/null 2>&1
        rc=$?
        printf 'python -c "import torch; torch.cuda.is_available()" run %d -> exit %d, wall %.3f s\n' "$run_number" "$rc" "$(since "$t0")"
    done
    # Performance as locked: the same lock with every baseline made better than measured (rates
    # doubled: now a 50% drop; times divided by 1.5: now 50% slower) must fail on perf.* with
    # the measured and locked values named.
    python3 - "$lock" "$OUT/inflated.lock.json" <<'PY'
import json, sys
lock = json.load(open(sys.argv[1]))
for baseline in lock["performance"] or []:
    for metric in baseline["metrics"]:
        if metric["value"] is None or metric["direction"] == "informational":
            continue
        if metric["direction"] == "higher_is_better":
            metric["value"] = metric["value"] * 2
        else:
            metric["value"] = metric["value"] / 1.5
json.dump(lock, open(sys.argv[2], "w"))
PY
    "$E" check --prefix "$PREFIX" --lock "$OUT/inflated.lock.json" | grep -vE "^  (ok|pass) " | head -30
    echo "check against inflated baselines -> exit ${PIPESTATUS[0]}"
    "$E" check --prefix "$PREFIX" --lock "$OUT/inflated.lock.json" --format html -o "$OUT/check-inflated.html"
    echo "check --format html -> exit $?, $(grep -c '<rect class="band"' "$OUT/check-inflated.html") metrics with their band"
    # A 50% drop passes when 60% is allowed; one metric allowed 60% passes alone.
    "$E" check --prefix "$PREFIX" --lock "$OUT/inflated.lock.json" --perf-tolerance 60% | grep -E "^(performance|packages)"
    echo "inflated, --perf-tolerance 60% -> exit ${PIPESTATUS[0]}"
    "$E" check --prefix "$PREFIX" --lock "$OUT/inflated.lock.json" \
        --perf-tolerance bandwidth.h2d_pinned_gbps=60% | grep -E "^performance|h2d_pinned"
    echo "inflated, --perf-tolerance bandwidth.h2d_pinned_gbps=60% -> exit ${PIPESTATUS[0]}"
    # A Prolog on a healthy node: the doctor's walk passes, scontrol is never asked.
    "$E" slurm-health --prolog --node "$(hostname -s)" --scontrol /nonexistent/scontrol; echo "slurm-health --prolog -> exit $?"
} >> "$OUT/lock.txt" 2>&1

[ "$BENCH" = 1 ] && benchmarks

step "packaging artefacts" | tee "$OUT/dist.txt"
{
    wheel=$(ls tests/device/carried/envcheck_gpu-*.whl 2>/dev/null | head -1)
    if [ -n "$wheel" ]; then
        rm -rf /tmp/envcheck-wheel-venv
        python3 -m venv /tmp/envcheck-wheel-venv \
            && /tmp/envcheck-wheel-venv/bin/pip install --quiet --no-index "$wheel"
        echo "pip install $(basename "$wheel") -> exit $?"
        W=/tmp/envcheck-wheel-venv/bin/envcheck
        "$W" --version
        "$W" smoke --quick; echo "wheel: smoke --quick -> exit $?"
        "$W" lock --prefix "$PREFIX" --output "$OUT/wheel.lock.json" --force; echo "wheel: lock -> exit $?"
        "$W" check --prefix "$PREFIX" --lock "$OUT/wheel.lock.json"; echo "wheel: check --lock -> exit $?"
    else
        echo "no wheel carried: put tests/dist/build_wheel.sh's wheelhouse/*.whl in tests/device/carried/"
    fi
    for binary in tests/device/carried/bin/*; do
        [ -x "$binary" ] || continue
        echo "---- $binary"
        "$binary" --version
        "$binary" smoke --quick; echo "$binary: smoke --quick -> exit $?"
    done
} >> "$OUT/dist.txt" 2>&1

# Only the first files (by name) come back from the device: the ones worth keeping sort first.
cp "$OUT/timing.txt" "$OUT/0-timing.txt" 2>/dev/null
cp "$OUT/lock.txt" "$OUT/0-lock.txt" 2>/dev/null # the timed check --lock runs
cp "$OUT/smoke-full-1.json" "$OUT/0-smoke-full.json" 2>/dev/null
cp "$OUT/smoke-full.html" "$OUT/0-smoke-full.html" 2>/dev/null
cp "$OUT/report-torch.md" "$OUT/0-report-torch.md" 2>/dev/null
cp "$OUT/torch.lock.json" "$OUT/0-torch.lock.json" 2>/dev/null
step "summary"
# The most important last: what comes back of this output is its tail.
grep -E "exit|^envcheck |^CUDA|^GPU|^no wheel|^----" "$OUT/dist.txt"
if [ "$BENCH" = 1 ]; then grep -A40 "== bench_tensor on" "$OUT/bench.log"; fi
grep -E "run-to-run|> 3%" "$OUT/smoke-spread.txt"
cat "$OUT/timing.txt"
grep -E "^(lock|check|python|busy|  locked|baselines|inflated|slurm|performance|machine:)|transient" "$OUT/lock.txt" | grep -v "^machine: {" | head -80
sed -n '/^---- timeline/,/^check -> exit/p' "$OUT/lock.txt" | head -60
grep -E "smoke --|busy|held" "$OUT/smoke.txt" | head -12
grep -A10 -- "---- hardware gates" "$OUT/machine.txt"
cat "$OUT/machine.txt" | head -12
[ -f "$OUT/doctor-torch.txt" ] && grep -E "verdict|first broken" "$OUT/doctor-torch.txt"
cat "$OUT/doctor.npd"
grep -E "^(GPU 0|Verdict|torch|lib[a-z]+(\.so\.[0-9.]+)?): |SHADOWS" "$OUT/report-torch.md"
grep -B3 -A14 -E "FAILED:" "$OUT/tests.log" | head -60
grep -E "^----|passed|failed|FAILED|test cases" "$OUT/tests.log" | head -60
