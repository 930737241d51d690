// conda-lock.yml (CEP 37, `version: 1`) as text -> the lock of one platform. Files without a
// version key, or with another version, are refused with a message naming it.
//
// conda-lock marks packages of non-main categories (dev, extras) `optional: true`; `conda-lock
// install` leaves them out unless asked. They become Lock::optional_packages: compared when
// installed, never reported missing.
#ifndef ENVCHECK_FORMATS_CONDA_LOCK_HPP
#define ENVCHECK_FORMATS_CONDA_LOCK_HPP

#include <string>
#include <string_view>

#include "model/lock.hpp"
#include "util/result.hpp"

namespace envcheck::formats
{
    struct LockSelection
    {
        std::string platform;                // conda subdir: "linux-64"
        std::string environment = "default"; // pixi environments
    };

    [[nodiscard]] auto parse_conda_lock(std::string_view text, std::string_view file_name,
                                        const LockSelection& selection)
      -> util::Result<model::Lock>;
}

#endif
