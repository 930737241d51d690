#include "pypi/requirement.hpp"

#include <algorithm>
#include <utility>

#include "pypi/lexer.hpp"
#include "pypi/name.hpp"
#include "pypi/text.hpp"

namespace envcheck::pypi
{
    namespace
    {
        using detail::Lexer;

        // VERSION_LOCAL_LABEL_TRAIL of packaging's tokenizer (lowercase only, like there).
        auto local_label_trail_at(std::string_view text, std::size_t pos) -> bool
        {
            auto lower_alnum = [](char c) { return detail::is_digit(c) || (c >= 'a' && c <= 'z'); };
            return pos + 1 < text.size() && text[pos] == '+' && lower_alnum(text[pos + 1]);
        }

        auto parse_extras(Lexer& lexer) -> util::Result<std::vector<std::string>, util::ParseError>
        {
            std::vector<std::string> extras;
            if (lexer.peek() != '[')
            {
                return extras;
            }
            const std::size_t open = lexer.pos();
            lexer.take('[');
            lexer.skip_ws();
            const auto first = lexer.take_identifier();
            if (!first.empty())
            {
                extras.emplace_back(first);
                while (true)
                {
                    lexer.skip_ws();
                    const std::size_t here = lexer.pos();
                    if (!lexer.take_identifier().empty())
                    {
                        return util::unexpected(
                          lexer.error_at(here, "expected a comma between extra names"));
                    }
                    if (!lexer.take(','))
                    {
                        break;
                    }
                    lexer.skip_ws();
                    const auto extra = lexer.take_identifier();
                    if (extra.empty())
                    {
                        return util::unexpected(
                          lexer.error("expected an extra name after the comma"));
                    }
                    extras.emplace_back(extra);
                }
            }
            lexer.skip_ws();
            if (!lexer.take(']'))
            {
                return util::unexpected(lexer.error(
                  "expected ']' to close the extras opened at column " + std::to_string(open + 1)));
            }
            std::sort(extras.begin(), extras.end());
            extras.erase(std::unique(extras.begin(), extras.end()), extras.end());
            return extras;
        }

        // packaging 26.4's SPECIFIER_LIST: printable ASCII up to ';', ')' or the end, read by
        // SpecifierSet in one pass when that accepts it with no empty clause inside.
        auto take_specifier_list(Lexer& lexer) -> std::optional<SpecifierSet>
        {
            const std::string_view text = lexer.text();
            const std::size_t start = lexer.pos();
            std::size_t end = start;
            while (end < text.size() &&
                   (text[end] == '\t' || (text[end] >= 0x20 && text[end] <= 0x7e &&
                                          text[end] != ')' && text[end] != ';')))
            {
                ++end;
            }
            if (end == start || (end < text.size() && text[end] != ';' && text[end] != ')'))
            {
                return std::nullopt;
            }
            const std::string_view list = text.substr(start, end - start);
            auto set = SpecifierSet::parse(list);
            if (!set)
            {
                return std::nullopt;
            }
            const auto commas = static_cast<std::size_t>(std::count(list.begin(), list.end(), ','));
            const std::size_t clauses = set->specifiers().size();
            const bool trailing_comma = detail::trim_ascii_right(list).ends_with(",");
            if (clauses != commas + 1 && !(clauses > 0 && clauses == commas && trailing_comma))
            {
                return std::nullopt;
            }
            lexer.reset(end);
            return std::move(*set);
        }

        // version_many = (SPECIFIER (WS? ',' WS? SPECIFIER)*)?
        auto parse_version_many(Lexer& lexer) -> util::Result<SpecifierSet, util::ParseError>
        {
            if (auto list = take_specifier_list(lexer))
            {
                return std::move(*list);
            }
            std::string joined;
            while (true)
            {
                const std::size_t start = lexer.pos();
                const std::size_t length = detail::match_specifier(lexer.text(), start);
                if (length == 0)
                {
                    break;
                }
                const std::string_view clause = lexer.text().substr(start, length);
                if (auto spec = Specifier::parse(clause); !spec)
                {
                    return util::unexpected(
                      lexer.error_at(start + spec.error().offset, spec.error().message));
                }
                joined += clause;
                lexer.reset(start + length);
                if (lexer.text().substr(lexer.pos(), 2) == ".*")
                {
                    const bool equality = clause.starts_with("==") || clause.starts_with("!=");
                    return util::unexpected(lexer.error(
                      equality
                        ? "'.*' cannot follow a pre-release, post-release, development release "
                          "or local version label"
                        : "'.*' can only be used with '==' or '!='"));
                }
                if (local_label_trail_at(lexer.text(), lexer.pos()))
                {
                    return util::unexpected(
                      lexer.error("a local version label can only be used with '==' or '!='"));
                }
                lexer.skip_ws();
                if (!lexer.take(','))
                {
                    break;
                }
                joined += ',';
                lexer.skip_ws();
            }
            // Every clause parsed on its own above, so the set does too.
            auto set = SpecifierSet::parse(joined);
            if (!set)
            {
                return util::unexpected(lexer.error(set.error().message));
            }
            return std::move(*set);
        }

        auto parse_specifier(Lexer& lexer) -> util::Result<SpecifierSet, util::ParseError>
        {
            if (lexer.peek() == '(')
            {
                const std::size_t open = lexer.pos();
                lexer.take('(');
                lexer.skip_ws();
                auto specs = parse_version_many(lexer);
                if (!specs)
                {
                    return specs;
                }
                lexer.skip_ws();
                if (!lexer.take(')'))
                {
                    return util::unexpected(
                      lexer.error("expected ')' to close the version specifier opened "
                                  "at column " +
                                  std::to_string(open + 1)));
                }
                return specs;
            }
            lexer.skip_ws();
            auto specs = parse_version_many(lexer);
            lexer.skip_ws();
            return specs;
        }
    }

    auto Requirement::parse(std::string_view text) -> util::Result<Requirement, util::ParseError>
    {
        Lexer lexer(text);
        Requirement req;
        lexer.skip_ws();
        const auto name = lexer.take_identifier();
        if (name.empty())
        {
            return util::unexpected(
              lexer.error("expected a package name at the start of the requirement"));
        }
        req.m_name = std::string(name);
        lexer.skip_ws();
        auto extras = parse_extras(lexer);
        if (!extras)
        {
            return util::unexpected(extras.error());
        }
        req.m_extras = std::move(*extras);
        lexer.skip_ws();

        bool marker_expected = false;
        if (lexer.take('@'))
        {
            lexer.skip_ws();
            const std::size_t url_start = lexer.pos();
            std::size_t url_end = url_start;
            while (url_end < text.size() && detail::python_space_at(text, url_end) == 0)
            {
                ++url_end;
            }
            if (url_end == url_start)
            {
                return util::unexpected(lexer.error("expected a URL after '@'"));
            }
            req.m_url = std::string(text.substr(url_start, url_end - url_start));
            lexer.reset(url_end);
            // After a URL only whitespace, then "; marker", may follow.
            if (!lexer.at_end())
            {
                if (!lexer.skip_ws())
                {
                    return util::unexpected(lexer.error("expected whitespace after the URL"));
                }
                if (!lexer.at_end())
                {
                    if (lexer.peek() != ';')
                    {
                        return util::unexpected(
                          lexer.error("expected ';' (after the URL and whitespace) or the end"));
                    }
                    marker_expected = true;
                }
            }
        }
        else
        {
            auto specs = parse_specifier(lexer);
            if (!specs)
            {
                return util::unexpected(specs.error());
            }
            req.m_specifier = std::move(*specs);
            lexer.skip_ws();
            if (!lexer.at_end())
            {
                if (lexer.peek() != ';')
                {
                    return util::unexpected(lexer.error(
                      req.m_specifier.empty()
                        ? "expected a version specifier, ';' (before a marker) or the end"
                        : "expected ',' (within the version specifier), ';' (after it) or the "
                          "end"));
                }
                marker_expected = true;
            }
        }

        if (marker_expected)
        {
            lexer.take(';');
            std::size_t pos = lexer.pos();
            auto marker = parse_marker_at(text, pos);
            if (!marker)
            {
                return util::unexpected(marker.error());
            }
            req.m_marker = std::move(*marker);
            lexer.reset(pos);
            lexer.skip_ws();
            if (!lexer.at_end())
            {
                return util::unexpected(
                  lexer.error("expected 'and', 'or' or the end of the requirement"));
            }
        }

        return req;
    }

    auto Requirement::normalized_name() const -> std::string
    {
        return normalize_name(m_name);
    }

    auto Requirement::to_string() const -> std::string
    {
        std::string out = m_name;
        if (!m_extras.empty())
        {
            out += '[';
            for (std::size_t i = 0; i < m_extras.size(); ++i)
            {
                out += (i == 0 ? "" : ",") + m_extras[i];
            }
            out += ']';
        }
        out += m_specifier.to_string();
        if (!m_url.empty())
        {
            out += " @ " + m_url;
            if (m_marker)
            {
                out += ' ';
            }
        }
        if (m_marker)
        {
            out += "; " + m_marker->to_string();
        }
        return out;
    }

    auto operator==(const Requirement& a, const Requirement& b) -> bool
    {
        return a.normalized_name() == b.normalized_name() && a.m_extras == b.m_extras &&
               a.m_specifier == b.m_specifier && a.m_url == b.m_url && a.m_marker == b.m_marker;
    }
}
