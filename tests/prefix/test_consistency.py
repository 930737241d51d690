"""Dependency consistency (`broken-dependency`, `conflicting-constraint`) on real environments:
a venv whose dependencies the real pip broke on purpose (--no-deps, a forced downgrade), where
envcheck must report what `python -m pip check` reports; and a conda environment made with
py-rattler whose records were changed the ways a forced install changes them."""
import json
import re
import subprocess
import sys

import pytest

import realenv
from realenv import check_json_of_itself, envcheck, nothing_required


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    directory = tmp_path_factory.mktemp("wheels")
    realenv.build_wheel(directory, "app", "1.0", requires=["lib>=2", "helper; python_version >= '3'",
                                                           "winonly; sys_platform == 'win32'"])
    realenv.build_wheel(directory, "lib", "1.0")
    realenv.build_wheel(directory, "lib", "2.0")
    realenv.build_wheel(directory, "helper", "1.0")
    realenv.build_wheel(directory, "tool", "1.0", requires=["Missing.Dep>=1", "lib<3"])
    return directory


def pip_check(python):
    """{(package, requirement name)} that `pip check` reports."""
    result = subprocess.run([python, "-m", "pip", "check", "--disable-pip-version-check"],
                            capture_output=True, text=True)
    found = set()
    for line in result.stdout.splitlines():
        # "app 1.0 has requirement lib>=2, but you have lib 1.0." / "tool 1.0 requires missing.dep, which is not installed."
        match = re.match(r"(\S+) \S+ (?:has requirement|requires) ([A-Za-z0-9._-]+)", line)
        if match:
            found.add((match.group(1).lower(), re.sub(r"[-_.]+", "-", match.group(2)).lower()))
    return result.returncode, found


def envcheck_broken(report):
    found = set()
    for package in report["packages"]:
        if package["status"] == "broken-dependency":
            requirement = re.match(r"requires '([A-Za-z0-9._-]+)", package["reason"]).group(1)
            found.add((package["name"].lower(), re.sub(r"[-_.]+", "-", requirement).lower()))
    return found


def test_agrees_with_pip_check(tmp_path, wheels):
    prefix = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", prefix], check=True)
    python = prefix / "bin" / "python"
    install = [python, "-m", "pip", "install", "--quiet", "--no-index", "--find-links", wheels,
               "--disable-pip-version-check"]
    subprocess.run([*install, "app"], check=True)
    code, report = check_json_of_itself("--prefix", prefix, "--no-gpu")
    assert code == 0, report
    assert pip_check(python) == (0, set())

    # Broken on purpose: a forced downgrade, and a distribution installed without its dependencies.
    subprocess.run([*install, "--no-deps", "--force-reinstall", "lib==1.0"], check=True)
    subprocess.run([*install, "--no-deps", "tool"], check=True)
    pip_code, pip_found = pip_check(python)
    assert pip_code == 1
    code, report = check_json_of_itself("--prefix", prefix, "--no-gpu")
    assert code == 1
    assert envcheck_broken(report) == pip_found == {("app", "lib"), ("tool", "missing-dep")}
    reasons = sorted(package["reason"] for package in report["packages"])
    assert reasons == ["requires 'Missing.Dep>=1', which is not installed",
                       "requires 'lib>=2', but lib 1.0 is installed"]
    assert report["summary"]["broken-dependency"] == 2
    realenv.validate(report, "check-report.schema.json")
    text = envcheck("check", "--env", nothing_required(), "--prefix", prefix, "--no-gpu").stdout
    assert "broken-dependency (2)" in text
    assert "requires 'lib>=2', but lib 1.0 is installed" in text

    # Repaired: both agree again.
    subprocess.run([python, "-m", "pip", "uninstall", "--yes", "--quiet", "tool"], check=True)
    subprocess.run([*install, "--no-deps", "--force-reinstall", "lib==2.0"], check=True)
    assert pip_check(python) == (0, set())
    code, report = check_json_of_itself("--prefix", prefix, "--no-gpu")
    assert code == 0, report


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    channel = realenv.build_channel(tmp_path_factory.mktemp("channel"))
    realenv.conda_package(channel, "plugin", "1.0", "h0_0", {"share/plugin/x.txt": b"x\n"},
                          depends=["hello >=1.0"], constrains=["hello <2", "not-installed >=9"])
    from rattler.index import index_fs
    import asyncio
    indexing = index_fs(channel)
    if asyncio.iscoroutine(indexing):
        asyncio.run(indexing)
    return channel


def test_conda_depends_and_constrains(channel, tmp_path):
    prefix = tmp_path / "env"
    realenv.create_env(channel, prefix, ["greet", "plugin", "hello ==1.0 h0_0"], tmp_path / "cache")
    code, report = check_json_of_itself("--prefix", prefix, "--no-gpu")
    assert code == 0, report

    # A forced install of hello 2.0 over 1.0 (what `conda install --force` leaves): plugin's
    # constrains no longer holds.
    record = next((prefix / "conda-meta").glob("hello-1.0-*.json"))
    document = json.loads(record.read_text())
    document["version"] = "2.0"
    record.write_text(json.dumps(document))
    code, report = check_json_of_itself("--prefix", prefix, "--no-gpu")
    assert code == 1
    rows = [(p["name"], p["status"], p["reason"]) for p in report["packages"]]
    assert rows == [("plugin", "conflicting-constraint", "constrains 'hello <2', but hello 2.0 h0_0 is installed")]
    realenv.validate(report, "check-report.schema.json")

    # hello removed behind conda's back: greet and plugin depend on it.
    record.unlink()
    code, report = check_json_of_itself("--prefix", prefix, "--no-gpu")
    assert code == 1
    rows = sorted((p["name"], p["status"], p["reason"]) for p in report["packages"])
    assert rows == [("greet", "broken-dependency", "depends on 'hello', which is not installed"),
                    ("plugin", "broken-dependency", "depends on 'hello >=1.0', which is not installed")]
