"""End-to-end: envcheck's metrics through Debian's prometheus-node-exporter.

`envcheck doctor` and `envcheck lint` write `--format prometheus` files into a textfile-collector
directory (atomically, `-o`); node_exporter runs on loopback with only the textfile collector,
the test scrapes /metrics over HTTP and finds envcheck's series with their labels, no scrape
error, and `promtool check metrics` accepts both the files and the scraped text.

Skipped with the reason when prometheus-node-exporter or promtool is not installed (.ci/setup
installs them).
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from sysroots import copy_root as fixture_root, free_port  # noqa: E402

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
SEARCH_PATH = "/usr/sbin:/usr/bin:/sbin:/bin:" + os.environ.get("PATH", "")
NODE_EXPORTER = shutil.which("prometheus-node-exporter", path=SEARCH_PATH) or shutil.which(
    "node_exporter", path=SEARCH_PATH)
PROMTOOL = shutil.which("promtool", path=SEARCH_PATH)

# CI sets ENVCHECK_REQUIRE_FLEET_TOOLS=1: there a missing tool is a failure, not a skip.
if (NODE_EXPORTER is None or PROMTOOL is None) and os.environ.get(
        "ENVCHECK_REQUIRE_FLEET_TOOLS") == "1":
    pytest.fail("prometheus-node-exporter and promtool are required here", pytrace=False)

pytestmark = pytest.mark.skipif(
    NODE_EXPORTER is None or PROMTOOL is None,
    reason="prometheus-node-exporter and promtool (Debian: prometheus) are not installed; "
           ".ci/setup installs them")

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:\\.|[^"\\])*)"')


def parse_samples(text):
    """[(name, {label: value}, value)] of an exposition text; comments skipped."""
    samples = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        match = SAMPLE.match(line)
        assert match, f"not a sample line: {line!r}"
        name, labels, value = match.groups()
        samples.append((name, dict(LABEL.findall(labels or "")), float(value)))
    return samples


def find(samples, name, **labels):
    return [value for sample_name, sample_labels, value in samples
            if sample_name == name and all(sample_labels.get(k) == v for k, v in labels.items())]




def promtool_accepts(text):
    result = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture
def textfile_dir(tmp_path):
    directory = tmp_path / "textfile_collector"
    directory.mkdir()
    doctor = subprocess.run(
        [ENVCHECK, "doctor", "--root", fixture_root(tmp_path, "no-gpu"), "--format", "prometheus",
         "-o", str(directory / "envcheck-doctor.prom")],
        capture_output=True, text=True, timeout=120)
    assert doctor.returncode == 1, doctor.stderr  # no NVIDIA device in the no-gpu fixture
    lint = subprocess.run(
        [ENVCHECK, "lint", "--format", "prometheus", "-o", str(directory / "envcheck-lint.prom"),
         "envs/conda-forge-cuda12.yml", "envs/broken/conflicts.yml"],
        capture_output=True, text=True, timeout=120, cwd=SOURCE_DIR)
    assert lint.returncode == 1, lint.stderr  # conflicts.yml has an error
    return directory


def scrape(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


@pytest.fixture
def node_exporter(textfile_dir):
    port = free_port()
    process = subprocess.Popen(
        [NODE_EXPORTER, "--collector.disable-defaults", "--collector.textfile",
         f"--collector.textfile.directory={textfile_dir}",
         f"--web.listen-address=127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/metrics"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    response.read()
                break
            except OSError:
                assert process.poll() is None, process.stderr.read()
                assert time.monotonic() < deadline, "node_exporter did not answer in 30 s"
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_files_are_accepted_by_promtool(textfile_dir):
    for path in sorted(textfile_dir.iterdir()):
        text = path.read_text()
        promtool_accepts(text)
        # parse_samples rejects a trailing sample timestamp: the textfile collector drops a whole
        # file that carries one.
        for name, _, _ in parse_samples(text):
            assert name.startswith("envcheck_")


def test_written_atomically(textfile_dir):
    # -o renames a finished temporary into place: nothing else is left in the directory.
    assert sorted(p.name for p in textfile_dir.iterdir()) == ["envcheck-doctor.prom",
                                                              "envcheck-lint.prom"]


def test_scraped_through_node_exporter(node_exporter, textfile_dir):
    scraped = scrape(node_exporter)
    samples = parse_samples(scraped)

    assert find(samples, "node_textfile_scrape_error") == [0.0]
    read = {pathlib.Path(labels["file"]).name for name, labels, _ in samples
            if name == "node_textfile_mtime_seconds"}
    assert read == {"envcheck-doctor.prom", "envcheck-lint.prom"}

    # The doctor's walk: the first broken link, and the checks after it skipped.
    assert find(samples, "envcheck_check_status", command="doctor", check="pci.nvidia-present",
                stage="hardware", status="fail") == [1.0]
    assert find(samples, "envcheck_check_status", command="doctor", check="pci.nvidia-present",
                status="pass") == [0.0]
    assert find(samples, "envcheck_check_status", command="doctor", check="cuda.init",
                status="skip") == [1.0]
    # Lint: one series per finding, with its file and position.
    assert find(samples, "envcheck_check_status", command="lint", check="conflict.unsatisfiable",
                file="envs/broken/conflicts.yml", status="fail") == [1.0]
    assert find(samples, "envcheck_check_status", command="lint", check="lint.file",
                file="envs/conda-forge-cuda12.yml", status="pass") == [1.0]

    for command in ("doctor", "lint"):
        assert find(samples, "envcheck_run_success", command=command) == [0.0]
        stamped = find(samples, "envcheck_last_run_timestamp_seconds", command=command)
        assert len(stamped) == 1 and abs(stamped[0] - time.time()) < 3600, stamped
    # Every status series of a check sums to one: exactly one state is current.
    states = {}
    for name, labels, value in samples:
        if name == "envcheck_check_status":
            key = tuple(sorted((k, v) for k, v in labels.items() if k != "status"))
            states[key] = states.get(key, 0.0) + value
    assert states and set(states.values()) == {1.0}

    promtool_accepts(scraped)


def test_node_exporter_reports_a_file_it_cannot_use(node_exporter, textfile_dir):
    """The check above can fail: a sample timestamp (which envcheck never writes) makes the
    collector skip the file and raise node_textfile_scrape_error."""
    (textfile_dir / "stamped.prom").write_text("envcheck_stamped 1 1796068920000\n")
    samples = parse_samples(scrape(node_exporter))
    assert find(samples, "node_textfile_scrape_error") == [1.0]
    assert find(samples, "envcheck_stamped") == []
