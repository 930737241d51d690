#include "model/severity.hpp"

#include "util/enum_text.hpp"

namespace envcheck::model
{
    auto to_string(Severity severity) -> std::string_view
    {
        switch (severity)
        {
            case Severity::error:
                return "error";
            case Severity::warning:
                return "warning";
            case Severity::info:
                return "info";
        }
        return "error";
    }

    auto parse_severity(std::string_view text) -> std::optional<Severity>
    {
        return util::parse_enum(text, { Severity::error, Severity::warning, Severity::info });
    }

    auto status_of(Severity severity) -> Status
    {
        switch (severity)
        {
            case Severity::error:
                return Status::fail;
            case Severity::warning:
                return Status::warn;
            case Severity::info:
                return Status::pass;
        }
        return Status::fail;
    }
}
