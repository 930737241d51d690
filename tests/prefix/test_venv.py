"""envcheck against a real Python venv (`python3 -m venv`) with packages installed by pip from
wheels the test builds (no network)."""
import json
import pathlib
import shutil
import subprocess
import sys

import pytest

import realenv
from realenv import check_json, envcheck, statuses


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    directory = tmp_path_factory.mktemp("wheels")
    return {
        ("alpha", "1.0"): realenv.build_wheel(directory, "alpha", "1.0"),
        ("alpha", "1.1"): realenv.build_wheel(directory, "alpha", "1.1"),
        ("beta_pkg", "0.2"): realenv.build_wheel(directory, "beta_pkg", "0.2"),
        ("gamma", "3.0"): realenv.build_wheel(directory, "gamma", "3.0"),
    }


@pytest.fixture
def venv(tmp_path, wheels):
    prefix = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", prefix], check=True)
    site = next(prefix.glob("lib/python3*/site-packages"))
    realenv.pip_install(["--target", site, wheels[("alpha", "1.0")], wheels[("beta_pkg", "0.2")]])
    return prefix, site


def python_version():
    return ".".join(map(str, sys.version_info[:3]))


def test_venv_is_read(venv):
    prefix, _ = venv
    code, report = check_json("--prefix", prefix, "--env", write_env(prefix.parent, ["alpha", "beta-pkg"]), "--no-gpu")
    assert code == 0, report
    installed = {package["name"]: package["installed"] for package in report["packages"]}
    assert installed["alpha"]["version"] == "1.0"
    assert installed["alpha"]["installer"] == "pip"
    assert installed["beta_pkg"]["version"] == "0.2"


def write_env(directory, pip_lines):
    path = directory / "requirements-env.yml"
    path.write_text("dependencies:\n  - pip:\n" + "".join(f"    - {line}\n" for line in pip_lines))
    return path


def test_venv_against_requirements_style_env_file(venv, tmp_path):
    prefix, _ = venv
    env = write_env(tmp_path, ["alpha==1.0", "Beta.Pkg>=0.1,<1", "gamma", "alpha>=1.1",
                               "win-only==1; sys_platform == 'win32'"])
    code, report = check_json("--prefix", prefix, "--env", env, "--no-gpu")
    assert code == 1
    rows = [(package["spec"], package["status"]) for package in report["packages"]]
    assert rows == [("alpha==1.0", "ok"), ("Beta.Pkg>=0.1,<1", "ok"), ("gamma", "missing"),
                    ("alpha>=1.1", "unsatisfied")]


def test_venv_python_from_pyvenv_cfg(venv, tmp_path):
    prefix, _ = venv
    major_minor = ".".join(map(str, sys.version_info[:2]))
    env = tmp_path / "environment.yml"
    env.write_text(f"dependencies:\n  - python={major_minor}\n  - python<3\n  - pip:\n    - alpha\n")
    code, report = check_json("--prefix", prefix, "--env", env, "--no-gpu")
    assert code == 1
    assert [(package["spec"], package["status"]) for package in report["packages"]] == [
        (f"python={major_minor}", "ok"), ("python<3", "unsatisfied"), ("alpha", "ok")]
    assert report["packages"][0]["installed"]["source"] == "pyvenv.cfg"


def test_venv_lock_and_drift(venv, wheels, tmp_path):
    prefix, site = venv
    lock = tmp_path / "venv.lock.json"
    written = envcheck("lock", "--prefix", prefix, "--output", lock, "--no-gpu")
    assert written.returncode == 0, written.stderr
    document = json.loads(lock.read_text())
    realenv.validate(document, "lock.schema.json")
    assert [(package["manager"], package["name"], package["version"]) for package in document["packages"]] == [
        ("pip", "alpha", "1.0"), ("pip", "beta_pkg", "0.2")]
    assert document["machine"]["python"] == python_version()
    assert envcheck("check", "--prefix", prefix, "--lock", lock, "--no-gpu").returncode == 0

    # Upgrade one, add one, remove one. (pip --target leaves the old dist-info beside the new one.)
    for path in site.glob("alpha*"):
        shutil.rmtree(path)
    realenv.pip_install(["--target", site, "--upgrade", wheels[("alpha", "1.1")], wheels[("gamma", "3.0")]])
    for path in site.glob("beta_pkg*"):
        shutil.rmtree(path)
    code, report = check_json("--prefix", prefix, "--lock", lock, "--no-gpu")
    assert code == 1
    assert statuses(report) == {("pip", "alpha"): "changed", ("pip", "beta_pkg"): "missing",
                                ("pip", "gamma"): "extra"}
    alpha = next(package for package in report["packages"] if package["name"] == "alpha")
    assert alpha["reason"] == "installed 1.1, locked 1.0"


def test_venv_export_requirements(venv, wheels):
    """Installed from local wheel files (direct_url.json), they are exported as those files:
    `alpha==1.0` would ask PyPI for a package that is not there."""
    prefix, _ = venv
    result = envcheck("export", "--prefix", prefix, "--format", "requirements")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()[1:]
    expected = [f"alpha @ {pathlib.Path(wheels[('alpha', '1.0')]).resolve().as_uri()}",
                f"beta_pkg @ {pathlib.Path(wheels[('beta_pkg', '0.2')]).resolve().as_uri()}"]
    # pip records the file's sha256 when it knows it: "#sha256=<hex>".
    assert [line.split("#sha256=")[0] for line in lines] == expected


def test_activated_venv_is_found_through_virtual_env(venv, tmp_path):
    """`source .venv/bin/activate` sets $VIRTUAL_ENV; it wins over a conda base that is active
    underneath ($CONDA_PREFIX), as the venv's python is the one that runs."""
    prefix, _ = venv
    lock = tmp_path / "venv.lock.json"
    environment = {"VIRTUAL_ENV": str(prefix), "CONDA_PREFIX": str(tmp_path / "no-such-conda")}
    written = envcheck("lock", "--output", lock, "--no-gpu", env=environment)
    assert written.returncode == 0, written.stderr
    checked = envcheck("check", "--lock", lock, "--no-gpu", env=environment)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "note: environment from $VIRTUAL_ENV" in checked.stdout
    assert f"prefix: {prefix}" in checked.stdout


def test_venv_against_requirements_txt(venv, tmp_path):
    """`--env requirements.txt`: the same verdicts as the pip: section of an environment.yml,
    positions in the requirements file."""
    prefix, _ = venv
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("# pinned\nalpha==1.0  # the one we test\nBeta.Pkg>=0.1,\\\n<1\n"
                            "--index-url https://example.invalid/simple\ngamma\nalpha>=1.1\n"
                            "win-only==1; sys_platform == 'win32'\n")
    code, report = check_json("--prefix", prefix, "--env", requirements, "--no-gpu")
    assert code == 1
    rows = [(package["spec"], package["status"], package["spec_location"]["line"]) for package in report["packages"]]
    assert rows == [("alpha==1.0", "ok", 2), ("Beta.Pkg>=0.1,<1", "ok", 3), ("gamma", "missing", 6),
                    ("alpha>=1.1", "unsatisfied", 7)]
    assert report["inputs"]["environment_file"] == str(requirements)
    bad = tmp_path / "bad.txt"
    bad.write_text("alpha\nalpha===\n")
    result = envcheck("check", "--prefix", prefix, "--env", bad, "--no-gpu")
    assert result.returncode == 2
    assert "bad.txt:2" in result.stderr


def test_venv_against_pyproject(venv, tmp_path):
    """`--env pyproject.toml`: [project] dependencies, optional groups and dependency groups."""
    prefix, _ = venv
    project = tmp_path / "pyproject.toml"
    project.write_text('[project]\nname = "app"\nversion = "0.1"\n'
                       'dependencies = ["alpha==1.0", "beta-pkg>=0.1"]\n'
                       '[project.optional-dependencies]\nfull = ["gamma"]\n'
                       '[dependency-groups]\ndev = ["alpha>=1.1"]\n')
    code, report = check_json("--prefix", prefix, "--env", project, "--no-gpu")
    assert code == 1
    rows = [(package["spec"], package["status"], package["spec_location"]["line"]) for package in report["packages"]]
    assert rows == [("alpha==1.0", "ok", 4), ("beta-pkg>=0.1", "ok", 4), ("gamma", "missing", 6),
                    ("alpha>=1.1", "unsatisfied", 8)]
    project.write_text('[project]\ndependencies = "alpha"\n')
    result = envcheck("check", "--prefix", prefix, "--env", project, "--no-gpu")
    assert result.returncode == 2
    assert "pyproject.toml:2" in result.stderr and "must be an array" in result.stderr
