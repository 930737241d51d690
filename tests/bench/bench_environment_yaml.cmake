# Reading an environment file in-process: libyaml's reading (what lint takes), yaml-cpp's (the
# reader before it) and libyaml's parse alone, for bench_lint.py's rows beside PyYAML's.
envcheck_bench(bench_environment_yaml MODULES formats LIBS envcheck_bench_support)
