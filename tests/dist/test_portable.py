"""The portable binary (the one the wheel and the conda package carry): it needs no shared
library beyond glibc's own, no glibc symbol newer than the floor the README states (2.31), and
no libstdc++ at all; it carries the CUDA kernels; and it runs on Debian 11, the oldest release
the mirror serves, where without libcurl a URL gives a clear error and local files still work.
"""
import pathlib
import re
import subprocess

import pytest

import distenv

README = (distenv.SOURCE_DIR / "README.md").read_text()


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return distenv.unpack_wheel_tree(tmp_path_factory.mktemp("wheel-tree"))


@pytest.fixture(scope="module")
def binary(tree):
    return tree / "bin" / "envcheck"


def dynamic_section(binary):
    return subprocess.run(["readelf", "-d", "-W", str(binary)], capture_output=True, text=True,
                          check=True).stdout


def symbol_versions(binary):
    """The version names of the binary's undefined dynamic symbols (GLIBC_2.17, ...)."""
    symbols = subprocess.run(["readelf", "--dyn-syms", "-W", str(binary)], capture_output=True,
                             text=True, check=True).stdout
    return set(re.findall(r"UND \S+@([A-Z_]+[0-9][0-9.]*)", symbols))


def test_needs_only_glibc_libraries(binary):
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic_section(binary)))
    assert needed, "readelf found no NEEDED entries: not a dynamic executable?"
    assert needed <= distenv.GLIBC_LIBRARIES, f"beyond glibc: {sorted(needed - distenv.GLIBC_LIBRARIES)}"
    assert "RPATH" not in dynamic_section(binary) and "RUNPATH" not in dynamic_section(binary)


def test_no_glibc_symbol_newer_than_the_floor(binary):
    versions = symbol_versions(binary)
    glibc = [tuple(int(part) for part in version[len("GLIBC_"):].split("."))
             for version in versions if version.startswith("GLIBC_")]
    assert glibc, versions
    assert max(glibc) <= distenv.GLIBC_FLOOR, f"needs GLIBC_{'.'.join(map(str, max(glibc)))}"
    foreign = sorted(v for v in versions if not v.startswith("GLIBC_"))
    assert foreign == [], f"symbols of other libraries (libstdc++, libgcc_s): {foreign}"


def test_readme_and_wheel_tag_state_the_same_floor():
    floor = ".".join(map(str, distenv.GLIBC_FLOOR))
    assert f"glibc {floor}" in README
    assert f"manylinux_{floor.replace('.', '_')}_x86_64" in distenv.wheel().name


def test_carries_the_cuda_kernels(binary):
    version = subprocess.run([str(binary), "--version"], capture_output=True, text=True, check=True)
    assert "CUDA runtime: 13.0 (linked statically)" in version.stdout
    assert "GPU code: sm_75 sm_80 sm_86 sm_89 sm_90 sm_100 sm_120, PTX compute_120" in version.stdout


def test_fetches_urls_through_the_system_libcurl(binary, tmp_path):
    environment_file = tmp_path / "environment.yml"
    environment_file.write_text((distenv.SOURCE_DIR / "envs/broken/tabs.yml").read_text())
    result = subprocess.run([str(binary), "lint", environment_file.as_uri()], capture_output=True,
                            text=True)
    assert result.returncode == 1, result.stderr
    assert "[yaml.tab-indentation]" in result.stdout


@pytest.fixture(scope="module")
def chroot_binary(binary):
    return distenv.copy_into_chroot(binary, "envcheck")


def test_runs_on_debian_11(chroot_binary):
    result = distenv.in_chroot(f"{chroot_binary} --version && ldd --version | head -1")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("envcheck 0.1.0\n")
    assert "2.31" in result.stdout.splitlines()[-1]


def test_lints_on_debian_11(chroot_binary):
    broken = distenv.copy_into_chroot(distenv.SOURCE_DIR / "envs/broken/cuda-mismatch.yml",
                                      "cuda-mismatch.yml")
    result = distenv.in_chroot(f"{chroot_binary} lint {broken}")
    assert result.returncode == 1, result.stderr
    assert "error [cuda.version-mismatch]" in result.stdout


def test_url_without_libcurl_is_a_clear_error(chroot_binary):
    # The chroot has no libcurl.so.4 (debootstrap minbase): the URL fails, naming the library
    # and how to install it, with the documented exit code 2; nothing crashes.
    assert not list((distenv.SYSROOT / "usr/lib/x86_64-linux-gnu").glob("libcurl.so.4*"))
    result = distenv.in_chroot(f"{chroot_binary} lint http://127.0.0.1:9/environment.yml")
    assert result.returncode == 2, result.stdout + result.stderr
    assert "cannot fetch URLs: libcurl cannot be loaded (libcurl.so.4" in result.stderr
    assert "hint: install libcurl (Debian/Ubuntu: apt-get install libcurl4" in result.stderr
