// libFuzzer target: load any bytes as an environment file and lint them with every rule, then
// diff the result against itself. Never crash; every finding has a position and a listed rule;
// a file never differs from itself; wherever libyaml judges the bytes, yaml-cpp reads the same
// environment file (or the same error) from them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "checks/diff.hpp"
#include "checks/lint.hpp"
#include "formats/environment_yaml.hpp"
#include "fuzz_require.hpp"

namespace
{
    auto listed(std::string_view rule) -> bool
    {
        for (const auto& row : envcheck::checks::rule_catalog())
        {
            if (row.id == rule)
            {
                return true;
            }
        }
        return false;
    }

    using Reading =
      envcheck::util::Result<envcheck::formats::EnvironmentFile, envcheck::formats::EnvDiagnostic>;

    auto same_reading(const Reading& one, const Reading& other) -> bool
    {
        if (one.has_value() != other.has_value())
        {
            return false;
        }
        return one ? *one == *other : one.error() == other.error();
    }
}

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int
{
    using namespace envcheck;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    checks::LintOptions options;
    const std::uint8_t flags = size == 0 ? 0 : data[size - 1];
    options.strict = (flags & 1U) != 0;
    if ((flags & 2U) != 0)
    {
        options.target_driver = checks::DriverVersion{ 535, 104, 5 };
    }
    else if ((flags & 4U) != 0)
    {
        options.target_cuda = model::CudaVersion{ 12, 2 };
    }
    for (const auto& finding : checks::lint_text(text, options))
    {
        ENVCHECK_FUZZ_REQUIRE(finding.position.line != 0 && finding.position.column != 0);
        ENVCHECK_FUZZ_REQUIRE(!finding.message.empty() && listed(finding.rule));
    }
    if (const auto libyaml = formats::read_environment_yaml_with_libyaml(text))
    {
        ENVCHECK_FUZZ_REQUIRE(
          same_reading(*libyaml, formats::read_environment_yaml_with_yaml_cpp(text)));
    }
    auto loaded = formats::load_environment_yaml(text);
    if (loaded)
    {
        const auto set = checks::package_set_from(*loaded);
        ENVCHECK_FUZZ_REQUIRE(checks::diff_package_sets(set, set).equal());
    }
    return 0;
}
