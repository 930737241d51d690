#include "report/slurm_health_report.hpp"
#include "tests/catch.hpp"
#include "tests/golden.hpp"

using namespace envcheck;
using envcheck::tests::check_golden;

namespace
{
    auto doctor_run(model::Status deciding) -> model::CheckRun
    {
        model::CheckRun run;
        run.command = "doctor";
        run.outcomes = {
            { "pci.nvidia-present",
              model::Status::pass,
              "8 NVIDIA GPUs on the PCI bus",
              "",
              {},
              {} },
            { "devnodes.permissions",
              model::Status::warn,
              "/dev/nvidia-uvm-tools is 0600",
              "",
              {},
              {} },
            deciding == model::Status::pass
              ? model::CheckOutcome{ "nvml.init",
                                     deciding,
                                     "NVML 12.550.107.02, 8 GPUs",
                                     "",
                                     {},
                                     {} }
              : model::CheckOutcome{ "nvml.init",
                                     deciding,
                                     "NVML: Driver/library version mismatch\n(550.90 vs 550.107)",
                                     "reboot, or reload the nvidia modules",
                                     {},
                                     {} },
            { "fabric-manager", model::Status::skip, "no NVSwitch on this machine", "", {}, {} },
        };
        return run;
    }

    auto check_run() -> model::CheckRun
    {
        model::CheckRun run;
        run.command = "check";
        run.outcomes = { { "package.conda.numpy", model::Status::pass, "ok", "", {}, {} } };
        return run;
    }

    auto draining() -> report::SlurmHealthView
    {
        report::SlurmHealthView view;
        view.node = "gpu07";
        view.runs = { doctor_run(model::Status::fail), check_run() };
        view.state = report::SlurmNodeView{ { "IDLE" }, "" };
        view.action = "drain";
        view.drain_reason = "envcheck: nvml.init: NVML: Driver/library version mismatch "
                            "(550.90 vs 550.107)";
        view.explanation = "check failed: draining with reason '" + view.drain_reason + "'";
        return view;
    }

    auto resuming() -> report::SlurmHealthView
    {
        report::SlurmHealthView view;
        view.node = "gpu07";
        view.runs = { doctor_run(model::Status::pass) };
        view.state = report::SlurmNodeView{ { "IDLE", "DRAIN" }, "envcheck: nvml.init: ..." };
        view.action = "resume";
        view.explanation = "all checks pass: resuming a node envcheck drained";
        return view;
    }

    auto prolog_pass() -> report::SlurmHealthView
    {
        report::SlurmHealthView view;
        view.node = "gpu07";
        view.hook = "prolog";
        view.runs = { doctor_run(model::Status::pass) };
        view.explanation =
          "all checks pass (a Prolog asks scontrol only when it has a node to drain)";
        return view;
    }

    TEST_CASE("render_slurm_health_text golden", "[report][SlurmHealthView]")
    {
        check_golden("slurm/drain.txt", report::render_slurm_health_text(draining()));
        check_golden("slurm/resume.txt", report::render_slurm_health_text(resuming()));
        check_golden("slurm/prolog-pass.txt", report::render_slurm_health_text(prolog_pass()));
        auto dry = draining();
        dry.dry_run = true;
        check_golden("slurm/drain-dry-run.txt", report::render_slurm_health_text(dry));
    }

    TEST_CASE("render_slurm_health_json golden", "[report][SlurmHealthView]")
    {
        check_golden("slurm/drain.json", report::render_slurm_health_json(draining()));
        check_golden("slurm/prolog-pass.json", report::render_slurm_health_json(prolog_pass()));
    }

    TEST_CASE("render_slurm_health_text: every line is one log line about the node",
              "[report][SlurmHealthView]")
    {
        for (const auto& view : { draining(), resuming(), prolog_pass() })
        {
            const auto text = report::render_slurm_health_text(view);
            REQUIRE(!text.empty());
            CHECK(text.back() == '\n');
            std::size_t start = 0;
            while (start < text.size())
            {
                const auto end = text.find('\n', start);
                const auto line = text.substr(start, end - start);
                CAPTURE(line);
                CHECK(line.rfind("envcheck slurm-health gpu07: ", 0) == 0);
                start = end + 1;
            }
        }
    }

    TEST_CASE("slurm_health_json", "[report][SlurmHealthView]")
    {
        const auto json = report::slurm_health_json(draining());
        CHECK(json["schema_version"] == report::slurm_health_schema_version);
        CHECK(json["passed"] == false);
        CHECK(json["first_failure"]["id"] == "nvml.init");
        CHECK(json["checks"].size() == 5);
        CHECK(json["checks"][4]["command"] == "check");
        CHECK(json["node_state"]["reason"].is_null());

        const auto passing = report::slurm_health_json(prolog_pass());
        CHECK(passing["passed"] == true);
        CHECK(passing["first_failure"].is_null());
        CHECK(passing["node_state"].is_null());
        CHECK(passing["drain_reason"].is_null());
    }
}
