// Structured errors. Every error that reaches the user names what failed and, where it came
// from a file, the file, line and column; cli/exit_codes.hpp maps the kind to an exit code.
#ifndef ENVCHECK_UTIL_ERROR_HPP
#define ENVCHECK_UTIL_ERROR_HPP

#include <cstddef>
#include <string>
#include <string_view>

namespace envcheck::util
{
    enum class ErrorKind
    {
        usage,       // the command line asks for something impossible
        io,          // a file or stream cannot be read or written
        parse,       // input text does not follow its grammar
        unsupported, // a well-formed input in a format (version) envcheck does not read
        network,     // a transfer failed
        timeout,     // an operation ran past its limit
        internal,    // a bug in envcheck
    };

    [[nodiscard]] auto to_string(ErrorKind kind) -> std::string_view;

    // 1-based line and column; 0 means unknown.
    struct SourceLocation
    {
        std::string file;
        std::size_t line = 0;
        std::size_t column = 0;

        [[nodiscard]] auto known() const -> bool { return line != 0; }
        // "file:line:col", "file:line", "file" or "" depending on what is known.
        [[nodiscard]] auto to_string() const -> std::string;
    };

    struct Error
    {
        ErrorKind kind = ErrorKind::internal;
        std::string message;
        SourceLocation where;
        std::string hint; // a one-line fix; may be empty

        // "file:line:col: message" (the location prefix only when known).
        [[nodiscard]] auto to_string() const -> std::string;
    };

    [[nodiscard]] auto make_error(ErrorKind kind, std::string message, SourceLocation where = {},
                                  std::string hint = {}) -> Error;

    // Error of a grammar parser over one string (a version, a spec, a requirement): the offset
    // of the offending character in the input, so that callers can point at it.
    struct ParseError
    {
        std::string input;
        std::size_t offset = 0;
        std::string message;

        // "message at column N of 'input'" with a caret line underneath.
        [[nodiscard]] auto to_string() const -> std::string;
    };

    // Converts a grammar error found in text that starts at (line, column) of `file`.
    [[nodiscard]] auto to_error(const ParseError& error, SourceLocation start) -> Error;
}

#endif
