#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS (default 60) on a scratch copy of its seeds (its own,
# tests/data, and the real files of ../shared/corpus), so the seeds in tests/fuzz/corpus stay as
# committed; findings are left in $WORK/findings and make the script fail. A UBSan report is a
# finding: the build has -fno-sanitize-recover=all and UBSAN_OPTIONS halts on the first error.
#   cmake -S . -B build-fuzz -G Ninja -DENVCHECK_FUZZ=ON -DENVCHECK_CUDA=OFF \
#         -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang && cmake --build build-fuzz
#   tests/fuzz/run_all.sh build-fuzz 60
# FUZZ_SEED=N makes a run repeatable: libFuzzer's mutations follow the seed, so a run of S seconds
# here covers the first S seconds of the same run on a machine as fast. CI uses a fixed seed (a
# gate must give the same answer twice); exploratory runs leave it unset for a new seed each time.
set -uo pipefail
build=${1:?usage: run_all.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shared=${ENVCHECK_SHARED_DIR:-$root/../shared}/corpus
work=${WORK:-$(mktemp -d /tmp/envcheck-fuzz.XXXXXX)}
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
mkdir -p "$work/findings"
# fuzzer -> seed directories
declare -A seeds=(
    [fuzz_version]="$here/corpus/version"
    [fuzz_version_spec]="$here/corpus/version_spec"
    [fuzz_match_spec]="$here/corpus/match_spec"
    [fuzz_pep440]="$here/corpus/pep440 $here/corpus/specifier"
    [fuzz_requirement]="$here/corpus/requirement"
    [fuzz_environment_yaml]="$here/corpus/environment_yaml $root/envs $root/envs/broken $root/tests/data/envfiles $shared/envs"
    [fuzz_repodata]="$root/tests/data"
    [fuzz_condarc]="$root/tests/data"
    [fuzz_lock]="$root/tests/data/locks $here/corpus/toml_lock $shared/locks"
    [fuzz_conda_meta]="$shared/conda-meta"
)
[ -d "$shared" ] || { echo "no shared corpus at $shared (set ENVCHECK_SHARED_DIR)"; exit 1; }
status=0
for fuzzer in "${!seeds[@]}"; do
    binary="$build/tests/fuzz/$fuzzer"
    [ -x "$binary" ] || { echo "$fuzzer: not built"; status=1; continue; }
    corpus="$work/$fuzzer"
    mkdir -p "$corpus"
    for dir in ${seeds[$fuzzer]}; do
        [ -d "$dir" ] && find "$dir" -maxdepth 1 -type f -size -64k -exec cp {} "$corpus/" \;
    done
    # -timeout: an input that takes 10 s is a hang, and a finding.
    if "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 ${FUZZ_SEED:+-seed=$FUZZ_SEED} \
        -artifact_prefix="$work/findings/$fuzzer-" "$corpus" >"$work/$fuzzer.log" 2>&1 &&
        ! grep -q "runtime error:" "$work/$fuzzer.log"; then
        echo "$fuzzer: $(grep -E '^Done' "$work/$fuzzer.log" | tail -1) no finding"
    else
        echo "$fuzzer: FINDING, see $work/$fuzzer.log and $work/findings"; status=1
        grep -m 6 -E "envcheck fuzz:|terminate called|what\(\):|runtime error:|ERROR: (AddressSanitizer|libFuzzer)|SUMMARY" \
            "$work/$fuzzer.log"
        # The input itself, so that a CI log alone reproduces the finding.
        for finding in "$work/findings/$fuzzer-"*; do
            [ -f "$finding" ] && python3 -c 'import sys; print("input:", repr(open(sys.argv[1], "rb").read(2000)))' "$finding"
        done
    fi
done
exit $status
