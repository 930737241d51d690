#include "report/lock_summary.hpp"
#include "tests/catch.hpp"

using namespace envcheck;

TEST_CASE("describe_lock: packages by manager, the machine, the baselines", "[report][lock]")
{
    model::Lock lock;
    CHECK(report::describe_lock(lock) == "0 packages (0 conda, 0 pip), platform unknown, driver "
                                         "unknown, no performance baselines");
    lock.packages.resize(3);
    lock.packages[0].manager = model::Manager::conda;
    lock.packages[1].manager = model::Manager::conda;
    lock.packages[2].manager = model::Manager::pip;
    lock.machine.platform = "linux-64";
    lock.machine.driver_version = "580.95.05";
    lock.machine.gpus.emplace(1);
    lock.performance.emplace(2);
    CHECK(report::describe_lock(lock) ==
          "3 packages (2 conda, 1 pip), platform linux-64, driver 580.95.05, 1 GPU(s), 2 "
          "performance baseline(s)");
}
