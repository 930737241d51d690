# The GPU benchmarks (CUDA builds only): the probe kernels against cuBLAS SGEMM and plain
# cudaMemcpyAsync in the same run. cuBLAS is linked here and nowhere else.
if(ENVCHECK_HAVE_CUDA)
    envcheck_bench(bench_gpu MODULES gpu driver model util LIBS envcheck_kernels CUDA::cublas nlohmann_json::nlohmann_json)
endif()
