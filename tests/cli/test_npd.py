"""`--format npd` and envs/fleet/kubernetes/npd-envcheck.json: envcheck as a Node Problem
Detector custom plugin.

The real node-problem-detector is not packaged by Debian and GitHub is out of reach here, so
these tests hold envcheck to NPD's documented protocol (pkg/custompluginmonitor): the config
has the fields NPD's CustomPluginConfig reads and passes its Validate() (plugin "custom", every
rule's timeout within the global one, every permanent rule's condition among the default
conditions), and each rule's command, run against sysroots, prints one line within
max_output_length and exits 0 (OK), 1 (NonOK: a node problem) or something else (Unknown: the
check could not run, a bad command line).
"""
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from sysroots import copy_root  # noqa: E402

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
FAKE_DRIVER_DIR = os.environ["ENVCHECK_FAKE_DRIVER_DIR"]
CONFIG_PATH = SOURCE_DIR / "envs" / "fleet" / "kubernetes" / "npd-envcheck.json"
# Go's time.ParseDuration, as NPD parses invoke_interval and timeout.
GO_DURATION = re.compile(r"^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$")
UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
CHECK_ID = re.compile(r"^[a-z][a-z0-9_.-]*[a-z0-9]")


def seconds(duration):
    assert GO_DURATION.match(duration), duration
    return sum(float(number) * UNITS[unit]
               for number, _, unit in re.findall(r"(\d+(\.\d+)?)(ns|us|µs|ms|s|m|h)", duration))


def config():
    return json.loads(CONFIG_PATH.read_text())


def run_rule(rule, *extra, env=None):
    """The rule's command line with this build of envcheck, as NPD runs it: stdout (trimmed, as
    NPD trims it) and the exit status."""
    assert pathlib.PurePosixPath(rule["path"]).name == "envcheck"
    result = subprocess.run([ENVCHECK, *rule["args"], *extra], capture_output=True, text=True,
                            timeout=seconds(rule["timeout"]), env=env)
    return result.stdout.strip(), result.returncode, result.stderr


def test_config_has_the_fields_npd_reads_and_passes_its_validation():
    cfg = config()
    assert cfg["plugin"] == "custom"
    plugin = cfg["pluginConfig"]
    assert set(plugin) <= {"invoke_interval", "timeout", "max_output_length", "concurrency",
                           "enable_message_change_based_condition_update", "skip_initial_status"}
    global_timeout = seconds(plugin["timeout"])
    # A run must end before the next starts: a wedged driver holds doctor up to its --timeout
    # for NVML and for cuInit.
    assert global_timeout < seconds(plugin["invoke_interval"])
    assert isinstance(plugin["max_output_length"], int) and plugin["max_output_length"] > 0
    assert isinstance(plugin["concurrency"], int) and plugin["concurrency"] >= 1
    assert isinstance(cfg["source"], str) and cfg["source"]
    conditions = {condition["type"]: condition for condition in cfg["conditions"]}
    for condition in cfg["conditions"]:
        assert set(condition) == {"type", "reason", "message"}
        assert all(isinstance(value, str) and value for value in condition.values())
    assert {rule["type"] for rule in cfg["rules"]} == {"temporary", "permanent"}
    for rule in cfg["rules"]:
        assert set(rule) <= {"type", "condition", "reason", "path", "args", "timeout"}
        assert rule["reason"] and rule["path"].startswith("/")
        assert isinstance(rule["args"], list) and all(isinstance(a, str) for a in rule["args"])
        assert seconds(rule["timeout"]) <= global_timeout  # Validate(): within the global one
        if rule["type"] == "permanent":
            assert rule["condition"] in conditions
        # Within NPD's timeout, with room for NVML and cuInit hanging to their deadline.
        timeout = float(rule["args"][rule["args"].index("--timeout") + 1])
        assert 2 * timeout + 10 <= seconds(rule["timeout"])
        # The line is cut where NPD cuts it, so what NPD cuts is nothing.
        assert rule["args"][rule["args"].index("--npd-max-length") + 1] == str(
            plugin["max_output_length"])


@pytest.mark.parametrize("rule_index", [0, 1])
def test_a_healthy_node_is_ok(tmp_path, rule_index):
    rule = config()["rules"][rule_index]
    limit = config()["pluginConfig"]["max_output_length"]
    out, status, err = run_rule(rule, "--root", copy_root(tmp_path, "h200-ok"))
    assert status == 0, err
    assert out.startswith("OK: doctor ") and "\n" not in out and len(out.encode()) <= limit, out


@pytest.mark.parametrize("scenario", ["no-gpu", "no-module", "mismatch", "h200-xid"])
def test_a_broken_node_is_a_problem_named_by_its_check_id(tmp_path, scenario):
    rule = next(rule for rule in config()["rules"] if rule["type"] == "permanent")
    limit = config()["pluginConfig"]["max_output_length"]
    root = copy_root(tmp_path, scenario)
    out, status, err = run_rule(rule, "--root", root)
    assert status == 1, (out, err)
    assert "\n" not in out and len(out.encode()) <= limit, out
    # The first failed check's id leads the line (it survives any cut), as doctor's json names it.
    doctor = subprocess.run([ENVCHECK, "doctor", "--format", "json", "--root", root,
                             "--no-framework-check"], capture_output=True, text=True, timeout=120)
    first = json.loads(doctor.stdout)["first_broken_link"]
    assert CHECK_ID.match(out).group(0) == first, out


def test_a_driver_that_hangs_in_cuinit_is_the_nodes_problem():
    # The hung driver call is the node's fault (doctor: "the GPU or driver may be wedged"): 1.
    rule = next(rule for rule in config()["rules"] if rule["type"] == "permanent")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CUDA_", "NVIDIA_", "CONDA_", "FAKE_", "VIRTUAL_ENV"))}
    env.update(LD_LIBRARY_PATH=FAKE_DRIVER_DIR, FAKE_CUDA="init-hang", FAKE_NVML="init-hang")
    args = list(rule["args"])
    args[args.index("--timeout") + 1] = "3"
    out, status, err = run_rule({**rule, "args": args}, env=env)
    assert status == 1, (out, err)
    assert "\n" not in out and len(out.encode()) <= 80, out


def test_a_usage_error_is_unknown_not_a_problem():
    rule = next(rule for rule in config()["rules"] if rule["type"] == "permanent")
    out, status, _ = run_rule(rule, "--no-such-option")
    assert status not in (0, 1)
    out, status, _ = run_rule(rule, "--root", "/nonexistent/root")
    assert status not in (0, 1)


def test_smoke_without_a_usable_gpu_follows_the_protocol():
    # Built without CUDA, smoke has no kernels: its check could not run, which is not the node's
    # fault (2, unknown). Built with CUDA, on a machine without the GPU asked for, the node lacks
    # it: a problem (1). Either way one line, within NPD's 80 bytes, led by the check id.
    built_with_cuda = "built without CUDA" not in subprocess.run(
        [ENVCHECK, "--version"], capture_output=True, text=True, timeout=60).stdout
    result = subprocess.run([ENVCHECK, "smoke", "--device", "99", "--format", "npd"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == (1 if built_with_cuda else 2), (result.stdout, result.stderr)
    assert result.stdout.count("\n") == 1 and len(result.stdout.encode()) <= 81, result.stdout
    assert result.stdout.startswith("smoke.")


@pytest.mark.parametrize("limit", ["16", "40", "200"])
def test_npd_max_length_bounds_the_line(tmp_path, limit):
    result = subprocess.run([ENVCHECK, "doctor", "--format", "npd", "--npd-max-length", limit,
                             "--root", copy_root(tmp_path, "mismatch"), "--no-framework-check"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert len(result.stdout.encode()) <= int(limit) + 1 and result.stdout.endswith("\n")
