"""End-to-end: envcheck against an NVIDIA driver that misbehaves.

The stand-in libcuda.so.1 and libnvidia-ml.so.1 that CMake builds from tests/fake_driver are put
first on LD_LIBRARY_PATH, where dlopen() finds them as it would a real driver; FAKE_CUDA and
FAKE_NVML choose what they do (tests/fake_driver/fake_driver.h): hang or crash while they load or
in cuInit/nvmlInit, print to stdout, fork a grandchild, report INT_MAX devices, or return strings
without a terminating NUL. Each case asserts the exit code, the message and the wall time against
the deadline the README documents: no driver may hang envcheck, crash it, write into its stdout,
leave processes behind or make it buffer without bound.
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest

try:
    import jsonschema
except ImportError:  # the GPU machine's python (tests/device/run.sh); CI always has it
    jsonschema = None

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
FAKE_DRIVER_DIR = os.environ["ENVCHECK_FAKE_DRIVER_DIR"]
PROBE_SCHEMA = json.loads((SOURCE_DIR / "schemas" / "probe.schema.json").read_text())
# A killed child that cannot be reaped is given up on after 1 s; the rest is process start-up
# and reading /proc and /sys on a loaded machine.
SLACK = 3.0


def environment(cuda="", nvml="", **extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CUDA_", "NVIDIA_", "CONDA_", "FAKE_", "VIRTUAL_ENV"))}
    env["LD_LIBRARY_PATH"] = FAKE_DRIVER_DIR
    env["FAKE_CUDA"] = cuda
    env["FAKE_NVML"] = nvml
    env.update(extra)
    return env


def envcheck(*args, env, timeout=300, cwd=None):
    """The result and the wall time of one run."""
    started = time.monotonic()
    result = subprocess.run([ENVCHECK, *map(str, args)], capture_output=True, text=True,
                            env=env, timeout=timeout, cwd=cwd)
    return result, time.monotonic() - started


def probe_json(*args, env, deadline):
    result, seconds = envcheck("probe", "--format", "json", *args, env=env)
    assert result.returncode == 0, result.stderr
    assert seconds < deadline, f"probe took {seconds:.1f} s"
    report = json.loads(result.stdout)  # nothing but the report on stdout
    if jsonschema is not None:
        jsonschema.validate(report, PROBE_SCHEMA)
    return report


def built_with_cuda():
    return "CUDA runtime: none" not in subprocess.run([ENVCHECK, "--version"], capture_output=True,
                                                      text=True).stdout


def gone(pid):
    """Whether the process has ended (a zombie waiting for its reaper has)."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat[stat.rindex(")") + 2] in "ZX"


# --- probe: both drivers at once, under one --timeout -----------------------------------------

@pytest.mark.parametrize("fault, cuda_step, nvml_step", [
    ("load-hang", "dlopen libcuda.so.1", "dlopen libnvidia-ml.so.1"),
    ("init-hang", "cuInit", "nvmlInit_v2"),
])
def test_probe_with_hanging_drivers_ends_at_its_timeout(fault, cuda_step, nvml_step):
    # Both children at once: 5 s, where one after the other took 10.
    report = probe_json("--timeout", "5", env=environment(fault, fault), deadline=5 + SLACK)
    assert report["cuda_driver"]["failure"] == {
        "timed_out": True, "step": cuda_step,
        "message": f"the CUDA driver probe timed out after 5 s in {cuda_step}"}
    assert report["nvml"]["failure"] == {
        "timed_out": True, "step": nvml_step,
        "message": f"the NVML probe timed out after 5 s in {nvml_step}"}
    if fault == "init-hang":
        # Loaded before it hung: which library it was is known.
        assert report["cuda_driver"]["library"]["real_path"] == FAKE_DRIVER_DIR + "/libcuda.so.1"
        assert report["nvml"]["library"]["real_path"] == FAKE_DRIVER_DIR + "/libnvidia-ml.so.1"
    else:
        assert report["cuda_driver"]["library"] is None


@pytest.mark.parametrize("fault, step, signal", [
    ("load-crash", "dlopen libcuda.so.1", "11 (SIGSEGV)"),
    ("init-crash", "cuInit", "11 (SIGSEGV)"),
    ("init-abort", "cuInit", "6 (SIGABRT)"),
])
def test_probe_with_a_crashing_driver_reports_the_signal_and_the_step(fault, step, signal):
    report = probe_json(env=environment(fault), deadline=20)
    failure = report["cuda_driver"]["failure"]
    assert failure["timed_out"] is False
    assert failure["step"] == step
    assert failure["message"].startswith(
        f"the CUDA driver probe was killed by signal {signal} in {step}")
    # The other child is not affected.
    assert report["nvml"]["failure"] is None
    assert report["nvml"]["init_result_name"] == "NVML_ERROR_DRIVER_NOT_LOADED"


@pytest.mark.parametrize("fault", ["load-stdout,init=0", "init-stdout,init=0"])
def test_a_driver_that_prints_never_reaches_stdout(fault):
    env = environment(fault, fault)
    report = probe_json(env=env, deadline=20)  # parses: the noise went elsewhere
    assert report["cuda_driver"]["init_result"] == 0
    assert report["nvml"]["init_result"] == 0
    text, _ = envcheck("probe", env=env)
    assert "noise" not in text.stdout and "noise" not in text.stderr


def test_a_driver_that_forks_leaves_no_process_behind(tmp_path):
    cuda_pid = tmp_path / "cuda.pid"
    report = probe_json(env=environment("load-fork,init=0", FAKE_PIDFILE=str(cuda_pid)), deadline=20)
    assert report["cuda_driver"]["failure"] is None
    pid = int(cuda_pid.read_text())
    deadline = time.monotonic() + 5
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(pid), f"the driver's grandchild {pid} outlived envcheck"


def peak_memory_kib(env, *args):
    """The exit status, peak resident memory (KiB) and stdout of one envcheck run, measured in a
    fresh Python whose only child is envcheck (or one of envcheck's children)."""
    measure = ("import resource, subprocess, sys\n"
               "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
               "print(done.stdout)\n")
    done = subprocess.run([sys.executable, "-c", measure, ENVCHECK, *args],
                          capture_output=True, text=True, env=env, timeout=120)
    status, peak_kib = map(int, done.stdout.splitlines()[0].split())
    return status, peak_kib, "\n".join(done.stdout.splitlines()[1:])


def test_a_driver_claiming_int_max_devices_is_bounded():
    # Against the same run with one device, so that the bound holds for any build: a sanitizer
    # build starts at about 200 MiB resident (shadow memory and a 260 MB binary).
    _, one_device_kib, _ = peak_memory_kib(environment("init=0", "init=0"), "probe", "--format",
                                           "json")
    started = time.monotonic()
    status, peak_kib, stdout = peak_memory_kib(environment("init=0,count-max", "init=0,count-max"),
                                               "probe", "--format", "json")
    seconds = time.monotonic() - started
    report = json.loads(stdout)
    assert status == 0
    assert seconds < 20
    assert peak_kib - one_device_kib < 64 * 1024, \
        f"peak memory {peak_kib} KiB against {one_device_kib} KiB with one device"
    assert report["cuda_driver"]["device_count"] == 2147483647
    assert len(report["cuda_driver"]["devices"]) == 256
    assert report["nvml"]["device_count"] == 2147483647
    assert len(report["nvml"]["gpus"]) == 256


def test_unterminated_strings_are_read_up_to_their_buffers():
    report = probe_json(env=environment("init=0,unterminated", "init=0,unterminated"), deadline=20)
    device = report["cuda_driver"]["devices"][0]
    assert device["name"] == "N" * 256
    assert device["pci_bus_id"] == "P" * 32
    nvml = report["nvml"]
    assert nvml["driver_version"] == "D" * 256
    assert nvml["nvml_version"] == "V" * 256
    assert nvml["gpus"][0]["name"] == "N" * 256
    assert nvml["gpus"][0]["uuid"] == "U" * 256
    assert nvml["gpus"][0]["pci_bus_id"] == "B" * 32


# --- doctor and slurm-health: the step that hung is named, never the container ---------------

@pytest.mark.parametrize("fault", ["load-hang", "load-crash", "init-hang"])
def test_doctor_names_the_driver_step_and_keeps_its_timeout(fault):
    result, seconds = envcheck("doctor", "--format", "json", "--timeout", "5",
                               env=environment(fault, fault))
    assert result.returncode == 1, result.stderr
    assert seconds < 5 + SLACK, f"doctor took {seconds:.1f} s"
    report = json.loads(result.stdout)
    outcomes = {check["id"]: check for check in report["checks"]}
    if outcomes["pci.nvidia-present"]["status"] == "pass":
        # A machine with a GPU (the device run): the driver's step is the broken link.
        broken = report["first_broken_link"]
        assert broken in ("driver.libcuda-found", "driver.libcuda-stub", "nvml.init",
                          "cuda.init"), report
        step = "dlopen" if fault.startswith("load") else "Init"
        if broken == "driver.libcuda-stub":
            # A stand-in that loads (init-hang) is not the driver's libcuda.so.1, and doctor
            # says so first; the hung step is still named where it ran.
            ran = [check for check in ("cuda.init", "nvml.init")
                   if outcomes[check]["status"] != "skip"]
            assert any(step in outcomes[check]["message"] for check in ran), report
        else:
            assert step in outcomes[broken]["message"]
        assert outcomes["container.gpu-passed-through"]["status"] != "fail"


def test_doctor_prometheus_output_is_only_metrics_when_the_driver_prints():
    result, _ = envcheck("doctor", "--format", "prometheus",
                         env=environment("load-stdout,init-stdout,init=0", "load-stdout,init=0"))
    assert "noise" not in result.stdout
    for line in result.stdout.splitlines():
        assert line.startswith("# ") or re.match(r"^[a-z_]+(\{[^}]*\})? [-0-9.e+NaInf]+$", line), line


def test_slurm_health_ends_inside_its_timeout_with_hanging_drivers():
    result, seconds = envcheck("slurm-health", "--prolog", "--node", "gpu07", "--timeout", "10",
                               "--scontrol", "/nonexistent/scontrol",
                               env=environment("init-hang", "init-hang"))
    assert seconds < 10, f"slurm-health took {seconds:.1f} s"
    assert "started without GPU access" not in result.stdout + result.stderr
    assert result.returncode in (0, 1, 2), result.stderr


# --- smoke: the probe child loads the driver, never envcheck ------------------------------------

@pytest.mark.parametrize("fault, step", [
    ("load-hang", "dlopen libcuda.so.1"),
    ("init-hang", "cuInit"),
])
def test_smoke_with_a_hanging_driver_ends_within_twice_its_timeout(fault, step):
    result, seconds = envcheck("smoke", "--timeout", "2", env=environment(fault, fault))
    assert result.returncode == 1, result.stdout + result.stderr
    # The probe child (2 s), then the doctor's diagnosis, whose driver probe has the same 2 s.
    assert seconds < 2 * 2 + SLACK, f"smoke took {seconds:.1f} s"
    if built_with_cuda():
        assert ("the probe process was stopped after 2 s without progress (SIGKILL) in " + step
                in result.stdout), result.stdout
    else:
        assert "built without CUDA" in result.stdout


@pytest.mark.parametrize("fault, step, signal", [
    ("load-crash", "dlopen libcuda.so.1", "11 (SIGSEGV)"),
    ("init-abort", "cuInit", "6 (SIGABRT)"),
])
def test_smoke_with_a_crashing_driver_exits_1_not_139(fault, step, signal):
    result, seconds = envcheck("smoke", "--timeout", "5", env=environment(fault))
    assert result.returncode == 1, result.stdout + result.stderr
    assert seconds < 2 * 5 + SLACK
    if built_with_cuda():
        assert f"the probe process was killed by signal {signal} in {step}" in result.stdout


def test_smoke_json_stays_json_when_the_driver_prints():
    result, _ = envcheck("smoke", "--format", "json", "--timeout", "5",
                         env=environment("load-stdout,init-stdout", "load-stdout"))
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["command"] == "smoke"
    assert "noise" not in result.stdout


def test_smoke_leaves_no_grandchild_behind(tmp_path):
    pidfile = tmp_path / "smoke.pid"
    result, seconds = envcheck("smoke", "--timeout", "5",
                               env=environment("load-fork", FAKE_PIDFILE=str(pidfile)))
    assert result.returncode == 1
    assert seconds < 2 * 5 + SLACK
    if built_with_cuda():
        pid = int(pidfile.read_text())
        deadline = time.monotonic() + 5
        while not gone(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gone(pid), f"the driver's grandchild {pid} outlived envcheck smoke"


# --- lock: the driver probe and the GPU baselines, each in a watched child ---------------------

@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    # Imported here: the rest of this file also runs on the GPU machine, which has no py-rattler
    # (tests/device/run.sh deselects the lock cases there).
    from clienv import realenv
    return realenv.build_channel(tmp_path_factory.mktemp("channel"))


@pytest.mark.parametrize("fault, deadline", [
    ("load-crash", 20),
    # The documented worst case: the driver probe's 20 s, then the GPU probe child's 30 s.
    ("load-hang", 20 + 30 + SLACK),
])
def test_lock_with_a_broken_driver_still_writes_the_lock(channel, tmp_path, fault, deadline):
    from clienv import project
    _, prefix = project(tmp_path, channel)
    lock = tmp_path / "broken-driver.lock.json"
    result, seconds = envcheck("lock", "--prefix", prefix, "--output", lock,
                               env=environment(fault, fault))
    assert result.returncode == 0, result.stdout + result.stderr
    assert seconds < deadline, f"lock took {seconds:.1f} s"
    document = json.loads(lock.read_text())
    assert document["machine"]["gpus"] is None
    assert document["performance"] is None
    assert "performance not recorded" in result.stdout
    if built_with_cuda():
        assert "dlopen libcuda.so.1" in result.stdout
