// A small validating JSON scanner over text, for reading conda-meta records without building
// a document: the caller walks the top-level object, decodes the few values it needs and skips
// the rest (the multi-megabyte `files` and `paths_data` lists) structurally, the way rattler's
// MinimalPrefixRecord does. Skipping checks the grammar (nesting, commas, colons, literals,
// numbers, escapes) but not the contents of skipped strings: a skipped string may hold bytes
// that are not UTF-8, since nothing is read from it.
//
// Nesting is tracked with an explicit stack, so deep input cannot overflow the call stack.
#ifndef ENVCHECK_FORMATS_CONDA_META_SCANNER_HPP
#define ENVCHECK_FORMATS_CONDA_META_SCANNER_HPP

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace envcheck::formats
{
    class JsonScanner
    {
    public:
        explicit JsonScanner(std::string_view text)
          : m_text(text)
        {
        }

        [[nodiscard]] auto offset() const -> std::size_t { return m_pos; }
        // Moves to `offset` (to read a value found by other means).
        void seek(std::size_t offset) { m_pos = offset; }
        [[nodiscard]] auto at_end() const -> bool { return m_pos >= m_text.size(); }
        // The next character after whitespace, or '\0' at the end; does not consume it.
        [[nodiscard]] auto peek() -> char;
        // Consumes `c` after whitespace; false (with an error) when something else is there.
        auto expect(char c) -> bool;
        // Consumes `c` after whitespace when it is there.
        auto consume(char c) -> bool;

        // A string value, decoded (escapes, \u surrogate pairs to UTF-8). The decoded text must
        // be valid UTF-8.
        auto read_string(std::string& out) -> bool;
        // A string value without copying when it has no escapes (object keys, mostly).
        auto read_key(std::string& scratch) -> std::optional<std::string_view>;
        // An integer value (a number without fraction or exponent that fits in long long).
        auto read_integer(long long& out) -> bool;
        // Skips any value; [begin, end) of its text is available from value_begin() and offset().
        auto skip_value() -> bool;
        // Skips an array or object 64 bytes at a time (SSE2 where available): strings, escapes
        // and the nesting of brackets are followed exactly, but commas, colons and scalars inside
        // are not checked. For the multi-megabyte `files` and `paths_data` values, whose contents
        // are not read. With `info_hits`, the offsets of every "-info" in the container are
        // collected on the way (where `files` names a .dist-info or .egg-info), so that finding
        // them costs no second pass.
        auto skip_container(std::vector<std::size_t>* info_hits = nullptr) -> bool;
        [[nodiscard]] auto value_begin() const -> std::size_t { return m_value_begin; }

        // Whether the rest of the text is whitespace.
        auto at_end_of_document() -> bool;

        [[nodiscard]] auto error() const -> const std::string& { return m_error; }
        [[nodiscard]] auto error_offset() const -> std::size_t { return m_error_offset; }
        auto fail(std::string message) -> bool;
        auto fail_at(std::size_t offset, std::string message) -> bool;

    private:
        void skip_whitespace();
        auto skip_string() -> bool;
        auto skip_number() -> bool;
        auto skip_literal() -> bool;

        std::string_view m_text;
        std::size_t m_pos = 0;
        std::size_t m_value_begin = 0;
        std::string m_error;
        std::size_t m_error_offset = 0;
    };

    // A human description of the character at `offset` for error messages: "'x'", "end of
    // file", "byte 0x8b".
    [[nodiscard]] auto describe_character(std::string_view text, std::size_t offset) -> std::string;
}

#endif
