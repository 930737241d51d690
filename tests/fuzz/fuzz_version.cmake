# specs: Version::parse (seeds in tests/fuzz/corpus/version). Build the specs library with
# coverage too (ENVCHECK_FUZZ=ON instruments every library), then run
#   build-specs-fuzz/tests/fuzz/fuzz_version -max_total_time=60 tests/fuzz/corpus/version
envcheck_fuzzer(fuzz_version MODULES specs util)
