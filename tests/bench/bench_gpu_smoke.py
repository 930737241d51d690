#!/usr/bin/env python3
"""`envcheck smoke` as a whole process, run the way `check` will run it.

Runs `envcheck smoke --quick --format json` N times (default 10) and reports, per tracked metric,
the spread of the per-run medians across runs ((max - min) / median), and the wall time of each
whole process (fork, CUDA initialisation, probes, exit). Then one `smoke --full` for its time.
Usage: bench_gpu_smoke.py ENVCHECK [RUNS] [OUT.json]
"""
import json
import statistics
import subprocess
import sys
import time


def run(envcheck, *args):
    started = time.perf_counter()
    done = subprocess.run([envcheck, "smoke", *args, "--format", "json"], capture_output=True, text=True, timeout=300)
    return time.perf_counter() - started, done


def main():
    envcheck = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    out_path = sys.argv[3] if len(sys.argv) > 3 else None
    walls, metrics, failures, gpu_seconds = [], {}, [], []
    for _ in range(runs):
        wall, done = run(envcheck, "--quick")
        walls.append(wall)
        if done.returncode != 0:
            failures.append(done.stdout[-2000:] + done.stderr[-2000:])
            continue
        report = json.loads(done.stdout)
        gpu_seconds.append(sum(p["duration_seconds"] for d in report["devices"] for p in d["probes"]))
        for device in report["devices"]:
            for probe in device["probes"]:
                for name, value in probe["metrics"].items():
                    info = probe["metric_info"][name]
                    if info["direction"] != "informational" and value is not None:
                        metrics.setdefault(f'{probe["id"]}.{name}', []).append(value)
    full_wall, full = run(envcheck, "--full")
    rows = []
    for key, values in sorted(metrics.items()):
        middle = statistics.median(values)
        rows.append({"metric": key, "runs": len(values), "median": middle, "min": min(values), "max": max(values),
                     "spread": (max(values) - min(values)) / middle if middle else 0.0})
    summary = {
        "runs": runs,
        "failed_runs": len(failures),
        "failures": failures,
        "quick_wall_seconds": walls,
        "quick_wall_median": statistics.median(walls),
        "quick_wall_max": max(walls),
        "quick_probe_seconds_median": statistics.median(gpu_seconds) if gpu_seconds else None,
        "full_wall_seconds": full_wall,
        "full_exit": full.returncode,
        "metrics": rows,
    }
    if out_path:
        with open(out_path, "w") as handle:
            json.dump(summary, handle, indent=2)
    print(f"\n== envcheck smoke --quick x{runs}: spread of each tracked metric across runs ==")
    for row in rows:
        flag = "" if row["spread"] < 0.03 else "   <-- over 3%"
        print(f'  {row["metric"]:<40} median {row["median"]:>10.3f}  spread {100 * row["spread"]:5.2f}%{flag}')
    print(f"whole process: quick median {summary['quick_wall_median']:.2f} s, max {summary['quick_wall_max']:.2f} s "
          f"(probes {summary['quick_probe_seconds_median'] or 0:.2f} s); full {full_wall:.2f} s (exit {full.returncode}); "
          f"{len(failures)} failed runs")
    return 0 if not failures and full.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
