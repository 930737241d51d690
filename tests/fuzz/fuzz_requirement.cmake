# PEP 508 requirements and markers, pip requirement-file lines, wheel/sdist names (src/pypi).
# Seeds: corpus/requirement.
envcheck_fuzzer(fuzz_requirement MODULES pypi)
