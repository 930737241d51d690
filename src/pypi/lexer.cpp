#include "pypi/lexer.hpp"

#include "pypi/text.hpp"

namespace envcheck::pypi::detail
{
    auto Lexer::skip_ws() -> bool
    {
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() && (m_text[m_pos] == ' ' || m_text[m_pos] == '\t'))
        {
            ++m_pos;
        }
        return m_pos != start;
    }

    auto Lexer::take(char c) -> bool
    {
        if (peek() == c && !at_end())
        {
            ++m_pos;
            return true;
        }
        return false;
    }

    auto Lexer::word_at(std::string_view word) const -> bool
    {
        if (m_text.substr(m_pos, word.size()) != word)
        {
            return false;
        }
        const bool boundary_before =
          m_pos == 0 || !is_word(m_text[m_pos - 1]) || !is_word(word.front());
        const std::size_t end = m_pos + word.size();
        const bool boundary_after =
          end >= m_text.size() || !is_word(m_text[end]) || !is_word(word.back());
        return boundary_before && boundary_after;
    }

    auto Lexer::take_word(std::string_view word) -> bool
    {
        if (word_at(word))
        {
            m_pos += word.size();
            return true;
        }
        return false;
    }

    auto Lexer::take_identifier() -> std::string_view
    {
        if (at_end() || !is_alnum(m_text[m_pos]) || (m_pos > 0 && is_word(m_text[m_pos - 1])))
        {
            return {};
        }
        std::size_t end = m_pos;
        std::size_t last_word_end = m_pos;
        while (end < m_text.size() && (is_alnum(m_text[end]) || m_text[end] == '.' ||
                                       m_text[end] == '_' || m_text[end] == '-'))
        {
            ++end;
            if (is_word(m_text[end - 1]))
            {
                last_word_end = end;
            }
        }
        const std::string_view identifier = m_text.substr(m_pos, last_word_end - m_pos);
        m_pos = last_word_end;
        return identifier;
    }

    auto Lexer::take_quoted() -> std::optional<std::string_view>
    {
        const char quote = peek();
        if (at_end() || (quote != '\'' && quote != '"'))
        {
            return std::nullopt;
        }
        const std::size_t close = m_text.find(quote, m_pos + 1);
        if (close == std::string_view::npos)
        {
            return std::nullopt;
        }
        const std::string_view content = m_text.substr(m_pos + 1, close - m_pos - 1);
        m_pos = close + 1;
        return content;
    }

    auto Lexer::error(std::string message) const -> util::ParseError
    {
        return error_at(m_pos, std::move(message));
    }

    auto Lexer::error_at(std::size_t pos, std::string message) const -> util::ParseError
    {
        return util::ParseError{ std::string(m_text), pos, std::move(message) };
    }
}
