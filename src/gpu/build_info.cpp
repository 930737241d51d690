#include "gpu/build_info.hpp"

#include "util/strings.hpp"

#ifdef ENVCHECK_WITH_CUDA
#include "kernels/build_info.cuh"
#endif

namespace envcheck::gpu
{
    auto build_info() -> BuildInfo
    {
        BuildInfo info;
#ifdef ENVCHECK_WITH_CUDA
        info.cuda_enabled = true;
        info.runtime = model::decode_cuda_version(kernels::built_cuda_runtime_version());
        // CMake's list: "90" (SASS and PTX), "90-real" (SASS), "90-virtual" (PTX).
        for (const auto entry : util::split(kernels::built_cuda_architectures(), ','))
        {
            const auto dash = entry.find('-');
            const std::string number(entry.substr(0, dash));
            const std::string_view suffix =
              dash == std::string_view::npos ? "" : entry.substr(dash + 1);
            if (number.empty())
            {
                continue;
            }
            if (suffix != "virtual")
            {
                info.sass_architectures.push_back("sm_" + number);
            }
            if (suffix != "real")
            {
                info.ptx_architectures.push_back("compute_" + number);
            }
        }
#endif
        return info;
    }
}
