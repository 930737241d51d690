"""End-to-end: `envcheck probe` as a user runs it.

The report must validate against schemas/probe.schema.json on this machine (no GPU here, so the
driver libraries are simply not found) and under --root. The live NVML and CUDA driver paths run
against the stand-in driver libraries of tests/fake_driver (test_driver_faults.py has them hang,
crash, print and fork).
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

# The stand-in driver libraries CMake builds (tests/fake_driver); test_driver_faults.py runs
# every command against them misbehaving.
FAKE_DRIVER_DIR = os.environ["ENVCHECK_FAKE_DRIVER_DIR"]


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


def test_driver_that_answers():
    fake_driver = FAKE_DRIVER_DIR
    report = probe_json(env=environment(LD_LIBRARY_PATH=fake_driver, FAKE_CUDA="init=100",
                                        FAKE_NVML="init=9"))
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


def test_driver_with_a_device():
    report = probe_json(env=environment(LD_LIBRARY_PATH=FAKE_DRIVER_DIR, FAKE_CUDA="init=0",
                                        FAKE_NVML="init=0"))
    device = report["cuda_driver"]["devices"][0]
    assert device["ordinal"] == 0
    assert device["name"] == "Fake GPU"
    assert device["compute_capability"] == "9.0"
    assert device["clock_mhz"] == 1980
    assert device["l2_cache_bytes"] is None  # the stand-in does not answer it
    assert report["nvml"]["gpus"][0]["name"] == "Fake GPU"


def test_bad_root():
    result = probe("--root", "/nonexistent/root")
    assert result.returncode == 2
    assert "is not a directory" in result.stderr
