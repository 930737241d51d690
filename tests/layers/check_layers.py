#!/usr/bin/env python3
"""Enforces envcheck's module layering (README "Layout").

Reads the module table CMake writes (layers.json: module -> kind, deps) and every source file
under src/<module>/, and fails when:
  * a module includes a project header of a module it does not declare as a dependency;
  * a pure module depends on, or includes, anything but pure modules;
  * a use-case module (src/app) depends on, or includes, anything but pure modules: it reaches
    the world only through its ports (app/ports.hpp), which the cli implements with adapters;
  * a module other than the cli and the host depends on a use-case module;
  * the host (src/host: the real ports) includes a use-case header other than their ports
    (app/ports.hpp), or a module other than the cli depends on it;
  * the cli (root) depends on, or includes, an adapter or support module (it reaches them
    through the host's ports), or includes a header or calls a function that reaches the world;
  * an adapter depends on another adapter (support modules such as fsio and driver are what
    adapters share), or a support module depends on an adapter;
  * a pure or use-case module includes a header or calls a function that reaches the world:
    files, environment variables, the clock, processes, the network, the GPU or drivers.
"""
import argparse
import json
import pathlib
import re
import sys

# Kinds that never touch the world: they may depend on and include pure modules only.
WORLDLESS = {"pure", "usecase"}
# Kinds that reach the world only through ports: no world header, no world call.
PORTED = WORLDLESS | {"root"}
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# Headers a pure module may not include: each one exists to reach outside the process.
WORLD_HEADERS = re.compile(
    r'^(fstream|filesystem|cstdio|stdio\.h|dlfcn\.h|unistd\.h|fcntl\.h|sys/.*|dirent\.h|'
    r'curl/.*|cuda.*|nvml\.h|thread|future|random|ctime|time\.h|netdb\.h|arpa/.*|netinet/.*)$')
WORLD_CALLS = re.compile(
    r'\b(getenv|secure_getenv|setenv|unsetenv|putenv|clearenv|fopen|popen|system|dlopen|'
    r'system_clock::now|steady_clock::now|high_resolution_clock::now|current_path|'
    r'std::ifstream|std::ofstream|std::random_device)\b\s*[(:{]?')


def strip_comments_and_strings(text):
    text = re.sub(r'//[^\n]*', '', text)
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--src', required=True)
    parser.add_argument('--table', required=True)
    args = parser.parse_args()
    table = {k: v for k, v in json.loads(pathlib.Path(args.table).read_text()).items()
             if not k.startswith('_')}
    src = pathlib.Path(args.src)
    problems = []

    for module, entry in sorted(table.items()):
        kind, deps = entry['kind'], set(entry['deps'])
        for dep in sorted(deps):
            if dep not in table:
                problems.append(f'{module}: depends on unknown module {dep}')
                continue
            dep_kind = table[dep]['kind']
            if kind in WORLDLESS and dep_kind != 'pure':
                problems.append(f'{module} ({kind}) depends on {dep} ({dep_kind})')
            elif dep_kind == 'usecase' and kind not in ('root', 'host'):
                problems.append(f'{module} ({kind}) depends on the use cases {dep}')
            if kind in ('adapter', 'support') and dep_kind == 'adapter':
                problems.append(f'{module} ({kind}) depends on an adapter, {dep}')
            if kind == 'root' and dep_kind in ('adapter', 'support'):
                problems.append(f'{module} (root) depends on the {dep_kind} {dep}; the host wires it')
            if dep_kind == 'host' and kind != 'root':
                problems.append(f'{module} ({kind}) depends on {dep} (host); only the root may')
            if dep_kind == 'root':
                problems.append(f'{module} depends on the composition root {dep}')

        folder = src / module
        if not folder.is_dir():
            continue  # declared, no sources yet: nothing to violate
        for path in sorted(folder.rglob('*')):
            if path.suffix not in {'.hpp', '.cpp', '.h', '.cuh'}:
                continue
            raw = path.read_text(encoding='utf-8', errors='replace')
            rel = path.relative_to(src)
            for bracket, header in INCLUDE.findall(raw):
                first = header.split('/', 1)[0]
                if bracket == '"' and '/' in header:
                    if first == 'kernels':
                        if module != 'gpu':
                            problems.append(f'{rel}: includes {header}; only src/gpu may include kernels')
                    elif first not in table:
                        problems.append(f'{rel}: includes {header} of unknown module {first}')
                    elif (kind in WORLDLESS and first != module
                          and table[first]['kind'] != 'pure'):
                        problems.append(f'{rel}: {kind} module includes {header} of the '
                                        f'{table[first]["kind"]} {first}')
                    elif first != module and first not in deps:
                        problems.append(f'{rel}: includes {header} but {module} does not depend on {first}')
                    elif (kind == 'host' and table[first]['kind'] == 'usecase'
                          and header != f'{first}/ports.hpp'):
                        problems.append(f'{rel}: host module includes {header}; of the use cases '
                                        f'only {first}/ports.hpp')
                    elif kind == 'root' and table[first]['kind'] in ('adapter', 'support'):
                        problems.append(f'{rel}: root module includes {header} of the '
                                        f'{table[first]["kind"]} {first}')
                if kind in PORTED and bracket == '<' and WORLD_HEADERS.match(header):
                    problems.append(f'{rel}: {kind} module includes <{header}>, which reaches the world')
            if kind in PORTED:
                code = strip_comments_and_strings(raw)
                for match in WORLD_CALLS.finditer(code):
                    line = code.count('\n', 0, match.start()) + 1
                    problems.append(f'{rel}:{line}: {kind} module calls {match.group(1)}')

    for problem in problems:
        print(problem)
    print(f'{len(table)} modules checked, {len(problems)} layering problem(s)')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
