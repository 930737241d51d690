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

    auto single_node_name_problem(std::string_view name) -> std::string
    {
        if (name.empty())
        {
            return "the node name is empty";
        }
        if (name.size() > 255)
        {
            return "the node name is longer than 255 characters";
        }
        if (name.find_first_of("[],") != std::string_view::npos)
        {
            return "'" + std::string(name) +
                   "' is a host list (several nodes); envcheck acts on exactly one node";
        }
        const bool valid_characters =
          std::all_of(name.begin(), name.end(),
                      [](char c)
                      {
                          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                 (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
                      });
        if (!valid_characters || name.front() == '-')
        {
            return "'" + std::string(name) +
                   "' is not a Slurm node name (letters, digits, '-', '_' and '.')";
        }
        return {};
    }

    auto count_scontrol_nodes(std::string_view text) -> std::size_t
    {
        std::size_t count = 0;
        for (const auto raw_line : util::split_lines(text))
        {
            count += util::trim(raw_line).starts_with("NodeName=") ? 1 : 0;
        }
        return count;
    }
}
