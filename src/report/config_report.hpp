// `envcheck config`: the effective configuration, one line per setting with where it came from
// (text), or as JSON (schemas/config-report.schema.json). Pure.
#ifndef ENVCHECK_REPORT_CONFIG_REPORT_HPP
#define ENVCHECK_REPORT_CONFIG_REPORT_HPP

#include <string>
#include <vector>

#include "config/config.hpp"

namespace envcheck::report
{
    struct ConfigSetting
    {
        std::string key;                      // "lint.severity.\"repro.unpinned\""
        std::string value_json;               // the value as JSON: "\"off\"", "[\"a\"]", "8"
        std::optional<config::Source> source; // nullopt: the default
    };

    // Every setting in the order of the README's table; unset keys with their default.
    [[nodiscard]] auto config_settings(const config::Config& config) -> std::vector<ConfigSetting>;

    // "# <file> (<how>)" then "key = value  # file:line:col" (or "# default").
    [[nodiscard]] auto render_config_text(const config::Config& config, const std::string& how)
      -> std::string;
    // {"schema_version":1,"file":...|null,"how":...,"settings":[{"key","value","source"}]};
    // source: {"file","line","column"}, {"option"} or null (the default).
    [[nodiscard]] auto render_config_json(const config::Config& config, const std::string& how)
      -> std::string;
}

#endif
