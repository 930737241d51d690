#include <fstream>
#include <sstream>

#include "formats/slurm_node.hpp"
#include "tests/catch.hpp"

using envcheck::formats::parse_scontrol_node;

namespace
{
    auto read_fixture(const std::string& name) -> std::string
    {
        std::ifstream in(std::string(ENVCHECK_TEST_DATA_DIR) + "/slurm/" + name);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }

    // The fixtures are real `scontrol show node` output from Slurm 22.05 (Debian 12).
    TEST_CASE("parse_scontrol_node", "[formats][SlurmNode]")
    {
        struct Case
        {
            std::string file;
            std::vector<std::string> states;
            std::string reason;
            bool drained;
        };
        const Case cases[] = {
            { "idle.txt", { "IDLE" }, "", false },
            { "drained-by-admin.txt", { "IDLE", "DRAIN" }, "admin: replacing fan", true },
            { "drained-by-envcheck.txt",
              { "IDLE", "DRAIN" },
              "envcheck: pci.nvidia-present: no NVIDIA device on the PCI bus",
              true },
        };
        for (const auto& c : cases)
        {
            CAPTURE(c.file);
            auto node = parse_scontrol_node(read_fixture(c.file));
            REQUIRE(node);
            CHECK(node->name == "vm");
            CHECK(node->states == c.states);
            CHECK(node->reason == c.reason);
            CHECK(node->is_drained() == c.drained);
        }
    }

    TEST_CASE("parse_scontrol_node: flags and non-responding marks", "[formats][SlurmNode]")
    {
        auto node = parse_scontrol_node(
          "NodeName=gpu07 Arch=x86_64\n   State=MIXED*+DRAIN+NOT_RESPONDING Cores=1\n"
          "   Reason=Prolog error [slurm@2026-01-01T00:00:00]\n");
        REQUIRE(node);
        CHECK(node->states == std::vector<std::string>{ "MIXED", "DRAIN", "NOT_RESPONDING" });
        CHECK(node->reason == "Prolog error");
        CHECK(node->has_state("mixed"));
    }

    TEST_CASE("parse_scontrol_node negative", "[formats][SlurmNode]")
    {
        CHECK_FALSE(parse_scontrol_node(""));
        CHECK_FALSE(parse_scontrol_node("Node gpu07 not found"));
        CHECK_FALSE(parse_scontrol_node("NodeName=gpu07 Arch=x86_64\n"));
    }
}

namespace
{
    TEST_CASE("single_node_name_problem: exactly one node", "[formats][SlurmNode]")
    {
        using envcheck::formats::single_node_name_problem;
        for (const char* name : { "gpu01", "node-7", "dgx_a.rack2", "n1" })
        {
            CAPTURE(name);
            CHECK(single_node_name_problem(name).empty());
        }
        // scontrol would expand these to several nodes and act on all of them.
        for (const char* name : { "gpu[01-03]", "gpu[02-03]", "gpu01,gpu02", "gpu[1,3]" })
        {
            CAPTURE(name);
            CHECK(single_node_name_problem(name).find("host list") != std::string::npos);
        }
        for (const char* name : { "", "gpu 01", "-x", "a=b", "gpu01\nState=RESUME" })
        {
            CAPTURE(name);
            CHECK_FALSE(single_node_name_problem(name).empty());
        }
    }

    TEST_CASE("count_scontrol_nodes", "[formats][SlurmNode]")
    {
        using envcheck::formats::count_scontrol_nodes;
        CHECK(count_scontrol_nodes("NodeName=gpu01 Arch=x86_64\n   State=IDLE\n") == 1);
        CHECK(count_scontrol_nodes("NodeName=a\n   State=IDLE\n\nNodeName=b\n   State=IDLE\n") ==
              2);
        CHECK(count_scontrol_nodes("No nodes in the system\n") == 0);
    }
}
