"""`envcheck report` end to end: a real venv with pip-installed wheels (torch's metadata and
torch/version.py, the nvidia-cudnn-cu12 and nvidia-cublas-cu12 wheels' libraries as small files
under nvidia/*/lib, built here, installed offline), a real conda environment made with rattler,
LD_LIBRARY_PATH pointing at another copy of libcudnn.so.9 (pytorch#80637's shadowing), and secrets
in PIP_INDEX_URL, a CONDA_* variable and a channel URL that must not reach the output. Nothing is
imported or loaded: the libraries are placeholder files, found by name.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "prefix"))
import realenv  # noqa: E402
from sysroots import copy_root  # noqa: E402

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
SCHEMA = "bug-report.schema.json"
SECRETS = ("s3cr3t-pip", "tk-SECRET-42", "hunter2", "hf_abcdef")
TORCH_VERSION_PY = b"__version__ = '2.7.0+cu128'\ndebug = False\ncuda: Optional[str] = '12.8'\n" \
                   b"git_version = '0123abc'\nhip: Optional[str] = None\n"


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    directory = tmp_path_factory.mktemp("wheels")
    return {
        "torch": realenv.build_wheel(directory, "torch", "2.7.0+cu128",
                                     files={"torch/version.py": TORCH_VERSION_PY}),
        "cudnn": realenv.build_wheel(directory, "nvidia-cudnn-cu12", "9.1.0.70", module=False,
                                     files={"nvidia/cudnn/lib/libcudnn.so.9": b"\x7fELF cudnn 9.1\n"}),
        "cublas": realenv.build_wheel(directory, "nvidia-cublas-cu12", "12.8.4.1", module=False,
                                      files={"nvidia/cublas/lib/libcublas.so.12": b"\x7fELF cublas\n",
                                             "nvidia/cublas/lib/libcublasLt.so.12": b"\x7fELF lt\n"}),
        "alpha": realenv.build_wheel(directory, "alpha", "1.0"),
    }


def make_venv(tmp_path, *wheel_files):
    prefix = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", prefix], check=True)
    site = next(prefix.glob("lib/python3*/site-packages"))
    realenv.pip_install(["--target", site, *wheel_files])
    return prefix, site


def old_cudnn(tmp_path):
    """A directory for LD_LIBRARY_PATH with another cuDNN: libcudnn.so.9 -> libcudnn.so.9.0.0."""
    directory = tmp_path / "old-cudnn"
    directory.mkdir()
    (directory / "libcudnn.so.9.0.0").write_bytes(b"\x7fELF cudnn 9.0\n")
    (directory / "libcudnn.so.9").symlink_to("libcudnn.so.9.0.0")
    return directory


def run_report(*args, extra_env=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CONDA_", "VIRTUAL_ENV", "PIP_", "LD_LIBRARY_PATH"))}
    env.update({
        "PIP_INDEX_URL": "https://alice:s3cr3t-pip@pypi.example.com/simple",
        "CONDA_CHANNEL_ALIAS": "https://conda.example.com/t/tk-SECRET-42/",
        "HF_TOKEN": "hf_abcdef",
    })
    env.update(extra_env or {})
    result = subprocess.run([ENVCHECK, "report", *map(str, args)], capture_output=True, text=True,
                            env=env, timeout=300)
    for secret in SECRETS:
        assert secret not in result.stdout + result.stderr, secret
    return result


def fields(markdown):
    """{key: value} of the report's "key: value" lines (the first of each key)."""
    out = {}
    for line in markdown.splitlines():
        match = re.match(r"^([^ :][^:]*): (.*)$", line)
        if match and match.group(1) not in out:
            out[match.group(1)] = match.group(2)
    return out


def test_venv_with_torch_shadowed_by_ld_library_path(tmp_path, wheels):
    prefix, site = make_venv(tmp_path, wheels["torch"], wheels["cudnn"], wheels["cublas"])
    ld_dir = old_cudnn(tmp_path)
    result = run_report("--prefix", prefix, extra_env={"LD_LIBRARY_PATH": str(ld_dir)})
    assert result.returncode == 0, result.stderr
    text = result.stdout
    # One fenced block, as collect_env's, to paste into an issue.
    assert text.startswith("```text\n") and text.endswith("\n```\n")
    assert text.count("```") == 2
    values = fields(text)
    assert values["Prefix"] == str(prefix)
    assert values["Kind"] == "venv"
    assert values["Packages"] == "0 conda, 3 pip"
    assert values["torch"] == "torch 2.7.0+cu128 (pip), CUDA build 12.8 (torch/version.py)"
    # The loader takes LD_LIBRARY_PATH's cuDNN over the wheel's: pytorch#80637.
    assert values["libcudnn.so.9"] == (f"{ld_dir}/libcudnn.so.9 -> {ld_dir}/libcudnn.so.9.0.0 "
                                       "(LD_LIBRARY_PATH, version 9.0.0)")
    assert (f"  SHADOWS the environment's copy: {site}/nvidia/cudnn/lib/libcudnn.so.9 "
            "(environment, pip nvidia-cudnn-cu12 9.1.0.70)") in text.splitlines()
    assert values["libcublas.so.12"] == (f"{site}/nvidia/cublas/lib/libcublas.so.12 "
                                         "(environment, pip nvidia-cublas-cu12 12.8.4.1)")
    assert "libcublasLt" not in text
    # Secrets: the reported variables are there, their credentials are not.
    assert "PIP_INDEX_URL=https://<redacted>@pypi.example.com/simple" in text.splitlines()
    assert "CONDA_CHANNEL_ALIAS=https://conda.example.com/t/<redacted>/" in text.splitlines()
    assert "HF_TOKEN" not in text  # not a variable a report shows
    assert f"LD_LIBRARY_PATH={ld_dir}" in text.splitlines()

    as_json = run_report("--prefix", prefix, "--format", "json",
                         extra_env={"LD_LIBRARY_PATH": str(ld_dir)})
    assert as_json.returncode == 0, as_json.stderr
    document = json.loads(as_json.stdout)
    realenv.validate(document, SCHEMA)
    cudnn = next(row for row in document["libraries"] if row["file"] == "libcudnn.so.9")
    assert cudnn["environment_shadowed"] is True
    assert cudnn["loaded"]["found_via"] == "LD_LIBRARY_PATH"
    assert cudnn["passed_over"][0]["source"] == "pip nvidia-cudnn-cu12 9.1.0.70"
    assert document["frameworks"][0]["cuda_build"] == "12.8"


def test_without_ld_library_path_the_wheels_copy_is_loaded(tmp_path, wheels):
    prefix, site = make_venv(tmp_path, wheels["torch"], wheels["cudnn"])
    result = run_report("--prefix", prefix, "--format", "json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    realenv.validate(document, SCHEMA)
    cudnn = [row for row in document["libraries"] if row["library"] == "libcudnn"]
    environment_copy = [row for row in cudnn if row["loaded"] and row["loaded"]["found_via"] == "environment"]
    assert len(environment_copy) == 1
    assert environment_copy[0]["loaded"]["path"] == f"{site}/nvidia/cudnn/lib/libcudnn.so.9"
    assert environment_copy[0]["environment_shadowed"] is False


def test_works_without_torch_and_without_a_gpu(tmp_path, wheels):
    prefix, _ = make_venv(tmp_path, wheels["alpha"])
    result = run_report("--prefix", prefix, "--root", copy_root(tmp_path, "no-gpu"))
    assert result.returncode == 0, result.stderr
    values = fields(result.stdout)
    assert "none of torch, jax, tensorflow" in result.stdout
    assert values["Verdict"].startswith("broken at ")
    assert values["GPUs"].startswith("none: --root")
    # Nothing is guessed: what is unknown says so.
    assert values["CUDA the driver supports"].startswith("could not collect: ")
    assert values["Source"].startswith("could not collect: no --lock given")


def test_activated_environment_and_none(tmp_path, wheels):
    prefix, _ = make_venv(tmp_path, wheels["alpha"])
    activated = run_report(extra_env={"VIRTUAL_ENV": str(prefix)})
    assert activated.returncode == 0, activated.stderr
    assert fields(activated.stdout)["Found by"] == "$VIRTUAL_ENV"
    none = run_report()
    assert none.returncode == 0, none.stderr
    assert fields(none.stdout)["Prefix"].startswith("could not collect: ")
    assert "could not collect: no environment" in none.stdout  # the frameworks


def test_h200_sysroot_with_a_lock_s_baselines(tmp_path):
    lock = SOURCE_DIR / "tests" / "data" / "locks" / "sample.lock.json"
    result = run_report("--root", copy_root(tmp_path, "h200-ok"), "--lock", lock)
    assert result.returncode == 0, result.stderr
    values = fields(result.stdout)
    assert values["Verdict"] == "CUDA usable"
    assert values["Driver version"] == "580.65.06"
    assert re.match(rf"^{re.escape(str(lock))}, recorded 2026-11-30T20:00:00Z \(\d+ \w+ ago\)$",
                    values["Source"]), values["Source"]
    assert values["GPU 0 NVIDIA H200"] == "bandwidth.h2d_pinned_gbps 55.12 GB/s"


def test_conda_environment_channel_secret_and_prefix_lib(tmp_path):
    channel = tmp_path / "channel"
    realenv.conda_package(channel, "python", "3.11.9", "h0_0_cpython",
                          {f"{realenv.SITE_PACKAGES}/README.txt": b"site-packages\n"})
    realenv.conda_package(channel, "nccl", "2.23.4.1", "h0_0", {"lib/libnccl.so.2": b"\x7fELF nccl\n"})
    realenv.conda_package(channel, "pytorch", "2.5.1", "cuda126_py311h0_300",
                          {f"{realenv.SITE_PACKAGES}/torch/__init__.py": b""}, depends=["python"])
    (channel / "noarch").mkdir(exist_ok=True)
    realenv.index(channel)
    prefix = tmp_path / "env"
    realenv.create_env(channel, prefix, ["pytorch", "nccl"], tmp_path / "cache")
    # The channel as a private one records it: credentials in the URL.
    record = next((prefix / "conda-meta").glob("pytorch-*.json"))
    data = json.loads(record.read_text())
    data["channel"] = "https://bob:hunter2@conda.example.com/t/tk-SECRET-42/ml"
    record.write_text(json.dumps(data))

    result = run_report("--prefix", prefix)
    assert result.returncode == 0, result.stderr
    values = fields(result.stdout)
    assert values["Kind"] == "conda"
    assert "https://<redacted>@conda.example.com/t/<redacted>/ml" in values["Channels"]
    assert values["torch"] == ("pytorch 2.5.1 (conda), CUDA build 12.6 "
                               "(conda build cuda126_py311h0_300)")
    assert values["libnccl.so.2"] == f"{prefix}/lib/libnccl.so.2 (environment, conda prefix)"


def test_a_named_environment_that_is_not_one_is_an_error(tmp_path):
    result = run_report("--prefix", tmp_path / "nowhere")
    assert result.returncode == 2
    assert "envcheck: error:" in result.stderr
