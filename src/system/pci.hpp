// NVIDIA functions on the PCI bus, from sysfs (/sys/bus/pci/devices/*): ids, class, the bound
// kernel driver and the PCIe link (kernel ABI sysfs-bus-pci). Needs no driver at all.
#ifndef ENVCHECK_SYSTEM_PCI_HPP
#define ENVCHECK_SYSTEM_PCI_HPP

#include <optional>
#include <string_view>

#include "model/machine.hpp"
#include "system/system_root.hpp"

namespace envcheck::system
{
    [[nodiscard]] auto read_pci(const SystemRoot& root) -> model::PciFacts;

    // "0x10de\n" -> 0x10de; nullopt when not a hexadecimal number.
    [[nodiscard]] auto parse_sysfs_hex(std::string_view text) -> std::optional<unsigned>;
}

#endif
