#include "slurm/scontrol.hpp"

#include "fsio/process.hpp"
#include "util/strings.hpp"

namespace envcheck::slurm
{
    namespace
    {
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
        auto text = run_scontrol({ "show", "node", node }, options);
        if (!text)
        {
            return util::unexpected(text.error());
        }
        return formats::parse_scontrol_node(*text);
    }

    auto drain_node(const std::string& node, const std::string& reason,
                    const ScontrolOptions& options) -> util::Result<void>
    {
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
        auto done = run_scontrol({ "update", "NodeName=" + node, "State=RESUME" }, options);
        if (!done)
        {
            return util::unexpected(done.error());
        }
        return {};
    }
}
