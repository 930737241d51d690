"""The wheel, installed the way users install it: `pip install` of the wheel file into a fresh
venv, here (Debian 12) and in a Debian 11 chroot (the oldest release reachable; its own
python 3.9 and pip 20.3). Then `envcheck --version`, `lint`, and `lock` and `check` of that
very venv, whose dist-info now includes envcheck-gpu itself.
"""
import json
import pathlib
import subprocess
import sys
import venv

import pytest

import distenv

BROKEN = distenv.SOURCE_DIR / "envs/broken/cuda-mismatch.yml"


def test_wheel_is_py3_none_for_any_python():
    name = distenv.wheel().name
    assert name.startswith("envcheck_gpu-0.1.0-py3-none-manylinux_"), name


@pytest.fixture(scope="module")
def here(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("venv") / "venv"
    venv.EnvBuilder(with_pip=True).create(prefix)
    subprocess.run([str(prefix / "bin/python"), "-m", "pip", "install", "--quiet", "--no-index",
                    "--disable-pip-version-check", str(distenv.wheel())], check=True)
    return prefix


def run(*command, cwd=None):
    environment = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    return subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          cwd=cwd, env=environment)


def test_pip_puts_envcheck_in_the_venv_bin(here):
    version = run(here / "bin/envcheck", "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("envcheck 0.1.0\nCUDA runtime: 13.0 (linked statically)\n")
    schemas = sorted(path.name for path in (here / "share/envcheck/schemas").glob("*.json"))
    # Every schema the repository has, installed beside the binary.
    assert schemas == sorted(path.name for path in (distenv.SOURCE_DIR / "schemas").glob("*.json"))


def test_lint_from_the_venv(here):
    result = run(here / "bin/envcheck", "lint", BROKEN)
    assert result.returncode == 1, result.stderr
    assert "error [cuda.version-mismatch]" in result.stdout


def test_lock_and_check_the_venv_itself(here, tmp_path):
    lock = tmp_path / "venv.lock.json"
    locked = run(here / "bin/envcheck", "lock", "--prefix", here, "--output", lock)
    assert locked.returncode == 0, locked.stderr
    packages = json.loads(lock.read_text())["packages"]
    assert any(package["name"] == "envcheck-gpu" and package["version"] == "0.1.0"
               for package in packages), packages
    checked = run(here / "bin/envcheck", "check", "--prefix", here, "--lock", lock, "--no-gpu")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("envcheck check: pass\n")


@pytest.fixture(scope="module")
def chroot_venv():
    wheel = distenv.copy_into_chroot(distenv.wheel(), distenv.wheel().name)
    result = distenv.in_chroot(
        f"rm -rf /tmp/envcheck-tests/venv && python3 -m venv /tmp/envcheck-tests/venv && "
        f"/tmp/envcheck-tests/venv/bin/pip install --quiet --no-index {wheel}", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return "/tmp/envcheck-tests/venv"


def test_debian_11_pip_installs_the_wheel(chroot_venv):
    result = distenv.in_chroot(f"python3 --version && {chroot_venv}/bin/envcheck --version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Python 3.9.")
    assert "envcheck 0.1.0\nCUDA runtime: 13.0 (linked statically)" in result.stdout


def test_debian_11_lint_lock_and_check(chroot_venv):
    broken = distenv.copy_into_chroot(BROKEN, "cuda-mismatch.yml")
    envcheck = f"{chroot_venv}/bin/envcheck"
    lint = distenv.in_chroot(f"{envcheck} lint {broken}")
    assert lint.returncode == 1, lint.stderr
    assert "error [cuda.version-mismatch]" in lint.stdout
    lock = distenv.in_chroot(
        f"{envcheck} lock --prefix {chroot_venv} --output /tmp/envcheck-tests/venv.lock.json --force"
        f" && {envcheck} check --prefix {chroot_venv} --lock /tmp/envcheck-tests/venv.lock.json --no-gpu")
    assert lock.returncode == 0, lock.stdout + lock.stderr
    assert "envcheck check: pass" in lock.stdout
    assert "machine.glibc" not in lock.stdout  # passed: nothing to report
