#include "report/diff_report.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "util/enum_text.hpp"

namespace envcheck::report
{
    namespace
    {
        using Json = nlohmann::ordered_json;

        auto join(const std::vector<std::string>& items, std::string_view separator,
                  std::string_view quote = "") -> std::string
        {
            std::string out;
            for (const auto& item : items)
            {
                if (!out.empty())
                {
                    out += separator;
                }
                out += std::string(quote) + item + std::string(quote);
            }
            return out;
        }

        auto change_label(DiffChange change) -> std::string_view
        {
            switch (change)
            {
                case DiffChange::added:
                    return "added";
                case DiffChange::removed:
                    return "removed";
                case DiffChange::changed:
                    return "re-pinned";
            }
            return "re-pinned";
        }

        auto change_sign(DiffChange change) -> char
        {
            switch (change)
            {
                case DiffChange::added:
                    return '+';
                case DiffChange::removed:
                    return '-';
                case DiffChange::changed:
                    return '~';
            }
            return '~';
        }

        auto summary_line(const DiffReport& report, bool markdown) -> std::string
        {
            if (report.equal())
            {
                return "no differences";
            }
            std::vector<std::string> parts;
            for (const auto change :
                 { DiffChange::added, DiffChange::removed, DiffChange::changed })
            {
                const std::size_t count = report.count(change);
                if (count != 0)
                {
                    parts.push_back(std::to_string(count) + " " +
                                    std::string(change_label(change)));
                }
            }
            if (!report.channels_added.empty() || !report.channels_removed.empty() ||
                report.channels_reordered)
            {
                parts.emplace_back("channels changed");
            }
            std::string out = join(parts, ", ");
            const std::size_t risky = report.risky();
            if (risky != 0)
            {
                const std::string risk =
                  std::to_string(risky) + " risky " + (risky == 1 ? "change" : "changes");
                out += "; " + (markdown ? "**" + risk + "**" : risk);
            }
            return out;
        }

        auto channel_line(const DiffReport& report, std::string_view quote) -> std::string
        {
            std::vector<std::string> parts;
            if (!report.channels_added.empty())
            {
                parts.push_back("added " + join(report.channels_added, ", ", quote));
            }
            if (!report.channels_removed.empty())
            {
                parts.push_back("removed " + join(report.channels_removed, ", ", quote));
            }
            if (report.channels_reordered)
            {
                parts.emplace_back("order changed");
            }
            return join(parts, "; ");
        }

        // A Markdown table cell: pipes escaped, specs as code unless they hold a backtick.
        auto cell(std::string_view text, bool code) -> std::string
        {
            std::string escaped;
            for (const char c : text)
            {
                if (c == '|')
                {
                    escaped += '\\';
                }
                escaped += c == '\n' ? ' ' : c;
            }
            if (!code || escaped.empty() || escaped.find('`') != std::string::npos)
            {
                return escaped;
            }
            return "`" + escaped + "`";
        }

        auto optional_json(const std::optional<std::string>& text) -> Json
        {
            return text ? Json(*text) : Json(nullptr);
        }
    }

    auto to_string(DiffChange change) -> std::string_view
    {
        switch (change)
        {
            case DiffChange::added:
                return "added";
            case DiffChange::removed:
                return "removed";
            case DiffChange::changed:
                return "changed";
        }
        return "changed";
    }

    auto DiffReport::equal() const -> bool
    {
        return entries.empty() && channels_added.empty() && channels_removed.empty() &&
               !channels_reordered;
    }

    auto DiffReport::count(DiffChange change) const -> std::size_t
    {
        return static_cast<std::size_t>(std::count_if(entries.begin(), entries.end(),
                                                      [&](const DiffEntry& entry)
                                                      { return entry.change == change; }));
    }

    auto DiffReport::risky() const -> std::size_t
    {
        return static_cast<std::size_t>(std::count_if(entries.begin(), entries.end(),
                                                      [](const DiffEntry& entry)
                                                      { return !entry.risks.empty(); }));
    }

    auto to_string(DiffFormat format) -> std::string_view
    {
        switch (format)
        {
            case DiffFormat::text:
                return "text";
            case DiffFormat::markdown:
                return "markdown";
            case DiffFormat::json:
                return "json";
        }
        return "text";
    }

    auto parse_diff_format(std::string_view text) -> std::optional<DiffFormat>
    {
        return util::parse_enum(text, { DiffFormat::text, DiffFormat::markdown, DiffFormat::json });
    }

    auto render_diff_text(const DiffReport& report) -> std::string
    {
        std::string out = "--- " + report.old_path + "\n+++ " + report.new_path + "\n";
        const std::string channels = channel_line(report, "");
        if (!channels.empty())
        {
            out += "channels: " + channels + "\n    old: " + join(report.old_channels, ", ") +
                   "\n    new: " + join(report.new_channels, ", ") + "\n";
        }
        for (const auto& entry : report.entries)
        {
            out += change_sign(entry.change);
            out += ' ';
            out += model::to_string(entry.manager);
            out += ' ' + entry.name + ": ";
            if (entry.change == DiffChange::changed)
            {
                out += entry.old_spec.value_or("") + " -> " + entry.new_spec.value_or("");
            }
            else
            {
                out += entry.change == DiffChange::added ? entry.new_spec.value_or("")
                                                         : entry.old_spec.value_or("");
            }
            out += "\n";
            for (const auto& risk : entry.risks)
            {
                out += "    risk (" + risk.kind + "): " + risk.message + "\n";
            }
        }
        out += summary_line(report, false) + "\n";
        return out;
    }

    auto render_diff_markdown(const DiffReport& report) -> std::string
    {
        std::string out = "**envcheck diff** " + cell(report.old_path, true) + " → " +
                          cell(report.new_path, true) + ": " + summary_line(report, true) + "\n";
        if (report.equal())
        {
            return out;
        }
        if (!report.entries.empty())
        {
            out +=
              "\n| change | package | manager | old | new | risk |\n|---|---|---|---|---|---|\n";
            for (const auto& entry : report.entries)
            {
                std::vector<std::string> risks;
                for (const auto& risk : entry.risks)
                {
                    risks.push_back("⚠️ " + cell(risk.message, false));
                }
                out +=
                  "| " + std::string(change_label(entry.change)) + " | " + cell(entry.name, false) +
                  " | " + std::string(model::to_string(entry.manager)) + " | " +
                  cell(entry.old_spec.value_or(""), true) + " | " +
                  cell(entry.new_spec.value_or(""), true) + " | " + join(risks, "<br>") + " |\n";
            }
        }
        const std::string channels = channel_line(report, "`");
        if (!channels.empty())
        {
            out += "\nChannels: " + channels + " (" + join(report.old_channels, ", ", "`") + " → " +
                   join(report.new_channels, ", ", "`") + ").\n";
        }
        return out;
    }

    auto render_diff_json(const DiffReport& report) -> std::string
    {
        Json packages = Json::array();
        for (const auto& entry : report.entries)
        {
            Json risks = Json::array();
            for (const auto& risk : entry.risks)
            {
                risks.push_back(Json{ { "kind", risk.kind }, { "message", risk.message } });
            }
            packages.push_back(Json{ { "change", to_string(entry.change) },
                                     { "name", entry.name },
                                     { "manager", model::to_string(entry.manager) },
                                     { "old", optional_json(entry.old_spec) },
                                     { "new", optional_json(entry.new_spec) },
                                     { "risks", std::move(risks) } });
        }
        const Json document{
            { "schema_version", 1 },
            { "old", { { "path", report.old_path }, { "channels", report.old_channels } } },
            { "new", { { "path", report.new_path }, { "channels", report.new_channels } } },
            { "equal", report.equal() },
            { "channels",
              { { "added", report.channels_added },
                { "removed", report.channels_removed },
                { "reordered", report.channels_reordered } } },
            { "packages", std::move(packages) },
            { "summary",
              { { "added", report.count(DiffChange::added) },
                { "removed", report.count(DiffChange::removed) },
                { "changed", report.count(DiffChange::changed) },
                { "risky", report.risky() } } }
        };
        return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
    }

    auto render_diff(const DiffReport& report, DiffFormat format) -> std::string
    {
        switch (format)
        {
            case DiffFormat::text:
                return render_diff_text(report);
            case DiffFormat::markdown:
                return render_diff_markdown(report);
            case DiffFormat::json:
                return render_diff_json(report);
        }
        return render_diff_text(report);
    }
}
