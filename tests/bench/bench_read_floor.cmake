# The read floor of a conda prefix: open, read and close every record, nothing else
# (bench_check_scaling.py --read-floor; RESULTS.md, "check: scaling").
envcheck_bench(bench_read_floor LIBS Threads::Threads)
