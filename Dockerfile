# envcheck's container image, for the Kubernetes DaemonSet and initContainer in envs/fleet/
# (the NVIDIA container runtime mounts the driver's libcuda and NVML into the container;
# envcheck loads them at run time and carries the CUDA runtime, so the image needs no CUDA).
#
#   docker build -t envcheck:0.1.0 .
#   docker run --rm --runtime=nvidia --gpus all envcheck:0.1.0 doctor
#
# Stage 1 builds from source exactly as README "Installing" does (the CUDA kernels from PyPI's
# CUDA wheels, as no toolkit is installed); stage 2 is Debian's slim image with the binary, its
# schemas and fleet hooks, and libcurl for URLs. tests/dist/test_dockerfile.py runs both
# stages' commands on the CI machine, which has no container engine.
FROM debian:12 AS build
WORKDIR /src
COPY .ci/setup .ci/setup
RUN .ci/setup --build-only && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -G Ninja -DENVCHECK_TESTS=OFF -DENVCHECK_BENCH=OFF -DENVCHECK_PORTABLE=ON \
    && cmake --build /build \
    && cmake --install /build --prefix /opt/envcheck --strip

FROM debian:12-slim
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends libcurl4 ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /opt/envcheck/ /usr/local/
RUN envcheck --version
ENTRYPOINT ["envcheck"]
CMD ["probe"]
