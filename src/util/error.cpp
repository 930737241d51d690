#include "util/error.hpp"

namespace envcheck::util
{
    auto to_string(ErrorKind kind) -> std::string_view
    {
        switch (kind)
        {
            case ErrorKind::usage:
                return "usage";
            case ErrorKind::io:
                return "io";
            case ErrorKind::parse:
                return "parse";
            case ErrorKind::unsupported:
                return "unsupported";
            case ErrorKind::network:
                return "network";
            case ErrorKind::timeout:
                return "timeout";
            case ErrorKind::internal:
                return "internal";
        }
        return "internal";
    }

    auto SourceLocation::to_string() const -> std::string
    {
        std::string out = file;
        if (line != 0)
        {
            out += ':';
            out += std::to_string(line);
            if (column != 0)
            {
                out += ':';
                out += std::to_string(column);
            }
        }
        return out;
    }

    auto Error::to_string() const -> std::string
    {
        const std::string location = where.to_string();
        return location.empty() ? message : location + ": " + message;
    }

    auto make_error(ErrorKind kind, std::string message, SourceLocation where, std::string hint)
      -> Error
    {
        return Error{ kind, std::move(message), std::move(where), std::move(hint) };
    }

    auto ParseError::to_string() const -> std::string
    {
        std::string out = message;
        out += " at column ";
        out += std::to_string(offset + 1);
        out += " of '";
        out += input;
        out += "'\n  ";
        out += input;
        out += "\n  ";
        out.append(offset, ' ');
        out += '^';
        return out;
    }

    auto to_error(const ParseError& error, SourceLocation start) -> Error
    {
        SourceLocation where = std::move(start);
        if (where.line != 0)
        {
            where.column = (where.column == 0 ? 1 : where.column) + error.offset;
        }
        return Error{
            ErrorKind::parse, error.message + " in '" + error.input + "'", std::move(where), {}
        };
    }
}
