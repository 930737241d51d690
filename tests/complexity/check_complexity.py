#!/usr/bin/env python3
"""Fails when a function is above the cyclomatic complexity limit and not on the allow-list.

Runs `python3 -m lizard -C LIMIT -w DIR...` from --root and compares its warnings with the
allow-list: one line per function, `path function-name  # reason`. A warning not listed fails;
so does a listed function that is no longer above the limit (the list only shrinks).

With --budget DIR LINES (src/cli: the thin layer that parses options, calls a use case, renders
and maps to an exit code) it also fails when DIR's sources (wc -l, headers included) exceed
LINES, or a function in DIR is longer than --function-lines.
"""
import argparse
import pathlib
import re
import subprocess
import sys

WARNING = re.compile(r'^(?P<path>[^:]+):\d+: warning: (?P<name>\S+) has .*?(?P<ccn>\d+) CCN'
                     r'.*?(?P<length>\d+) length')
SOURCES = {'.cpp', '.hpp', '.h', '.cu', '.cuh'}


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


def lizard_warnings(root, options, dirs):
    run = subprocess.run([sys.executable, '-m', 'lizard', *options, '-w', *dirs],
                         cwd=root, capture_output=True, text=True)
    if run.returncode not in (0, 1) or run.stderr.strip():
        sys.exit(f'lizard failed ({run.returncode}): {run.stderr.strip()}')
    found = []
    for line in run.stdout.splitlines():
        match = WARNING.match(line)
        if not match:
            sys.exit(f'unexpected lizard output: {line}')
        found.append((match['path'], match['name'], int(match['ccn']), int(match['length'])))
    return found


def complexity_problems(args):
    found = {(path, name): ccn for path, name, ccn, _ in
             lizard_warnings(args.root, ['-C', str(args.limit)], args.dirs)}
    allowed = read_allow_list(args.allow)
    problems = [f'{path}: {name} has cyclomatic complexity {ccn} (limit {args.limit}): split it'
                for (path, name), ccn in sorted(found.items()) if (path, name) not in allowed]
    problems += [f'{args.allow}: {path} {name} is no longer above {args.limit}: remove it from the list'
                 for (path, name) in sorted(allowed) if (path, name) not in found]
    print(f'{len(found)} functions above {args.limit}, {len(allowed)} allowed')
    return problems


def budget_problems(args):
    folder, budget = args.budget[0], int(args.budget[1])
    files = sorted(path for path in (args.root / folder).rglob('*') if path.suffix in SOURCES)
    lines = sum(path.read_bytes().count(b'\n') for path in files)
    problems = [f'{folder}: {lines} lines (budget {budget}): move what is not option parsing, '
                f'rendering or exit mapping out of it'] if lines > budget else []
    long = lizard_warnings(args.root, ['-C', '100000', '-L', str(args.function_lines)], [folder])
    problems += [f'{path}: {name} is {length} lines long (limit {args.function_lines}): split it'
                 for path, name, _, length in sorted(long)]
    print(f'{folder}: {lines} lines in {len(files)} files (budget {budget})')
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--root', required=True, type=pathlib.Path)
    parser.add_argument('--allow', type=pathlib.Path)
    parser.add_argument('--limit', type=int, default=25)
    parser.add_argument('--budget', nargs=2, metavar=('DIR', 'LINES'))
    parser.add_argument('--function-lines', type=int, default=60)
    parser.add_argument('dirs', nargs='*')
    args = parser.parse_args()
    if args.dirs and not args.allow:
        parser.error('checking complexity needs --allow')

    problems = complexity_problems(args) if args.dirs else []
    problems += budget_problems(args) if args.budget else []
    for problem in problems:
        print(problem)
    print(f'{len(problems)} problems')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
