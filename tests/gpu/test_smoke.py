"""End-to-end: `envcheck smoke` as a user runs it, on whatever machine the tests run on.

Three kinds of machine give three expected answers, and each is asserted: a binary built without
CUDA says so; a CUDA build on a machine without the NVIDIA driver says "no NVIDIA driver" (never
cudart's misleading "driver version is insufficient"); a machine with a GPU passes every probe.
"""
import ctypes
import json
import os
import pathlib
import subprocess

import pytest

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
PROBES = ["hello", "matmul-shared", "bank-conflicts", "stream-overlap", "bandwidth", "tensor-gemm",
          "hbm"]


def run(*args, timeout=300):
    return subprocess.run([ENVCHECK, *args], capture_output=True, text=True, timeout=timeout)


def built_with_cuda():
    return "CUDA runtime: none" not in run("--version").stdout


def driver_present():
    try:
        ctypes.CDLL("libcuda.so.1")
        return True
    except OSError:
        return False


def machine():
    if not built_with_cuda():
        return "no_cuda_build"
    return "gpu" if driver_present() else "no_driver"


def test_smoke_answers_for_this_machine():
    result = run("smoke")
    kind = machine()
    if kind == "no_cuda_build":
        assert result.returncode == 1, result
        assert "built without CUDA" in result.stdout
    elif kind == "no_driver":
        assert result.returncode == 1, result
        assert "no NVIDIA driver (libcuda.so.1 not found)" in result.stdout
        assert "insufficient" not in result.stdout
        assert "envcheck doctor" in result.stdout
    else:
        assert result.returncode == 0, result.stdout + result.stderr
        for probe in PROBES:
            assert f"pass   {probe}" in result.stdout, result.stdout


def test_smoke_json_matches_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    result = run("smoke", "--format", "json")
    report = json.loads(result.stdout)
    schema = json.loads((SOURCE_DIR / "schemas" / "smoke-report.schema.json").read_text())
    jsonschema.validate(report, schema, cls=jsonschema.Draft202012Validator)
    expected = {"no_cuda_build": "built_without_cuda", "no_driver": "no_driver", "gpu": "available"}[machine()]
    assert report["availability"] == expected
    assert report["passed"] == (result.returncode == 0)
    if expected == "available":
        probes = report["devices"][0]["probes"]
        assert [probe["id"] for probe in probes] == PROBES
        assert all(probe["status"] == "pass" for probe in probes), probes
        by_id = {probe["id"]: probe for probe in probes}
        assert by_id["matmul-shared"]["metrics"]["tuned_tflops"] > 0
        # The tensor cores beat the FP32 SIMT kernel by far on any GPU our kernels run on.
        assert by_id["tensor-gemm"]["metrics"]["bf16_tflops"] > \
            2 * by_id["matmul-shared"]["metrics"]["tuned_tflops"]
        # The SM copy kernel is within reach of cudaMemcpy far past the L2.
        assert by_id["hbm"]["metrics"]["copy_vs_memcpy"] > 0.8


def test_smoke_output_file(tmp_path):
    target = tmp_path / "smoke.json"
    result = run("smoke", "--format", "json", "--output", str(target))
    assert result.stdout == ""
    assert json.loads(target.read_text())["command"] == "smoke"


def test_smoke_list():
    result = run("smoke", "--list")
    if machine() == "no_cuda_build":
        assert result.returncode == 1
        assert "built without CUDA" in result.stderr
    else:
        assert result.returncode == 0
        assert [line.split()[0] for line in result.stdout.splitlines()] == PROBES


def test_smoke_usage_errors():
    assert run("smoke", "--quick", "--full").returncode == 2
    assert run("smoke", "--device", "0", "--all-devices").returncode == 2
    assert run("smoke", "--format", "yaml").returncode == 2
    assert run("smoke", "--device", "-1").returncode == 2
    if machine() != "no_cuda_build":
        unknown = run("smoke", "--probe", "matmul")
        assert unknown.returncode == 2
        assert "did you mean 'matmul-shared'" in unknown.stderr


@pytest.mark.skipif(machine() != "gpu", reason="needs a GPU")
def test_smoke_on_a_gpu():
    one = json.loads(run("smoke", "--probe", "hello", "--format", "json").stdout)
    assert [probe["id"] for probe in one["devices"][0]["probes"]] == ["hello"]
    missing = run("smoke", "--device", "99")
    assert missing.returncode == 2
    assert "device 99 was asked for" in missing.stdout
    # Not a terminal: no progress lines.
    assert "[1/" not in run("smoke", "--probe", "hello").stderr
