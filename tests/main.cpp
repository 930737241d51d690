// The test runner shared by every test binary (Catch2 v2 needs CATCH_CONFIG_RUNNER here).
#if __has_include(<catch2/catch_session.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

auto main(int argc, char** argv) -> int
{
    return Catch::Session().run(argc, argv);
}
