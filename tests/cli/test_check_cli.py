"""`envcheck check` (and `envcheck` with no command) as a user runs it, on real conda
environments: the wiring from the command line to the use case, the report formats and the exit
codes. The use case's cases (inputs, notes, drift, machine, performance, tolerances) are in
tests/app/test_check.cpp, over fakes."""
import json

import pytest

from clienv import CORPUS_LOCKS, project, realenv

envcheck = realenv.envcheck


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    return realenv.build_channel(tmp_path_factory.mktemp("channel"))


def test_no_arguments_in_a_project_directory(channel, tmp_path):
    directory, prefix = project(tmp_path, channel)
    environment = {"CONDA_PREFIX": str(prefix)}
    only_env = envcheck("check", "--no-gpu", cwd=directory, env=environment)
    assert only_env.returncode == 0, only_env.stdout + only_env.stderr
    assert "note: no lock beside it (./environment.lock.json)" in only_env.stdout

    assert envcheck("lock", "--no-gpu", cwd=directory, env=environment).returncode == 0
    code, report = realenv.check_json("--no-gpu", cwd=directory, env=environment)
    realenv.validate(report, "check-report.schema.json")
    assert code == 0
    assert report["inputs"]["environment_file"] == "environment.yml"
    assert report["inputs"]["lock"] == "environment.lock.json"
    assert [package["spec"] for package in report["packages"]] == ["greet", "hello=1.0", None]

    # `envcheck` alone does the same in a project directory.
    default = envcheck(cwd=directory, env=environment)
    assert default.returncode == 0, default.stderr
    assert default.stdout.startswith("envcheck check: pass")

    # Drift after locking: the spec still holds, the lock does not.
    realenv.create_env(channel, prefix, ["greet", "hello ==1.0 h1_1"], tmp_path / "cache")
    drift = envcheck(cwd=directory, env=environment)
    assert drift.returncode == 1
    assert "changed (1)" in drift.stdout


def test_no_arguments_elsewhere(tmp_path):
    nothing = envcheck("check", cwd=tmp_path)
    assert nothing.returncode == 2
    assert "nothing to check against" in nothing.stderr
    machine = envcheck(cwd=tmp_path)  # no environment.yml: the machine report
    assert machine.returncode == 0, machine.stderr
    assert machine.stdout.strip()


def test_unreadable_inputs_are_usage_errors(channel, tmp_path):
    _, prefix = project(tmp_path, channel)
    broken = tmp_path / "broken.lock.json"
    broken.write_text('{"schema_version": 1,\n "packages": [}\n')
    result = envcheck("check", "--prefix", prefix, "--lock", broken, "--no-gpu")
    assert result.returncode == 2
    assert f"{broken}:2:" in result.stderr
    if CORPUS_LOCKS.is_dir():
        export_list = envcheck("check", "--prefix", prefix, "--lock",
                               CORPUS_LOCKS / "AaradhyaVerma__Pylot_OpenPCDet__package-list.txt", "--no-gpu")
        assert export_list.returncode == 2
        assert "conda list --export" in export_list.stderr
        newer = tmp_path / "pixi.lock"
        newer.write_text("version: 9\nenvironments: {}\npackages: []\n")
        too_new = envcheck("check", "--prefix", prefix, "--lock", newer, "--no-gpu")
        assert too_new.returncode == 2
        assert "pixi.lock version 9 is newer than envcheck reads (versions 4 to 7)" in too_new.stderr
        no_env = envcheck("check", "--prefix", prefix, "--lock", CORPUS_LOCKS / "isce-framework__dolphin__pixi.lock",
                          "--environment", "gpu", "--no-gpu")
        assert no_env.returncode == 2
        assert "pass --environment with one of: all, default, docs, test" in no_env.stderr


@pytest.mark.skipif(not CORPUS_LOCKS.is_dir(), reason="shared corpus missing")
@pytest.mark.parametrize("lock, platform, locked", [
    ("pangeo-data__pangeo-docker-images__pytorch-notebook_conda-lock.yml", "linux-64", 885),
    ("pangeo-data__pangeo-docker-images__pytorch-notebook_conda-linux-64.lock", "linux-64", 885),
    ("1235467__diff-svc__pixi.lock", "linux-64", 299),
    ("2986002971__deep_learning_course__pixi.lock", "linux-64", 292),  # pixi.lock v5
    ("Healthy-AI__dalupi__conda-osx-64.lock", "osx-64", 211),
])
def test_peer_locks_against_an_unrelated_environment(channel, tmp_path, lock, platform, locked):
    _, prefix = project(tmp_path, channel)
    code, report = realenv.check_json("--prefix", prefix, "--lock", CORPUS_LOCKS / lock, "--platform", platform,
                                      "--no-gpu")
    realenv.validate(report, "check-report.schema.json")
    assert code == 1
    summary = report["summary"]
    # Every locked package is accounted for; the environment's own three are matched or extra
    # (the locks have a python of their own, which this environment's python may match by name).
    assert summary["ok"] + summary["changed"] + summary["missing"] == locked
    assert summary["ok"] + summary["changed"] + summary["extra"] == 3
    assert summary["missing"] >= locked - 3
    if platform != "linux-64":
        platform_check = report["machine"]["checks"][0]
        assert (platform_check["id"], platform_check["status"]) == ("machine.platform", "fail")


def test_output_file_and_verbose(channel, tmp_path):
    _, prefix = project(tmp_path, channel)
    lock = tmp_path / "l.json"
    assert envcheck("lock", "--prefix", prefix, "--output", lock, "--no-gpu").returncode == 0
    out = tmp_path / "report.json"
    result = envcheck("check", "--prefix", prefix, "--lock", lock, "--no-gpu", "--format", "json", "--output", out)
    assert result.returncode == 0 and result.stdout == ""
    assert json.loads(out.read_text())["status"] == "pass"
    verbose = envcheck("check", "--prefix", prefix, "--lock", lock, "--no-gpu", "--verbose")
    assert "ok (3)" in verbose.stdout


def test_perf_tolerance_is_checked_first(tmp_path):
    """--perf-tolerance (repeatable) reaches the use case, which refuses a bad value before it
    reads anything (the values and metric names: tests/app/test_check.cpp)."""
    result = envcheck("check", "--no-gpu", "--perf-tolerance", "20%", "--perf-tolerance", "150%",
                      cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "'150%' is not an allowed drop between 0 and 1" in result.stderr


def test_a_pixi_project_with_nothing_activated(channel, tmp_path):
    """pixi's layout: pixi.lock (written by rattler) beside environment.yml, the environment in
    .pixi/envs/default; `envcheck` alone finds and names all three."""
    directory = tmp_path / "project"
    directory.mkdir()
    (directory / "environment.yml").write_text(
        "name: demo\nchannels: [local]\ndependencies:\n  - greet\n  - hello=1.0\n")
    records = realenv.create_env(channel, directory / ".pixi" / "envs" / "default",
                                 ["greet", "hello ==1.0 h0_0"], tmp_path / "cache")
    realenv.write_pixi_lock(records, directory / "pixi.lock", channel)

    result = envcheck("check", "--no-gpu", cwd=directory)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "note: using ./environment.yml" in result.stdout
    assert "note: using the lock beside it: ./pixi.lock" in result.stdout
    assert ("note: environment from ./.pixi/envs/default (pixi's default environment; none is "
            "activated)") in result.stdout

    # Two locks: the first of the documented order is used, the other named.
    (directory / "conda-lock.yml").write_text(
        (realenv.SOURCE_DIR / "tests" / "data" / "locks" / "categories.conda-lock.yml").read_text())
    code, report = realenv.check_json("--no-gpu", cwd=directory)
    realenv.validate(report, "check-report.schema.json")
    assert report["inputs"]["lock"] == "pixi.lock"
    assert ("also here, not used: ./conda-lock.yml (the first of environment.lock.json, pixi.lock, "
            "conda-lock.yml, uv.lock, pylock.toml is used; --lock picks another)") in report["notes"]
    assert code == 0

    # Without environment.yml the locks alone make it a project directory: `envcheck` checks.
    (directory / "environment.yml").unlink()
    default = envcheck(cwd=directory)
    assert default.stdout.startswith("envcheck check: pass"), default.stdout + default.stderr
