#!/usr/bin/env python3
"""The peer of bench_specs: py-rattler doing the same work on the same pairs.

Usage: bench_specs_peer.py DIR  (reads DIR/pairs.tsv, writes DIR/peer_matches.txt)

Prints "key seconds" lines: version (rattler.Version of every version), spec (rattler.VersionSpec
of every spec, lenient as conda), match (VersionSpec.matches for every pair), matchspec
(rattler.MatchSpec of "name spec"); and "peer <description>".
"""
import pathlib
import sys
import time

import rattler
from rattler import MatchSpec, Version, VersionSpec


def timed(work):
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def main():
    folder = pathlib.Path(sys.argv[1])
    rows = [line.split("\t") for line in (folder / "pairs.tsv").read_text().splitlines()]
    names = [row[0] for row in rows]
    spec_texts = [row[1] for row in rows]
    version_texts = [row[2] for row in rows]

    version_seconds, versions = timed(lambda: [Version(text) for text in version_texts])
    spec_seconds, specs = timed(lambda: [VersionSpec(text) for text in spec_texts])
    match_seconds, matched = timed(
        lambda: [spec.matches(version) for spec, version in zip(specs, versions)])
    matchspec_seconds, _ = timed(
        lambda: [MatchSpec(f"{name} {spec}") for name, spec in zip(names, spec_texts)])

    (folder / "peer_matches.txt").write_text("".join("1" if hit else "0" for hit in matched))
    version = getattr(rattler, "__version__", "unknown")
    print(f"peer py-rattler {version}, Python {sys.version.split()[0]}")
    print(f"version {version_seconds}")
    print(f"spec {spec_seconds}")
    print(f"match {match_seconds}")
    print(f"matchspec {matchspec_seconds}")


if __name__ == "__main__":
    main()
