#include "app/hardware_gates.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

TEST_CASE("hardware_gate_policy: the command line, else the configuration, else the defaults",
          "[app][hardware]")
{
    config::CheckConfig configured;
    configured.fatal_xids =
      config::Setting<std::vector<int>>{ { 48, 79 },
                                         { config::Source::Kind::file, ".envcheck.toml", 3, 14 } };
    configured.gpu_count =
      config::Setting<int>{ 8, { config::Source::Kind::file, ".envcheck.toml", 4, 13 } };

    const auto defaults = app::hardware_gate_policy({}, {});
    CHECK(defaults.fatal_xids == checks::default_fatal_xids());
    CHECK_FALSE(defaults.expected_gpu_count.has_value());

    const auto from_config = app::hardware_gate_policy({}, configured);
    CHECK(from_config.fatal_xids == std::vector<int>{ 48, 79 });
    CHECK(from_config.expected_gpu_count == 8);
    CHECK(from_config.expected_gpu_count_from == "check.gpu-count in .envcheck.toml:4:13");

    const auto given = app::hardware_gate_policy({ std::vector<int>{ 31 }, 2 }, configured);
    CHECK(given.fatal_xids == std::vector<int>{ 31 });
    CHECK(given.expected_gpu_count == 2);
    CHECK(given.expected_gpu_count_from == "--expect-gpus");
}
