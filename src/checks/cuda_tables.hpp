// What was published for which CUDA: the tables lint's CUDA rules judge environment files
// against. Pure data with its sources; README "CUDA and drivers" prints them.
#ifndef ENVCHECK_CHECKS_CUDA_TABLES_HPP
#define ENVCHECK_CHECKS_CUDA_TABLES_HPP

#include <span>
#include <string_view>
#include <vector>

namespace envcheck::checks
{
    // The pytorch channel's GPU builds of one PyTorch minor ("2.0") and the CUDA minors they
    // were built for, oldest first.
    struct PytorchCudaRow
    {
        std::string_view pytorch;
        std::vector<std::string_view> cuda;
    };

    // pytorch 1.13 to 2.5, whose GPU builds depend on pytorch-cuda X.Y.
    [[nodiscard]] auto pytorch_cuda_table() -> const std::vector<PytorchCudaRow>&;
    // pytorch 1.0 to 1.12, whose GPU builds depend on cudatoolkit >=X.Y,<X.(Y+1).
    [[nodiscard]] auto pytorch_cudatoolkit_table() -> const std::vector<PytorchCudaRow>&;

    // A PyPI release line ("2.5") and the CUDA its default Linux x86_64 wheels install, as a
    // conda version spec over CUDA versions ("12.4.*", ">=12.5,<13").
    struct WheelCudaRow
    {
        std::string_view release;
        std::string_view cuda;
    };

    // torch from PyPI (no PyTorch wheel index): each release line has one default CUDA.
    [[nodiscard]] auto pypi_torch_cuda_table() -> std::span<const WheelCudaRow>;
    // tensorflow[and-cuda] from PyPI, 2.14 on.
    [[nodiscard]] auto tensorflow_and_cuda_table() -> std::span<const WheelCudaRow>;
}

#endif
