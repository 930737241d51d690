"""End-to-end: the hardware gates (gpu.*) of doctor, check --lock and probe's facts behind them.

NVML's facts come from the stand-in libnvidia-ml.so.1 (tests/fake_driver, put first on
LD_LIBRARY_PATH), whose FAKE_NVML modes break one fact at a time: uncorrectable ECC errors, a
failed or pending row remapping, pending page retirement, NVLink links down, a downtrained PCIe
link under load, hardware clock slowdowns, persistence mode off, busy GPUs. The kernel log is a
sysroot's dev/kmsg under --root (tests/data/roots/h200-ok, h200-xid); slurm-health's drain on a
fatal Xid is in tests/slurm/test_slurm_health.py.

This machine has no NVIDIA GPU and no device nodes: with the stand-in answering, the doctor takes
it for a container without GPU access and skips the chain behind that, but the gates judge
whatever NVML answered, so the stand-in's faults show in them.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

import jsonschema
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from sysroots import copy_root as root  # noqa: E402

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
FAKE_DRIVER_DIR = os.environ["ENVCHECK_FAKE_DRIVER_DIR"]
DOCTOR_SCHEMA = json.loads((SOURCE_DIR / "schemas" / "doctor-report.schema.json").read_text())
PROBE_SCHEMA = json.loads((SOURCE_DIR / "schemas" / "probe.schema.json").read_text())
CHECK_SCHEMA = json.loads((SOURCE_DIR / "schemas" / "check-report.schema.json").read_text())
GATES = ["gpu.xid", "gpu.ecc-uncorrectable", "gpu.row-remapping", "gpu.retired-pages",
         "gpu.pcie-link", "gpu.throttle-hardware", "gpu.persistence-mode", "gpu.count",
         "gpu.nvlink"]


def environment(nvml="", cuda="init=100"):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CUDA_", "NVIDIA_", "CONDA_", "FAKE_", "VIRTUAL_ENV"))}
    env["LD_LIBRARY_PATH"] = FAKE_DRIVER_DIR
    env["FAKE_NVML"] = ",".join(filter(None, ["init=0", nvml]))
    env["FAKE_CUDA"] = cuda
    return env


def run(*args, env=None):
    return subprocess.run([ENVCHECK, *map(str, args)], capture_output=True, text=True, timeout=120,
                          env=env if env is not None else environment())


def gates(*args, nvml=""):
    result = run("doctor", "--format", "json", *args, env=environment(nvml))
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    jsonschema.validate(report, DOCTOR_SCHEMA)
    checks = {check["id"]: check for check in report["checks"]}
    for check in checks.values():
        if check["status"] in ("fail", "warn"):
            assert check["fix"], check
    return {gate: checks[gate] for gate in GATES}


def test_a_healthy_gpu_passes_the_gates():
    got = gates()
    xid = got.pop("gpu.xid")
    # This machine's own /dev/kmsg: readable by root (CI), else skipped with dmesg_restrict's fix.
    if xid["status"] == "skip":
        assert "cannot read the kernel log (/dev/kmsg)" in xid["message"]
        assert "dmesg_restrict" in xid["fix"]
    else:
        assert xid["status"] == "pass", xid
        assert xid["message"].startswith("no fatal Xid in /dev/kmsg since boot")
    assert {gate: check["status"] for gate, check in got.items()} == {
        "gpu.ecc-uncorrectable": "pass", "gpu.row-remapping": "pass",
        # Hopper remaps rows instead; no lock and no --expect-gpus; no NVLink.
        "gpu.retired-pages": "skip", "gpu.pcie-link": "pass", "gpu.throttle-hardware": "pass",
        "gpu.persistence-mode": "pass", "gpu.count": "skip", "gpu.nvlink": "skip",
    }
    assert "--expect-gpus" in got["gpu.count"]["message"]


# FAKE_NVML fault -> (gate, status, text of the message)
FAULTS = {
    "ecc-uncorrectable": ("gpu.ecc-uncorrectable", "fail",
                          "uncorrectable ECC errors: GPU 0 (00000000:17:00.0): 2 since the driver "
                          "loaded"),
    "remap-failed": ("gpu.row-remapping", "fail", "row remapping failed (no spare rows left): GPU 0"),
    "remap-pending": ("gpu.row-remapping", "fail", "row remapping pending"),
    "retired-pending": ("gpu.retired-pages", "fail", "page retirement pending"),
    "nvlink": ("gpu.nvlink", "pass", "18 NVLink links up on 1 GPU"),
    "nvlink-down": ("gpu.nvlink", "fail", "GPU 0 (00000000:17:00.0): 2 of 18 links down (3, 7)"),
    "pcie-degraded": ("gpu.pcie-link", "fail", "gen 3 of 5, x8 of x16 under load"),
    "throttle-hw": ("gpu.throttle-hardware", "fail", "hw_slowdown, hw_thermal_slowdown"),
    "persistence-off": ("gpu.persistence-mode", "warn", "persistence mode is off: GPU 0"),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_each_fault_shows_in_its_gate(fault):
    gate, status, text = FAULTS[fault]
    got = gates(nvml=fault)
    assert got[gate]["status"] == status, got[gate]
    assert text in got[gate]["message"]
    # The other NVML gates are unmoved by it.
    healthy = gates()
    for other in ("gpu.ecc-uncorrectable", "gpu.row-remapping", "gpu.throttle-hardware",
                  "gpu.persistence-mode"):
        if other != gate:
            assert got[other]["status"] == healthy[other]["status"], other


@pytest.mark.parametrize("count, expected, status", [(8, 8, "pass"), (7, 8, "fail"), (8, 4, "warn")])
def test_expect_gpus(count, expected, status):
    got = gates("--expect-gpus", expected, nvml=f"count={count}")
    assert got["gpu.count"]["status"] == status
    assert f"{count} of {expected} GPUs visible (NVML; --expect-gpus)" in got["gpu.count"]["message"]


def test_probe_reports_the_facts_behind_the_gates():
    result = run("probe", "--format", "json", env=environment("nvlink-down,busy,retired-pending"))
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    jsonschema.validate(report, PROBE_SCHEMA)
    gpu = report["nvml"]["gpus"][0]
    assert gpu["nvlink"] == {"links": 18, "down": [3, 7]}
    assert gpu["retired_pages"] == {"single_bit": 2, "double_bit": 2, "pending": True}
    assert gpu["compute_processes"] == 2
    assert gpu["compute_process_ids"] == [4242, 4343]
    assert gpu["remapped_rows"]["failed"] is False
    assert report["kernel_log"]["source"] == "/dev/kmsg"


def test_a_process_in_exit_does_not_hold_the_gpu():
    # A zombie has passed through exit (PF_EXITING), like the probe child of an envcheck run a
    # moment ago whose context the driver is still tearing down: not a user of the GPU. A live
    # process (this one) is.
    zombie = os.fork()
    if zombie == 0:
        os._exit(0)
    try:
        time.sleep(0.1)
        for pid, busy in ((zombie, False), (os.getpid(), True)):
            result = run("probe", "--format", "json", env=environment(f"busy-pid={pid}"))
            assert result.returncode == 0, result.stderr
            gpu = json.loads(result.stdout)["nvml"]["gpus"][0]
            assert gpu["compute_process_ids"] == ([pid] if busy else [])
            assert gpu["compute_processes"] == (1 if busy else 0)
    finally:
        os.waitpid(zombie, 0)


def test_kernel_log_under_root(tmp_path):
    result = run("probe", "--format", "json", "--root", root(tmp_path, "h200-xid"))
    assert result.returncode == 0, result.stderr
    log = json.loads(result.stdout)["kernel_log"]
    assert log["readable"] is True
    assert [(xid["pci_bus_id"], xid["xid"]) for xid in log["xids"]] == [
        ("0000:17:00", 13), ("0000:17:00", 48), ("0000:17:00", 79)]
    assert log["xids"][2]["message"] == "pid='<unknown>', name=<unknown>, GPU has fallen off the bus."


@pytest.mark.parametrize("fatal, status", [(None, "fail"), ("13", "fail"), ("31,43", "pass")])
def test_fatal_xids_are_overridable(tmp_path, fatal, status):
    args = ["--root", root(tmp_path, "h200-xid"), "--format", "json"]
    if fatal:
        args += ["--fatal-xids", fatal]
    result = run("doctor", *args)
    report = json.loads(result.stdout)
    xid = next(check for check in report["checks"] if check["id"] == "gpu.xid")
    assert xid["status"] == status, xid
    assert result.returncode == (1 if status == "fail" else 0)
    if fatal == "13":
        assert "Xid 13 on 0000:17:00 x1" not in xid["message"]
        assert "not in the fatal list: Xid 48 on 0000:17:00; Xid 79 on 0000:17:00" in xid["message"]


@pytest.mark.parametrize("bad", ["--fatal-xids=79,x", "--fatal-xids=", "--expect-gpus=-1"])
def test_bad_policy_options_are_usage_errors(bad):
    result = run("doctor", bad)
    assert result.returncode == 2, result.stdout
    assert result.stderr


def test_check_lock_fails_when_a_locked_gpu_is_gone(tmp_path):
    """A lock made on two GPUs; one is gone: gpu.count names it, with the other machine checks."""
    prefix = tmp_path / "venv"
    shutil.copytree(SOURCE_DIR / "tests" / "data" / "prefixes" / "venv-basic", prefix)
    lock = tmp_path / "environment.lock.json"
    made = run("lock", "--prefix", prefix, "-o", lock, env=environment("count=2"))
    assert made.returncode == 0, made.stderr
    assert len(json.loads(lock.read_text())["machine"]["gpus"]) == 2

    both = run("check", "--lock", lock, "--prefix", prefix, "--format", "json",
               env=environment("count=2"))
    report = json.loads(both.stdout)
    jsonschema.validate(report, CHECK_SCHEMA)
    machine = {check["id"]: check for check in report["machine"]["checks"]}
    assert machine["gpu.count"]["status"] == "pass", machine["gpu.count"]
    assert "by UUID" in machine["gpu.count"]["message"]
    assert both.returncode == 0, both.stdout

    one = run("check", "--lock", lock, "--prefix", prefix, "--format", "json",
              env=environment("count=1,ecc-uncorrectable"))
    assert one.returncode == 1
    machine = {check["id"]: check for check in json.loads(one.stdout)["machine"]["checks"]}
    assert machine["gpu.count"]["status"] == "fail"
    assert ("missing: GPU 1 (GPU-00000000-0000-0000-0000-000000000001, 00000000:18:00.0)"
            in machine["gpu.count"]["message"])
    assert machine["gpu.ecc-uncorrectable"]["status"] == "fail"

    # --no-gpu: neither the machine's GPUs nor the gates.
    packages_only = run("check", "--lock", lock, "--prefix", prefix, "--no-gpu", "--format", "json",
                        env=environment("count=1"))
    ids = {check["id"] for check in json.loads(packages_only.stdout)["machine"]["checks"]}
    assert not ids & set(GATES)


def test_check_lock_leaves_a_busy_gpu_unmeasured(tmp_path):
    """Passive when busy: two processes of others hold GPU 0, so its baseline is not measured
    (perf skips with the pids and the option), and nothing runs on it."""
    prefix = tmp_path / "venv"
    shutil.copytree(SOURCE_DIR / "tests" / "data" / "prefixes" / "venv-basic", prefix)
    lock = tmp_path / "environment.lock.json"
    made = run("lock", "--prefix", prefix, "-o", lock, env=environment())
    assert made.returncode == 0, made.stderr
    locked = json.loads(lock.read_text())
    sample = json.loads((SOURCE_DIR / "tests" / "data" / "locks" / "sample.lock.json").read_text())
    locked["performance"] = sample["performance"]
    lock.write_text(json.dumps(locked))

    busy = run("check", "--lock", lock, "--prefix", prefix, "--format", "json",
               env=environment("busy"))
    report = json.loads(busy.stdout)
    jsonschema.validate(report, CHECK_SCHEMA)
    (perf,) = report["performance"]["checks"]
    assert perf["status"] == "skip", perf
    assert perf["message"] == ("GPU 0 is busy: 2 compute processes of others (pid 4242, 4343) hold "
                               "it; skipped so as not to disturb them (--even-if-busy runs it anyway)")
    assert busy.returncode == 0, busy.stdout

    # --even-if-busy measures it: with no real GPU here that fails, as it says.
    anyway = run("check", "--lock", lock, "--prefix", prefix, "--format", "json", "--even-if-busy",
                 env=environment("busy"))
    (perf,) = json.loads(anyway.stdout)["performance"]["checks"]
    assert perf["status"] == "fail"
    assert "no GPU could be probed" in perf["message"]
    assert anyway.returncode == 1
