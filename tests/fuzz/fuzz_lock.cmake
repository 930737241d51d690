# Lock readers and conda-meta records (check, diff, export and lock inputs). Seeds: the shared
# corpus's locks/ and conda-meta/ (run_all.sh), and tests/data.
envcheck_fuzzer(fuzz_lock MODULES formats)
envcheck_fuzzer(fuzz_conda_meta MODULES formats)
