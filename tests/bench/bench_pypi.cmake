# PEP 440 / PEP 508 parsing and matching vs Python's packaging (RESULTS.md, "pip specs").
envcheck_bench(bench_pypi MODULES pypi LIBS envcheck_bench_support)
