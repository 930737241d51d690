# The environment.yml loader and every lint rule on what it loads. Seeds: envs/ and the fixtures,
#   build-lint-fuzz/tests/fuzz/fuzz_environment_yaml -max_total_time=60 /tmp/fuzz-env \
#       envs envs/broken tests/data/envfiles tests/data/envfiles/broken
envcheck_fuzzer(fuzz_environment_yaml MODULES checks formats)
