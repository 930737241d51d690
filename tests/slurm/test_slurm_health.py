"""End-to-end: `envcheck slurm-health` against a real one-node Slurm cluster on loopback.

The module starts munged (unless one runs already), slurmctld and slurmd from Debian's slurm-wlm
with a slurm.conf in a temp dir and free ports, waits for the node to be IDLE, then drives
envcheck as slurmd would: a failing check (the no-gpu sysroot fixture) drains the node with the
reason "envcheck: pci.nvidia-present: ...", a passing one (h200-ok) resumes it, an operator's
drain is never touched, and slurmd itself runs the shipped envs/fleet/slurm scripts as its
HealthCheckProgram and as the Prolog of a real job. Everything it started is stopped at the end.

Needs root (slurmd and munged switch users) and slurm-wlm + munge installed (.ci/setup installs
them); skipped with the reason otherwise.
"""
import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time

import jsonschema
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from sysroots import copy_root as fixture_root, free_port  # noqa: E402

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
SCRIPTS = SOURCE_DIR / "envs" / "fleet" / "slurm"
SCHEMA = json.loads((SOURCE_DIR / "schemas" / "slurm-health.schema.json").read_text())
SEARCH_PATH = "/usr/sbin:/usr/bin:/sbin:/bin:" + os.environ.get("PATH", "")

TOOLS = {name: shutil.which(name, path=SEARCH_PATH)
         for name in ("slurmctld", "slurmd", "scontrol", "sbatch", "scancel", "munged", "munge",
                      "unmunge")}
MISSING = sorted(name for name, path in TOOLS.items() if path is None)

# CI sets ENVCHECK_REQUIRE_FLEET_TOOLS=1: there a missing tool is a failure, not a skip.
if MISSING and os.environ.get("ENVCHECK_REQUIRE_FLEET_TOOLS") == "1":
    pytest.fail("slurm-wlm and munge are required here (missing: " + ", ".join(MISSING) + ")",
                pytrace=False)

pytestmark = [
    pytest.mark.skipif(bool(MISSING), reason="slurm-wlm and munge are not installed (missing: "
                       + ", ".join(MISSING) + "); .ci/setup installs them"),
    pytest.mark.skipif(os.geteuid() != 0, reason="slurmd and munged must be started as root"),
]

NO_GPU_REASON = "envcheck: pci.nvidia-present: "
ADMIN_REASON = "admin: replacing fan"




def munge_works():
    try:
        credential = subprocess.run([TOOLS["munge"], "-n"], capture_output=True, timeout=10)
        if credential.returncode != 0:
            return False
        decoded = subprocess.run([TOOLS["unmunge"]], input=credential.stdout, capture_output=True,
                                 timeout=10)
        return decoded.returncode == 0
    except subprocess.TimeoutExpired:
        return False


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Cluster:
    def __init__(self, directory, node, conf):
        self.directory = directory
        self.node = node
        self.conf = conf
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("CUDA_", "NVIDIA_", "CONDA_", "SLURM"))}
        self.env["SLURM_CONF"] = str(conf)
        self.env["PATH"] = SEARCH_PATH

    def scontrol(self, *args, check=True):
        result = subprocess.run([TOOLS["scontrol"], *args], capture_output=True, text=True,
                                env=self.env, timeout=30)
        if check:
            assert result.returncode == 0, result.stderr
        return result

    def node_state(self):
        """(states, reason) from `scontrol show node`, the reason without its [user@time]."""
        text = self.scontrol("show", "node", self.node).stdout
        fields = {}
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("Reason="):
                fields["Reason"] = line[len("Reason="):].rsplit(" [", 1)[0]
                continue
            for item in line.split():
                key, _, value = item.partition("=")
                fields.setdefault(key, value)
        return fields["State"].split("+"), fields.get("Reason", "")

    def make_idle(self):
        """Back to IDLE without a drain, whoever set it (the tests' own reset)."""
        states, _ = self.node_state()
        if "DRAIN" in states or "DOWN" in states:
            self.scontrol("update", f"NodeName={self.node}", "State=RESUME")
        wait_for(lambda: self.node_state()[0] == ["IDLE"], 30, f"{self.node} to be IDLE")

    def envcheck(self, *args, timeout=60, extra_env=None):
        return subprocess.run([ENVCHECK, "slurm-health", *args], capture_output=True, text=True,
                              env=dict(self.env, **(extra_env or {})), timeout=timeout)


def slurm_conf(directory, node, ports):
    return "\n".join([
        "ClusterName=envchecktest",
        f"SlurmctldHost={node}(127.0.0.1)",
        "SlurmUser=root",
        "SlurmdUser=root",
        "AuthType=auth/munge",
        "CredType=cred/munge",
        f"StateSaveLocation={directory}/state",
        f"SlurmdSpoolDir={directory}/spool",
        f"SlurmctldPidFile={directory}/slurmctld.pid",
        f"SlurmdPidFile={directory}/slurmd.pid",
        f"SlurmctldLogFile={directory}/slurmctld.log",
        f"SlurmdLogFile={directory}/slurmd.log",
        f"SlurmctldPort={ports[0]}",
        f"SlurmdPort={ports[1]}",
        "ProctrackType=proctrack/linuxproc",
        "TaskPlugin=task/none",
        "JobAcctGatherType=jobacct_gather/none",
        "SelectType=select/cons_tres",
        "SchedulerType=sched/builtin",
        "ReturnToService=2",
        "MpiDefault=none",
        # slurmd runs these two itself; each is inert until a test writes its switch file.
        f"HealthCheckProgram={directory}/healthcheck",
        "HealthCheckInterval=5",
        "HealthCheckNodeState=ANY",
        f"Prolog={directory}/prolog",
        f"NodeName={node} NodeAddr=127.0.0.1 CPUs=1 RealMemory=100 State=UNKNOWN",
        f"PartitionName=debug Nodes={node} Default=YES MaxTime=INFINITE State=UP",
        "",
    ])


def hook_wrapper(directory, script):
    """What slurm.conf names: runs the shipped script with the fixture root in <hook>.root, and
    records the environment slurmd gave it; exits 0 while the switch file is absent."""
    switch = directory / f"{script}.root"
    return "\n".join([
        "#!/bin/sh",
        f"[ -f {switch} ] || exit 0",
        f"env > {directory}/{script}.env",
        f"export SLURM_CONF={directory}/slurm.conf ENVCHECK={ENVCHECK}",
        f'exec {SCRIPTS}/envcheck-{script} --root "$(cat {switch})" >> {directory}/{script}.log 2>&1',
        "",
    ])


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    directory = tmp_path_factory.mktemp("slurm")
    # slurmd (root) and the scripts it runs read and write here.
    directory.chmod(0o755)
    for sub in ("state", "spool"):
        (directory / sub).mkdir()
    node = socket.gethostname().split(".")[0]
    conf = directory / "slurm.conf"
    conf.write_text(slurm_conf(directory, node, (free_port(), free_port())))
    for hook in ("healthcheck", "prolog"):
        wrapper = directory / hook
        wrapper.write_text(hook_wrapper(directory, hook))
        wrapper.chmod(0o755)

    started = []
    munged = None
    if not munge_works():
        run_munge = pathlib.Path("/run/munge")
        run_munge.mkdir(parents=True, exist_ok=True)
        shutil.chown(run_munge, "munge", "munge")
        munged = subprocess.Popen([TOOLS["munged"], "--foreground"], user="munge", group="munge",
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for(munge_works, 20, "munged to answer")
    try:
        started.append(subprocess.Popen([TOOLS["slurmctld"], "-D", "-c", "-f", str(conf)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        started.append(subprocess.Popen([TOOLS["slurmd"], "-D", "-f", str(conf)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        here = Cluster(directory, node, conf)

        def idle():
            result = here.scontrol("show", "node", node, check=False)
            return result.returncode == 0 and "State=IDLE " in result.stdout

        wait_for(idle, 60, f"{node} to register IDLE (see {directory}/slurmd.log)")
        yield here
    finally:
        for process in reversed(started):
            process.terminate()
        for process in reversed(started):
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if munged is not None:
            munged.terminate()
            munged.wait(timeout=30)


@pytest.fixture
def idle(cluster):
    for hook in ("healthcheck", "prolog"):
        (cluster.directory / f"{hook}.root").unlink(missing_ok=True)
    cluster.make_idle()
    return cluster


def test_failing_check_drains_the_node(idle, tmp_path):
    result = idle.envcheck("--root", fixture_root(tmp_path, "no-gpu"))
    assert result.returncode == 1, result.stderr
    states, reason = idle.node_state()
    assert "DRAIN" in states
    assert reason.startswith(NO_GPU_REASON + "no NVIDIA device on the PCI bus"), reason
    lines = result.stdout.splitlines()
    assert all(line.startswith(f"envcheck slurm-health {idle.node}: ") for line in lines), lines
    assert any(" fail pci.nvidia-present: " in line for line in lines), lines
    assert lines[-1].startswith(f"envcheck slurm-health {idle.node}: drain: "), lines

    # Failing again for the same reason changes nothing.
    again = idle.envcheck("--root", fixture_root(tmp_path, "no-gpu"))
    assert again.returncode == 1
    assert "already drained by envcheck for the same reason" in again.stdout
    assert idle.node_state() == (states, reason)


def test_passing_check_resumes_a_node_envcheck_drained(idle, tmp_path):
    assert idle.envcheck("--root", fixture_root(tmp_path, "no-gpu")).returncode == 1
    assert "DRAIN" in idle.node_state()[0]
    result = idle.envcheck("--root", fixture_root(tmp_path, "h200-ok"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"envcheck slurm-health {idle.node}: resume: " in result.stdout
    wait_for(lambda: idle.node_state() == (["IDLE"], ""), 10, "the node to be resumed")

    # A healthy node that nobody drained: nothing to do.
    result = idle.envcheck("--root", fixture_root(tmp_path, "h200-ok"))
    assert result.returncode == 0
    assert result.stdout.splitlines()[-1].endswith(": none: all checks pass")


def test_fatal_xid_drains_the_node(idle, tmp_path):
    """The hardware gates run in slurm-health: an Xid 79 in the node's kernel log drains it."""
    result = idle.envcheck("--root", fixture_root(tmp_path, "h200-xid"))
    assert result.returncode == 1, result.stdout + result.stderr
    states, reason = idle.node_state()
    assert "DRAIN" in states
    assert reason.startswith("envcheck: gpu.xid: fatal Xid errors in the kernel log since boot: "
                             "Xid 48 on 0000:17:00"), reason
    # A fatal list (--fatal-xids) that names none of the log's Xids: the node is healthy.
    idle.make_idle()
    result = idle.envcheck("--root", fixture_root(tmp_path, "h200-xid"), "--fatal-xids", "31,74")
    assert result.returncode == 0, result.stdout + result.stderr
    assert idle.node_state() == (["IDLE"], "")


@pytest.mark.parametrize("scenario, code", [("h200-ok", 0), ("no-gpu", 1)])
def test_operator_drain_is_left_alone(idle, tmp_path, scenario, code):
    idle.scontrol("update", f"NodeName={idle.node}", "State=DRAIN", f"Reason={ADMIN_REASON}")
    result = idle.envcheck("--root", fixture_root(tmp_path, scenario))
    assert result.returncode == code, result.stderr
    assert "which is not envcheck's: left alone" in result.stdout or "by someone else" in result.stdout
    states, reason = idle.node_state()
    assert "DRAIN" in states and reason == ADMIN_REASON


@pytest.mark.parametrize("scenario", ["h200-ok", "no-gpu"])
def test_a_host_list_is_never_acted_on(idle, tmp_path, scenario):
    # scontrol reads these as host lists: with gpu[02-03] a passing check once resumed an
    # operator's drain on every node the list named.
    idle.scontrol("update", f"NodeName={idle.node}", "State=DRAIN", f"Reason={ADMIN_REASON}")
    for name in (f"{idle.node},{idle.node}", f"{idle.node}[1-2]", f"{idle.node},other"):
        result = idle.envcheck("--root", fixture_root(tmp_path / name, scenario),
                               extra_env={"SLURMD_NODENAME": name})
        assert result.returncode == 2, result.stdout + result.stderr
        assert "host list" in result.stderr
        states, reason = idle.node_state()
        assert "DRAIN" in states and reason == ADMIN_REASON
    flagged = idle.envcheck("--root", fixture_root(tmp_path / "flag", scenario),
                            "--node", f"{idle.node}[0-9]")
    assert flagged.returncode == 2
    assert idle.node_state()[1] == ADMIN_REASON


@pytest.mark.parametrize("visible", ["", "NoDevFiles"])
def test_the_hooks_cuda_visible_devices_is_not_the_nodes(idle, tmp_path, visible):
    # Slurm sets these in a job without GPUs; a Prolog sees them. The node's GPUs are fine.
    result = idle.envcheck("--root", fixture_root(tmp_path, "h200-ok"),
                           extra_env={"CUDA_VISIBLE_DEVICES": visible})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "DRAIN" not in idle.node_state()[0]
    prolog = idle.envcheck("--root", fixture_root(tmp_path / "p", "h200-ok"), "--prolog",
                           extra_env={"CUDA_VISIBLE_DEVICES": visible})
    assert prolog.returncode == 0, prolog.stdout + prolog.stderr


def test_dry_run_changes_nothing(idle, tmp_path):
    result = idle.envcheck("--root", fixture_root(tmp_path, "no-gpu"), "--dry-run")
    assert result.returncode == 1
    assert f"would run: scontrol update NodeName={idle.node} State=DRAIN Reason=\"{NO_GPU_REASON}" \
        in result.stdout
    assert idle.node_state() == (["IDLE"], "")


def test_prolog_mode(idle, tmp_path):
    # Failing: drains with envcheck's reason and exits 1, so that Slurm requeues the job.
    result = idle.envcheck("--prolog", "--root", fixture_root(tmp_path, "no-gpu"))
    assert result.returncode == 1
    states, reason = idle.node_state()
    assert "DRAIN" in states and reason.startswith(NO_GPU_REASON)
    idle.make_idle()
    # Passing: scontrol is not asked at all (a missing scontrol cannot fail the run).
    result = idle.envcheck("--prolog", "--root", fixture_root(tmp_path, "h200-ok"),
                           "--scontrol", str(tmp_path / "no-such-scontrol"))
    assert result.returncode == 0, result.stderr
    assert "a Prolog asks scontrol only when it has a node to drain" in result.stdout


def test_json_and_prometheus_reports(idle, tmp_path):
    result = idle.envcheck("--root", fixture_root(tmp_path, "no-gpu"), "--format", "json",
                           "--dry-run")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    jsonschema.validate(report, SCHEMA)
    assert report["node"] == idle.node and report["hook"] == "health-check"
    assert report["passed"] is False
    assert report["first_failure"]["id"] == "pci.nvidia-present"
    assert report["node_state"] == {"states": ["IDLE"], "reason": None}
    assert report["action"] == "drain" and report["drain_reason"].startswith(NO_GPU_REASON)
    assert report["dry_run"] is True
    # The action lines still reach the log, beside the report.
    assert "would run: scontrol update" in result.stderr

    metrics = tmp_path / "slurm-health.prom"
    result = idle.envcheck("--root", fixture_root(tmp_path, "no-gpu"), "--format", "prometheus",
                           "-o", str(metrics))
    assert result.returncode == 1
    assert ('envcheck_check_status{command="doctor",check="pci.nvidia-present",stage="hardware",'
            'status="fail"} 1') in metrics.read_text().splitlines()
    assert f"envcheck slurm-health {idle.node}: drain: " in result.stdout


def test_lock_check(idle, tmp_path):
    """With --lock, the installed environment must match its lock too (fast path, no GPU)."""
    prefix = tmp_path / "venv"
    shutil.copytree(SOURCE_DIR / "tests" / "data" / "prefixes" / "venv-basic", prefix)
    lock = tmp_path / "environment.lock.json"
    made = subprocess.run([ENVCHECK, "lock", "--prefix", str(prefix), "--no-gpu", "-o", str(lock)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    healthy = fixture_root(tmp_path, "h200-ok")

    result = idle.envcheck("--root", healthy, "--lock", str(lock), "--prefix", str(prefix),
                           "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    jsonschema.validate(report, SCHEMA)
    assert {check["command"] for check in report["checks"]} == {"doctor", "check"}
    assert report["action"] == "none" and report["passed"] is True

    # The package goes missing: the node is drained with the package's check as the reason.
    shutil.rmtree(prefix / "lib" / "python3.12" / "site-packages" / "Tiny_Pkg-2.0.dist-info")
    result = idle.envcheck("--root", healthy, "--lock", str(lock), "--prefix", str(prefix))
    assert result.returncode == 1, result.stdout + result.stderr
    states, reason = idle.node_state()
    assert "DRAIN" in states
    assert reason == "envcheck: package.pip.Tiny_Pkg: missing: locked 2.0, not installed", reason

    # An unreadable lock is a usage error, not a sick node: nothing is drained for it.
    idle.make_idle()
    result = idle.envcheck("--root", healthy, "--lock", str(tmp_path / "no-such.lock.json"),
                           "--prefix", str(prefix))
    assert result.returncode == 2
    assert idle.node_state() == (["IDLE"], "")


def test_slurmd_runs_the_health_check(idle, tmp_path):
    """slurmd itself runs envs/fleet/slurm/envcheck-healthcheck every HealthCheckInterval."""
    switch = idle.directory / "healthcheck.root"
    switch.write_text(fixture_root(idle.directory, "no-gpu"))
    wait_for(lambda: "DRAIN" in idle.node_state()[0], 40, "slurmd's health check to drain the node")
    states, reason = idle.node_state()
    assert reason.startswith(NO_GPU_REASON), reason
    environment = (idle.directory / "healthcheck.env").read_text()
    assert f"SLURMD_NODENAME={idle.node}" in environment.splitlines()

    switch.write_text(fixture_root(idle.directory, "h200-ok"))
    wait_for(lambda: idle.node_state() == (["IDLE"], ""), 40,
             "slurmd's health check to resume the node")
    log = (idle.directory / "healthcheck.log").read_text()
    assert ": drain: " in log and ": resume: " in log


def test_slurmd_runs_the_prolog_of_a_job(idle, tmp_path):
    """A job lands on a sick node: the shipped Prolog drains it with envcheck's reason and the
    job goes back to the queue instead of running."""
    (idle.directory / "prolog.root").write_text(fixture_root(idle.directory, "no-gpu"))
    output = idle.directory / "job.out"
    submitted = subprocess.run(
        [TOOLS["sbatch"], "--parsable", f"--output={output}", "--wrap", "echo ran"],
        capture_output=True, text=True, env=idle.env, timeout=30, cwd=idle.directory)
    assert submitted.returncode == 0, submitted.stderr
    job = submitted.stdout.strip().split(";")[0]
    try:
        wait_for(lambda: "DRAIN" in idle.node_state()[0], 40, "the Prolog to drain the node")

        def requeued():
            text = idle.scontrol("show", "job", job).stdout
            return text if "JobState=PENDING" in text and "Restarts=1" in text else None

        shown = wait_for(requeued, 30, "the job to be requeued")
        assert "Reason=launch_failed_requeued_held" in shown, shown
        # Slurm's own "Prolog error" did not replace envcheck's reason.
        _, reason = idle.node_state()
        assert reason.startswith(NO_GPU_REASON), reason
        assert not output.exists() or "ran" not in output.read_text()
        assert f"SLURMD_NODENAME={idle.node}" in (idle.directory / "prolog.env").read_text()
    finally:
        subprocess.run([TOOLS["scancel"], job], env=idle.env, timeout=30, capture_output=True)


def test_scontrol_that_cannot_run_is_a_usage_error(tmp_path):
    result = subprocess.run([ENVCHECK, "slurm-health", "--node", "gpu07", "--root",
                             fixture_root(tmp_path, "no-gpu"), "--scontrol",
                             str(tmp_path / "no-such-scontrol")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "scontrol failed: " in result.stderr


def test_unreachable_controller_stays_within_the_timeout(tmp_path):
    """slurmctld is down: scontrol would retry for MessageTimeout; envcheck gives up in time."""
    conf = tmp_path / "slurm.conf"
    dead = free_port()
    conf.write_text(slurm_conf(tmp_path, "gpu07", (dead, free_port()))
                    .replace(f"SlurmctldPort={dead}", f"SlurmctldPort={dead}\nMessageTimeout=60"))
    env = dict(os.environ, SLURM_CONF=str(conf), PATH=SEARCH_PATH)
    started = time.monotonic()
    result = subprocess.run([ENVCHECK, "slurm-health", "--node", "gpu07", "--timeout", "10",
                             "--root", fixture_root(tmp_path, "no-gpu")],
                            capture_output=True, text=True, env=env, timeout=60)
    elapsed = time.monotonic() - started
    assert result.returncode == 2
    assert "scontrol failed: " in result.stderr
    assert elapsed < 10, elapsed
