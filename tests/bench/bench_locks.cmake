# Lock reading (conda-lock.yml, pixi.lock, @EXPLICIT at 0.1, 1 and 10 MB, and the largest real
# locks of the corpus) vs py-rattler's LockFile.from_path in the same run (RESULTS.md).
envcheck_bench(bench_locks MODULES formats fsio LIBS envcheck_bench_support)
target_compile_definitions(bench_locks PRIVATE ENVCHECK_BENCH_SHARED_DIR="${ENVCHECK_SHARED_DIR}")
