#!/usr/bin/env python3
"""Scaling of `envcheck check --lock --no-gpu` with the number of conda records
(tests/bench/RESULTS.md, section "check: scaling"), with its peers measured in the same run.

For each size (default 100, 400, 2,000, 5,000 and 10,000 records) it generates a conda prefix of
records shaped like conda-forge's (sorted keys, indented; `depends`, `files` and `paths_data` of
a few to a few hundred entries, most packages small), a third of them Python packages whose
dist-info directory (METADATA, INSTALLER, RECORD) the record owns, as in a real prefix; locks it
with `envcheck lock --no-gpu`; then runs in turn, every contender once per round:

  - `envcheck check --no-gpu --prefix P --lock L` (both cores, and `--jobs 1`), whole process;
  - Python's own `json.load` of every record (in-process: the interpreter's start left out),
    the floor of any Python tool that reads conda-meta;
  - py-rattler `PrefixRecord.from_path` of every record (in-process);
  - `uv pip list --prefix P` and `pip list --path SITE` (whole processes: they list the
    prefix's Python distributions, a third of the records);
  - the read floor: `bench_read_floor` (tests/bench, built beside envcheck in build/bench/),
    a process that opens, reads and closes every record on one thread per core and does
    nothing else; what `check` takes beyond it is envcheck's own work;
  - with --env, `envcheck check --no-gpu --prefix P --env E` of an environment.yml with a spec
    per record (matching every spec against the installed packages).

With --records-from (the shared corpus's conda-meta/), the prefix is instead --copies renamed
copies of every real record there (their depends do not resolve among the copies, so the check
also reports broken dependencies), and uv and pip, which list site-packages, are left out.

Every round measures the contenders in an order shifted by one from the round before.
It prints the medians of wall time and CPU time, the max RSS of each process (one more run under
/usr/bin/time), and the ratios to envcheck; then, for each size, envcheck's wall time over
json.load's in the same round (median and quartiles of the rounds), the ratio issue 19 sets a
goal for, which the VM's drift between rounds does not move.

Usage: tests/bench/bench_check_scaling.py --envcheck build/envcheck [--sizes 100,400,2000,10000]
       [--runs 11] [--dir /tmp/envcheck-bench-scaling] [--baseline OLD_BINARY] [--env] [--reuse]
       [--read-floor build/bench/bench_read_floor] [--records-from DIR [--copies 20]]
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

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from bench_check import SITE, conda_record  # noqa: E402  (one record shape for both benchmarks)


JSON_LOAD = "Python json.load of every record (in-process)"


def package_name(index):
    return f"{'py' if index % 3 == 0 else 'lib'}pkg-{index}"


def generate(root: pathlib.Path, count: int):
    """A prefix of `count` records and their owned dist-infos; deterministic."""
    rng = random.Random(20261202 + count)
    meta = root / "conda-meta"
    meta.mkdir(parents=True)
    site = root / SITE
    site.mkdir(parents=True)
    # What most records ask for (conda-forge: "libgcc >=13", "python >=3.11,<3.12.0a0",
    # "python_abi 3.11.* *_cp311"): a few packages, each spec text shared by many records.
    common = [f"{package_name(index)} >=1.{minor}" for index in range(min(count, 8)) for minor in (0, 2)] + \
        [f"{package_name(index)} >=1.0,<13.0a0" for index in range(min(count, 8))]
    for index in range(count):
        python_package = index % 3 == 0
        name = package_name(index)
        version = f"{rng.randint(1, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
        build = f"py311h{rng.getrandbits(28):07x}_{rng.randint(0, 5)}" if python_package else \
            f"h{rng.getrandbits(28):07x}_{rng.randint(0, 5)}"
        file_count = min(400, int(rng.paretovariate(1.2) * 4))
        module = name.replace("-", "_")
        if python_package:
            files = [f"{SITE}/{module}/sub{i % 7}/module_{i}.py" for i in range(file_count)]
            dist = f"{module}-{version}.dist-info"
            files += [f"{SITE}/{dist}/{leaf}" for leaf in ("INSTALLER", "METADATA", "RECORD")]
            (site / dist).mkdir()
            (site / dist / "METADATA").write_text(
                f"Metadata-Version: 2.1\nName: {module}\nVersion: {version}\n"
                + "".join(f"Requires-Dist: dep{i}>=1\n" for i in range(index % 5))
                + "\n" + "A long description.\n" * 20)
            (site / dist / "INSTALLER").write_text("conda\n")
            (site / dist / "RECORD").write_text("".join(f"{path},,\n" for path in files))
        else:
            files = [f"lib/lib{module}.so.{version}"] + [f"include/{module}/h{i}.h" for i in range(file_count)]
        paths = []
        for path in files:
            digest = hashlib.sha256(path.encode()).hexdigest()
            paths.append({"_path": path, "path_type": "hardlink", "sha256": digest,
                          "sha256_in_prefix": digest, "size_in_bytes": len(path) * 37})
        record = conda_record(
            name, version, build, "linux-64", files=files, paths=paths,
            depends=rng.sample(common, rng.randint(0, 4))
            + [f"{package_name(rng.randrange(count))} >=0.{rng.randint(0, 9)}" for _ in range(rng.randint(0, 8))],
            requested_spec="", size=rng.randint(1000, 10**8), timestamp=1720000000000 + rng.randint(0, 10**9))
        (meta / f"{name}-{version}-{build}.json").write_text(json.dumps(record, indent=2, sort_keys=True))


def generate_from(root: pathlib.Path, source: pathlib.Path, copies: int) -> int:
    """A prefix of `copies` copies of every real record in `source` (each copy renamed, its
    depends left as written: most do not resolve, so the check also reports broken dependencies,
    as in an environment broken by hand). Returns the number of records written."""
    meta = root / "conda-meta"
    meta.mkdir(parents=True)
    written = 0
    for path in sorted(source.glob("*.json")):
        try:
            record = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            continue  # the corpus holds broken records too
        if not isinstance(record, dict) or not all(isinstance(record.get(key), str)
                                                   for key in ("name", "version", "build")):
            continue
        for copy in range(copies):
            renamed = dict(record, name=f"{record['name']}-c{copy}")
            (meta / f"{renamed['name']}-{record['version']}-{record['build']}.json").write_text(
                json.dumps(renamed, indent=2, sort_keys=True))
            written += 1
    return written


def run_process(command, accepted=frozenset()):
    """Wall time and CPU time (user + system) of one process, and the command (for max_rss);
    an exit status other than 0 and `accepted` ends the benchmark."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    error = process.stderr.read()
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0 and process.returncode not in accepted:
        sys.exit(f"{command} failed ({process.returncode}): {error.decode()[:500]}")
    return wall, usage.ru_utime + usage.ru_stime, command


def max_rss(command):
    """Max RSS (KiB) of one run under /usr/bin/time: a child of this interpreter would report the
    interpreter's own size when that is larger (Linux keeps the high-water mark across exec)."""
    # Not checked: run_process has judged the exit status; time's last line is the size.
    result = subprocess.run(["/usr/bin/time", "-f", "%M", *command], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, check=False)
    return int(result.stderr.strip().splitlines()[-1])


def run_in_process(function):
    start, start_cpu = time.perf_counter(), time.process_time()
    function()
    return time.perf_counter() - start, time.process_time() - start_cpu, None


def json_load_all(records):
    def load():
        for path in records:
            with open(path, "rb") as handle:
                json.load(handle)
    return load


def rattler_read_all(records, tolerant=False):
    """With `tolerant`, a record py-rattler refuses (real ones from before conda wrote `url`) is
    counted in `refused`, not an error."""
    import rattler

    def read():
        read.refused = 0
        for path in records:
            try:
                rattler.PrefixRecord.from_path(path)
            except Exception:  # noqa: BLE001 (rattler raises its own exception types)
                if not tolerant:
                    raise
                read.refused += 1
    read.refused = 0
    return read


def measure(contenders, runs):
    """Each contender once per round; each round starts one contender later, so that every one
    is measured in every place of the order (equally often when the rounds are a multiple of the
    contenders): a process measured right after `pip list` ran a few percent slower than the
    same one measured later in the round."""
    samples = {label: [] for label, _ in contenders}
    for round_index in range(runs):
        shift = round_index % len(contenders)
        for label, run in contenders[shift:] + contenders[:shift]:
            samples[label].append(run())
    result = {}
    for label, values in samples.items():
        command = values[0][2]
        result[label] = (statistics.median(v[0] for v in values), statistics.median(v[1] for v in values),
                         max_rss(command) if command else None)
    return result, samples


def paired_ratio(samples, label, reference):
    """The median and quartiles of `label`'s wall time over `reference`'s in the same round: the
    VM's speed drifts by 10% and more within a minute, and both contenders of a round see the same
    drift, which the ratio of the two medians does not cancel."""
    ratios = [ours[0] / theirs[0] for ours, theirs in zip(samples[label], samples[reference])]
    quartiles = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else [ratios[0]] * 3
    return quartiles[1], quartiles[0], quartiles[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--envcheck", required=True)
    parser.add_argument("--dir", default="/tmp/envcheck-bench-scaling")
    parser.add_argument("--sizes", default="100,400,2000,5000,10000")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--reuse", action="store_true", help="keep already generated prefixes")
    parser.add_argument("--only-envcheck", action="store_true", help="leave the peers out (profiling)")
    parser.add_argument("--baseline", help="another envcheck binary (an earlier commit), measured alongside")
    parser.add_argument("--env", action="store_true", help="also check --env with a spec per record")
    parser.add_argument("--read-floor", help="bench_read_floor (default: bench/ beside --envcheck)")
    parser.add_argument("--records-from", help="a directory of real conda-meta records (the shared "
                        "corpus's conda-meta/): one prefix of --copies copies of each, instead of --sizes")
    parser.add_argument("--copies", type=int, default=20)
    args = parser.parse_args()
    envcheck = str(pathlib.Path(args.envcheck).resolve())
    read_floor = pathlib.Path(args.read_floor or pathlib.Path(envcheck).parent / "bench" / "bench_read_floor")
    if not read_floor.is_file():
        sys.exit(f"{read_floor}: not built (cmake -DENVCHECK_BENCH=ON; ninja bench_read_floor), or pass --read-floor")
    uv = shutil.which("uv")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; {sys.version.split()[0]}, "
          f"{subprocess.run([uv, '--version'], capture_output=True, text=True).stdout.strip() if uv else 'no uv'}")
    print("\n| records | MB | contender | median wall | median CPU | max RSS | wall vs envcheck |")
    print("|---:|---:|---|---:|---:|---:|---:|")
    if args.records_from:
        sources = [("real", lambda prefix: generate_from(prefix, pathlib.Path(args.records_from), args.copies))]
    else:
        sources = [(value, lambda prefix, size=int(value): generate(prefix, size))
                   for value in args.sizes.split(",")]
    paired = []
    for name, make in sources:
        root = pathlib.Path(args.dir) / name
        prefix, lock = root / "prefix", root / "lock.json"
        if not (args.reuse and lock.exists()):
            shutil.rmtree(root, ignore_errors=True)
            make(prefix)
            subprocess.run([envcheck, "lock", "--no-gpu", "--prefix", prefix, "--output", lock], check=True,
                           stdout=subprocess.DEVNULL)
        records = sorted((prefix / "conda-meta").glob("*.json"))
        size = len(records)
        megabytes = sum(path.stat().st_size for path in records) / 1e6
        check = [envcheck, "check", "--no-gpu", "--prefix", str(prefix), "--lock", str(lock)]
        # Real records' depends do not resolve among renamed copies: the check fails (exit 1),
        # as it should; whatever else it exits with is a failure of the benchmark.
        fails = {1} if args.records_from else set()
        contenders = [("envcheck check --lock --no-gpu", lambda: run_process(check, fails)),
                      ("envcheck ... --jobs 1", lambda: run_process(check + ["--jobs", "1"], fails))]
        if args.baseline:
            before = [str(pathlib.Path(args.baseline).resolve())] + check[1:]
            contenders.append(("envcheck of --baseline", lambda: run_process(before, fails)))
        if args.env:
            # An environment file naming every record: `check --env` matches each spec.
            environment = root / "environment.yml"
            environment.write_text("dependencies:\n" + "".join(
                f"  - {json.loads(path.read_text())['name']} >=1.0\n" for path in records))
            by_env = [envcheck, "check", "--no-gpu", "--prefix", str(prefix), "--env", str(environment)]
            contenders.append(("envcheck check --env (a spec per record)", lambda: run_process(by_env)))
            if args.baseline:
                env_before = [str(pathlib.Path(args.baseline).resolve())] + by_env[1:]
                contenders.append(("... --env, of --baseline", lambda: run_process(env_before)))
        floor = [str(read_floor), str(prefix / "conda-meta")]
        contenders.append(("read floor: open, read, close every record (bench_read_floor)",
                           lambda: run_process(floor)))
        rattler_read = rattler_read_all(records, tolerant=bool(args.records_from))
        if not args.only_envcheck:
            contenders += [(JSON_LOAD, run_in_process_of(json_load_all(records))),
                           ("py-rattler PrefixRecord.from_path (in-process)", run_in_process_of(rattler_read))]
            if uv and not args.records_from:
                contenders.append(("uv pip list --prefix", lambda: run_process([uv, "pip", "list", "--prefix",
                                                                                 str(prefix)])))
            if not args.records_from:  # no site-packages
                contenders.append(("pip list --path", lambda: run_process(
                    [sys.executable, "-m", "pip", "list", "--path", str(prefix / SITE)])))
        for _, run in contenders:  # warm the page cache and the interpreter's imports
            run()
        results, samples = measure(contenders, args.runs)
        ours = results[contenders[0][0]][0]
        for label, (wall, cpu, rss) in results.items():
            rss_text = f"{rss / 1024:.1f} MB" if rss is not None else ""
            print(f"| {size:,}{' real' if args.records_from else ''} | {megabytes:.1f} | {label} | {wall * 1e3:.1f} ms | {cpu * 1e3:.1f} ms | {rss_text} | "
                  f"{wall / ours:.2f} |", flush=True)
        if JSON_LOAD in samples:
            median, low, high = paired_ratio(samples, contenders[0][0], JSON_LOAD)
            paired.append(f"{size:,} records: `{contenders[0][0]}` over `json.load`, round by round: "
                          f"median {median:.3f} (quartiles {low:.3f} to {high:.3f}, {args.runs} rounds)")
        if rattler_read.refused:
            print(f"\npy-rattler refused {rattler_read.refused} of the {size:,} records (read to the error)")
    if paired:
        print("\n" + "\n".join(f"- {line}" for line in paired))


def run_in_process_of(function):
    return lambda: run_in_process(function)


if __name__ == "__main__":
    main()
