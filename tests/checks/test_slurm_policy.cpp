#include "checks/slurm_policy.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using checks::SlurmAction;

namespace
{
    auto run_with(model::Status status) -> std::vector<model::CheckRun>
    {
        model::CheckRun run;
        run.command = "doctor";
        run.outcomes = {
            { "pci.nvidia-present", model::Status::pass, "1 GPU", "", {}, {} },
            { "nvml.init", status, "NVML: Driver/library version mismatch", "reboot", {}, {} }
        };
        return { run };
    }

    auto node(std::vector<std::string> states, std::string reason) -> formats::SlurmNode
    {
        return { "gpu07", std::move(states), std::move(reason) };
    }

    TEST_CASE("decide_slurm_action", "[checks][slurm]")
    {
        const std::string ours = "envcheck: nvml.init: NVML: Driver/library version mismatch";
        struct Case
        {
            std::string name;
            formats::SlurmNode node;
            model::Status status;
            SlurmAction expected;
        };
        const Case cases[] = {
            { "healthy idle node: nothing", node({ "IDLE" }, ""), model::Status::pass,
              SlurmAction::none },
            { "failing idle node: drain", node({ "IDLE" }, ""), model::Status::fail,
              SlurmAction::drain },
            { "an error counts as failing", node({ "ALLOCATED" }, ""), model::Status::error,
              SlurmAction::drain },
            { "a warning does not drain", node({ "IDLE" }, ""), model::Status::warn,
              SlurmAction::none },
            { "healed node drained by us: resume", node({ "IDLE", "DRAIN" }, ours),
              model::Status::pass, SlurmAction::resume },
            { "healthy node drained by an admin: left alone",
              node({ "IDLE", "DRAIN" }, "admin: replacing fan"), model::Status::pass,
              SlurmAction::none },
            { "failing node drained by an admin: left alone",
              node({ "IDLE", "DRAIN" }, "admin: replacing fan"), model::Status::fail,
              SlurmAction::none },
            { "down node with an admin reason: left alone", node({ "DOWN" }, "Not responding"),
              model::Status::fail, SlurmAction::none },
            { "already drained by us for the same reason: nothing", node({ "IDLE", "DRAIN" }, ours),
              model::Status::fail, SlurmAction::none },
            { "drained by us for another reason: drain again with the new reason",
              node({ "IDLE", "DRAIN" }, "envcheck: cuda.init: timed out"), model::Status::fail,
              SlurmAction::drain },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.name);
            const auto decision = checks::decide_slurm_action(c.node, run_with(c.status));
            CHECK(decision.action == c.expected);
            if (c.expected == SlurmAction::drain)
            {
                CHECK(decision.reason == ours);
            }
        }
    }

    TEST_CASE("slurm_drain_reason is one bounded line", "[checks][slurm]")
    {
        model::CheckOutcome failure{
            "cuda.init", model::Status::fail, "cuInit returned 999\n\"unknown\"\terror", "", {}, {}
        };
        CHECK(checks::slurm_drain_reason(failure) ==
              "envcheck: cuda.init: cuInit returned 999 'unknown' error");
        failure.message = std::string(500, 'x');
        const auto reason = checks::slurm_drain_reason(failure, 100);
        CHECK(reason.size() == 100);
        CHECK(reason.substr(97) == "...");
    }
}
