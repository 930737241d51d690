# Tensor-core GEMM and device-memory probes against cuBLAS/cuBLASLt and cudaMemcpyAsync in the
# same run (CUDA builds only). cuBLAS is linked here and nowhere else.
if(ENVCHECK_HAVE_CUDA)
    envcheck_bench(bench_tensor MODULES gpu model util
                   LIBS envcheck_kernels CUDA::cublas CUDA::cublasLt nlohmann_json::nlohmann_json)
endif()
