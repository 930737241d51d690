#!/usr/bin/env python3
"""The training workload of envcheck's profile-guided build (ENVCHECK_PGO, src/dist/pgo.cmake).

Runs an instrumented envcheck on what its users run most, offline and without a GPU: a
generated conda prefix of 1,500 records shaped like conda-forge's (bench_check_scaling's
generator, so training and benchmark read the same shape), its environment file with a pip
section, and a lock of it. The commands: `lock`; `check` against the lock on both thread counts
and in four report formats (JSON, JUnit, Prometheus, Markdown); `check` against the
environment file; `lint` of the environment file; `diff` of the lock; `export` of the lock and
of the prefix; `--version`.

Exits 1 when a command crashes, hangs, or leaves no profiles behind: a build trained on an
error path would be optimized for the wrong code.

  pgo_training.py --envcheck build/pgo/instrumented/envcheck --work DIR --profiles DIR
"""

import argparse
import json
import pathlib
import shutil
import subprocess
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_check_scaling import generate, package_name  # noqa: E402

RECORDS = 1500
# Findings (1) are what a training check of a changed environment reports; anything else, or a
# signal, is a failure.
ACCEPTED = (0, 1)


def run(envcheck, *args):
    command = [envcheck, *args]
    try:
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              timeout=120, check=False)
    except subprocess.TimeoutExpired:
        sys.exit(f"pgo_training: timed out after 120 s: {' '.join(command)}")
    if done.returncode not in ACCEPTED:
        sys.exit(f"pgo_training: exit {done.returncode}: {' '.join(command)}\n"
                 f"{done.stderr.decode(errors='replace')[-2000:]}")


def environment_file(prefix: pathlib.Path, path: pathlib.Path):
    """The environment file the prefix was made from: a spec per record, pip names too."""
    lines = ["name: training", "channels:", "  - conda-forge", "dependencies:"]
    pip = []
    for record_path in sorted((prefix / "conda-meta").glob("*.json")):
        record = json.loads(record_path.read_text())
        major = record["version"].split(".")[0]
        lines.append(f"  - {record['name']} >={major}.0")
        if record["name"].startswith("py"):  # its dist-info's name, as pip sees it
            pip.append(f"      - {record['name'].replace('-', '_')}>={major}.0")
    lines.append("  - pip")
    lines.append("  - pip:")
    lines.extend(pip[:200])
    path.write_text("\n".join(lines) + "\n")


def changed_lock(lock: pathlib.Path, path: pathlib.Path):
    """The lock with every tenth package re-pinned and one removed: what `diff` explains."""
    document = json.loads(lock.read_text())
    packages = document["packages"]
    for index, package in enumerate(packages):
        if index % 10 == 0:
            package["version"] += ".post1"
    del packages[len(packages) // 2]
    path.write_text(json.dumps(document, indent=2))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envcheck", required=True)
    parser.add_argument("--work", required=True, type=pathlib.Path)
    parser.add_argument("--profiles", required=True, type=pathlib.Path)
    args = parser.parse_args()

    shutil.rmtree(args.work, ignore_errors=True)
    prefix = args.work / "prefix"
    generate(prefix, RECORDS)
    environment = args.work / "environment.yml"
    environment_file(prefix, environment)
    lock = args.work / "environment.lock.json"
    changed = args.work / "changed.lock.json"

    envcheck = args.envcheck
    run(envcheck, "--version")
    run(envcheck, "lock", "--no-gpu", "--prefix", str(prefix), "-o", str(lock))
    changed_lock(lock, changed)
    for _ in range(3):
        run(envcheck, "check", "--no-gpu", "--prefix", str(prefix), "--lock", str(lock))
        run(envcheck, "check", "--no-gpu", "--prefix", str(prefix), "--lock", str(lock), "--jobs", "1")
    for report in ("json", "junit", "prometheus", "markdown"):
        run(envcheck, "check", "--no-gpu", "--prefix", str(prefix), "--lock", str(changed),
            "--format", report)
    run(envcheck, "check", "--no-gpu", "--prefix", str(prefix), "--env", str(environment))
    for _ in range(3):
        run(envcheck, "lint", str(environment))
    run(envcheck, "diff", str(lock), str(changed))
    run(envcheck, "export", "--lock", str(lock), "--format", "explicit")
    run(envcheck, "export", "--prefix", str(prefix), "--format", "environment")

    profiles = list(args.profiles.rglob("*.gcda"))
    if not profiles:
        sys.exit(f"pgo_training: the instrumented envcheck wrote no profiles under {args.profiles}")
    print(f"pgo_training: {len(profiles)} profiles from {RECORDS} records "
          f"({package_name(0)} to {package_name(RECORDS - 1)})")


if __name__ == "__main__":
    main()
