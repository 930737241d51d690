# Repodata indexing and .condarc parsing (lint --check-channels inputs).
envcheck_fuzzer(fuzz_repodata MODULES formats)
envcheck_fuzzer(fuzz_condarc MODULES formats)
