#include "formats/slurm_node.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace envcheck::formats
{
    auto SlurmNode::has_state(std::string_view state) const -> bool
    {
        return std::any_of(states.begin(), states.end(),
                           [state](const std::string& s) { return util::iequals(s, state); });
    }

    namespace
    {
        // The value of `key=` among the space-separated fields of one line.
        auto field(std::string_view line, std::string_view key) -> std::optional<std::string_view>
        {
            std::size_t pos = 0;
            while (pos < line.size())
            {
                const auto start = line.find_first_not_of(' ', pos);
                if (start == std::string_view::npos)
                {
                    return std::nullopt;
                }
                auto end = line.find(' ', start);
                if (end == std::string_view::npos)
                {
                    end = line.size();
                }
                const auto token = line.substr(start, end - start);
                if (token.size() > key.size() && token.substr(0, key.size()) == key &&
                    token[key.size()] == '=')
                {
                    return token.substr(key.size() + 1);
                }
                pos = end;
            }
            return std::nullopt;
        }
    }

    auto parse_scontrol_node(std::string_view text) -> util::Result<SlurmNode>
    {
        SlurmNode node;
        bool have_state = false;
        for (const auto raw_line : util::split_lines(text))
        {
            const auto line = util::trim(raw_line);
            if (const auto name = field(line, "NodeName"); name && node.name.empty())
            {
                node.name = std::string(*name);
            }
            if (const auto state = field(line, "State"))
            {
                for (const auto part : util::split(*state, '+'))
                {
                    if (!part.empty())
                    {
                        // "IDLE*" marks a non-responding node; the flag itself is NOT_RESPONDING.
                        std::string clean(part);
                        if (clean.back() == '*')
                        {
                            clean.pop_back();
                        }
                        node.states.push_back(clean);
                    }
                }
                have_state = true;
            }
            // Reason takes the rest of its line: it contains spaces.
            if (line.substr(0, 7) == "Reason=")
            {
                std::string_view reason = line.substr(7);
                const auto stamp = reason.rfind(" [");
                if (stamp != std::string_view::npos && reason.back() == ']')
                {
                    reason = reason.substr(0, stamp);
                }
                node.reason = std::string(util::trim(reason));
            }
        }
        if (node.name.empty() || !have_state)
        {
            const auto first = util::trim(text.substr(0, std::min<std::size_t>(text.size(), 200)));
            return util::unexpected(
              util::make_error(util::ErrorKind::parse,
                               "not the output of 'scontrol show node': " + std::string(first)));
        }
        return node;
    }
}
