#include <map>

#include "checks/slurm_health.hpp"
#include "tests/catch.hpp"

using namespace envcheck;
using checks::SlurmAction;
using checks::SlurmHook;

namespace
{
    auto runs_with(model::Status status) -> std::vector<model::CheckRun>
    {
        model::CheckRun doctor;
        doctor.command = "doctor";
        doctor.outcomes = { { "pci.nvidia-present", model::Status::pass, "1 GPU", "", {}, {} } };
        model::CheckRun check;
        check.command = "check";
        check.outcomes = {
            { "package.conda.numpy", status, "changed: 1.26.4 -> 2.0.0", "", {}, {} }
        };
        return { doctor, check };
    }

    TEST_CASE("SlurmHook to_string and parse_slurm_hook", "[checks][SlurmHook]")
    {
        for (const auto hook : { SlurmHook::health_check, SlurmHook::prolog })
        {
            CHECK(checks::parse_slurm_hook(checks::to_string(hook)) == hook);
        }
        CHECK(checks::to_string(SlurmHook::health_check) == "health-check");
        CHECK(checks::to_string(SlurmHook::prolog) == "prolog");
    }

    TEST_CASE("parse_slurm_hook negative", "[checks][SlurmHook]")
    {
        for (const auto* text : { "", "Prolog", "epilog", "health_check", "prolog " })
        {
            CAPTURE(text);
            CHECK_FALSE(checks::parse_slurm_hook(text).has_value());
        }
    }

    TEST_CASE("slurm_node_name", "[checks][slurm]")
    {
        struct Case
        {
            const char* option;
            const char* slurmd_nodename;
            const char* hostname;
            const char* expected;
        };
        const Case cases[] = {
            { "gpu07", "gpu08", "gpu09.cluster.example.org", "gpu07" },
            { "", "gpu08", "gpu09.cluster.example.org", "gpu08" },
            { "", "", "gpu09.cluster.example.org", "gpu09" },
            { "", "", "gpu09", "gpu09" },
            { "", "", "", "" },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.option, c.slurmd_nodename, c.hostname);
            CHECK(checks::slurm_node_name(c.option, c.slurmd_nodename, c.hostname) == c.expected);
        }
    }

    TEST_CASE("node_level_variables leaves out the calling process's GPUs", "[checks][slurm]")
    {
        // Values Slurm itself sets in a job's environment.
        for (const char* value : { "", "NoDevFiles", "0" })
        {
            const std::map<std::string, std::string> hook{ { "CUDA_VISIBLE_DEVICES", value },
                                                           { "SLURMD_NODENAME", "gpu01" },
                                                           { "NVIDIA_VISIBLE_DEVICES", "all" } };
            const auto node = checks::node_level_variables(hook);
            CHECK_FALSE(node.contains("CUDA_VISIBLE_DEVICES"));
            CHECK(node.at("SLURMD_NODENAME") == "gpu01");
            CHECK(node.at("NVIDIA_VISIBLE_DEVICES") == "all");
        }
    }

    TEST_CASE("needs_node_state", "[checks][slurm]")
    {
        CHECK(checks::needs_node_state(SlurmHook::health_check, runs_with(model::Status::pass)));
        CHECK(checks::needs_node_state(SlurmHook::health_check, runs_with(model::Status::fail)));
        CHECK(checks::needs_node_state(SlurmHook::prolog, runs_with(model::Status::fail)));
        CHECK(checks::needs_node_state(SlurmHook::prolog, runs_with(model::Status::error)));
        CHECK_FALSE(checks::needs_node_state(SlurmHook::prolog, runs_with(model::Status::pass)));
        CHECK_FALSE(checks::needs_node_state(SlurmHook::prolog, runs_with(model::Status::warn)));
    }

    TEST_CASE("decide_slurm_hook_action", "[checks][slurm]")
    {
        const formats::SlurmNode idle{ "gpu07", { "IDLE" }, "" };
        SECTION("with the node's state it is decide_slurm_action")
        {
            const auto decision =
              checks::decide_slurm_hook_action(idle, runs_with(model::Status::fail));
            CHECK(decision.action == SlurmAction::drain);
            CHECK(decision.reason == "envcheck: package.conda.numpy: changed: 1.26.4 -> 2.0.0");
        }
        SECTION("a Prolog whose checks pass did not ask: nothing to do")
        {
            const auto decision =
              checks::decide_slurm_hook_action(std::nullopt, runs_with(model::Status::pass));
            CHECK(decision.action == SlurmAction::none);
            CHECK(decision.explanation.find("all checks pass") == 0);
        }
        SECTION("a failure without the node's state does nothing and says so")
        {
            const auto decision =
              checks::decide_slurm_hook_action(std::nullopt, runs_with(model::Status::fail));
            CHECK(decision.action == SlurmAction::none);
            CHECK(decision.explanation.find("unknown") != std::string::npos);
        }
    }

    TEST_CASE("slurm_health_budget stays inside the total", "[checks][slurm]")
    {
        using std::chrono::milliseconds;
        const auto total = GENERATE(milliseconds(5000), milliseconds(20000), milliseconds(40000),
                                    milliseconds(3600000));
        CAPTURE(total.count());
        const auto budget = checks::slurm_health_budget(total);
        CHECK(budget.driver_probe > milliseconds(0));
        CHECK(budget.scontrol_call > milliseconds(0));
        // The driver children (at once), then two scontrol calls, in the worst case.
        CHECK(budget.driver_probe + 2 * budget.scontrol_call <= total * 6 / 10);
    }

    TEST_CASE("slurm_health_budget for the shipped scripts", "[checks][slurm]")
    {
        using std::chrono::milliseconds;
        // envcheck-healthcheck: --timeout 40, inside slurmd's 60 s.
        CHECK(checks::slurm_health_budget(milliseconds(40000)).driver_probe == milliseconds(12000));
        CHECK(checks::slurm_health_budget(milliseconds(40000)).scontrol_call == milliseconds(6000));
        // envcheck-prolog: --timeout 20.
        CHECK(checks::slurm_health_budget(milliseconds(20000)).driver_probe == milliseconds(6000));
    }
}
