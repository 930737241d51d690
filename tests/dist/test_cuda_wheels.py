"""The CUDA kernels without a CUDA toolkit: a build configured with ENVCHECK_CUDA=WHEELS (what a
machine without /usr/local/cuda gets) downloads the pinned NVIDIA wheels, checks their sha256,
unpacks them into the build directory and builds envcheck with the same GPU code as the main
build (all architectures of the default). It configures under stock CMake 3.25's
FindCUDAToolkit (Debian's cmake-data as shipped; this machine's copy is patched), which fails
on toolkits without nvToolsExt (CUDA 12.9 and newer) unless the project works around it.
"""
import os
import pathlib
import re
import shutil
import subprocess

import pytest

import distenv

ENVCHECK = os.environ["ENVCHECK"]


@pytest.fixture(scope="module")
def stock_cmake_modules(tmp_path_factory):
    """Modules/ of Debian 12's cmake-data package, unpatched."""
    root = tmp_path_factory.mktemp("cmake-data")
    root.chmod(0o755)  # apt-get download runs as _apt
    subprocess.run(["apt-get", "download", "-qq", "cmake-data"], cwd=root, check=True)
    deb = next(root.glob("cmake-data_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root / "tree")], check=True)
    modules = next((root / "tree/usr/share").glob("cmake-3.*/Modules"))
    assert "set_property(TARGET CUDA::nvToolsExt" in (modules / "FindCUDAToolkit.cmake").read_text()
    return modules


def cmake_version():
    text = subprocess.run(["cmake", "--version"], capture_output=True, text=True).stdout
    return tuple(int(part) for part in re.search(r"(\d+)\.(\d+)", text).groups())


@pytest.fixture(scope="module")
def wheel_build(stock_cmake_modules):
    build = distenv.DIST_DIR / "cuda-wheels-build"
    if build.exists():
        shutil.rmtree(build)
    configure = ["cmake", "-S", str(distenv.SOURCE_DIR), "-B", str(build), "-G", "Ninja",
                 "-DENVCHECK_CUDA=WHEELS", "-DENVCHECK_TESTS=OFF", "-DENVCHECK_BENCH=OFF"]
    if cmake_version()[:2] == (3, 25):
        configure.append(f"-DCMAKE_MODULE_PATH={stock_cmake_modules}")
    result = subprocess.run(configure, capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    assert "envcheck: CUDA kernels ON (75-real;80-real;86-real;89-real;90-real;100-real;120-real;" \
           "120-virtual) from PyPI wheels" in result.stdout
    result = subprocess.run(["nice", "-n", "15", "cmake", "--build", str(build), "--target",
                             "envcheck"], capture_output=True, text=True, timeout=3000)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-4000:]
    return build


def test_wheels_are_unpacked_into_the_build(wheel_build):
    toolkit = wheel_build / "_cuda/toolkit/nvidia/cu13"
    for tool in ("bin/nvcc", "bin/ptxas", "nvvm/bin/cicc", "lib/libcudart_static.a"):
        assert (toolkit / tool).is_file(), tool
    cache = (wheel_build / "CMakeCache.txt").read_text()
    # FILEPATH as the project sets it; STRING when CMake's own detection re-caches it (with a
    # compiler launcher in the environment, as .ci/run exports).
    assert re.search(rf"^CMAKE_CUDA_COMPILER:(FILEPATH|STRING)={re.escape(str(toolkit))}/bin/nvcc$",
                     cache, re.MULTILINE)


def test_same_gpu_code_as_the_toolkit_build(wheel_build):
    from_wheels = subprocess.run([str(wheel_build / "envcheck"), "--version"], capture_output=True,
                                 text=True, check=True).stdout
    from_main_build = subprocess.run([ENVCHECK, "--version"], capture_output=True, text=True,
                                     check=True).stdout
    assert from_wheels == from_main_build
    assert "GPU code: sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120, PTX compute_120" in from_wheels


def test_a_wheel_that_does_not_match_its_pin_is_refused(tmp_path, wheel_build):
    wheels = tmp_path / "wheels"
    shutil.copytree(wheel_build / "_cuda/wheels", wheels)
    victim = next(wheels.glob("nvidia_cuda_crt-*.whl"))
    victim.write_bytes(victim.read_bytes() + b"tampered")
    result = subprocess.run(["cmake", "-S", str(distenv.SOURCE_DIR), "-B", str(tmp_path / "build"),
                             "-G", "Ninja", "-DENVCHECK_CUDA=WHEELS", f"-DENVCHECK_CUDA_WHEELS={wheels}",
                             "-DENVCHECK_TESTS=OFF"], capture_output=True, text=True, timeout=600)
    assert result.returncode != 0
    message = " ".join(result.stderr.split())  # CMake wraps long messages
    assert re.search(rf"{re.escape(victim.name)} has sha256 [0-9a-f]{{64}}, expected", message)
