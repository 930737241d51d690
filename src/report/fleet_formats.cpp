#include "report/fleet_formats.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "report/github_commands.hpp"
#include "report/markup.hpp"
#include "util/strings.hpp"
#include "util/time_format.hpp"
#include "util/url_redaction.hpp"

namespace envcheck::report
{
    namespace
    {
        struct Counts
        {
            std::size_t total = 0;
            std::size_t passed = 0;
            std::size_t warned = 0;
            std::size_t failed = 0;
            std::size_t errors = 0;
            std::size_t skipped = 0;
        };

        auto count(const model::CheckRun& run) -> Counts
        {
            Counts counts;
            for (const auto& outcome : run.outcomes)
            {
                ++counts.total;
                switch (outcome.status)
                {
                    case model::Status::pass:
                        ++counts.passed;
                        break;
                    case model::Status::warn:
                        ++counts.warned;
                        break;
                    case model::Status::fail:
                        ++counts.failed;
                        break;
                    case model::Status::error:
                        ++counts.errors;
                        break;
                    case model::Status::skip:
                        ++counts.skipped;
                        break;
                }
            }
            return counts;
        }

        // Shortest decimal that reads back to the same double.
        auto format_number(double value) -> std::string
        {
            if (std::isnan(value))
            {
                return "NaN";
            }
            if (std::isinf(value))
            {
                return value > 0 ? "+Inf" : "-Inf";
            }
            std::array<char, 64> buffer{};
            const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
            return std::string(buffer.data(), result.ptr);
        }

        auto outcome_text(const model::CheckOutcome& outcome) -> std::string
        {
            std::string text = outcome.message;
            if (!outcome.fix.empty())
            {
                text += "\nfix: " + outcome.fix;
            }
            return text;
        }

        // ---- Prometheus ---------------------------------------------------------------------

        auto label_escape(std::string_view text) -> std::string
        {
            std::string out;
            for (const char c : text)
            {
                if (c == '\\')
                {
                    out += "\\\\";
                }
                else if (c == '"')
                {
                    out += "\\\"";
                }
                else if (c == '\n')
                {
                    out += "\\n";
                }
                else
                {
                    out += c;
                }
            }
            return out;
        }

        // Label names must match [a-zA-Z_][a-zA-Z0-9_]*.
        auto label_name(std::string_view text) -> std::string
        {
            std::string out;
            for (const char c : text)
            {
                out += util::is_alnum(c) || c == '_' ? c : '_';
            }
            if (out.empty() || util::is_digit(out.front()))
            {
                out.insert(out.begin(), '_');
            }
            return out;
        }

        using Labels = std::vector<std::pair<std::string, std::string>>;

        auto render_labels(const Labels& labels) -> std::string
        {
            std::string out = "{";
            for (std::size_t i = 0; i < labels.size(); ++i)
            {
                if (i != 0)
                {
                    out += ',';
                }
                out += labels[i].first + "=\"" + label_escape(labels[i].second) + "\"";
            }
            return out + "}";
        }

        struct Family
        {
            std::string help;
            std::vector<std::string> samples;
        };

        auto base_labels(const model::CheckRun& run, const model::CheckOutcome& outcome) -> Labels
        {
            Labels labels = { { "command", run.command }, { "check", outcome.id } };
            for (const auto& [key, value] : outcome.labels)
            {
                const auto name = label_name(key);
                if (name != "command" && name != "check" && name != "status" && name != "metric")
                {
                    labels.emplace_back(name, value);
                }
            }
            return labels;
        }

        // ---- Markdown and GitHub ------------------------------------------------------------

        auto markdown_cell(std::string_view text) -> std::string
        {
            std::string out;
            for (const char c : text)
            {
                if (c == '|')
                {
                    out += "\\|";
                }
                else if (c == '\n')
                {
                    out += "<br>";
                }
                else if (c != '\r')
                {
                    out += c;
                }
            }
            return out;
        }

        auto status_mark(model::Status status) -> std::string_view
        {
            switch (status)
            {
                case model::Status::pass:
                    return "✅ pass";
                case model::Status::warn:
                    return "⚠️ warn";
                case model::Status::fail:
                    return "❌ fail";
                case model::Status::error:
                    return "💥 error";
                case model::Status::skip:
                    return "⏭️ skip";
            }
            return "";
        }

        auto summary_line(const model::CheckRun& run) -> std::string
        {
            const Counts counts = count(run);
            std::string line =
              "envcheck " + run.command + ": " + (run.passed() ? "pass" : "fail") + " (";
            line += std::to_string(counts.passed) + " passed";
            if (counts.warned != 0)
            {
                line += ", " + std::to_string(counts.warned) + " warned";
            }
            if (counts.failed != 0)
            {
                line += ", " + std::to_string(counts.failed) + " failed";
            }
            if (counts.errors != 0)
            {
                line += ", " + std::to_string(counts.errors) +
                        (counts.errors == 1 ? " error" : " errors");
            }
            if (counts.skipped != 0)
            {
                line += ", " + std::to_string(counts.skipped) + " skipped";
            }
            return line + ")";
        }

        auto nfd_name(std::string_view text) -> std::string
        {
            // Feature names follow the label-name rules: the same character set as values.
            return to_label_value(text);
        }
    }

    auto render_junit(const std::vector<model::CheckRun>& runs) -> std::string
    {
        Counts total;
        double total_time = 0.0;
        for (const auto& run : runs)
        {
            const Counts c = count(run);
            total.total += c.total;
            total.failed += c.failed;
            total.errors += c.errors;
            total.skipped += c.skipped;
            total_time += run.duration_seconds;
        }
        std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
        out += "<testsuites name=\"envcheck\" tests=\"" + std::to_string(total.total) +
               "\" failures=\"" + std::to_string(total.failed) + "\" errors=\"" +
               std::to_string(total.errors) + "\" skipped=\"" + std::to_string(total.skipped) +
               "\" time=\"" + format_number(total_time) + "\">\n";
        for (const auto& run : runs)
        {
            const Counts c = count(run);
            out += "  <testsuite name=\"envcheck " + xml_escape(run.command) + "\" tests=\"" +
                   std::to_string(c.total) + "\" failures=\"" + std::to_string(c.failed) +
                   "\" errors=\"" + std::to_string(c.errors) + "\" skipped=\"" +
                   std::to_string(c.skipped) + "\" time=\"" + format_number(run.duration_seconds) +
                   "\" timestamp=\"" +
                   util::format_rfc3339_utc(static_cast<std::int64_t>(run.finished_unix_seconds)) +
                   "\">\n";
            for (const auto& outcome : run.outcomes)
            {
                out += "    <testcase classname=\"envcheck." + xml_escape(run.command) +
                       "\" name=\"" + xml_escape(outcome.id) + "\" time=\"0\"";
                const std::string text = xml_escape(outcome_text(outcome));
                const std::string message = xml_attribute(outcome.message);
                switch (outcome.status)
                {
                    case model::Status::pass:
                        out += "/>\n";
                        break;
                    case model::Status::warn:
                        out += ">\n      <system-out>warning: " + text +
                               "</system-out>\n    </testcase>\n";
                        break;
                    case model::Status::skip:
                        out += ">\n      <skipped message=\"" + message + "\"/>\n    </testcase>\n";
                        break;
                    case model::Status::fail:
                        out.append(">\n      <failure message=\"")
                          .append(message)
                          .append("\" type=\"fail\">")
                          .append(text)
                          .append("</failure>\n    </testcase>\n");
                        break;
                    case model::Status::error:
                        out.append(">\n      <error message=\"")
                          .append(message)
                          .append("\" type=\"error\">")
                          .append(text)
                          .append("</error>\n    </testcase>\n");
                        break;
                }
            }
            out += "  </testsuite>\n";
        }
        out += "</testsuites>\n";
        return out;
    }

    auto render_prometheus(const std::vector<model::CheckRun>& runs) -> std::string
    {
        // Families in a fixed order, each with HELP and TYPE once (the exposition format wants a
        // family's samples together).
        std::map<std::string, Family> families;
        const std::vector<std::string> order = {
            "envcheck_check_status",         "envcheck_metric",
            "envcheck_run_success",          "envcheck_run_checks",
            "envcheck_run_duration_seconds", "envcheck_last_run_timestamp_seconds"
        };
        families["envcheck_check_status"].help =
          "State of each envcheck check: 1 for the state it is in, 0 for the others.";
        families["envcheck_metric"].help =
          "A value measured by an envcheck probe or check, in the unit its metric label ends with.";
        families["envcheck_run_success"].help =
          "1 when the last envcheck run of the command passed, else 0.";
        families["envcheck_run_checks"].help = "Number of checks of the last run, by status.";
        families["envcheck_run_duration_seconds"].help =
          "Wall time of the last envcheck run of the command.";
        families["envcheck_last_run_timestamp_seconds"].help =
          "Unix time at which the last envcheck run of the command finished.";

        constexpr std::array statuses = { model::Status::pass, model::Status::warn,
                                          model::Status::fail, model::Status::skip,
                                          model::Status::error };
        for (const auto& run : runs)
        {
            for (const auto& outcome : run.outcomes)
            {
                const Labels labels = base_labels(run, outcome);
                for (const auto status : statuses)
                {
                    Labels with_status = labels;
                    with_status.emplace_back("status", std::string(model::to_string(status)));
                    families["envcheck_check_status"].samples.push_back(
                      "envcheck_check_status" + render_labels(with_status) + " " +
                      (outcome.status == status ? "1" : "0"));
                }
                for (const auto& [metric, value] : outcome.metrics)
                {
                    Labels with_metric = labels;
                    with_metric.emplace_back("metric", metric);
                    families["envcheck_metric"].samples.push_back(
                      "envcheck_metric" + render_labels(with_metric) + " " + format_number(value));
                }
            }
            const Labels command = { { "command", run.command } };
            families["envcheck_run_success"].samples.push_back(
              "envcheck_run_success" + render_labels(command) + " " + (run.passed() ? "1" : "0"));
            const Counts c = count(run);
            const std::pair<model::Status, std::size_t> by_status[] = {
                { model::Status::pass, c.passed },
                { model::Status::warn, c.warned },
                { model::Status::fail, c.failed },
                { model::Status::skip, c.skipped },
                { model::Status::error, c.errors }
            };
            for (const auto& [status, n] : by_status)
            {
                families["envcheck_run_checks"].samples.push_back(
                  "envcheck_run_checks" +
                  render_labels({ { "command", run.command },
                                  { "status", std::string(model::to_string(status)) } }) +
                  " " + std::to_string(n));
            }
            families["envcheck_run_duration_seconds"].samples.push_back(
              "envcheck_run_duration_seconds" + render_labels(command) + " " +
              format_number(run.duration_seconds));
            families["envcheck_last_run_timestamp_seconds"].samples.push_back(
              "envcheck_last_run_timestamp_seconds" + render_labels(command) + " " +
              format_number(run.finished_unix_seconds));
        }
        std::string out;
        for (const auto& name : order)
        {
            const Family& family = families[name];
            if (family.samples.empty())
            {
                continue;
            }
            out += "# HELP " + name + " " + family.help + "\n";
            out += "# TYPE " + name + " gauge\n";
            for (const auto& sample : family.samples)
            {
                out += sample + "\n";
            }
        }
        return out;
    }

    auto to_label_value(std::string_view text) -> std::string
    {
        std::string out;
        for (const char c : text)
        {
            out += util::is_alnum(c) || c == '-' || c == '_' || c == '.' ? c : '-';
        }
        if (out.size() > 63)
        {
            out.resize(63);
        }
        while (!out.empty() && !util::is_alnum(out.front()))
        {
            out.erase(out.begin());
        }
        while (!out.empty() && !util::is_alnum(out.back()))
        {
            out.pop_back();
        }
        return out;
    }

    auto render_nfd(const std::vector<model::CheckRun>& runs, const NodeFeatures& features,
                    const NfdOptions& options) -> std::string
    {
        const std::string& prefix = options.prefix;
        std::string out =
          "# envcheck node features for Node Feature Discovery (local source), written " +
          util::format_rfc3339_utc(options.now_unix_seconds) + "\n";
        out += "# +expiry-time=" +
               util::format_rfc3339_utc(options.now_unix_seconds + options.expiry_seconds) + "\n";
        auto add = [&](std::string_view name, std::string_view value)
        {
            const std::string label = to_label_value(value);
            out += prefix + "/" + std::string(name) + "=" +
                   (label.empty() ? std::string("unknown") : label) + "\n";
        };
        auto flag = [](bool value) { return value ? "true" : "false"; };
        if (features.cuda_usable)
        {
            add("cuda-usable", flag(*features.cuda_usable));
        }
        if (features.driver_version)
        {
            add("driver-version", *features.driver_version);
        }
        if (features.cuda_driver_version)
        {
            add("cuda-driver-version", *features.cuda_driver_version);
        }
        if (features.compute_capability)
        {
            add("compute-capability", *features.compute_capability);
        }
        if (features.gpu_model)
        {
            add("gpu-model", *features.gpu_model);
        }
        if (features.gpu_count)
        {
            add("gpu-count", std::to_string(*features.gpu_count));
        }
        if (features.lock_matches)
        {
            add("lock-matches", flag(*features.lock_matches));
        }
        if (features.smoke_passed)
        {
            add("smoke-passed", flag(*features.smoke_passed));
        }
        for (const auto& run : runs)
        {
            add(nfd_name(run.command + ".passed"), flag(run.passed()));
        }
        // Per-check states are features for NodeFeatureRules, not labels: dozens of labels per
        // node would crowd `kubectl describe node`.
        bool any_check = false;
        for (const auto& run : runs)
        {
            for (const auto& outcome : run.outcomes)
            {
                if (!any_check)
                {
                    out += "# +no-label\n";
                    any_check = true;
                }
                add(nfd_name(run.command + "." + outcome.id), model::to_string(outcome.status));
            }
        }
        return out;
    }

    auto render_markdown(const std::vector<model::CheckRun>& runs) -> std::string
    {
        std::string out;
        for (const auto& run : runs)
        {
            if (!out.empty())
            {
                out += "\n";
            }
            out += "### " + summary_line(run) + "\n\n";
            out += "| Result | Check | Details | Fix |\n|---|---|---|---|\n";
            for (const auto& outcome : run.outcomes)
            {
                out += "| " + std::string(status_mark(outcome.status)) + " | `" +
                       markdown_cell(outcome.id) + "` | " + markdown_cell(outcome.message) + " | " +
                       markdown_cell(outcome.fix) + " |\n";
            }
        }
        return out;
    }

    auto render_github_annotations(const std::vector<model::CheckRun>& runs) -> std::string
    {
        std::string out;
        for (const auto& run : runs)
        {
            for (const auto& outcome : run.outcomes)
            {
                std::string_view level;
                if (model::is_failure(outcome.status))
                {
                    level = "error";
                }
                else if (outcome.status == model::Status::warn)
                {
                    level = "warning";
                }
                else
                {
                    continue;
                }
                std::string properties =
                  "title=" + github_property("envcheck " + run.command + " " + outcome.id);
                const auto file = outcome.labels.find("file");
                if (file != outcome.labels.end())
                {
                    properties.insert(0, "file=" + github_property(file->second) + ",");
                    const auto line = outcome.labels.find("line");
                    if (line != outcome.labels.end())
                    {
                        properties += ",line=" + github_property(line->second);
                    }
                }
                out += "::" + std::string(level) + " " + properties +
                       "::" + github_data(outcome_text(outcome)) + "\n";
            }
            out += "::notice title=" + github_property("envcheck " + run.command) +
                   "::" + github_data(summary_line(run)) + "\n";
        }
        return out;
    }

    // ---- Node Problem Detector ----------------------------------------------------------------

    namespace
    {
        auto outcomes_with(const std::vector<model::CheckRun>& runs, model::Status status)
          -> std::vector<const model::CheckOutcome*>
        {
            std::vector<const model::CheckOutcome*> found;
            for (const auto& run : runs)
            {
                for (const auto& outcome : run.outcomes)
                {
                    if (outcome.status == status)
                    {
                        found.push_back(&outcome);
                    }
                }
            }
            return found;
        }

        // One line: control characters (newlines included) become single spaces.
        auto one_line(std::string_view text) -> std::string
        {
            std::string out;
            bool space = false;
            for (const char c : text)
            {
                const auto byte = static_cast<unsigned char>(c);
                if (byte < 0x20 || byte == 0x7f || c == ' ')
                {
                    space = !out.empty();
                    continue;
                }
                if (space)
                {
                    out += ' ';
                    space = false;
                }
                out += c;
            }
            return out;
        }

        // At most `limit` bytes, cut before a UTF-8 continuation byte, "..." marking the cut.
        auto cut(std::string text, std::size_t limit) -> std::string
        {
            if (text.size() <= limit)
            {
                return text;
            }
            constexpr std::string_view ellipsis = "...";
            if (limit <= ellipsis.size())
            {
                return std::string(ellipsis.substr(0, limit));
            }
            std::size_t end = limit - ellipsis.size();
            while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0U) == 0x80U)
            {
                --end;
            }
            text.resize(end);
            while (!text.empty() && text.back() == ' ')
            {
                text.pop_back();
            }
            return text + std::string(ellipsis);
        }

        auto ids_then_message(const std::vector<const model::CheckOutcome*>& outcomes,
                              std::string_view joint) -> std::string
        {
            std::string line = outcomes.front()->id;
            if (outcomes.size() > 1)
            {
                line += " (+" + std::to_string(outcomes.size() - 1) + " more)";
            }
            line += std::string(joint) + outcomes.front()->message;
            return line;
        }
    }

    auto npd_status(const std::vector<model::CheckRun>& runs) -> NpdStatus
    {
        if (!outcomes_with(runs, model::Status::fail).empty())
        {
            return NpdStatus::problem;
        }
        const bool any =
          std::any_of(runs.begin(), runs.end(),
                      [](const model::CheckRun& run) { return !run.outcomes.empty(); });
        if (!any || !outcomes_with(runs, model::Status::error).empty())
        {
            return NpdStatus::unknown;
        }
        return NpdStatus::ok;
    }

    auto render_npd(const std::vector<model::CheckRun>& runs, std::size_t max_length) -> std::string
    {
        std::string line;
        switch (npd_status(runs))
        {
            case NpdStatus::problem:
                line = ids_then_message(outcomes_with(runs, model::Status::fail), ": ");
                break;
            case NpdStatus::unknown:
            {
                const auto errors = outcomes_with(runs, model::Status::error);
                line = errors.empty() ? "UNKNOWN: no check ran"
                                      : ids_then_message(errors, " could not run: ");
                break;
            }
            case NpdStatus::ok:
            {
                std::vector<std::string> parts;
                for (const auto& run : runs)
                {
                    // "envcheck doctor: pass (23 passed, 4 skipped)" -> "doctor 23 passed, ..."
                    const Counts counts = count(run);
                    std::string part =
                      run.command + " " + std::to_string(counts.passed) + " passed";
                    if (counts.warned != 0)
                    {
                        part += ", " + std::to_string(counts.warned) + " warned";
                    }
                    if (counts.skipped != 0)
                    {
                        part += ", " + std::to_string(counts.skipped) + " skipped";
                    }
                    parts.push_back(std::move(part));
                }
                line = "OK: " + util::join(parts, "; ");
                break;
            }
        }
        return cut(one_line(util::redact_urls(line, util::redaction_marker)), max_length) + "\n";
    }
    auto fleet_formats() -> std::span<const FleetFormat>
    {
        using Runs = std::vector<model::CheckRun>;
        static constexpr std::array<FleetFormat, 6> table{ {
          { "junit", "",
            [](const Runs& runs, const NodeFeatures&, const FleetFormatOptions&)
            { return render_junit(runs); } },
          { "prometheus", "node_exporter textfile",
            [](const Runs& runs, const NodeFeatures&, const FleetFormatOptions&)
            { return render_prometheus(runs); } },
          { "nfd", "Node Feature Discovery",
            [](const Runs& runs, const NodeFeatures& features, const FleetFormatOptions& options)
            {
                return render_nfd(
                  runs, features,
                  NfdOptions{ "envcheck.io", options.now_unix_seconds, options.expiry_seconds });
            } },
          { "markdown", "",
            [](const Runs& runs, const NodeFeatures&, const FleetFormatOptions&)
            { return render_markdown(runs); } },
          { "github", "",
            [](const Runs& runs, const NodeFeatures&, const FleetFormatOptions&)
            { return render_github_annotations(runs); } },
          { "npd", "Node Problem Detector custom plugin",
            [](const Runs& runs, const NodeFeatures&, const FleetFormatOptions& options)
            { return render_npd(runs, options.npd_max_length); } },
        } };
        return table;
    }

    auto find_fleet_format(std::string_view name) -> const FleetFormat*
    {
        const auto all = fleet_formats();
        const auto found = std::find_if(all.begin(), all.end(),
                                        [&](const FleetFormat& row) { return row.name == name; });
        return found == all.end() ? nullptr : &*found;
    }
}
