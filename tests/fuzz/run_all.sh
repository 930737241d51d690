#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS (default 60) on a scratch copy of its seeds, so the
# seeds in tests/fuzz/corpus stay as committed; findings are left in $WORK/findings.
#   cmake -S . -B build-fuzz -G Ninja -DENVCHECK_FUZZ=ON -DENVCHECK_CUDA=OFF \
#         -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang && cmake --build build-fuzz
#   tests/fuzz/run_all.sh build-fuzz 60
set -uo pipefail
build=${1:?usage: run_all.sh BUILD_DIR [SECONDS]}
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${WORK:-$(mktemp -d /tmp/envcheck-fuzz.XXXXXX)}
mkdir -p "$work/findings"
# fuzzer -> seed directories
declare -A seeds=(
    [fuzz_version]="$here/corpus/version"
    [fuzz_version_spec]="$here/corpus/version_spec"
    [fuzz_match_spec]="$here/corpus/match_spec"
    [fuzz_pep440]="$here/corpus/pep440 $here/corpus/specifier"
    [fuzz_requirement]="$here/corpus/requirement"
    [fuzz_environment_yaml]="$root/envs $root/envs/broken $root/tests/data/envfiles"
    [fuzz_repodata]="$root/tests/data"
    [fuzz_condarc]="$root/tests/data"
)
status=0
for fuzzer in "${!seeds[@]}"; do
    binary="$build/tests/fuzz/$fuzzer"
    [ -x "$binary" ] || { echo "$fuzzer: not built"; status=1; continue; }
    corpus="$work/$fuzzer"
    mkdir -p "$corpus"
    for dir in ${seeds[$fuzzer]}; do
        [ -d "$dir" ] && find "$dir" -maxdepth 1 -type f -size -64k -exec cp {} "$corpus/" \;
    done
    if "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -artifact_prefix="$work/findings/$fuzzer-" \
        "$corpus" >"$work/$fuzzer.log" 2>&1; then
        echo "$fuzzer: $(grep -E '^Done' "$work/$fuzzer.log" | tail -1) no finding"
    else
        echo "$fuzzer: FINDING, see $work/$fuzzer.log and $work/findings"; status=1
    fi
done
exit $status
