#include "checks/lint_suppression.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace envcheck::checks
{
    namespace
    {
        constexpr std::string_view directive = "envcheck:";

        auto is_space(char c) -> bool
        {
            return c == ' ' || c == '\t';
        }

        // The offset of the '#' that starts the line's comment (YAML: at the start or after
        // whitespace, outside quotes); npos when it has none.
        auto comment_start(std::string_view line) -> std::size_t
        {
            char quote = 0;
            for (std::size_t i = 0; i < line.size(); ++i)
            {
                const char c = line[i];
                if (quote != 0)
                {
                    quote = c == quote ? 0 : quote;
                    continue;
                }
                if ((c == '"' || c == '\'') &&
                    (i == 0 || is_space(line[i - 1]) || line[i - 1] == '[' || line[i - 1] == ':'))
                {
                    quote = c;
                }
                else if (c == '#' && (i == 0 || is_space(line[i - 1])))
                {
                    return i;
                }
            }
            return std::string_view::npos;
        }

        // Whether the line holds content (a key, a list item, a requirement), not only blanks,
        // a comment or a YAML document marker.
        auto has_content(std::string_view line) -> bool
        {
            const auto first = line.find_first_not_of(" \t\r");
            if (first == std::string_view::npos)
            {
                return false;
            }
            const auto rest = line.substr(first);
            return !rest.starts_with('#') && !rest.starts_with("---") && !rest.starts_with('%');
        }

        struct LineScan
        {
            std::string_view line;
            std::size_t number = 0;
            bool whole_file = false;
        };

        void problem(InlineIgnores& out, std::size_t line, std::size_t column, std::string message)
        {
            const auto info = ignore_comment_rule_info();
            out.problems.push_back(formats::EnvDiagnostic{
              info.severity, std::string(info.id), std::move(message),
              formats::TextPosition{ line, column }, std::string(info.fix) });
        }

        // `ignore[a, b]` at `at` of the line (just after "envcheck:").
        void read_directive(const LineScan& scan, std::size_t at,
                            const std::vector<std::string>& known, InlineIgnores& out)
        {
            const auto line = scan.line;
            while (at < line.size() && is_space(line[at]))
            {
                ++at;
            }
            const std::size_t start = at;
            if (line.substr(at).rfind("ignore[", 0) != 0)
            {
                problem(out, scan.number, start + 1,
                        "an envcheck comment must read 'envcheck: ignore[rule-id, ...]'");
                return;
            }
            at += 7; // "ignore["
            const auto close = line.find(']', at);
            if (close == std::string_view::npos)
            {
                problem(out, scan.number, start + 1, "'envcheck: ignore[' without its ']'");
                return;
            }
            bool any = false;
            while (at < close)
            {
                auto comma = line.find(',', at);
                if (comma == std::string_view::npos || comma > close)
                {
                    comma = close;
                }
                auto begin = at;
                auto end = comma;
                while (begin < end && is_space(line[begin]))
                {
                    ++begin;
                }
                while (end > begin && is_space(line[end - 1]))
                {
                    --end;
                }
                const std::string id(line.substr(begin, end - begin));
                at = comma + 1;
                if (id.empty())
                {
                    continue;
                }
                any = true;
                if (std::find(known.begin(), known.end(), id) == known.end())
                {
                    std::string message = "'envcheck: ignore' names no rule '" + id + "'";
                    if (const auto close_id = util::closest_match(id, known))
                    {
                        message += "; did you mean '" + *close_id + "'?";
                    }
                    problem(out, scan.number, begin + 1, std::move(message));
                    continue;
                }
                out.ignores.push_back(InlineIgnore{ id, scan.number, begin + 1, scan.whole_file });
            }
            if (!any)
            {
                problem(out, scan.number, start + 1, "'envcheck: ignore[]' names no rule");
            }
        }
    }

    auto InlineIgnores::find(std::string_view rule, std::size_t line) const -> const InlineIgnore*
    {
        const auto found =
          std::find_if(ignores.begin(), ignores.end(),
                       [&](const InlineIgnore& ignore) {
                           return ignore.rule == rule && (ignore.whole_file || ignore.line == line);
                       });
        return found == ignores.end() ? nullptr : &*found;
    }

    auto find_inline_ignores(std::string_view text, const std::vector<std::string>& known_rules)
      -> InlineIgnores
    {
        InlineIgnores out;
        bool content_seen = false;
        std::size_t number = 0;
        std::size_t begin = 0;
        while (begin <= text.size())
        {
            auto end = text.find('\n', begin);
            if (end == std::string_view::npos)
            {
                end = text.size();
            }
            const auto line = text.substr(begin, end - begin);
            ++number;
            const bool content = has_content(line);
            const auto hash = comment_start(line);
            if (hash != std::string_view::npos)
            {
                const auto found = line.find(directive, hash);
                if (found != std::string_view::npos)
                {
                    read_directive(LineScan{ line, number, !content && !content_seen },
                                   found + directive.size(), known_rules, out);
                }
            }
            content_seen = content_seen || content;
            begin = end + 1;
        }
        return out;
    }

    auto ignore_comment_rule_info() -> formats::LoaderRule
    {
        return formats::LoaderRule{
            ignore_comment_rule, model::Severity::error,
            "An inline '# envcheck: ignore[rule-id]' comment that is malformed or names a rule "
            "that does not exist.",
            "Write '# envcheck: ignore[rule-id, ...]' with ids from `envcheck lint --list-rules`."
        };
    }
}
