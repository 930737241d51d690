# PEP 440 versions and specifiers (src/pypi). Seeds: corpus/pep440 and corpus/specifier.
envcheck_fuzzer(fuzz_pep440 MODULES pypi)
