#include "formats/lock_json.hpp"

#include <algorithm>

namespace envcheck::formats
{
    auto json_failure(const nlohmann::json::exception& error, std::string_view text) -> JsonFailure
    {
        JsonFailure failure;
        failure.message = error.what();
        if (const auto* parse = dynamic_cast<const nlohmann::json::parse_error*>(&error))
        {
            // nlohmann's byte is 1-based and points one past the offending character.
            failure.offset =
              parse->byte > 0 ? std::min<std::size_t>(parse->byte - 1, text.size()) : 0;
            if (const auto colon = failure.message.rfind(": "); colon != std::string::npos)
            {
                failure.message = failure.message.substr(colon + 2);
            }
            return failure;
        }
        if (const auto bracket = failure.message.find("] "); bracket != std::string::npos)
        {
            failure.message = failure.message.substr(bracket + 2);
        }
        const auto open = failure.message.find('\'');
        const auto close = open == std::string::npos ? open : failure.message.find('\'', open + 1);
        if (close != std::string::npos)
        {
            const auto token = std::string_view(failure.message).substr(open + 1, close - open - 1);
            const auto at = text.find(token);
            failure.offset = at == std::string_view::npos ? 0 : at;
        }
        return failure;
    }
}
