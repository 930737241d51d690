#include "report/version_text.hpp"

#include "util/strings.hpp"

namespace envcheck::report
{
    auto render_version(std::string_view version, const model::EmbeddedRuntime& runtime)
      -> std::string
    {
        std::string text = "envcheck " + std::string(version) + "\n";
        if (!runtime.cuda_enabled)
        {
            text += "CUDA runtime: none (built without CUDA; the GPU probes are not available)\n";
            return text;
        }
        text += "CUDA runtime: " +
                (runtime.runtime ? runtime.runtime->to_string() : std::string("unknown")) +
                " (linked statically)\n";
        text += "GPU code: " + util::join(runtime.sass_architectures, " ");
        if (!runtime.ptx_architectures.empty())
        {
            text += ", PTX " + util::join(runtime.ptx_architectures, " ");
        }
        text += "\n";
        return text;
    }
}
