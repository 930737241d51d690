#include "slurm/scontrol.hpp"

#include "fsio/process.hpp"
#include "util/strings.hpp"

namespace envcheck::slurm
{
    namespace
    {
        // Every scontrol call names exactly one node: a host list would act on all it names.
        auto check_node_name(const std::string& node) -> util::Result<void>
        {
            if (auto problem = formats::single_node_name_problem(node); !problem.empty())
            {
                return util::unexpected(util::make_error(util::ErrorKind::usage, std::move(problem),
                                                         {}, "pass --node with one node's name"));
            }
            return {};
        }

        auto run_scontrol(const std::vector<std::string>& arguments, const ScontrolOptions& options)
          -> util::Result<std::string>
        {
            std::vector<std::string> argv = { options.program };
            argv.insert(argv.end(), arguments.begin(), arguments.end());
            fsio::ProcessOptions process;
            process.timeout = options.timeout;
            auto result = fsio::run_process(argv, process);
            const std::string command = "scontrol " + util::join(arguments, " ");
            if (!result)
            {
                return util::unexpected(
                  util::make_error(util::ErrorKind::io, result.error().message, {},
                                   "install Slurm's client tools or pass --scontrol PATH"));
            }
            if (result->timed_out)
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::timeout, command + " timed out; is slurmctld reachable?"));
            }
            if (!result->succeeded())
            {
                return util::unexpected(util::make_error(
                  util::ErrorKind::io, command + " " + result->describe() + ": " +
                                         std::string(util::trim(result->err + result->out))));
            }
            return std::move(result->out);
        }
    }

    auto show_node(const std::string& node, const ScontrolOptions& options)
      -> util::Result<formats::SlurmNode>
    {
        if (auto valid = check_node_name(node); !valid)
        {
            return util::unexpected(valid.error());
        }
        auto text = run_scontrol({ "show", "node", node }, options);
        if (!text)
        {
            return util::unexpected(text.error());
        }
        if (const auto nodes = formats::count_scontrol_nodes(*text); nodes != 1)
        {
            return util::unexpected(util::make_error(
              util::ErrorKind::io, "scontrol show node " + node + " described " +
                                     std::to_string(nodes) + " nodes, not exactly " + node));
        }
        auto parsed = formats::parse_scontrol_node(*text);
        if (parsed && parsed->name != node)
        {
            return util::unexpected(
              util::make_error(util::ErrorKind::io, "scontrol show node " + node +
                                                      " answered for node " + parsed->name));
        }
        return parsed;
    }

    auto drain_node(const std::string& node, const std::string& reason,
                    const ScontrolOptions& options) -> util::Result<void>
    {
        if (auto valid = check_node_name(node); !valid)
        {
            return valid;
        }
        auto done = run_scontrol(
          { "update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason }, options);
        if (!done)
        {
            return util::unexpected(done.error());
        }
        return {};
    }

    auto resume_node(const std::string& node, const ScontrolOptions& options) -> util::Result<void>
    {
        if (auto valid = check_node_name(node); !valid)
        {
            return valid;
        }
        auto done = run_scontrol({ "update", "NodeName=" + node, "State=RESUME" }, options);
        if (!done)
        {
            return util::unexpected(done.error());
        }
        return {};
    }
}
