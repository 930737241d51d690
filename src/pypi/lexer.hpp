// The token rules of packaging's PEP 508 tokenizer, shared by the requirement and marker parsers
// of this module (internal: other modules use Requirement and Marker).
#ifndef ENVCHECK_PYPI_LEXER_HPP
#define ENVCHECK_PYPI_LEXER_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace envcheck::pypi::detail
{
    class Lexer
    {
    public:
        explicit Lexer(std::string_view text, std::size_t pos = 0)
          : m_text(text)
          , m_pos(pos)
        {
        }

        [[nodiscard]] auto text() const -> std::string_view { return m_text; }
        [[nodiscard]] auto pos() const -> std::size_t { return m_pos; }
        void reset(std::size_t pos) { m_pos = pos; }
        [[nodiscard]] auto at_end() const -> bool { return m_pos >= m_text.size(); }
        [[nodiscard]] auto peek() const -> char { return at_end() ? '\0' : m_text[m_pos]; }

        // WS: [ \t]+ ; returns whether any was skipped.
        auto skip_ws() -> bool;
        auto take(char c) -> bool;
        // `word` at the cursor with a word boundary on both sides (\bword\b).
        [[nodiscard]] auto word_at(std::string_view word) const -> bool;
        auto take_word(std::string_view word) -> bool;
        // IDENTIFIER: \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b — the longest run that ends in a word
        // character. Empty when none starts here.
        auto take_identifier() -> std::string_view;
        // QUOTED_STRING: '...' or "..." without escapes; the content without quotes.
        auto take_quoted() -> std::optional<std::string_view>;

        [[nodiscard]] auto error(std::string message) const -> util::ParseError;
        [[nodiscard]] auto error_at(std::size_t pos, std::string message) const -> util::ParseError;

    private:
        std::string_view m_text;
        std::size_t m_pos;
    };
}

#endif
