"""uv.lock and pylock.toml as locks, with the real uv (`.ci/setup` installs it from PyPI): a
project over a local flat index of wheels built here, locked with `uv lock`, exported with
`uv export --format pylock.toml` and installed with `uv sync` / `uv pip install`, all offline.
The project has a dependency only Windows gets, a python-version fork in resolution-markers, an
extra and a dev group."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import realenv
from realenv import check_json, envcheck, statuses

UV = shutil.which("uv")
PYTHON = ".".join(map(str, sys.version_info[:3]))
FORK = ("oldpy", "2.0") if sys.version_info >= (3, 11) else ("oldpy", "1.0")
OTHER_FORK = ("oldpy", "1.0") if sys.version_info >= (3, 11) else ("oldpy", "2.0")


def uv(*args, cwd):
    assert UV, "uv is not installed: .ci/setup installs it (pip install uv)"
    environment = {**os.environ, "UV_OFFLINE": "1", "UV_PYTHON_DOWNLOADS": "never",
                   "UV_CACHE_DIR": str(pathlib.Path(cwd).parent / "uv-cache"), "UV_NO_PROGRESS": "1"}
    environment.pop("VIRTUAL_ENV", None)
    result = subprocess.run([UV, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=environment)
    assert result.returncode == 0, result.stderr
    return result


def write_project(directory: pathlib.Path, wheels: pathlib.Path, alpha="1.0"):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pyproject.toml").write_text(f"""[project]
name = "demo"
version = "0.1.0"
requires-python = ">=3.9"
dependencies = [
  "alpha=={alpha}",
  "winonly; sys_platform == 'win32'",
  "oldpy<2; python_version < '3.11'",
  "oldpy>=2; python_version >= '3.11'",
]

[project.optional-dependencies]
extra1 = ["gamma"]

[dependency-groups]
dev = ["devtool"]

[tool.uv]
package = false
no-index = true
find-links = ["{wheels}"]
""")
    return directory


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    directory = tmp_path_factory.mktemp("wheels")
    for name, version, requires in [("alpha", "1.0", ["beta>=2"]), ("alpha", "1.1", ["beta>=2"]),
                                    ("beta", "2.0", []), ("winonly", "0.1", []), ("oldpy", "1.0", []),
                                    ("oldpy", "2.0", []), ("gamma", "3.0", []), ("devtool", "0.5", []),
                                    ("stray", "1.0", [])]:
        realenv.build_wheel(directory, name, version, requires=requires)
    return directory


@pytest.fixture(scope="module")
def project(tmp_path_factory, wheels):
    """The locked project, its pylock.toml and the venv `uv sync` made from the lock."""
    directory = write_project(tmp_path_factory.mktemp("uvproject") / "demo", wheels)
    uv("lock", cwd=directory)
    uv("export", "--format", "pylock.toml", "-o", "pylock.toml", cwd=directory)
    uv("sync", "--frozen", "--python", sys.executable, cwd=directory)
    return directory


def path_with_python(tmp_path, version_python):
    """A PATH whose python3 is `version_python` (a real interpreter), then the usual one."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python3").unlink(missing_ok=True)
    (bin_dir / "python3").symlink_to(version_python)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}


def pip_rows(report):
    return {name: status for (manager, name), status in statuses(report).items() if manager == "pip"}


def test_uv_lock_is_what_uv_wrote(project):
    text = (project / "uv.lock").read_text()
    assert text.startswith("version = 1\n")
    assert "resolution-markers = [" in text  # the python-version fork
    assert 'marker = "sys_platform == \'win32\'"' in text


def test_check_uv_lock_passes_on_the_synced_venv(project):
    code, report = check_json("--lock", project / "uv.lock", "--prefix", project / ".venv", "--no-gpu")
    assert code == 0, report
    assert report["inputs"]["lock_format"] == "uv"
    assert pip_rows(report) == {"alpha": "ok", "beta": "ok", "devtool": "ok", FORK[0]: "ok"}
    installed = {package["name"]: package["installed"]["version"] for package in report["packages"]}
    assert installed["oldpy"] == FORK[1]
    left_out = [note for note in report["notes"] if "left out for linux-64, python " + PYTHON in note]
    assert left_out, report["notes"]
    assert "winonly 0.1 (sys_platform == 'win32')" in left_out[0]
    assert f"oldpy {OTHER_FORK[1]} (python_full_version" in left_out[0]
    realenv.validate(report, "check-report.schema.json")


def test_check_pylock_passes_on_the_synced_venv(project):
    code, report = check_json("--lock", project / "pylock.toml", "--prefix", project / ".venv", "--no-gpu")
    assert code == 0, report
    assert report["inputs"]["lock_format"] == "pylock"
    assert pip_rows(report) == {"alpha": "ok", "beta": "ok", "devtool": "ok", FORK[0]: "ok"}


def test_check_reports_drift_on_a_tampered_venv(project, wheels, tmp_path):
    venv = tmp_path / "venv"
    uv("venv", "--python", sys.executable, venv, cwd=project)
    uv("pip", "install", "--python", venv / "bin/python", "-r", "pylock.toml", cwd=project)
    code, report = check_json("--lock", project / "uv.lock", "--prefix", venv, "--no-gpu")
    assert code == 0, report
    python = venv / "bin/python"
    uv("pip", "install", "--python", python, "--no-deps", "--find-links", wheels, "alpha==1.1", "stray==1.0",
       "gamma==3.0", cwd=project)
    uv("pip", "uninstall", "--python", python, "devtool", cwd=project)
    code, report = check_json("--lock", project / "uv.lock", "--prefix", venv, "--no-gpu")
    assert code == 1
    rows = pip_rows(report)
    assert rows["alpha"] == "changed"
    assert rows["devtool"] == "missing"
    assert rows["stray"] == "extra"
    assert rows["gamma"] == "ok"  # an extra's package: checked when installed, never missing
    alpha = next(package for package in report["packages"] if package["name"] == "alpha")
    assert alpha["reason"] == "installed 1.1, locked 1.0"


def test_diff_two_uv_locks_and_uv_lock_against_pylock(project, wheels, tmp_path):
    # The same packages; uv.lock records no hashes for wheels of a find-links directory, the
    # pylock.toml does, so each is a re-pin to the same version (the hash became known).
    # Both are read for the python3 on PATH (the tests' own python).
    exported = envcheck("diff", project / "uv.lock", project / "pylock.toml", "--format", "json",
                        env=path_with_python(tmp_path, sys.executable))
    packages = json.loads(exported.stdout)["packages"]
    oldpy = f"oldpy=={FORK[1]}"
    assert {(entry["change"], entry["old"], entry["new"]) for entry in packages} == {
        ("changed", "alpha==1.0", "alpha==1.0"), ("changed", "beta==2.0", "beta==2.0"),
        ("changed", "devtool==0.5", "devtool==0.5"), ("changed", oldpy, oldpy)}
    newer = write_project(tmp_path / "newer", wheels, alpha="1.1")
    uv("lock", cwd=newer)
    changed = envcheck("diff", project / "uv.lock", newer / "uv.lock", "--format", "json")
    assert changed.returncode == 1, changed.stderr
    assert [(entry["name"], entry["change"], entry["old"], entry["new"])
            for entry in json.loads(changed.stdout)["packages"]] == [("alpha", "changed", "alpha==1.0", "alpha==1.1")]
    same = envcheck("diff", project / "uv.lock", project / "uv.lock")
    assert same.returncode == 0, same.stdout


def test_export_from_uv_lock_and_pylock(project, wheels, tmp_path):
    # Without an installed environment the markers are read for the python3 on PATH (here the
    # tests' own python: oldpy FORK), or for --python (3.9: oldpy 1.0); extras are left out
    # with a note, and exported with --with-optional.
    index = {"uv.lock": [f"--find-links {wheels}"], "pylock.toml": [f"--index-url file://{wheels}"]}
    env = path_with_python(tmp_path, sys.executable)
    for lock in ("uv.lock", "pylock.toml"):
        result = envcheck("export", "--lock", project / lock, "--format", "requirements", env=env)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[1:] == index[lock] + [
            "alpha==1.0", "beta==2.0", "devtool==0.5", f"oldpy=={FORK[1]}"], result.stdout
        assert f"markers are evaluated for python {PYTHON} (python3 on PATH" in result.stderr, result.stderr
        if lock == "uv.lock":
            assert "not exported: 1 package(s) of" in result.stderr, result.stderr
            assert "(--with-optional exports them): gamma 3.0" in result.stderr, result.stderr
        old = envcheck("export", "--lock", project / lock, "--format", "requirements", "--python", "3.9")
        assert old.returncode == 0, old.stderr
        assert old.stdout.splitlines()[1:] == index[lock] + [
            "alpha==1.0", "beta==2.0", "devtool==0.5", "oldpy==1.0"], old.stdout
        assert "markers are evaluated for python 3.9 (--python)" in old.stderr, old.stderr
    everything = envcheck("export", "--lock", project / "uv.lock", "--format", "requirements",
                          "--with-optional", "--python", "3.9")
    assert everything.returncode == 0, everything.stderr
    assert "gamma==3.0" in everything.stdout.splitlines(), everything.stdout
    assert "not exported" not in everything.stderr
    bad = envcheck("export", "--lock", project / "uv.lock", "--python", "three")
    assert bad.returncode == 2 and "--python 'three' is not a python version" in bad.stderr, bad.stderr


@pytest.mark.parametrize("python, oldpy", [("3.9", "1.0"), ("3.12", "2.0")])
def test_check_pyproject_against_uv_lock_without_an_environment(project, python, oldpy):
    # The pyproject's own markers hold for the python the lock is read for: only one of its two
    # oldpy specs applies, and the lock's oldpy for that python satisfies it.
    code, report = check_json("--env", project / "pyproject.toml", "--lock", project / "uv.lock",
                              "--no-prefix", "--python", python)
    assert code == 0, report
    oldpy_rows = [package for package in report["packages"] if package["name"] == "oldpy"]
    assert [row["status"] for row in oldpy_rows] == ["ok"], oldpy_rows
    assert any(f"markers are evaluated for python {python} (--python)" in note for note in report["notes"]), report["notes"]


def test_lint_outlines_uv_lock_and_pylock(project):
    for lock, what in (("uv.lock", "a uv.lock (version 1;"), ("pylock.toml", "a pylock.toml (PEP 751) (version 1.0;")):
        result = envcheck("lint", "--format", "json", project / lock)
        assert result.returncode == 0, result.stdout + result.stderr
        diagnostics = json.loads(result.stdout)["files"][0]["diagnostics"]
        assert [d["rule"] for d in diagnostics] == ["file.lock"]
        assert what in diagnostics[0]["message"], diagnostics[0]["message"]


@pytest.mark.parametrize("name, text, position, message", [
    ("uv.lock", "version = 2\nrevision = 1\n", "uv.lock:1:11", "uv.lock version 2 is not supported"),
    ("uv.lock", "version = 1\n[[package]]\nname = \"a\"\nsource = { registry = \"https://pypi.org/simple\" }\n",
     "uv.lock:2:1", "package 'a' (from registry https://pypi.org/simple) has no version"),
    ("uv.lock", "version = 1\n[[package]]\nname = \"a\"\nversion = \"1\"\nsource = { svn = \"x\" }\n",
     "uv.lock:5:18", "unknown kind 'svn'"),
    ("uv.lock", "version = 1\n[[package\n", "uv.lock:2:10", "not valid TOML"),
    ("pylock.toml", "lock-version = \"2.0\"\n", "pylock.toml:1:16", "lock-version '2.0' is not supported"),
])
def test_bad_locks_exit_2_naming_file_line_and_column(tmp_path, name, text, position, message):
    lock = tmp_path / name
    lock.write_text(text)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    for command in (["check", "--lock", lock, "--prefix", venv, "--no-gpu"], ["diff", lock, lock],
                    ["export", "--lock", lock, "--format", "requirements"], ["lint", lock]):
        result = envcheck(*command, cwd=tmp_path)
        assert result.returncode == 2 or (command[0] == "lint" and result.returncode == 1), (command, result.stdout, result.stderr)
        assert message in result.stdout + result.stderr, (command, result.stdout, result.stderr)
        assert position.split(":", 1)[1] in result.stdout + result.stderr or position in result.stderr, (command, result.stdout, result.stderr)
