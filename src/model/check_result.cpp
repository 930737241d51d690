#include "model/check_result.hpp"

#include <algorithm>

#include "util/enum_text.hpp"

namespace envcheck::model
{
    auto to_string(Status status) -> std::string_view
    {
        switch (status)
        {
            case Status::pass:
                return "pass";
            case Status::warn:
                return "warn";
            case Status::fail:
                return "fail";
            case Status::skip:
                return "skip";
            case Status::error:
                return "error";
        }
        return "error";
    }

    auto parse_status(std::string_view text) -> std::optional<Status>
    {
        return util::parse_enum(
          text, { Status::pass, Status::warn, Status::fail, Status::skip, Status::error });
    }

    auto is_failure(Status status) -> bool
    {
        return status == Status::fail || status == Status::error;
    }

    auto CheckRun::passed() const -> bool
    {
        return std::none_of(outcomes.begin(), outcomes.end(),
                            [](const CheckOutcome& outcome) { return is_failure(outcome.status); });
    }
}
