// What every use case's outcome shares: a verdict the cli maps to an exit code (one table,
// cli/exit_codes.cpp), and for the checking commands the fleet view (the runs and the node's
// features that junit, prometheus, nfd, markdown and github render).
#ifndef ENVCHECK_APP_OUTCOME_HPP
#define ENVCHECK_APP_OUTCOME_HPP

#include <string>
#include <vector>

#include "app/ports.hpp"
#include "model/check_result.hpp"
#include "model/machine.hpp"
#include "report/fleet_formats.hpp"
#include "util/error.hpp"

namespace envcheck::app
{
    enum class Verdict
    {
        clean,    // nothing wrong: exit 0
        findings, // the command ran and found a problem: exit 1
        usage,    // the request cannot be met as asked (smoke --device N on a machine without it)
    };

    // Records of an environment that cannot be read: lock and export refuse to write what
    // would leave their packages out.
    struct UnreadableRecords
    {
        std::string prefix;
        std::vector<util::Error> problems;
    };

    struct FleetView
    {
        std::vector<model::CheckRun> runs; // stamped with their duration and end time
        report::NodeFeatures features;
    };

    // Measures a use case's wall time on the ports' clock and stamps it into its runs.
    class RunClock
    {
    public:
        explicit RunClock(Clock& clock);
        void stamp(model::CheckRun& run) const;

    private:
        Clock& m_clock;
        double m_started = 0.0;
    };

    // What a node advertises (driver, CUDA, compute capability, GPUs) from the probe.
    [[nodiscard]] auto node_features_from(const model::MachineFacts& facts) -> report::NodeFeatures;
}

#endif
