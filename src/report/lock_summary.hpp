// The one-line description of a lock that `envcheck lock` prints when it wrote one or found it
// up to date: "3 packages (2 conda, 1 pip), platform linux-64, driver 580.95.05, 1 GPU(s), ...".
#ifndef ENVCHECK_REPORT_LOCK_SUMMARY_HPP
#define ENVCHECK_REPORT_LOCK_SUMMARY_HPP

#include <string>

#include "model/lock.hpp"

namespace envcheck::report
{
    [[nodiscard]] auto describe_lock(const model::Lock& lock) -> std::string;
}

#endif
