# specs: VersionSpec::parse (seeds in tests/fuzz/corpus/version_spec). Build the specs library with
# coverage too (ENVCHECK_FUZZ=ON instruments every library), then run
#   build-specs-fuzz/tests/fuzz/fuzz_version_spec -max_total_time=60 tests/fuzz/corpus/version_spec
envcheck_fuzzer(fuzz_version_spec MODULES specs util)
