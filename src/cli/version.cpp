#include "cli/version.hpp"

#include "gpu/build_info.hpp"
#include "util/strings.hpp"

namespace envcheck::cli
{
    auto version_text() -> std::string
    {
        const auto build = gpu::build_info();
        std::string text = std::string("envcheck ") + ENVCHECK_VERSION + "\n";
        if (!build.cuda_enabled)
        {
            text += "CUDA runtime: none (built without CUDA; the GPU probes are not available)\n";
            return text;
        }
        text +=
          "CUDA runtime: " + (build.runtime ? build.runtime->to_string() : std::string("unknown")) +
          " (linked statically)\n";
        text += "GPU code: " + util::join(build.sass_architectures, " ");
        if (!build.ptx_architectures.empty())
        {
            text += ", PTX " + util::join(build.ptx_architectures, " ");
        }
        text += "\n";
        return text;
    }
}
