// The kernel's messages since boot, for the Xid lines of the NVIDIA driver (doctor's gpu.xid):
// /dev/kmsg on the live system, <root>/dev/kmsg (a plain file: a capture of /dev/kmsg, `dmesg`
// or `journalctl -k`) under --root.
#ifndef ENVCHECK_SYSTEM_KERNEL_LOG_HPP
#define ENVCHECK_SYSTEM_KERNEL_LOG_HPP

#include "model/machine.hpp"
#include "system/system_root.hpp"

namespace envcheck::system
{
    [[nodiscard]] auto read_kernel_log(const SystemRoot& root) -> model::KernelLogFacts;
}

#endif
