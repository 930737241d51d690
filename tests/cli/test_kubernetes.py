"""The Kubernetes examples in envs/fleet/kubernetes/ are real: they parse as Kubernetes objects,
every envcheck command line in them is accepted by this build of envcheck (run with its paths
moved into a temp dir), and the files the DaemonSet writes have the formats their readers need:
a Node Feature Discovery local feature file (key=value lines, label-safe values, an expiry
comment NFD honours) and a textfile-collector .prom file.
"""
import datetime
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys

import yaml

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from sysroots import copy_root  # noqa: E402

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
MANIFESTS = SOURCE_DIR / "envs" / "fleet" / "kubernetes"
ROOTS = SOURCE_DIR / "tests" / "data" / "roots"
PREFIXES = SOURCE_DIR / "tests" / "data" / "prefixes"

# NFD's local source: "<name>=<value>" per line; "# +expiry-time=<RFC 3339>" and "# +no-label"
# directives; names are <prefix>/<name>, and values that become labels follow the label rules.
FEATURE_LINE = re.compile(r"^(envcheck\.io/[A-Za-z0-9][-A-Za-z0-9_.]*)=(.*)$")
LABEL_VALUE = re.compile(r"^(|[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$")
EXPIRY = re.compile(r"^# \+expiry-time=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)$")


def manifest(name):
    return list(yaml.safe_load_all((MANIFESTS / name).read_text()))


def envcheck_lines(script):
    """The envcheck command lines of a shell script, continuation lines joined."""
    joined = script.replace("\\\n", " ")
    return [shlex.split(line.strip()) for line in joined.splitlines()
            if line.strip().startswith("envcheck ")]



def relocate(argv, host_dirs, tmp_path):
    """argv with every --output under a hostPath volume moved into tmp_path."""
    moved = []
    for arg in argv:
        for host_dir in host_dirs:
            if arg.startswith(host_dir + "/"):
                arg = str(tmp_path / "host" / arg.lstrip("/"))
                pathlib.Path(arg).parent.mkdir(parents=True, exist_ok=True)
        moved.append(arg)
    return moved


def test_daemonset_is_a_daemonset_whose_outputs_are_its_volumes():
    (daemonset,) = manifest("daemonset.yaml")
    assert daemonset["apiVersion"] == "apps/v1" and daemonset["kind"] == "DaemonSet"
    spec = daemonset["spec"]
    assert spec["selector"]["matchLabels"].items() <= spec["template"]["metadata"]["labels"].items()
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    host_paths = {volume["name"]: volume["hostPath"]["path"] for volume in pod["volumes"]}
    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    assert mounts.keys() == host_paths.keys()
    lines = envcheck_lines(container["args"][0])
    # Passive checks only: nothing runs on GPUs that training jobs may hold.
    assert [line[1] for line in lines] == ["doctor", "doctor"]
    assert "--even-if-busy" not in container["args"][0]
    assert mounts["kmsg"] == host_paths["kmsg"] == "/dev/kmsg"  # gpu.xid reads the host's log
    for line in lines:
        output = line[line.index("--output") + 1]
        assert any(output.startswith(path + "/") for path in mounts.values() if path != "/dev/kmsg"), output


def test_daemonset_commands_write_an_nfd_feature_file_and_prom_files(tmp_path):
    (daemonset,) = manifest("daemonset.yaml")
    pod = daemonset["spec"]["template"]["spec"]
    mounts = [mount["mountPath"] for mount in pod["containers"][0]["volumeMounts"]]
    root = copy_root(tmp_path, "h200-ok")
    written = {}
    for line in envcheck_lines(pod["containers"][0]["args"][0]):
        argv = relocate(line, mounts, tmp_path)
        if argv[1] == "doctor":
            argv += ["--root", str(root)]
        result = subprocess.run([ENVCHECK, *argv[1:]], capture_output=True, text=True, timeout=120)
        # 0 or 1 (a finding): never 2, a usage error in the manifest.
        assert result.returncode in (0, 1), (argv, result.stderr)
        output = pathlib.Path(argv[argv.index("--output") + 1])
        written[output.name] = output.read_text()

    features = written["envcheck"]
    lines = features.splitlines()
    expiries = [EXPIRY.match(line) for line in lines if line.startswith("# +expiry-time")]
    assert len(expiries) == 1 and expiries[0], lines[:3]
    expiry = datetime.datetime.strptime(expiries[0].group(1), "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc)
    left = (expiry - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    assert 1800 - 120 < left <= 1800 + 1
    labels, after_no_label = {}, False
    for line in lines:
        if line.startswith("#"):
            after_no_label = after_no_label or line == "# +no-label"
            continue
        match = FEATURE_LINE.match(line)
        assert match, line
        if not after_no_label:
            assert LABEL_VALUE.match(match.group(2)), line
            labels[match.group(1)] = match.group(2)
    # The labels a scheduler selects on: the doctor's verdict, the driver it saw.
    assert labels["envcheck.io/cuda-usable"] == "true"
    assert labels["envcheck.io/driver-version"] == "580.65.06"

    for name in ("envcheck-doctor.prom",):
        prom = written[name]
        assert "# TYPE envcheck_check_status gauge" in prom, name
        assert re.search(r"^envcheck_last_run_timestamp_seconds\{[^}]*\} \d+", prom, re.M), name


def test_nfd_values_stay_label_safe_on_a_broken_node(tmp_path):
    """A broken node's features are still valid labels: cuda-usable=false, no stray values."""
    output = tmp_path / "features"
    result = subprocess.run([ENVCHECK, "doctor", "--root", str(ROOTS / "no-gpu"), "--format", "nfd",
                             "--output", str(output)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1, result.stderr
    text = output.read_text()
    assert "envcheck.io/cuda-usable=false" in text.splitlines()
    for line in text.splitlines():
        if not line.startswith("#"):
            name, value = FEATURE_LINE.match(line).groups()
            assert LABEL_VALUE.match(value), line


def test_training_job_init_container_checks_against_the_lock(tmp_path):
    (job,) = manifest("training-job-initcontainer.yaml")
    assert job["apiVersion"] == "batch/v1" and job["kind"] == "Job"
    pod = job["spec"]["template"]["spec"]
    assert pod["restartPolicy"] == "Never"
    (init,) = pod["initContainers"]
    assert init["image"] == pod["containers"][0]["image"]
    argv = list(init["command"])
    assert argv[:2] == ["envcheck", "check"]

    # The same command against a real lock of a real prefix: it passes, then fails on drift.
    prefix = tmp_path / "env"
    shutil.copytree(PREFIXES / "conda-basic", prefix, symlinks=True)
    # The fixture keeps two unreadable records for the reader's tests; a lockable copy has none.
    (prefix / "conda-meta" / "broken-1.0-0.json").unlink()
    shutil.rmtree(prefix / "lib" / "python3.11" / "site-packages" / "broken_dist-1.0.dist-info")
    lock = tmp_path / "environment.lock.json"
    locked = subprocess.run([ENVCHECK, "lock", "--prefix", str(prefix), "--no-gpu", "--output",
                             str(lock)], capture_output=True, text=True, timeout=60)
    assert locked.returncode == 0, locked.stderr
    argv[argv.index("--lock") + 1] = str(lock)
    argv[argv.index("--prefix") + 1] = str(prefix)
    checked = subprocess.run([ENVCHECK, *argv[1:], "--no-gpu"], capture_output=True, text=True,
                             timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    (prefix / "conda-meta" / "hello-1.0-h0_0.json").unlink()
    drifted = subprocess.run([ENVCHECK, *argv[1:], "--no-gpu"], capture_output=True, text=True,
                             timeout=60)
    assert drifted.returncode == 1, drifted.stdout + drifted.stderr
    assert re.search(r"conda hello +locked 1.0 h0_0, not installed", drifted.stdout)
