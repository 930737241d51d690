# Repodata indexing for `lint --check-channels` vs Python's json and py-rattler (RESULTS.md).
envcheck_bench(bench_repodata MODULES checks formats fsio LIBS envcheck_bench_support)
