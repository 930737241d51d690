#include "config/config.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "formats/toml_document.hpp"
#include "util/strings.hpp"

namespace envcheck::config
{
    namespace
    {
        using formats::TomlValue;
        using Kind = TomlValue::Kind;

        // Reads one document's tables, failing at the first problem with its position.
        class Reader
        {
        public:
            Reader(std::string_view file, const KnownIds& known, std::string top)
              : m_file(file)
              , m_known(known)
              , m_top(std::move(top))
            {
            }

            [[nodiscard]] auto source(const TomlValue& value) const -> Source
            {
                return Source{ Source::Kind::file, m_file, value.position.line,
                               value.position.column };
            }

            [[nodiscard]] auto fail(const TomlValue& value, std::string message,
                                    std::string hint = {}) const -> util::Error
            {
                return util::make_error(
                  util::ErrorKind::usage, std::move(message),
                  util::SourceLocation{ m_file, value.position.line, value.position.column },
                  std::move(hint));
            }

            // Every member's key must be one of `keys`.
            [[nodiscard]] auto only_keys(const TomlValue& table, std::string_view where,
                                         const std::vector<std::string>& keys) const
              -> util::Result<void>
            {
                for (const auto& member : table.members)
                {
                    if (std::find(keys.begin(), keys.end(), member.key) != keys.end())
                    {
                        continue;
                    }
                    std::string message =
                      "unknown key '" + member.key + "' in " + std::string(where);
                    if (const auto close = util::closest_match(member.key, keys))
                    {
                        message += "; did you mean '" + *close + "'?";
                    }
                    return util::unexpected(fail(member.value, std::move(message),
                                                 "known keys: " + util::join(keys, ", ")));
                }
                return {};
            }

            [[nodiscard]] auto expect(const TomlValue& value, Kind kind, std::string_view key) const
              -> util::Result<void>
            {
                if (value.kind == kind)
                {
                    return {};
                }
                return util::unexpected(fail(
                  value, std::string(key) + " must be " + std::string(formats::to_string(kind)) +
                           ", not " + std::string(formats::to_string(value.kind))));
            }

            // TOML reads an unquoted dotted key (repro.unpinned = "off") as nested tables.
            [[nodiscard]] auto not_dotted(const TomlValue& value, std::string_view key,
                                          std::string_view example) const -> util::Result<void>
            {
                if (value.kind != Kind::table)
                {
                    return {};
                }
                return util::unexpected(fail(
                  value, std::string(key) + ": ids contain dots, which TOML reads as nested tables",
                  "quote the id: " + std::string(example)));
            }

            // An id that must be in `ids` ("lint rule", "doctor check").
            [[nodiscard]] auto known_id(const TomlValue& value, const std::vector<std::string>& ids,
                                        std::string_view what, std::string_view list_command) const
              -> util::Result<void>
            {
                if (std::find(ids.begin(), ids.end(), value.text) != ids.end())
                {
                    return {};
                }
                std::string message = "unknown " + std::string(what) + " '" + value.text + "'";
                if (const auto close = util::closest_match(value.text, ids))
                {
                    message += "; did you mean '" + *close + "'?";
                }
                return util::unexpected(fail(value, std::move(message),
                                             "`" + std::string(list_command) + "` lists them"));
            }

            // An array of rule ids (or doctor check ids).
            [[nodiscard]] auto id_list(const TomlValue& value, std::string_view key,
                                       const std::vector<std::string>& ids, std::string_view what,
                                       std::string_view list_command) const
              -> util::Result<std::vector<Setting<std::string>>>
            {
                if (auto ok = expect(value, Kind::array, key); !ok)
                {
                    return util::unexpected(ok.error());
                }
                std::vector<Setting<std::string>> out;
                for (const auto& item : value.items)
                {
                    if (auto ok = expect(item, Kind::string, std::string(key) + "'s items"); !ok)
                    {
                        return util::unexpected(ok.error());
                    }
                    if (auto ok = known_id(item, ids, what, list_command); !ok)
                    {
                        return util::unexpected(ok.error());
                    }
                    out.push_back({ item.text, source(item) });
                }
                return out;
            }

            [[nodiscard]] auto rule_ids(const TomlValue& value, std::string_view key) const
            {
                return id_list(value, key, m_known.rules, "lint rule",
                               "envcheck lint --list-rules");
            }

            [[nodiscard]] auto lint(const TomlValue& table, LintConfig& out) const
              -> util::Result<void>
            {
                if (auto ok =
                      only_keys(table, "[lint]", { "ignore", "severity", "per-file-ignores" });
                    !ok)
                {
                    return ok;
                }
                if (const auto* ignore = table.find("ignore"))
                {
                    auto ids = rule_ids(*ignore, "lint.ignore");
                    if (!ids)
                    {
                        return util::unexpected(ids.error());
                    }
                    out.ignore = std::move(*ids);
                }
                if (const auto* severity = table.find("severity"))
                {
                    if (auto ok = severities(*severity, out); !ok)
                    {
                        return ok;
                    }
                }
                if (const auto* per_file = table.find("per-file-ignores"))
                {
                    if (auto ok = expect(*per_file, Kind::table, "lint.per-file-ignores"); !ok)
                    {
                        return ok;
                    }
                    for (const auto& [glob, ids_value] : per_file->members)
                    {
                        auto ids = rule_ids(ids_value, "lint.per-file-ignores.\"" + glob + "\"");
                        if (!ids)
                        {
                            return util::unexpected(ids.error());
                        }
                        out.per_file_ignores.push_back(
                          PerFileIgnore{ glob, std::move(*ids), source(ids_value) });
                    }
                }
                return {};
            }

            [[nodiscard]] auto severities(const TomlValue& table, LintConfig& out) const
              -> util::Result<void>
            {
                if (auto ok = expect(table, Kind::table, "lint.severity"); !ok)
                {
                    return ok;
                }
                for (const auto& [id, value] : table.members)
                {
                    if (auto ok =
                          not_dotted(value, "lint.severity", "\"repro.unpinned\" = \"off\"");
                        !ok)
                    {
                        return ok;
                    }
                    TomlValue id_value = value;
                    id_value.text = id;
                    if (auto ok = known_id(id_value, m_known.rules, "lint rule",
                                           "envcheck lint --list-rules");
                        !ok)
                    {
                        return ok;
                    }
                    const std::string key = "lint.severity.\"" + id + "\"";
                    if (auto ok = expect(value, Kind::string, key); !ok)
                    {
                        return ok;
                    }
                    RuleSeverity severity;
                    if (value.text != "off")
                    {
                        severity = model::parse_severity(value.text);
                        if (!severity)
                        {
                            return util::unexpected(fail(
                              value,
                              key + " must be \"error\", \"warning\", \"info\" or \"off\", not \"" +
                                value.text + "\""));
                        }
                    }
                    out.severity[id] = { severity, source(value) };
                }
                return {};
            }

            [[nodiscard]] auto doctor(const TomlValue& table, DoctorConfig& out) const
              -> util::Result<void>
            {
                if (auto ok = only_keys(table, "[doctor]", { "skip" }); !ok)
                {
                    return ok;
                }
                if (const auto* skip = table.find("skip"))
                {
                    auto ids = id_list(*skip, "doctor.skip", m_known.doctor_checks, "doctor check",
                                       "envcheck doctor --list");
                    if (!ids)
                    {
                        return util::unexpected(ids.error());
                    }
                    out.skip = std::move(*ids);
                }
                return {};
            }

            [[nodiscard]] auto integer(const TomlValue& value, std::string_view key, long long low,
                                       long long high) const -> util::Result<int>
            {
                if (auto ok = expect(value, Kind::integer, key); !ok)
                {
                    return util::unexpected(ok.error());
                }
                const auto parsed = util::parse_int(value.text);
                if (!parsed || *parsed < low || *parsed > high)
                {
                    return util::unexpected(
                      fail(value, std::string(key) + " must be from " + std::to_string(low) +
                                    " to " + std::to_string(high) + ", not " + value.text));
                }
                return static_cast<int>(*parsed);
            }

            [[nodiscard]] auto tolerances(const TomlValue& table, CheckConfig& out) const
              -> util::Result<void>
            {
                if (auto ok = expect(table, Kind::table, "check.tolerances"); !ok)
                {
                    return ok;
                }
                for (const auto& [metric, value] : table.members)
                {
                    if (auto ok = not_dotted(value, "check.tolerances",
                                             "\"bandwidth.h2d_pinned_gbps\" = 0.05");
                        !ok)
                    {
                        return ok;
                    }
                    const std::string key = "check.tolerances.\"" + metric + "\"";
                    if (value.kind != Kind::floating && value.kind != Kind::integer)
                    {
                        return util::unexpected(
                          fail(value, key + " must be a fraction such as 0.05, not " +
                                        std::string(formats::to_string(value.kind))));
                    }
                    const double fraction = std::strtod(value.text.c_str(), nullptr);
                    if (!(fraction > 0.0 && fraction < 1.0))
                    {
                        return util::unexpected(
                          fail(value, key +
                                        " must be a fraction above 0 and below 1 (0.05 allows a 5% "
                                        "drop), not " +
                                        value.text));
                    }
                    out.tolerances[metric] = { fraction, source(value) };
                }
                return {};
            }

            [[nodiscard]] auto check(const TomlValue& table, CheckConfig& out) const
              -> util::Result<void>
            {
                if (auto ok =
                      only_keys(table, "[check]", { "tolerances", "gpu-count", "fatal-xids" });
                    !ok)
                {
                    return ok;
                }
                if (const auto* value = table.find("tolerances"))
                {
                    if (auto ok = tolerances(*value, out); !ok)
                    {
                        return ok;
                    }
                }
                if (const auto* value = table.find("gpu-count"))
                {
                    auto count = integer(*value, "check.gpu-count", 1, 1024);
                    if (!count)
                    {
                        return util::unexpected(count.error());
                    }
                    out.gpu_count = Setting<int>{ *count, source(*value) };
                }
                if (const auto* value = table.find("fatal-xids"))
                {
                    if (auto ok = expect(*value, Kind::array, "check.fatal-xids"); !ok)
                    {
                        return ok;
                    }
                    Setting<std::vector<int>> xids{ {}, source(*value) };
                    for (const auto& item : value->items)
                    {
                        auto xid = integer(item, "check.fatal-xids's items", 1, 1000000);
                        if (!xid)
                        {
                            return util::unexpected(xid.error());
                        }
                        xids.value.push_back(*xid);
                    }
                    out.fatal_xids = std::move(xids);
                }
                return {};
            }

            [[nodiscard]] auto format(const TomlValue& table, Config& out) const
              -> util::Result<void>
            {
                if (auto ok = expect(table, Kind::table, "[format]"); !ok)
                {
                    return ok;
                }
                std::vector<std::string> keys{ "default" };
                keys.insert(keys.end(), m_known.commands.begin(), m_known.commands.end());
                if (auto ok = only_keys(table, "[format] (\"default\" or a command)", keys); !ok)
                {
                    return ok;
                }
                for (const auto& [command, value] : table.members)
                {
                    if (auto ok = expect(value, Kind::string, "format." + command); !ok)
                    {
                        return ok;
                    }
                    out.formats[command] = { value.text, source(value) };
                }
                return {};
            }

            [[nodiscard]] auto document(const TomlValue& root, Config& out) const
              -> util::Result<void>
            {
                if (auto ok = only_keys(root, m_top, { "lint", "doctor", "check", "format" }); !ok)
                {
                    return ok;
                }
                for (const auto& [key, value] : root.members)
                {
                    if (auto ok = expect(value, Kind::table, "[" + key + "]"); !ok)
                    {
                        return ok;
                    }
                }
                util::Result<void> ok;
                if (const auto* table = root.find("lint"); table && ok)
                {
                    ok = lint(*table, out.lint);
                }
                if (const auto* table = root.find("doctor"); table && ok)
                {
                    ok = doctor(*table, out.doctor);
                }
                if (const auto* table = root.find("check"); table && ok)
                {
                    ok = check(*table, out.check);
                }
                if (const auto* table = root.find("format"); table && ok)
                {
                    ok = format(*table, out);
                }
                return ok;
            }

        private:
            std::string m_file;
            const KnownIds& m_known;
            std::string m_top; // what the root table is called in messages
        };

        auto read(const TomlValue& root, std::string_view file_name, const KnownIds& known,
                  std::string top) -> util::Result<Config>
        {
            Config config;
            config.file = std::string(file_name);
            const Reader reader(file_name, known, std::move(top));
            if (auto ok = reader.document(root, config); !ok)
            {
                return util::unexpected(ok.error());
            }
            return config;
        }
    }

    auto Source::to_string() const -> std::string
    {
        if (kind == Kind::command_line)
        {
            return file;
        }
        return util::SourceLocation{ file, line, column }.to_string();
    }

    auto Config::format_for(std::string_view command) const -> const Setting<std::string>*
    {
        if (const auto found = formats.find(std::string(command)); found != formats.end())
        {
            return &found->second;
        }
        if (const auto found = formats.find("default"); found != formats.end())
        {
            return &found->second;
        }
        return nullptr;
    }

    auto configured_format(const Config& config, std::string_view command,
                           const std::vector<std::string>& allowed)
      -> util::Result<std::optional<std::string>>
    {
        const auto* configured = config.format_for(command);
        if (configured == nullptr)
        {
            return std::optional<std::string>{};
        }
        if (std::find(allowed.begin(), allowed.end(), configured->value) == allowed.end())
        {
            const auto& where = configured->source;
            const std::string name(command);
            return util::unexpected(util::make_error(
              util::ErrorKind::usage,
              "the configured format \"" + configured->value + "\" is not one of " + name + "'s",
              util::SourceLocation{ where.file, where.line, where.column },
              name + " writes " + util::join(allowed, ", ") + "; set [format] " + name +
                " = \"...\" for it alone"));
        }
        return std::optional(configured->value);
    }

    auto parse_config(std::string_view text, std::string_view file_name, const KnownIds& known)
      -> util::Result<Config>
    {
        auto root = formats::parse_toml(text, file_name);
        if (!root)
        {
            auto error = root.error();
            error.kind = util::ErrorKind::usage;
            return util::unexpected(std::move(error));
        }
        return read(*root, file_name, known, "the configuration");
    }

    auto parse_pyproject_config(std::string_view text, std::string_view file_name,
                                const KnownIds& known) -> util::Result<std::optional<Config>>
    {
        auto root = formats::parse_toml(text, file_name);
        if (!root)
        {
            auto error = root.error();
            error.kind = util::ErrorKind::usage;
            return util::unexpected(std::move(error));
        }
        const auto* tool = root->find("tool");
        const auto* table = tool != nullptr ? tool->find("envcheck") : nullptr;
        if (table == nullptr)
        {
            return std::optional<Config>{};
        }
        if (table->kind != Kind::table)
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::usage, "[tool.envcheck] must be a table",
                               util::SourceLocation{ std::string(file_name), table->position.line,
                                                     table->position.column }));
        }
        auto config = read(*table, file_name, known, "[tool.envcheck]");
        if (!config)
        {
            return util::unexpected(config.error());
        }
        return std::optional<Config>(std::move(*config));
    }

    auto glob_matches(std::string_view glob, std::string_view path) -> bool
    {
        if (glob.find('/') != std::string_view::npos)
        {
            return util::glob_match(glob, path);
        }
        const auto slash = path.rfind('/');
        return util::glob_match(glob,
                                slash == std::string_view::npos ? path : path.substr(slash + 1));
    }

    auto config_keys() -> std::vector<KeyInfo>
    {
        return {
            { "lint.ignore", "array of rule ids",
              "Rules whose findings are suppressed in every file" },
            { "lint.severity", "table: rule id -> \"error\"|\"warning\"|\"info\"|\"off\"",
              "A rule's severity; \"off\" suppresses its findings" },
            { "lint.per-file-ignores", "table: glob -> array of rule ids",
              "Rules suppressed in the files a glob matches (relative to the configuration's "
              "directory; a glob without '/' matches the file name)" },
            { "doctor.skip", "array of doctor check ids", "Doctor checks reported as skipped" },
            { "check.tolerances", "table: metric id -> fraction in (0, 1)",
              "How far a locked performance metric may drop (as check --perf-tolerance METRIC=)" },
            { "check.gpu-count", "integer",
              "The GPUs the machine must show; gpu.count fails with fewer (--expect-gpus)" },
            { "check.fatal-xids", "array of integers",
              "The Xid codes that fail gpu.xid, replacing the default list (--fatal-xids)" },
            { "format.default", "string", "The report format of every command (--format)" },
            { "format.<command>", "string", "The report format of one command, e.g. format.lint" },
        };
    }
}
