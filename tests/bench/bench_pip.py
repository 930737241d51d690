#!/usr/bin/env python3
"""Benchmark of the pip side of `envcheck check` (tests/bench/RESULTS.md, section "pip").

Builds a venv shaped like the H200's torch venv: 197 pip distributions installed by the real pip
from wheels made here (each with Requires-Dist on others, with version ranges and markers, and
a few large ones so that --deep has real bytes to hash); then measures, in the same run:

  1. `envcheck check --prefix VENV --no-gpu` (reading every dist-info and checking every
     Requires-Dist: the consistency check) as a whole process, median of --runs, against
     `VENV/bin/python -m pip check` (the same question, pip's answer);
  2. `envcheck check --deep` hashing throughput over the RECORD-listed files against
     `sha256sum` over the same files (one process, and `xargs -P<cores>`), page cache warm.

Usage: tests/bench/bench_pip.py --envcheck build/envcheck [--dir /tmp/envcheck-bench-pip]
       [--runs 7] [--reuse]
"""
import argparse
import base64
import csv
import hashlib
import io
import json
import os
import pathlib
import random
import shutil
import statistics
import subprocess
import sys
import time
import zipfile

DISTRIBUTIONS = 197
# (index, MB) of the distributions that carry large files (torch, nvidia-*-cu12, triton ...).
LARGE = {0: 160, 1: 60, 2: 40, 3: 30, 4: 20, 5: 10}


def wheel(directory, name, version, files, requires):
    dist = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Requires-Dist: {line}\n" for line in requires)
    contents = dict(files)
    contents[f"{dist}/METADATA"] = metadata.encode()
    contents[f"{dist}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for path, data in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([path, f"sha256={digest}", len(data)])
    writer.writerow([f"{dist}/RECORD", "", ""])
    contents[f"{dist}/RECORD"] = record.getvalue().encode()
    path = directory / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for member, data in contents.items():
            archive.writestr(member, data)
    return path


def build(directory: pathlib.Path):
    rng = random.Random(14)
    wheels = directory / "wheels"
    wheels.mkdir(parents=True)
    for i in range(DISTRIBUTIONS):
        name = f"dist_{i:03d}"
        files = {f"{name}/__init__.py": f"VALUE = {i}\n".encode()}
        for j in range(rng.randint(5, 60)):  # a package's modules
            files[f"{name}/module_{j}.py"] = rng.randbytes(rng.randint(500, 30000)).hex().encode()
        if i in LARGE:
            for j in range(LARGE[i] // 10):
                files[f"{name}/lib/blob_{j}.so"] = rng.randbytes(10 << 20)
        requires = []
        for dep in rng.sample(range(DISTRIBUTIONS), 4):
            if dep != i:
                requires.append(f"dist-{dep:03d}>=1.0,<2")
        requires.append(f"dist_{rng.randrange(DISTRIBUTIONS):03d}; python_version >= '3.8'")
        requires.append("pywin32>=300; sys_platform == 'win32'")
        wheel(wheels, name, "1.0", files, requires)
    venv = directory / "venv"
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", "--no-index", "--no-deps",
                    "--disable-pip-version-check", "--no-compile", *sorted(wheels.glob("*.whl"))], check=True)
    return venv


def median_seconds(command, runs, ok=(0,)):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - start)
        assert result.returncode in ok, (command, result.returncode, result.stderr[-2000:])
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--envcheck", required=True)
    parser.add_argument("--dir", default="/tmp/envcheck-bench-pip")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args()
    directory = pathlib.Path(args.dir)
    venv = directory / "venv"
    if not (args.reuse and venv.is_dir()):
        shutil.rmtree(directory, ignore_errors=True)
        venv = build(directory)
    envcheck = os.path.abspath(args.envcheck)
    cores = os.cpu_count()
    # check needs an environment file or a lock: an empty requirements file asks for nothing, so
    # what is measured is reading the venv and its consistency check (pip check's question).
    empty = directory / "empty-requirements.txt"
    empty.write_text("")
    check = [envcheck, "check", "--env", empty, "--prefix", venv, "--no-gpu"]

    report = json.loads(subprocess.run([*check, "--format", "json"], capture_output=True, text=True).stdout)
    distributions = len(list(venv.glob("lib/python3*/site-packages/*.dist-info")))
    assert report["status"] == "pass", report["packages"][:3]

    pip_check = median_seconds([venv / "bin" / "python", "-m", "pip", "check", "--disable-pip-version-check"],
                               args.runs)
    ours = median_seconds(check, args.runs)

    # --deep: every RECORD-listed file, page cache warm for both.
    site = next(venv.glob("lib/python3*/site-packages"))
    files = []
    for record in site.glob("*.dist-info/RECORD"):
        for row in csv.reader(record.read_text().splitlines()):
            if row and row[1]:
                files.append(str((site / row[0]).resolve()))
    listing = directory / "files.txt"
    listing.write_bytes(b"\0".join(f.encode() for f in files))
    total = sum(os.path.getsize(f) for f in files)
    subprocess.run(["xargs", "-0", "cat"], stdin=open(listing, "rb"), stdout=subprocess.DEVNULL, check=True)
    deep = median_seconds([*check, "--deep"], args.runs)
    sha_one = median_seconds(["sh", "-c", f"xargs -0 sha256sum < {listing}"], args.runs)
    sha_par = median_seconds(["sh", "-c", f"xargs -0 -n 64 -P {cores} sha256sum < {listing}"], args.runs)
    # The deep run includes the package check itself; its hashing time is the difference.
    hashing = max(deep - ours, 1e-6)

    mb = total / 1e6
    print(f"machine: {cores} cores; venv: {distributions} pip distributions, {len(files)} hashed files, {mb:.0f} MB")
    print(f"check (packages + consistency): envcheck {ours * 1000:.0f} ms, pip check {pip_check * 1000:.0f} ms, "
          f"ratio {pip_check / ours:.1f}x")
    print(f"check --deep: {deep * 1000:.0f} ms in all, hashing {mb / hashing:.0f} MB/s "
          f"(whole run {mb / deep:.0f} MB/s); sha256sum one process {mb / sha_one:.0f} MB/s, "
          f"xargs -P{cores} {mb / sha_par:.0f} MB/s; ratio to one sha256sum {sha_one / deep:.2f}x, "
          f"to -P{cores} {sha_par / deep:.2f}x")


if __name__ == "__main__":
    main()
