// `doctor --list` and `smoke --list`: one row of a registry a line, its id in a column.
#ifndef ENVCHECK_REPORT_REGISTRY_LIST_HPP
#define ENVCHECK_REPORT_REGISTRY_LIST_HPP

#include <string>
#include <vector>

namespace envcheck::report
{
    struct RegistryRow
    {
        std::string id;
        std::string description;
        std::string requirement; // smoke probes: the device one needs; empty: any
    };

    // doctor --list: each id padded to the longest one, then two spaces and the description.
    [[nodiscard]] auto render_doctor_check_list(const std::vector<RegistryRow>& checks)
      -> std::string;

    // smoke --list: each id in a column of 16, the description, then "(requires ...)" when the
    // probe needs more than any device.
    [[nodiscard]] auto render_probe_list(const std::vector<RegistryRow>& probes) -> std::string;
}

#endif
