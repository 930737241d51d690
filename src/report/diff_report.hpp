// Renderers for `envcheck diff`: packages added, removed and re-pinned between two environment
// files (or locks), channel changes, and the changes that are risky (CUDA, python, framework
// majors). Text for terminals, a Markdown table for pull-request comments, and JSON
// (schemas/diff-report.schema.json). Pure: the diff comes in as values.
#ifndef ENVCHECK_REPORT_DIFF_REPORT_HPP
#define ENVCHECK_REPORT_DIFF_REPORT_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/package.hpp"

namespace envcheck::report
{
    enum class DiffChange
    {
        added,
        removed,
        changed,
    };

    [[nodiscard]] auto to_string(DiffChange change) -> std::string_view;

    struct DiffRisk
    {
        std::string kind; // "cuda" | "python" | "framework"
        std::string message;
    };

    struct DiffEntry
    {
        DiffChange change = DiffChange::changed;
        std::string name;
        model::Manager manager = model::Manager::conda;
        std::optional<std::string> old_spec; // as written; nullopt when added
        std::optional<std::string> new_spec; // as written; nullopt when removed
        std::vector<DiffRisk> risks;
    };

    struct DiffReport
    {
        std::string old_path;
        std::string new_path;
        std::vector<std::string> old_channels;
        std::vector<std::string> new_channels;
        std::vector<std::string> channels_added;
        std::vector<std::string> channels_removed;
        bool channels_reordered = false;
        std::vector<DiffEntry> entries;

        [[nodiscard]] auto equal() const -> bool;
        [[nodiscard]] auto count(DiffChange change) const -> std::size_t;
        [[nodiscard]] auto risky() const -> std::size_t; // entries with at least one risk
    };

    enum class DiffFormat
    {
        text,
        markdown,
        json,
    };

    [[nodiscard]] auto to_string(DiffFormat format) -> std::string_view;
    [[nodiscard]] auto parse_diff_format(std::string_view text) -> std::optional<DiffFormat>;

    [[nodiscard]] auto render_diff_text(const DiffReport& report) -> std::string;
    // A one-line summary, then a table: change | package | manager | old | new | risk.
    [[nodiscard]] auto render_diff_markdown(const DiffReport& report) -> std::string;
    [[nodiscard]] auto render_diff_json(const DiffReport& report) -> std::string;
    [[nodiscard]] auto render_diff(const DiffReport& report, DiffFormat format) -> std::string;
}

#endif
