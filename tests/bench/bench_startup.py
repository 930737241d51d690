#!/usr/bin/env python3
"""Start-up time and size of two envcheck binaries, measured in the same run: the portable one
(static libstdc++ and yaml-cpp, libcurl loaded only for URLs) against a peer, such as the
default build of the commit before it (yaml-cpp, libstdc++ and libcurl with its 30-odd
libraries linked dynamically).

    tests/bench/bench_startup.py PORTABLE PEER [--runs 300] [--version-peer uv]

Each run starts the process and waits for it: `envcheck --version` (the loader's work and
static initialisation) and `envcheck lint envs/resnet50-cuda11.8.yml` (a real command on a
local file); with --version-peer, that program's --version in the same rounds. The binaries
alternate run by run, so that load on the machine hits both
alike; the medians and the ratio are printed.
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import time

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]


def shared_libraries(binary):
    listing = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    return len([line for line in listing.splitlines() if "=>" in line or "ld-linux" in line])


def timed(command):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=SOURCE_DIR)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("portable")
    parser.add_argument("peer")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--version-peer", help="another program whose --version is timed alongside (uv)")
    args = parser.parse_args()
    binaries = {"portable": args.portable, "peer": args.peer}
    for name, binary in binaries.items():
        print(f"{name}: {binary}: {os.path.getsize(binary) / 1e6:.1f} MB, "
              f"{shared_libraries(binary)} shared libraries (ldd)")
    if args.version_peer:
        times = {name: [] for name in (*binaries, args.version_peer)}
        for _ in range(args.runs):
            for name in times:
                times[name].append(timed([binaries.get(name, name), "--version"]))
        medians = {name: statistics.median(values) * 1e3 for name, values in times.items()}
        print("--version: " + ", ".join(f"{name} {median:.2f} ms" for name, median in medians.items())
              + f" (medians of {args.runs}); {args.version_peer} / portable = "
              f"{medians[args.version_peer] / medians['portable']:.2f}")
    for label, arguments in (("--version", ["--version"]),
                             ("lint", ["lint", "envs/resnet50-cuda11.8.yml"])):
        times = {name: [] for name in binaries}
        for _ in range(args.runs):
            for name, binary in binaries.items():
                times[name].append(timed([binary, *arguments]))
        medians = {name: statistics.median(values) * 1e3 for name, values in times.items()}
        print(f"{label}: portable {medians['portable']:.2f} ms, peer {medians['peer']:.2f} ms "
              f"(medians of {args.runs}); peer / portable = "
              f"{medians['peer'] / medians['portable']:.2f}")


if __name__ == "__main__":
    main()
