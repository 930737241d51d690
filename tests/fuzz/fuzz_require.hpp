// The one way a fuzz target reports a broken property: it names the property and its line on
// stderr, which tests/fuzz/run_all.sh copies from the log (so a CI failure says what broke), and
// stops with a crash, which libFuzzer saves as the finding.
#ifndef ENVCHECK_TESTS_FUZZ_FUZZ_REQUIRE_HPP
#define ENVCHECK_TESTS_FUZZ_FUZZ_REQUIRE_HPP

#include <cstdio>

#define ENVCHECK_FUZZ_REQUIRE(condition)                                                           \
    do                                                                                             \
    {                                                                                              \
        if (!(condition))                                                                          \
        {                                                                                          \
            std::fprintf(stderr, "envcheck fuzz: %s:%d: property broken: %s\n", __FILE__,          \
                         __LINE__, #condition);                                                    \
            std::fflush(stderr);                                                                   \
            __builtin_trap();                                                                      \
        }                                                                                          \
    } while (false)

#endif
