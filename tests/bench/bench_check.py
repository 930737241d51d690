#!/usr/bin/env python3
"""Benchmark of `envcheck check` (tests/bench/RESULTS.md, section "check").

Generates a prefix shaped like a real PyTorch + CUDA environment: 400 conda packages whose
conda-meta records carry `files` and `paths_data` lists (the largest several MB, tens of MB in
all), the files themselves (so that --deep has real bytes to hash) and 150 pip dist-infos;
locks it with `envcheck lock`; then measures, in the same run:

  1. `envcheck check --lock` as a whole process (median of --runs), against py-rattler reading
     the same conda-meta records (`rattler.PrefixRecord.from_path` over each record, in-process,
     which leaves out the interpreter's start; and as a process of its own);
  2. `envcheck check --deep` hashing throughput against `sha256sum` over the same files (one
     process, as `xargs -0 sha256sum`; and `xargs -P<cores>` for the parallel figure), with the
     files in the page cache for both.

Usage: tests/bench/bench_check.py --envcheck build/envcheck [--dir /tmp/envcheck-bench-check]
       [--runs 15] [--reuse]
"""
import argparse
import hashlib
import json
import os
import pathlib
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time

CONDA_PACKAGES = 400
PIP_PACKAGES = 150
SITE = "lib/python3.11/site-packages"

# (name, version, build, number of files, total MB of its files): the heavy part of a real
# pytorch-cuda environment; the rest are generated.
HEAVY = [
    ("pytorch", "2.4.0", "py3.11_cuda12.1_cudnn9.1.0_0", 24000, 420),
    ("python", "3.11.9", "hb806964_0_cpython", 7800, 60),
    ("libcublas", "12.1.3.1", "0", 40, 180),
    ("libcusparse", "12.0.2.55", "0", 30, 110),
    ("libcufft", "11.0.2.54", "0", 30, 90),
    ("cuda-nvrtc", "12.1.105", "0", 20, 60),
    ("libnpp", "12.0.2.50", "0", 60, 80),
    ("jupyterlab", "4.2.5", "pyhd8ed1ab_0", 5200, 25),
    ("scipy", "1.14.1", "py311he1f765f_0", 2600, 40),
    ("numpy", "1.26.4", "py311h64a7726_0", 1000, 25),
    ("mkl", "2023.1.0", "h213fc3f_46344", 90, 70),
    ("sympy", "1.13.3", "pypyh2585a3b_103", 1700, 15),
    ("pandas", "2.2.3", "py311h7db5c69_1", 1500, 30),
    ("matplotlib-base", "3.9.2", "py311h2b939e6_1", 1300, 20),
    ("ffmpeg", "6.1.2", "gpl_h4f1e072_104", 250, 30),
]
PREFIXES = ["lib", "py-", "cuda-", "x", "font-", "r-", "perl-", "gst-", "nvidia-", "jupyter-", "typing-", "aws-"]
STEMS = ["zlib", "ssl", "ffi", "xml2", "jpeg", "png", "tiff", "webp", "curl", "ssh2", "uuid", "lzma", "zstd",
         "blas", "lapack", "gomp", "stdcxx", "gcc", "gfortran", "hwloc", "nccl", "cudnn", "cupti", "nvtx",
         "protobuf", "grpc", "abseil", "re2", "arrow", "parquet", "snappy", "brotli", "freetype", "harfbuzz",
         "fontconfig", "cairo", "pango", "glib", "dbus", "expat", "sqlite", "readline", "ncurses", "tk",
         "requests", "urllib3", "idna", "certifi", "charset", "jinja2", "markupsafe", "pyyaml", "filelock",
         "fsspec", "networkx", "pillow", "tqdm", "packaging", "setuptools", "wheel", "pip", "six", "attrs"]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def conda_record(name, version, build, subdir, *, files, paths, depends, requested_spec, size, timestamp):
    """A conda-meta record with the fields conda writes for a conda-forge package."""
    url = f"https://conda.anaconda.org/conda-forge/{subdir}/{name}-{version}-{build}.conda"
    return {
        "build": build, "build_number": int(build.rsplit("_", 1)[-1]) if build[-1].isdigit() else 0,
        "channel": "https://conda.anaconda.org/conda-forge", "constrains": [], "depends": depends,
        "extracted_package_dir": f"/opt/conda/pkgs/{name}-{version}-{build}",
        "files": files, "fn": f"{name}-{version}-{build}.conda", "license": "BSD-3-Clause",
        "link": {"source": f"/opt/conda/pkgs/{name}-{version}-{build}", "type": 1},
        "md5": hashlib.md5(url.encode()).hexdigest(), "name": name,
        "package_tarball_full_path": f"/opt/conda/pkgs/{name}-{version}-{build}.conda",
        "paths_data": {"paths": paths, "paths_version": 1},
        "requested_spec": requested_spec, "sha256": sha256(url.encode()),
        "size": size, "subdir": subdir, "timestamp": timestamp, "url": url, "version": version,
    }


def content(rng, size, seed_block):
    """Deterministic bytes of `size`: a shared random block, made unique per file."""
    header = rng.getrandbits(64).to_bytes(8, "little")
    reps = size // len(seed_block) + 1
    return (header + seed_block * reps)[:size]


def generate(root: pathlib.Path):
    rng = random.Random(20261130)
    seed_block = bytes(rng.getrandbits(8) for _ in range(1 << 16))
    meta = root / "conda-meta"
    meta.mkdir(parents=True)
    packages = list(HEAVY)
    names = {name for name, *_ in HEAVY}
    while len(packages) < CONDA_PACKAGES:
        name = rng.choice(PREFIXES) + rng.choice(STEMS)
        if name in names:
            name += f"-{len(packages)}"
        names.add(name)
        version = f"{rng.randint(0, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
        build = f"h{rng.getrandbits(28):07x}_{rng.randint(0, 5)}"
        files = int(rng.paretovariate(1.1) * 8) % 900 + 1
        megabytes = files * rng.uniform(0.002, 0.03)
        packages.append((name, version, build, files, megabytes))
    all_files = 0
    total_bytes = 0
    for name, version, build, file_count, megabytes in packages:
        noarch = build.startswith("py") and "h" in build[:5] and rng.random() < 0.3
        directory = f"{SITE}/{name.replace('-', '_')}" if name not in ("python", "mkl") else f"lib/{name}"
        per_file = max(1, int(megabytes * (1 << 20) / file_count))
        files, paths = [], []
        for index in range(file_count):
            if index == 0 and file_count > 5:
                size = int(megabytes * (1 << 20) * 0.6)  # one big library, as real packages have
                relative = f"lib/lib{name.replace('-', '_')}.so.{version}"
            else:
                size = max(1, int(rng.expovariate(1.0 / (per_file * (0.4 if file_count > 5 else 1.0)))))
                relative = f"{directory}/sub{index % 37}/module_{index}.py"
            data = content(rng, size, seed_block)
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            files.append(relative)
            digest = sha256(data)
            paths.append({"_path": relative, "path_type": "hardlink", "sha256": digest,
                          "sha256_in_prefix": digest, "size_in_bytes": size})
            total_bytes += size
        all_files += file_count
        record = conda_record(
            name, version, build, "noarch" if noarch else "linux-64", files=files, paths=paths,
            depends=[f"{rng.choice(STEMS)} >={rng.randint(0, 9)}.{rng.randint(0, 9)}" for _ in range(rng.randint(0, 12))],
            requested_spec=name if rng.random() < 0.05 else "", size=total_bytes % 100000000,
            timestamp=1720000000000 + rng.randint(0, 10**9))
        (meta / f"{name}-{version}-{build}.json").write_text(json.dumps(record, indent=2, sort_keys=True))
    for index in range(PIP_PACKAGES):
        name = f"pipdist_{index}"
        dist = root / SITE / f"{name}-1.{index}.0.dist-info"
        dist.mkdir(parents=True)
        (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.{index}.0\n"
                                       + "".join(f"Requires-Dist: dep{i}>=1\n" for i in range(index % 7))
                                       + "\n" + "A long description.\n" * 40)
        (dist / "INSTALLER").write_text("pip\n")
        (dist / "RECORD").write_text("".join(f"{name}/m{i}.py,sha256=x,10\n" for i in range(20)))
    return all_files, total_bytes


def interleaved(commands, runs):
    """median_time of several commands, their runs taken in turn so that a change of load
    during the measurement affects each of them alike."""
    samples = {index: ([], []) for index in range(len(commands))}
    for _ in range(runs):
        for index, command in enumerate(commands):
            wall, cpu = median_time(command, 1)
            samples[index][0].append(wall)
            samples[index][1].append(cpu)
    return [(statistics.median(wall), statistics.median(cpu)) for wall, cpu in samples.values()]


def median_time(command, runs, **kwargs):
    """Median wall time of `runs` runs, and the median CPU time (user + system) of the process
    and its children: the latter moves less when other work shares the cores."""
    times, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if result.returncode != 0:
            sys.exit(f"{command} failed ({result.returncode}): {result.stderr.decode()[:500]}")
    return statistics.median(times), statistics.median(cpu)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envcheck", required=True)
    parser.add_argument("--dir", default="/tmp/envcheck-bench-check")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--deep-runs", type=int, default=3)
    parser.add_argument("--reuse", action="store_true", help="keep an already generated prefix")
    parser.add_argument("--skip-deep", action="store_true", help="measure check --lock only")
    args = parser.parse_args()
    envcheck = str(pathlib.Path(args.envcheck).resolve())
    root = pathlib.Path(args.dir)
    prefix = root / "prefix"
    lock = root / "bench.lock.json"
    if not (args.reuse and lock.exists()):
        shutil.rmtree(root, ignore_errors=True)
        started = time.perf_counter()
        files, total = generate(prefix)
        print(f"generated {files} files, {total / 1e6:.0f} MB in {time.perf_counter() - started:.0f} s")
        subprocess.run([envcheck, "lock", "--prefix", prefix, "--output", lock, "--no-gpu"], check=True,
                       stdout=subprocess.DEVNULL)
    records = sorted((prefix / "conda-meta").glob("*.json"))
    sizes = sorted((path.stat().st_size for path in records), reverse=True)
    print(f"records: {len(records)}, {sum(sizes) / 1e6:.1f} MB, largest {sizes[0] / 1e6:.1f} / {sizes[1] / 1e6:.1f} / "
          f"{sizes[2] / 1e6:.1f} MB; pip dist-infos: {PIP_PACKAGES}")
    load = os.getloadavg()[0]
    print(f"load average: {load:.1f} on {os.cpu_count()} cores")

    # Everything in the page cache first, for every contender.
    paths = []
    for record in records:
        paths += [prefix / entry["_path"] for entry in json.loads(record.read_text())["paths_data"]["paths"]]
    for path in paths:
        path.read_bytes()
    total_bytes = sum(path.stat().st_size for path in paths)

    # 1. check --lock against py-rattler reading the records.
    check = [envcheck, "check", "--prefix", str(prefix), "--lock", str(lock)]
    median_time(check, 2)
    (ours, ours_cpu), (no_gpu, no_gpu_cpu), (one_thread, one_thread_cpu) = interleaved(
        [check, check + ["--no-gpu"], check + ["--no-gpu", "--jobs", "1"]], args.runs)
    import rattler
    wall, cpu = [], []
    for _ in range(max(3, args.runs // 3)):
        start, start_cpu = time.perf_counter(), time.process_time()
        read = [rattler.PrefixRecord.from_path(path) for path in records]
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        assert len(read) == len(records)
    rattler_read, rattler_cpu = statistics.median(wall), statistics.median(cpu)
    script = ("import sys, pathlib, rattler\n"
              "[rattler.PrefixRecord.from_path(p) for p in sorted(pathlib.Path(sys.argv[1]).glob('*.json'))]\n")
    process, process_cpu = median_time([sys.executable, "-c", script, str(prefix / "conda-meta")], max(3, args.runs // 3))
    print("\n| what | median wall | median CPU | wall vs envcheck check --lock |")
    print("|---|---:|---:|---:|")
    rows = [
        ("envcheck check --lock (whole process)", ours, ours_cpu),
        ("envcheck check --lock --no-gpu", no_gpu, no_gpu_cpu),
        ("envcheck check --lock --no-gpu --jobs 1", one_thread, one_thread_cpu),
        (f"py-rattler PrefixRecord.from_path x {len(records)} (in-process)", rattler_read, rattler_cpu),
        ("py-rattler, as a process (python -c ...)", process, process_cpu),
    ]
    for label, seconds, cpu_seconds in rows:
        print(f"| {label} | {seconds * 1e3:.1f} ms | {cpu_seconds * 1e3:.1f} ms | {seconds / ours:.2f} |")
    if args.skip_deep:
        return

    # 2. --deep hashing throughput against sha256sum.
    deep = check + ["--deep", "--no-gpu", "--format", "json"]
    result = subprocess.run(deep, capture_output=True, text=True)
    summary = json.loads(result.stdout)["summary"]
    assert result.returncode == 0 and summary["files_modified"] == 0, result.stdout[:2000]
    hashed = summary["bytes_hashed"]
    deep_time, _ = median_time(deep, args.deep_runs)
    deep_one, _ = median_time(deep + ["--jobs", "1"], args.deep_runs)
    listing = root / "files.lst"
    listing.write_bytes(b"\0".join(str(path).encode() for path in paths) + b"\0")
    sha_plain, _ = median_time(["sh", "-c", f"xargs -0 sha256sum < {listing} > /dev/null"], args.deep_runs)
    cores = os.cpu_count() or 1
    sha_parallel, _ = median_time(["sh", "-c", f"xargs -0 -n 2000 -P {cores} sha256sum < {listing} > /dev/null"],
                                  args.deep_runs)
    rate = lambda seconds, size=total_bytes: size / seconds / 1e6  # noqa: E731
    print(f"\nfiles: {len(paths)}, {total_bytes / 1e6:.0f} MB (envcheck hashed {hashed / 1e6:.0f} MB)")
    print("\n| what | median | throughput | vs sha256sum |")
    print("|---|---:|---:|---:|")
    print(f"| envcheck check --deep (all cores, records read too) | {deep_time:.2f} s | {rate(deep_time, hashed):.0f} MB/s | "
          f"{rate(deep_time, hashed) / rate(sha_plain):.2f} |")
    print(f"| envcheck check --deep --jobs 1 | {deep_one:.2f} s | {rate(deep_one, hashed):.0f} MB/s | "
          f"{rate(deep_one, hashed) / rate(sha_plain):.2f} |")
    print(f"| xargs -0 sha256sum | {sha_plain:.2f} s | {rate(sha_plain):.0f} MB/s | 1.00 |")
    print(f"| xargs -0 -P {cores} sha256sum | {sha_parallel:.2f} s | {rate(sha_parallel):.0f} MB/s | "
          f"{rate(sha_parallel) / rate(sha_plain):.2f} |")


if __name__ == "__main__":
    main()
