"""End-to-end: `envcheck probe` as a user runs it.

The report must validate against schemas/probe.schema.json on this machine (no GPU here, so the
driver libraries are simply not found) and under --root. The live NVML and CUDA driver paths,
including a cuInit that hangs and one that crashes, run against stand-in driver libraries that
this test compiles: no real driver can load here, and the probe's child process, deadline and
pipe are what is under test.
"""
import json
import os
import pathlib
import shutil
import subprocess

import jsonschema
import pytest

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
ROOTS = SOURCE_DIR / "tests" / "data" / "roots"
SCHEMA = json.loads((SOURCE_DIR / "schemas" / "probe.schema.json").read_text())

FAKE_LIBCUDA = r"""
#include <stdlib.h>
#include <unistd.h>
int cuDriverGetVersion(int* version) { *version = 12080; return 0; }
int cuInit(unsigned flags) {
    const char* mode = getenv("FAKE_CUINIT");
    if (mode && mode[0] == 'h') { for (;;) pause(); }
    if (mode && mode[0] == 'c') { abort(); }
    return mode ? atoi(mode) : 100;
}
"""

FAKE_NVML = r"""
#include <stdlib.h>
int nvmlInit_v2(void) { const char* code = getenv("FAKE_NVMLINIT"); return code ? atoi(code) : 9; }
int nvmlShutdown(void) { return 0; }
"""


def environment(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CUDA_", "NVIDIA_", "CONDA_", "FAKE_")) and k != "LD_LIBRARY_PATH"}
    env.update(extra)
    return env


def probe(*args, env=None, timeout=120):
    return subprocess.run([ENVCHECK, "probe", *args], capture_output=True, text=True, timeout=timeout,
                          env=env or environment())


def probe_json(*args, env=None):
    result = probe(*args, "--format", "json", env=env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    jsonschema.validate(report, SCHEMA)
    return report


@pytest.fixture(scope="module")
def fake_driver(tmp_path_factory):
    if shutil.which("cc") is None:
        pytest.skip("no C compiler for the stand-in driver libraries")
    directory = tmp_path_factory.mktemp("fake-driver")
    for name, source in (("libcuda.so.1", FAKE_LIBCUDA), ("libnvidia-ml.so.1", FAKE_NVML)):
        (directory / (name + ".c")).write_text(source)
        subprocess.run(["cc", "-shared", "-fPIC", "-o", str(directory / name), str(directory / (name + ".c"))],
                       check=True)
    return str(directory)


def test_probe_this_machine():
    report = probe_json()
    assert report["live"] is True
    assert report["root"] == "/"
    assert report["nvml"]["attempted"] and report["cuda_driver"]["attempted"]
    assert report["nvml"]["failure"] is None and report["cuda_driver"]["failure"] is None
    text = probe().stdout
    assert text.splitlines()[0] == "envcheck   probe of this machine"
    for label in ("host", "cpu", "container", "pci", "kernel", "devices", "libcuda", "nvml", "cuda", "runtime"):
        assert any(line.startswith(label + " ") for line in text.splitlines()), label


def test_probe_root(tmp_path):
    target = tmp_path / "h200-ok"
    shutil.copytree(ROOTS / "h200-ok", target, symlinks=True)
    report = probe_json("--root", str(target))
    assert report["live"] is False
    assert report["root"] == str(target)
    assert report["summary"]["driver_version"] == "580.65.06"
    assert report["nvml"]["attempted"] is False
    assert report["pci"]["devices"][0]["driver"] == "nvidia"
    assert report["libraries"]["libcuda"][0]["real_path"] == "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06"
    assert "files only: nothing loaded" in probe("--root", str(target)).stdout


def test_secrets_never_appear():
    env = environment(HF_TOKEN="hf_sekrit", NVIDIA_API_KEY="nvapi-sekrit",
                      PIP_INDEX_URL="https://alice:sekrit@pypi.example.com/simple",
                      CUDA_VISIBLE_DEVICES="0")
    for args in ((), ("--format", "json")):
        result = probe(*args, env=env)
        assert result.returncode == 0
        assert "sekrit" not in result.stdout
    report = probe_json(env=env)
    shown = {v["name"]: v for v in report["environment"]}
    assert shown["NVIDIA_API_KEY"] == {"name": "NVIDIA_API_KEY", "value": "<redacted>", "redacted": True}
    assert shown["PIP_INDEX_URL"]["value"] == "https://<redacted>@pypi.example.com/simple"
    assert shown["CUDA_VISIBLE_DEVICES"]["value"] == "0"


def test_driver_that_answers(fake_driver):
    report = probe_json(env=environment(LD_LIBRARY_PATH=fake_driver, FAKE_CUINIT="100", FAKE_NVMLINIT="9"))
    cuda = report["cuda_driver"]
    assert cuda["library"]["real_path"] == fake_driver + "/libcuda.so.1"
    assert cuda["library"]["found_via"] == "dlopen"
    assert cuda["driver_version"] == "12.8"
    assert cuda["init_result"] == 100
    assert cuda["init_result_name"] == "CUDA_ERROR_NO_DEVICE"
    nvml = report["nvml"]
    assert nvml["library"]["real_path"] == fake_driver + "/libnvidia-ml.so.1"
    assert nvml["init_result_name"] == "NVML_ERROR_DRIVER_NOT_LOADED"
    assert report["libraries"]["libcuda"][0]["found_via"] == "LD_LIBRARY_PATH"


def test_cuinit_that_hangs(fake_driver):
    result = probe("--format", "json", "--timeout", "1",
                   env=environment(LD_LIBRARY_PATH=fake_driver, FAKE_CUINIT="hang"), timeout=60)
    assert result.returncode == 0
    report = json.loads(result.stdout)
    jsonschema.validate(report, SCHEMA)
    failure = report["cuda_driver"]["failure"]
    assert failure == {"timed_out": True, "step": "cuInit",
                       "message": "the CUDA driver probe timed out after 1 s in cuInit"}


def test_cuinit_that_crashes(fake_driver):
    report = probe_json(env=environment(LD_LIBRARY_PATH=fake_driver, FAKE_CUINIT="crash"))
    failure = report["cuda_driver"]["failure"]
    assert failure["timed_out"] is False
    assert failure["step"] == "cuInit"
    assert "killed by signal 6" in failure["message"]


def test_bad_root():
    result = probe("--root", "/nonexistent/root")
    assert result.returncode == 2
    assert "is not a directory" in result.stderr
