// Inline ignores: `# envcheck: ignore[rule-id, ...]` in an environment file's (or a
// requirements file's) comments. On a line with content it suppresses the named rules' findings
// on that line (a dependency's line); on a comment line before the first key (the top of the
// file) it suppresses them in the whole file. YAML readers drop comments, so the text is scanned
// line by line. Pure.
#ifndef ENVCHECK_CHECKS_LINT_SUPPRESSION_HPP
#define ENVCHECK_CHECKS_LINT_SUPPRESSION_HPP

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "formats/environment_yaml.hpp"

namespace envcheck::checks
{
    // The rule that reports a malformed ignore comment or one that names no such rule.
    inline constexpr std::string_view ignore_comment_rule = "syntax.ignore-comment";

    struct InlineIgnore
    {
        std::string rule;
        std::size_t line = 0;   // where the comment names it (1-based)
        std::size_t column = 0; // of the rule id
        bool whole_file = false;
    };

    struct InlineIgnores
    {
        std::vector<InlineIgnore> ignores;
        std::vector<formats::EnvDiagnostic> problems; // syntax.ignore-comment findings

        // The ignore that suppresses `rule` on `line`, nullptr when none does.
        [[nodiscard]] auto find(std::string_view rule, std::size_t line) const
          -> const InlineIgnore*;
    };

    // Every `# envcheck: ignore[...]` comment of `text`; an id not in `known_rules`, or a comment
    // without [ids], is a problem (error) at its position.
    [[nodiscard]] auto find_inline_ignores(std::string_view text,
                                           const std::vector<std::string>& known_rules)
      -> InlineIgnores;

    // The catalog row of syntax.ignore-comment (--list-rules).
    [[nodiscard]] auto ignore_comment_rule_info() -> formats::LoaderRule;
}

#endif
