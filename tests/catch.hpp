// Catch2 v2 (Debian 12) and v3 (Ubuntu 24.04) behind one include. Tests use the subset both
// share: TEST_CASE, SECTION, REQUIRE/CHECK(_FALSE/_THROWS), GENERATE, INFO/CAPTURE, Approx.
#ifndef ENVCHECK_TESTS_CATCH_HPP
#define ENVCHECK_TESTS_CATCH_HPP

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif

#endif
