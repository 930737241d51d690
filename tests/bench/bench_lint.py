#!/usr/bin/env python3
"""`envcheck lint` of a large environment.yml against PyYAML's CSafeLoader (libyaml) only parsing
it (tests/bench/RESULTS.md, section "lint at scale"), measured in the same run.

It writes an environment.yml of N dependencies (default 2,000: half conda specs, half pip
requirements, a tenth of the pip names also conda's, as in files that mix the two managers),
then runs in turn: `envcheck lint FILE` (whole process: reading, YAML, every rule, the report),
`yaml.load(text, CSafeLoader)` in-process (the interpreter's start left out), and the same as a
`python3 -c` process of its own. With --baseline, another envcheck binary (the base commit's)
runs its lint in the same loop. With --reader-bench (build/bench/bench_environment_yaml), the
in-process readings of the same file: envcheck's (libyaml), yaml-cpp's and libyaml's parse
alone, medians of --runs each, measured after the loop. It prints the medians and the ratios.

Usage: tests/bench/bench_lint.py --envcheck build/envcheck [--baseline OLD/envcheck]
           [--reader-bench build/bench/bench_environment_yaml] [--dependencies 2000] [--runs 21]
"""
import argparse
import pathlib
import random
import statistics
import subprocess
import sys
import tempfile
import time

import yaml


def environment_file(count):
    rng = random.Random(20261202)
    conda = [f"  - lib-conda-{i}>={rng.randint(1, 9)}.{rng.randint(0, 20)},<{rng.randint(10, 30)}"
             for i in range(count // 2)]
    pip = []
    for i in range(count - count // 2):
        name = f"lib-conda-{i}" if i % 10 == 0 else f"py-pip-{i}"
        pip.append(f"    - {name}=={rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}")
    return ("name: big\nchannels:\n  - conda-forge\ndependencies:\n  - python=3.11\n  - pip\n"
            + "\n".join(conda) + "\n  - pip:\n" + "\n".join(pip) + "\n")


def timed_process(command):
    start = time.perf_counter()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if result.returncode not in (0, 1):  # 1: findings
        sys.exit(f"{command} failed ({result.returncode}): {result.stderr.decode()[:500]}")
    return time.perf_counter() - start


def timed_parse(text):
    start = time.perf_counter()
    document = yaml.load(text, Loader=yaml.CSafeLoader)
    assert len(document["dependencies"]) > 2
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envcheck", required=True)
    parser.add_argument("--baseline", help="another envcheck binary, e.g. the base commit's")
    parser.add_argument("--reader-bench", help="build/bench/bench_environment_yaml")
    parser.add_argument("--dependencies", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    envcheck = str(pathlib.Path(args.envcheck).resolve())
    with tempfile.TemporaryDirectory() as directory:
        path = pathlib.Path(directory) / "environment.yml"
        text = environment_file(args.dependencies)
        path.write_text(text)
        script = "import sys, yaml; yaml.load(open(sys.argv[1]).read(), Loader=yaml.CSafeLoader)"
        contenders = [
            ("envcheck lint (whole process)", lambda: timed_process([envcheck, "lint", str(path)])),
            ("PyYAML CSafeLoader parse (in-process)", lambda: timed_parse(text)),
            ("PyYAML CSafeLoader parse (python3 -c ...)",
             lambda: timed_process([sys.executable, "-c", script, str(path)])),
        ]
        if args.baseline:
            baseline = str(pathlib.Path(args.baseline).resolve())
            contenders.insert(1, ("envcheck lint, baseline (whole process)",
                                  lambda: timed_process([baseline, "lint", str(path)])))
        samples = {label: [] for label, _ in contenders}
        for _ in range(args.runs):
            for label, run in contenders:
                samples[label].append(run())
        if args.reader_bench:
            output = subprocess.run([args.reader_bench, str(path), "--runs", str(args.runs)],
                                    check=True, capture_output=True, text=True).stdout
            for line in output.splitlines():
                label, seconds = line.split("\t")
                samples[f"envcheck {label} (in-process)"] = [float(seconds)]
    print(f"{args.dependencies} dependencies, {len(text) / 1e3:.0f} KB; PyYAML {yaml.__version__}")
    print("\n| what | median | vs envcheck |\n|---|---:|---:|")
    ours = statistics.median(samples[contenders[0][0]])
    for label, values in samples.items():
        median = statistics.median(values)
        print(f"| {label} | {median * 1e3:.1f} ms | {median / ours:.2f} |")


if __name__ == "__main__":
    main()
