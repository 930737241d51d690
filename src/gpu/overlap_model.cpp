#include "gpu/overlap_model.hpp"

#include <algorithm>

namespace envcheck::gpu
{
    auto ideal_pipeline_ms(std::span<const StageTimes> chunks, int copy_engines) -> double
    {
        if (chunks.empty())
        {
            return 0.0;
        }
        double copies = 0.0;
        double kernels = 0.0;
        for (const auto& chunk : chunks)
        {
            copies += chunk.h2d_ms + chunk.d2h_ms;
            kernels += chunk.kernel_ms;
        }
        if (copy_engines <= 0)
        {
            return copies + kernels;
        }
        if (copy_engines == 1)
        {
            return std::max(copies, chunks.front().h2d_ms + kernels + chunks.back().d2h_ms);
        }
        double h2d_free = 0.0;
        double kernel_free = 0.0;
        double d2h_free = 0.0;
        for (const auto& chunk : chunks)
        {
            h2d_free += chunk.h2d_ms;
            kernel_free = std::max(kernel_free, h2d_free) + chunk.kernel_ms;
            d2h_free = std::max(d2h_free, kernel_free) + chunk.d2h_ms;
        }
        return d2h_free;
    }
}
