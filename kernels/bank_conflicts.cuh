// Shared-memory bank conflicts: each lane of a warp reads element [lane][j] of a row-major
// array whose rows are `stride` floats long. With 32 banks of 4 bytes, a stride of 2^s puts the
// 32 lanes on 32 / 2^s banks, an n-way conflict the hardware serialises into n wavefronts; a
// stride of 33 (a [32][33] tile, the usual +1 padding) puts every lane on its own bank again.
#ifndef ENVCHECK_KERNELS_BANK_CONFLICTS_CUH
#define ENVCHECK_KERNELS_BANK_CONFLICTS_CUH

#include <vector>

#include "kernels/status.cuh"

namespace envcheck::kernels
{
    inline constexpr int padded_stride = 33;
    // The strides measured: 1, 2, 4, 8, 16, 32 (1- to 32-way conflicts) and the padded 33.
    inline constexpr int bank_conflict_strides[] = { 1, 2, 4, 8, 16, 32, padded_stride };

    struct BankConflictRun
    {
        CudaStatus status;
        std::vector<int> strides;
        std::vector<std::vector<float>> times_ms; // per stride, one per repeat
        double reads_per_repeat = 0.0;            // 4-byte shared-memory reads, all threads
        bool verified = false;                    // every stride summed the same values
    };

    // `iterations` sets the work per launch (each thread reads 32 * iterations floats).
    [[nodiscard]] auto run_bank_conflicts(int iterations, int repeats) -> BankConflictRun;
}

#endif
