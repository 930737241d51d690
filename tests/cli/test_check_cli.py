"""`envcheck check` (and `envcheck` with no command) as a user runs it."""
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
    assert "note: using ./environment.yml" in only_env.stdout
    assert "note: no lock beside it (./environment.lock.json)" in only_env.stdout
    assert "note: environment from $CONDA_PREFIX" in only_env.stdout

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
    missing = envcheck("check", "--prefix", prefix, "--lock", tmp_path / "nope.json", "--no-gpu")
    assert missing.returncode == 2
    not_env = envcheck("check", "--prefix", tmp_path, "--lock", broken, "--no-gpu")
    assert not_env.returncode == 2
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


def test_perf_tolerance_values_and_metric_names_are_checked(channel, tmp_path):
    """--perf-tolerance is read before anything else, and every metric it names must have a
    baseline in the lock, with or without --no-gpu (re-measuring needs a GPU: tests/device)."""
    directory, prefix = project(tmp_path, channel)
    environment = {"CONDA_PREFIX": str(prefix)}
    assert envcheck("lock", "--no-gpu", cwd=directory, env=environment).returncode == 0
    lock_path = directory / "environment.lock.json"
    lock = json.loads(lock_path.read_text())
    lock["performance"] = [{
        "device_index": 0, "device_name": "NVIDIA H200", "device_uuid": "GPU-1",
        "pci_bus_id": "00000000:00:06.0", "mode": "quick",
        "metrics": [{"probe": "bandwidth", "name": "h2d_pinned_gbps", "value": 55.2,
                     "spread": 0.004, "samples": 10, "unit": "GB/s",
                     "direction": "higher_is_better"}]}]
    lock_path.write_text(json.dumps(lock))

    for value, message in [("150%", "'150%' is not an allowed drop between 0 and 1"),
                           ("Bandwidth=5%", "'Bandwidth' is not a metric"),
                           ("matmul-shared.tuned_tflops=5%",
                            "the lock has no baseline for 'matmul-shared.tuned_tflops'")]:
        result = envcheck("check", "--no-gpu", "--perf-tolerance", value, cwd=directory,
                          env=environment)
        assert result.returncode == 2, result.stdout + result.stderr
        assert message in result.stderr

    known = envcheck("check", "--no-gpu", "--perf-tolerance", "20%", "--perf-tolerance",
                     "bandwidth.h2d_pinned_gbps=5%", cwd=directory, env=environment)
    assert known.returncode == 0, known.stdout + known.stderr
    assert "--no-gpu: the lock's performance baselines were not measured" in known.stdout
