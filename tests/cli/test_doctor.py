"""End-to-end: `envcheck doctor` as a user runs it.

Scenarios are sysroot fixtures (tests/data/roots/<scenario>, read with --root): each check has a
tree where it passes and one where it fails. Device nodes are plain files there; git keeps no
modes, so each tree is copied and its dev/ files get 0666 (0660 where the scenario is about
permissions). The checks that need a loaded driver (nvml.init, cuda.init, cuda.device-count,
cuda.compute-mode, mig.configuration, framework.runtime-check) skip under --root; their pass and
fail cases are the unit tests in tests/checks/test_doctor*.cpp.

On this machine itself (no --root) the verdict must be right too: without an NVIDIA GPU,
pci.nvidia-present fails and everything else is skipped, exit 1.
"""
import json
import os
import pathlib
import subprocess
import sys

import jsonschema
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from sysroots import copy_root as root  # noqa: E402

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
SCHEMA = json.loads((SOURCE_DIR / "schemas" / "doctor-report.schema.json").read_text())

IDS = [
    "pci.nvidia-present", "wsl.driver", "kernel.module-loaded", "kernel.nouveau-bound",
    "kernel.module-matches-userspace", "container.gpu-passed-through", "devnodes.present",
    "devnodes.permissions", "driver.libcuda-found", "driver.libcuda-stub", "driver.compat-misuse",
    "nvml.init", "cuda.init", "cuda.visible-devices", "cuda.device-count", "cuda.compute-mode",
    "fabric-manager", "mig.configuration", "env.driver-supports-runtime", "env.framework-gpu-build",
    "env.framework-arch-support", "framework.runtime-check",
    "gpu.xid", "gpu.ecc-uncorrectable", "gpu.row-remapping", "gpu.retired-pages", "gpu.pcie-link",
    "gpu.throttle-hardware", "gpu.persistence-mode", "gpu.count", "gpu.nvlink",
]


def clean_environment(**extra):
    """The test's own environment: nothing from the machine that runs the tests leaks in."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CUDA_", "NVIDIA_", "CONDA_")) and k not in ("LD_LIBRARY_PATH", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def doctor(*args, env=None, timeout=120):
    result = subprocess.run([ENVCHECK, "doctor", *args], capture_output=True, text=True,
                            timeout=timeout, env=env or clean_environment())
    return result


def doctor_json(*args, env=None):
    result = doctor(*args, "--format", "json", env=env)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    jsonschema.validate(report, SCHEMA)
    assert [check["id"] for check in report["checks"]] == IDS
    assert report["verdict"] == ("pass" if result.returncode == 0 else "fail")
    return report


def statuses(report):
    return {check["id"]: check["status"] for check in report["checks"]}



# The walk of a healthy H200 node under --root: what files can show passes, what needs a loaded
# driver skips.
HEALTHY = {
    "pci.nvidia-present": "pass", "wsl.driver": "skip", "kernel.module-loaded": "pass",
    "kernel.nouveau-bound": "pass", "kernel.module-matches-userspace": "pass",
    "container.gpu-passed-through": "skip", "devnodes.present": "pass", "devnodes.permissions": "pass",
    "driver.libcuda-found": "pass", "driver.libcuda-stub": "pass", "driver.compat-misuse": "pass",
    "nvml.init": "skip", "cuda.init": "skip", "cuda.visible-devices": "pass",
    "cuda.device-count": "skip", "cuda.compute-mode": "skip", "fabric-manager": "skip",
    "mig.configuration": "skip", "env.driver-supports-runtime": "skip",
    "env.framework-gpu-build": "skip", "env.framework-arch-support": "skip",
    "framework.runtime-check": "skip",
    # The hardware gates: NVML is not loaded under --root; the kernel log is the tree's dev/kmsg
    # (driver-470 has none); the link as sysfs shows it.
    "gpu.xid": "skip", "gpu.ecc-uncorrectable": "skip", "gpu.row-remapping": "skip",
    "gpu.retired-pages": "skip", "gpu.pcie-link": "pass", "gpu.throttle-hardware": "skip",
    "gpu.persistence-mode": "skip", "gpu.count": "skip", "gpu.nvlink": "skip",
}

# scenario -> (first broken link or None, {check id: status}, text the deciding message holds)
SCENARIOS = {
    "h200-ok": (None, dict(HEALTHY, **{"gpu.xid": "pass"}), None),
    "h200-xid": ("gpu.xid", dict(HEALTHY, **{"gpu.xid": "fail"}),
                 "Xid 48 on 0000:17:00: pid='<unknown>', name=<unknown>, An uncorrectable double bit"),
    "driver-470": (None, HEALTHY, None),
    "no-gpu": ("pci.nvidia-present", {"pci.nvidia-present": "fail", "kernel.module-loaded": "skip"},
               "no NVIDIA device on the PCI bus"),
    "no-module": ("kernel.module-loaded", {"kernel.module-loaded": "fail", "kernel.nouveau-bound": "pass",
                                           "devnodes.present": "skip"}, "bound to no driver"),
    "nouveau": ("kernel.module-loaded", {"kernel.module-loaded": "fail", "kernel.nouveau-bound": "fail"},
                "bound to nouveau"),
    "vfio": ("kernel.module-loaded", {"kernel.module-loaded": "fail"}, "bound to vfio-pci"),
    "mismatch": ("kernel.module-matches-userspace", {"kernel.module-matches-userspace": "fail",
                                                     "devnodes.present": "pass"},
                 "the kernel module is 550.90.07 but libcuda.so.1 is 550.107.02"),
    "container-no-gpu": ("container.gpu-passed-through", {"container.gpu-passed-through": "fail",
                                                          "devnodes.present": "skip",
                                                          "driver.libcuda-found": "skip"},
                         "started without GPU access"),
    "container-gpu": (None, {"container.gpu-passed-through": "pass"}, None),
    "no-devnodes": ("devnodes.present", {"devnodes.present": "fail", "devnodes.permissions": "skip"},
                    "missing device nodes: /dev/nvidiactl"),
    "no-uvm": ("devnodes.present", {"devnodes.present": "fail"}, "missing device nodes: /dev/nvidia-uvm"),
    "no-libcuda": ("driver.libcuda-found", {"driver.libcuda-found": "fail", "driver.libcuda-stub": "skip"},
                   "no libcuda.so.1"),
    "stub": ("driver.libcuda-stub", {"driver.libcuda-found": "pass", "driver.libcuda-stub": "fail"},
             "link-time stub"),
    "compat": (None, {"driver.compat-misuse": "pass"}, None),
    "compat-older": (None, {"driver.compat-misuse": "warn"}, None),
    "wsl": (None, {"wsl.driver": "pass", "pci.nvidia-present": "skip", "kernel.module-loaded": "skip",
                   "devnodes.present": "skip", "driver.libcuda-found": "pass"}, None),
    "wsl-linux-driver": ("wsl.driver", {"wsl.driver": "fail"}, "shadows the one in /usr/lib/wsl/lib"),
    "nvswitch": (None, {"fabric-manager": "pass"}, None),
    "nvswitch-no-fabric-manager": ("fabric-manager", {"fabric-manager": "fail"},
                                   "without a running Fabric Manager"),
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_doctor_scenario(tmp_path, scenario):
    first, expected, message = SCENARIOS[scenario]
    report = doctor_json("--root", root(tmp_path, scenario))
    assert report["first_broken_link"] == first
    got = statuses(report)
    assert {check: got[check] for check in expected} == expected
    for check in report["checks"]:
        if check["status"] in ("fail", "warn"):
            assert check["fix"], check
    if first:
        deciding = next(check for check in report["checks"] if check["id"] == first)
        assert message in deciding["message"]


def test_every_file_check_has_a_passing_and_a_failing_fixture():
    covered = {check: set() for check in IDS}
    for _, expected, _ in SCENARIOS.values():
        for check, status in expected.items():
            covered[check].add(status)
    covered["devnodes.permissions"].add("fail")  # test_permissions
    # Need a loaded driver or a python to run (unit tests), or have their own tests below.
    elsewhere = {"nvml.init", "cuda.init", "cuda.device-count", "cuda.compute-mode", "mig.configuration",
                 "framework.runtime-check", "env.driver-supports-runtime", "env.framework-gpu-build",
                 "env.framework-arch-support", "cuda.visible-devices", "driver.compat-misuse",
                 # NVML's facts: tests/cli/test_hardware_gates.py (the fake NVML) and the unit
                 # tests; gpu.pcie-link and gpu.count also read sysfs, tested there too.
                 "gpu.ecc-uncorrectable", "gpu.row-remapping", "gpu.retired-pages", "gpu.pcie-link",
                 "gpu.throttle-hardware", "gpu.persistence-mode", "gpu.count", "gpu.nvlink"}
    for check in set(IDS) - elsewhere:
        assert {"pass", "fail"} <= covered[check], check


def test_permissions(tmp_path):
    report = doctor_json("--root", root(tmp_path, "devnode-permissions", node_mode=0o660))
    assert report["first_broken_link"] == "devnodes.permissions"
    assert "mode 0660" in report["checks"][IDS.index("devnodes.permissions")]["message"]
    assert statuses(report)["nvml.init"] == "skip"


@pytest.mark.parametrize("value,status", [("0", "pass"), ("GPU-", "pass"), ("-1", "fail"), ("", "fail"),
                                          ("3", "fail"), ("0,x", "warn")])
def test_cuda_visible_devices(tmp_path, value, status):
    report = doctor_json("--root", root(tmp_path, "h200-ok"), env=clean_environment(CUDA_VISIBLE_DEVICES=value))
    assert statuses(report)["cuda.visible-devices"] == status


def conda_prefix(tmp_path, records):
    prefix = tmp_path / "env"
    (prefix / "conda-meta").mkdir(parents=True)
    for name, version, build in records:
        record = {"name": name, "version": version, "build": build, "build_number": 0,
                  "channel": "https://conda.anaconda.org/conda-forge", "subdir": "linux-64",
                  "fn": f"{name}-{version}-{build}.conda", "depends": []}
        (prefix / "conda-meta" / f"{name}-{version}-{build}.json").write_text(json.dumps(record))
    return str(prefix)


@pytest.mark.parametrize("scenario,records,checks", [
    ("h200-ok", [("pytorch", "2.5.1", "py3.12_cuda12.4_cudnn9.1.0_0"), ("pytorch-cuda", "12.4", "hc786d27_7")],
     {"env.driver-supports-runtime": "pass", "env.framework-gpu-build": "pass"}),
    ("driver-470", [("pytorch", "2.5.1", "py3.12_cuda12.4_cudnn9.1.0_0"), ("pytorch-cuda", "12.4", "hc786d27_7")],
     {"env.driver-supports-runtime": "fail"}),
    ("driver-470", [("pytorch-cuda", "11.8", "h7e8668a_6")], {"env.driver-supports-runtime": "warn"}),
    ("h200-ok", [("pytorch", "2.1.0", "py3.10_cpu_0"), ("cpuonly", "2.0", "0")],
     {"env.framework-gpu-build": "fail", "env.driver-supports-runtime": "skip"}),
])
def test_environment_checks(tmp_path, scenario, records, checks):
    prefix = conda_prefix(tmp_path, records)
    report = doctor_json("--root", root(tmp_path, scenario), "--prefix", prefix)
    assert report["environment"] == "--prefix " + prefix
    got = statuses(report)
    assert {check: got[check] for check in checks} == checks
    # Under --root nothing is run, not even the environment's python.
    runtime = report["checks"][IDS.index("framework.runtime-check")]
    assert runtime["status"] == "skip"
    assert runtime["message"] == "--root: nothing is run"


def test_conda_prefix_from_the_environment(tmp_path):
    prefix = conda_prefix(tmp_path, [("cuda-version", "12.4", "h3060b56_3")])
    report = doctor_json("--root", root(tmp_path, "driver-470"), env=clean_environment(CONDA_PREFIX=prefix))
    assert report["environment"] == f"$CONDA_PREFIX ({prefix})"
    assert statuses(report)["env.driver-supports-runtime"] == "fail"


def test_environment_file(tmp_path):
    env_file = tmp_path / "environment.yml"
    env_file.write_text("name: ml\nchannels: [pytorch, nvidia]\ndependencies:\n  - python=3.11\n"
                        "  - pytorch-cuda=12.4\n  - pip\n  - pip:\n      - torch==2.3.0+cpu\n")
    report = doctor_json("--root", root(tmp_path, "h200-ok"), "--env", str(env_file))
    got = statuses(report)
    assert got["env.driver-supports-runtime"] == "pass"
    assert got["env.framework-gpu-build"] == "fail"
    assert "torch 2.3.0+cpu" in report["checks"][IDS.index("env.framework-gpu-build")]["message"]


def nvidia_on_pci():
    devices = pathlib.Path("/sys/bus/pci/devices")
    return devices.is_dir() and any((d / "vendor").read_text().strip() == "0x10de" for d in devices.iterdir()
                                    if (d / "vendor").exists())


def test_doctor_on_this_machine():
    if nvidia_on_pci():
        pytest.skip("this machine has an NVIDIA GPU: the device script (tests/device) covers it")
    result = doctor()
    assert result.returncode == 1, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() [:2] == ["FAIL", "pci.nvidia-present"]
    assert "no NVIDIA device on the PCI bus" in lines[0]
    assert lines[1].strip().startswith("fix: ")
    assert lines[-1] == ("verdict: fail; first broken link: pci.nvidia-present "
                         "(no NVIDIA device on the PCI bus)")
    assert "insufficient" not in result.stdout
    report = doctor_json()
    assert report["first_broken_link"] == "pci.nvidia-present"
    for check in report["checks"][1:]:
        assert check["status"] == "skip", check
    assert report["checks"][IDS.index("cuda.init")]["message"] == "skipped: pci.nvidia-present failed"


def test_list():
    result = doctor("--list")
    assert result.returncode == 0
    assert [line.split()[0] for line in result.stdout.splitlines()] == IDS


@pytest.mark.parametrize("args", [
    ["--root", "/nonexistent/root"],
    ["--prefix", "/nonexistent/prefix"],
    ["--prefix", "/tmp", "--env", "environment.yml"],
    ["--format", "yaml"],
    ["--timeout", "0"],
])
def test_usage_errors(args):
    result = doctor(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr


def test_output_file(tmp_path):
    out = tmp_path / "doctor.json"
    result = doctor("--root", root(tmp_path, "h200-ok"), "--format", "json", "--output", str(out))
    assert result.returncode == 0
    assert result.stdout == ""
    jsonschema.validate(json.loads(out.read_text()), SCHEMA)


def test_lock_file(tmp_path):
    lock = tmp_path / "explicit.txt"
    lock.write_text("@EXPLICIT\n"
                    "https://conda.anaconda.org/nvidia/linux-64/pytorch-cuda-12.4-hc786d27_7.tar.bz2\n"
                    "https://conda.anaconda.org/pytorch/linux-64/pytorch-2.5.1-py3.12_cuda12.4_cudnn9.1.0_0.tar.bz2\n")
    report = doctor_json("--root", root(tmp_path, "driver-470"), "--lock", str(lock))
    assert report["environment"] == "--lock " + str(lock)
    assert report["first_broken_link"] == "env.driver-supports-runtime"
    message = report["checks"][IDS.index("env.driver-supports-runtime")]["message"]
    assert "CUDA 12.4 (pytorch-cuda 12.4)" in message
    assert "470.82.01 (CUDA 11.4)" in message
    assert statuses(report)["env.framework-gpu-build"] == "pass"
