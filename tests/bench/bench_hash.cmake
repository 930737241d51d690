# SHA-256: util::Sha256 against OpenSSL's libcrypto (RESULTS.md, "SHA-256"). libcrypto is linked
# here and nowhere else; .ci/setup installs its headers (libssl-dev).
find_package(OpenSSL COMPONENTS Crypto)
if(OpenSSL_FOUND)
    envcheck_bench(bench_hash MODULES util LIBS OpenSSL::Crypto envcheck_bench_support)
else()
    message(STATUS "bench_hash left out: no OpenSSL headers (Debian: libssl-dev)")
endif()
