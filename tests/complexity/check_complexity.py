#!/usr/bin/env python3
"""Fails when a function is above the cyclomatic complexity limit and not on the allow-list.

Runs `python3 -m lizard -C LIMIT -w DIR...` from --root and compares its warnings with the
allow-list: one line per function, `path function-name  # reason`. A warning not listed fails;
so does a listed function that is no longer above the limit (the list only shrinks).
"""
import argparse
import pathlib
import re
import subprocess
import sys

WARNING = re.compile(r'^(?P<path>[^:]+):\d+: warning: (?P<name>\S+) has .*?(?P<ccn>\d+) CCN')


def read_allow_list(path):
    allowed = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        entry, _, reason = line.partition('#')
        if not entry.strip():
            continue
        fields = entry.split()
        if len(fields) != 2 or not reason.strip():
            sys.exit(f'{path}:{number}: expected "path function  # reason"')
        allowed[(fields[0], fields[1])] = reason.strip()
    return allowed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--root', required=True, type=pathlib.Path)
    parser.add_argument('--allow', required=True, type=pathlib.Path)
    parser.add_argument('--limit', type=int, default=25)
    parser.add_argument('dirs', nargs='+')
    args = parser.parse_args()

    run = subprocess.run([sys.executable, '-m', 'lizard', '-C', str(args.limit), '-w', *args.dirs],
                         cwd=args.root, capture_output=True, text=True)
    if run.returncode not in (0, 1) or run.stderr.strip():
        sys.exit(f'lizard failed ({run.returncode}): {run.stderr.strip()}')
    found = {}
    for line in run.stdout.splitlines():
        match = WARNING.match(line)
        if not match:
            sys.exit(f'unexpected lizard output: {line}')
        found[(match['path'], match['name'])] = int(match['ccn'])

    allowed = read_allow_list(args.allow)
    problems = [f'{path}: {name} has cyclomatic complexity {ccn} (limit {args.limit}): split it'
                for (path, name), ccn in sorted(found.items()) if (path, name) not in allowed]
    problems += [f'{args.allow}: {path} {name} is no longer above {args.limit}: remove it from the list'
                 for (path, name) in sorted(allowed) if (path, name) not in found]
    for problem in problems:
        print(problem)
    print(f'{len(found)} functions above {args.limit}, {len(allowed)} allowed, {len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
