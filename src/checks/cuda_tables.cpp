#include "checks/cuda_tables.hpp"

#include <array>

namespace envcheck::checks
{
    auto pytorch_cuda_table() -> const std::vector<PytorchCudaRow>&
    {
        // The pytorch channel's linux-64 repodata (conda/rattler test-data, in the shared corpus
        // as conda__rattler__test-data_channels_pytorch_linux-64_repodata.json: the pytorch
        // records' `pytorch-cuda >=X.Y,<X.(Y+1)` depends) for 1.13 to 2.1, and
        // pytorch.org/get-started/previous-versions (pytorch/pytorch.github.io,
        // _get_started/previous-versions.md) for 2.0 to 2.5. The channel published no
        // pytorch-cuda builds before 1.13 (cudatoolkit then) or after 2.5 (pytorch#138506).
        static const std::vector<PytorchCudaRow> table{
            { "1.13", { "11.6", "11.7" } },        { "2.0", { "11.7", "11.8" } },
            { "2.1", { "11.8", "12.1" } },         { "2.2", { "11.8", "12.1" } },
            { "2.3", { "11.8", "12.1" } },         { "2.4", { "11.8", "12.1", "12.4" } },
            { "2.5", { "11.8", "12.1", "12.4" } },
        };
        return table;
    }

    auto pytorch_cudatoolkit_table() -> const std::vector<PytorchCudaRow>&
    {
        // 1.5 to 1.12: the same linux-64 repodata, the pytorch records' `cudatoolkit >=X.Y,
        // <X.(Y+1)` depends (1.5.1 ... 1.12.1; 1.5.0 per previous-versions). 1.0, 1.1, 1.2 and
        // 1.4: previous-versions.md, whose conda commands name cudatoolkit=X.Y (1.3 is not
        // there, so it is not here). Where the page and the repodata differ (the page gives
        // pytorch 1.9 with cudatoolkit=11.3, which no 1.9 build depends on), the repodata wins.
        static const std::vector<PytorchCudaRow> table{
            { "1.0", { "9.0", "10.0" } },
            { "1.1", { "9.0", "10.0" } },
            { "1.2", { "9.2", "10.0" } },
            { "1.4", { "9.2", "10.1" } },
            { "1.5", { "9.2", "10.1", "10.2" } },
            { "1.6", { "9.2", "10.1", "10.2" } },
            { "1.7", { "9.2", "10.1", "10.2", "11.0" } },
            { "1.8", { "10.1", "10.2", "11.1" } },
            { "1.9", { "10.2", "11.1" } },
            { "1.10", { "10.2", "11.1", "11.3" } },
            { "1.11", { "10.2", "11.1", "11.3", "11.5" } },
            { "1.12", { "10.2", "11.3", "11.6" } },
        };
        return table;
    }

    auto pypi_torch_cuda_table() -> std::span<const WheelCudaRow>
    {
        // 1.13 to 2.15: the Requires-Dist of each release's manylinux x86_64 wheel on PyPI
        // (nvidia-cuda-runtime-cu11/cu12 ==X.Y.Z, from 2.11 cuda-toolkit[...]==X.Y.Z), read
        // with `pip install --dry-run --report` (PEP 658 metadata). 1.2, 1.4 to 1.8: previous-
        // versions.md, whose "CUDA X.Y" command for these releases is a plain
        // `pip install torch==V` (the wheels carry CUDA inside; 1.9 to 1.12 are not stated
        // there, so not here).
        static constexpr std::array<WheelCudaRow, 23> table{ {
          { "1.2", "10.0.*" },  { "1.4", "10.1.*" },  { "1.5", "10.2.*" },  { "1.6", "10.2.*" },
          { "1.7", "10.2.*" },  { "1.8", "10.2.*" },  { "1.13", "11.7.*" }, { "2.0", "11.7.*" },
          { "2.1", "12.1.*" },  { "2.2", "12.1.*" },  { "2.3", "12.1.*" },  { "2.4", "12.1.*" },
          { "2.5", "12.4.*" },  { "2.6", "12.4.*" },  { "2.7", "12.6.*" },  { "2.8", "12.8.*" },
          { "2.9", "12.8.*" },  { "2.10", "12.8.*" }, { "2.11", "13.0.*" }, { "2.12", "13.0.*" },
          { "2.13", "13.0.*" }, { "2.14", "13.0.*" }, { "2.15", "13.2.*" },
        } };
        return table;
    }

    auto tensorflow_and_cuda_table() -> std::span<const WheelCudaRow>
    {
        // The Requires-Dist of tensorflow's manylinux x86_64 wheels on PyPI under
        // `extra == "and-cuda"`: nvidia-cuda-runtime-cu11/cu12 ==X.Y.Z (2.20: >=12.5.82,<13).
        static constexpr std::array<WheelCudaRow, 7> table{ {
          { "2.14", "11.8.*" },
          { "2.15", "12.2.*" },
          { "2.16", "12.3.*" },
          { "2.17", "12.3.*" },
          { "2.18", "12.5.*" },
          { "2.19", "12.5.*" },
          { "2.20", ">=12.5,<13" },
        } };
        return table;
    }
}
