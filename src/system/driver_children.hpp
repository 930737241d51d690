// Internal to system: the mains of the two driver children (nvml_probe.cpp, cuda_probe.cpp). Each
// writes wire events: a step before every call that can hang, its findings so far after each
// stage (so a later hang keeps what was learnt), and a finish event once its answer is complete.
#ifndef ENVCHECK_SYSTEM_DRIVER_CHILDREN_HPP
#define ENVCHECK_SYSTEM_DRIVER_CHILDREN_HPP

#include <string>
#include <vector>

#include "fsio/child.hpp"

namespace envcheck::system
{
    [[nodiscard]] auto nvml_child(const std::vector<std::string>& nodes, fsio::LineWriter& out)
      -> int;
    [[nodiscard]] auto cuda_child(fsio::LineWriter& out) -> int;
}

#endif
