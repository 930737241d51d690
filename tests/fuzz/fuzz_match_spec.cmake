# specs: MatchSpec::parse (seeds in tests/fuzz/corpus/match_spec). Build the specs library with
# coverage too (ENVCHECK_FUZZ=ON instruments every library), then run
#   build-specs-fuzz/tests/fuzz/fuzz_match_spec -max_total_time=60 tests/fuzz/corpus/match_spec
envcheck_fuzzer(fuzz_match_spec MODULES specs util)
