"""Real conda environments and venvs for envcheck's end-to-end tests.

Small conda packages are built here for real (a .tar.bz2 holding info/index.json,
info/paths.json with sha256 and size, info/files, and the files), put in a local file://
channel indexed with rattler, and installed with rattler's solver and installer, so the
conda-meta records, paths_data and links are exactly what a real tool writes. Wheels are built
the same way (a zip with a dist-info and a RECORD) and installed with the real pip.

Used by tests/prefix/test_*.py and tests/cli/test_*.py; needs py-rattler (`.ci/setup`
installs it).
"""
import asyncio
import atexit
import base64
import csv
import hashlib
import io
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

import rattler
from rattler.index import index_fs

ENVCHECK = os.environ.get("ENVCHECK", "envcheck")
SOURCE_DIR = pathlib.Path(os.environ.get("ENVCHECK_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SCHEMAS = SOURCE_DIR / "schemas"
PLATFORM = "linux-64"
SITE_PACKAGES = "lib/python3.11/site-packages"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def conda_package(channel: pathlib.Path, name, version, build, files, *, subdir=PLATFORM, depends=(),
                  build_number=0, noarch=None, constrains=()):
    """Writes <channel>/<subdir>/<name>-<version>-<build>.tar.bz2 with the given files."""
    (channel / subdir).mkdir(parents=True, exist_ok=True)
    index = {"name": name, "version": version, "build": build, "build_number": build_number,
             "depends": list(depends), "subdir": subdir, "license": "MIT", "timestamp": 1764000000000}
    if noarch:
        index["noarch"] = noarch
    if constrains:
        index["constrains"] = list(constrains)
    paths = []
    archive = io.BytesIO()
    with tarfile.open(fileobj=archive, mode="w:bz2") as tar:
        def add(path, data, mode):
            info = tarfile.TarInfo(path)
            info.size = len(data)
            info.mode = mode
            info.mtime = 1764000000
            tar.addfile(info, io.BytesIO(data))
        for path, data in sorted(files.items()):
            add(path, data, 0o755 if path.startswith("bin/") else 0o644)
            paths.append({"_path": path, "path_type": "hardlink", "sha256": sha256(data),
                          "size_in_bytes": len(data)})
        add("info/index.json", json.dumps(index).encode(), 0o644)
        add("info/paths.json", json.dumps({"paths": paths, "paths_version": 1}).encode(), 0o644)
        add("info/files", ("\n".join(sorted(files)) + "\n").encode(), 0o644)
    (channel / subdir / f"{name}-{version}-{build}.tar.bz2").write_bytes(archive.getvalue())


def dist_info_files(name, version, installer=None):
    """The dist-info a conda package of a Python project carries (owned by its record)."""
    base = f"{SITE_PACKAGES}/{name}-{version}.dist-info"
    files = {f"{base}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()}
    if installer:
        files[f"{base}/INSTALLER"] = f"{installer}\n".encode()
    return files


def build_channel(root: pathlib.Path) -> pathlib.Path:
    """A channel with: python (just its site-packages), hello in two builds and a 2.0, a noarch
    python package `greet` whose dist-info conda owns, and `extra-tool`."""
    channel = root / "channel"
    conda_package(channel, "python", "3.11.9", "h0_0_cpython",
                  {f"{SITE_PACKAGES}/README.txt": b"site-packages of the test python\n",
                   "bin/python3.11": b"#!/bin/sh\necho not a real python\n"})
    conda_package(channel, "hello", "1.0", "h0_0",
                  {"bin/hello": b"#!/bin/sh\necho hello\n", "lib/libhello.so": b"\x7fELF hello 1.0 build 0\n",
                   "share/hello/data.txt": b"data\n"})
    conda_package(channel, "hello", "1.0", "h1_1", build_number=1,
                  files={"bin/hello": b"#!/bin/sh\necho hello, rebuilt\n",
                         "lib/libhello.so": b"\x7fELF hello 1.0 build 1\n",
                         "share/hello/data.txt": b"data\n"})
    conda_package(channel, "hello", "2.0", "h0_0",
                  {"bin/hello": b"#!/bin/sh\necho hello 2\n", "lib/libhello.so": b"\x7fELF hello 2.0\n",
                   "share/hello/data.txt": b"data 2\n"})
    greet_files = {f"{SITE_PACKAGES}/greet/__init__.py": b"def greet():\n    return 'hi'\n"}
    greet_files.update(dist_info_files("greet", "0.3", installer="conda"))
    conda_package(channel, "greet", "0.3", "pyh0_0", greet_files, subdir="noarch", depends=["python", "hello"])
    conda_package(channel, "extra-tool", "1.2", "h0_0", {"bin/extra-tool": b"#!/bin/sh\necho extra\n"})
    (channel / "noarch").mkdir(exist_ok=True)
    index(channel)
    return channel


def index(channel: pathlib.Path):
    """Writes the channel's repodata.json files (rattler's indexer)."""
    indexing = index_fs(channel)
    if asyncio.iscoroutine(indexing):  # py-rattler >= 0.15 made it async
        asyncio.run(indexing)


def create_env(channel: pathlib.Path, prefix: pathlib.Path, specs, cache: pathlib.Path):
    """Solves `specs` against the channel and installs them into `prefix` with rattler."""
    async def run():
        records = await rattler.solve([channel.as_uri()], list(specs), platforms=[PLATFORM, "noarch"],
                                      virtual_packages=[])
        installed = []
        if (prefix / "conda-meta").is_dir():
            installed = [rattler.PrefixRecord.from_path(path) for path in (prefix / "conda-meta").glob("*.json")]
        await rattler.install(records, prefix, cache_dir=cache, show_progress=False,
                              installed_packages=installed,
                              requested_specs=[rattler.MatchSpec(spec)._match_spec for spec in specs])
        return records
    return asyncio.run(run())


def write_pixi_lock(records, path: pathlib.Path, channel: pathlib.Path):
    """A pixi.lock written by rattler itself for the solved records."""
    platform = rattler.LockPlatform(PLATFORM)
    lock = rattler.LockFile([platform])
    lock.set_channels("default", [rattler.LockChannel(channel.as_uri())])
    for record in records:
        lock.add_conda_package("default", platform, record)
    lock.to_path(path)


def build_wheel(directory: pathlib.Path, name, version, module_text=b"VALUE = 1\n", requires=(),
                extras=(), files=None, module=True) -> pathlib.Path:
    """A pure-Python wheel: <name>/__init__.py (unless `module` is false), the `files` given
    ({path: bytes}) and its dist-info, with a correct RECORD; `requires` are its Requires-Dist
    lines, `extras` its Provides-Extra. A name with '-' or '.' is written '_' in file names."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[-.]+", "_", name)
    dist = f"{stem}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "".join(f"Provides-Extra: {extra}\n" for extra in extras)
    metadata += "".join(f"Requires-Dist: {line}\n" for line in requires)
    contents = {f"{stem}/__init__.py": module_text} if module else {}
    contents.update(files or {})
    contents.update({
        f"{dist}/METADATA": metadata.encode(),
        f"{dist}/WHEEL": b"Wheel-Version: 1.0\nGenerator: envcheck-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    })
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for path, data in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        writer.writerow([path, f"sha256={digest}", len(data)])
    writer.writerow([f"{dist}/RECORD", "", ""])
    contents[f"{dist}/RECORD"] = record.getvalue().encode()
    wheel = directory / f"{stem}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, data in contents.items():
            archive.writestr(path, data)
    return wheel


def pip_install(args, python=None):
    """Runs the real pip, offline."""
    command = [python or sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet",
               "--disable-pip-version-check", *map(str, args)]
    subprocess.run(command, check=True, env={**os.environ, "PIP_BREAK_SYSTEM_PACKAGES": "1"})


def replace_file(path: pathlib.Path, data: bytes):
    """Edits a prefix file without touching the package cache it is hard-linked to."""
    path.unlink()
    path.write_bytes(data)


def envcheck(*args, cwd=None, env=None):
    """Runs envcheck; returns the CompletedProcess (stdout and stderr as text)."""
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("CONDA_PREFIX", "VIRTUAL_ENV")}
    environment.update(env or {})
    return subprocess.run([ENVCHECK, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=environment)


def check_json(*args, cwd=None, env=None):
    """Runs `envcheck check --format json`; returns (exit code, parsed report)."""
    result = envcheck("check", "--format", "json", *args, cwd=cwd, env=env)
    assert result.stdout, result.stderr
    return result.returncode, json.loads(result.stdout)


_nothing_required = None


def nothing_required():
    """An empty requirements file: `check` needs an environment file or a lock, and the tests that
    look at what an environment says of itself pass this one. Made once, removed at exit."""
    global _nothing_required
    if _nothing_required is None:
        directory = pathlib.Path(tempfile.mkdtemp(prefix="envcheck-test-"))
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        _nothing_required = directory / "empty-requirements.txt"
        _nothing_required.write_text("# nothing\n")
    return _nothing_required


def check_json_of_itself(*args):
    """check_json against nothing_required(): what the environment says of itself."""
    return check_json(*args, "--env", nothing_required())


def statuses(report):
    """{(manager, name): status} of a check report."""
    return {(package["manager"], package["name"]): package["status"] for package in report["packages"]}


def validate(document, schema_name):
    """Validates a document against one of schemas/*.json (JSON Schema 2020-12)."""
    import jsonschema
    schema = json.loads((SCHEMAS / schema_name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(document)


def copy_tree(source: pathlib.Path, target: pathlib.Path):
    shutil.copytree(source, target, symlinks=True)
