#include "report/config_report.hpp"

#include <nlohmann/json.hpp>

namespace envcheck::report
{
    namespace
    {
        using Json = nlohmann::ordered_json;

        auto dump(const Json& value) -> std::string
        {
            return value.dump(-1, ' ', false, Json::error_handler_t::replace);
        }

        auto quoted_key(const std::string& prefix, const std::string& name) -> std::string
        {
            return prefix + "." + dump(Json(name));
        }

        auto ids(const std::vector<config::Setting<std::string>>& settings) -> Json
        {
            Json out = Json::array();
            for (const auto& setting : settings)
            {
                out.push_back(setting.value);
            }
            return out;
        }

        auto first_source(const std::vector<config::Setting<std::string>>& settings)
          -> std::optional<config::Source>
        {
            if (settings.empty())
            {
                return std::nullopt;
            }
            return settings.front().source;
        }
    }

    auto config_settings(const config::Config& config) -> std::vector<ConfigSetting>
    {
        std::vector<ConfigSetting> out;
        out.push_back(
          { "lint.ignore", dump(ids(config.lint.ignore)), first_source(config.lint.ignore) });
        for (const auto& [id, setting] : config.lint.severity)
        {
            out.push_back(
              { quoted_key("lint.severity", id),
                dump(Json(setting.value ? std::string(model::to_string(*setting.value)) : "off")),
                setting.source });
        }
        for (const auto& entry : config.lint.per_file_ignores)
        {
            out.push_back({ quoted_key("lint.per-file-ignores", entry.glob), dump(ids(entry.rules)),
                            entry.source });
        }
        out.push_back(
          { "doctor.skip", dump(ids(config.doctor.skip)), first_source(config.doctor.skip) });
        for (const auto& [metric, setting] : config.check.tolerances)
        {
            out.push_back({ quoted_key("check.tolerances", metric), dump(Json(setting.value)),
                            setting.source });
        }
        if (config.check.gpu_count)
        {
            out.push_back({ "check.gpu-count", std::to_string(config.check.gpu_count->value),
                            config.check.gpu_count->source });
        }
        else
        {
            out.push_back({ "check.gpu-count", "null", std::nullopt });
        }
        if (config.check.fatal_xids)
        {
            out.push_back({ "check.fatal-xids", dump(Json(config.check.fatal_xids->value)),
                            config.check.fatal_xids->source });
        }
        else
        {
            out.push_back({ "check.fatal-xids", "[]", std::nullopt });
        }
        if (!config.formats.contains("default"))
        {
            out.push_back({ "format.default", "\"text\"", std::nullopt });
        }
        for (const auto& [command, setting] : config.formats)
        {
            out.push_back({ "format." + command, dump(Json(setting.value)), setting.source });
        }
        return out;
    }

    auto render_config_text(const config::Config& config, const std::string& how) -> std::string
    {
        std::string out =
          "# configuration: " + (config.file.empty() ? "none" : config.file) + " (" + how + ")\n";
        const auto settings = config_settings(config);
        std::size_t width = 0;
        for (const auto& setting : settings)
        {
            width = std::max(width, setting.key.size() + 3 + setting.value_json.size());
        }
        for (const auto& setting : settings)
        {
            std::string line = setting.key + " = " + setting.value_json;
            line.resize(std::max(line.size(), width), ' ');
            out +=
              line + "  # " + (setting.source ? setting.source->to_string() : "default") + "\n";
        }
        return out;
    }

    auto render_config_json(const config::Config& config, const std::string& how) -> std::string
    {
        Json settings = Json::array();
        for (const auto& setting : config_settings(config))
        {
            Json source = nullptr;
            if (setting.source && setting.source->kind == config::Source::Kind::command_line)
            {
                source = Json{ { "option", setting.source->file } };
            }
            else if (setting.source)
            {
                source = Json{ { "file", setting.source->file },
                               { "line", setting.source->line },
                               { "column", setting.source->column } };
            }
            settings.push_back(Json{ { "key", setting.key },
                                     { "value", Json::parse(setting.value_json) },
                                     { "source", std::move(source) } });
        }
        const Json document{ { "schema_version", 1 },
                             { "file", config.file.empty() ? Json(nullptr) : Json(config.file) },
                             { "how", how },
                             { "settings", std::move(settings) } };
        return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    }
}
