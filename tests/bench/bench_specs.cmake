# conda version/spec/MatchSpec parsing and matching vs py-rattler (RESULTS.md, "conda specs").
envcheck_bench(bench_specs MODULES specs LIBS envcheck_bench_support)
