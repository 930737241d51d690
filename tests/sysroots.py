"""Helpers shared by the end-to-end tests: sysroot fixtures and loopback ports.

Import with the tests/ folder on sys.path:
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
"""
import pathlib
import shutil
import socket

ROOTS = pathlib.Path(__file__).resolve().parent / "data" / "roots"


def copy_root(base, scenario, node_mode=0o666):
    """A copy of tests/data/roots/<scenario> under `base`, its dev/ stand-ins set to
    `node_mode` (git keeps no file modes, and the doctor reads them). Returns the path as text;
    a second call for the same scenario and base reuses the copy."""
    target = pathlib.Path(base) / scenario
    if not target.exists():
        shutil.copytree(ROOTS / scenario, target, symlinks=True)
        dev = target / "dev"
        if dev.is_dir():
            for path in dev.rglob("*"):
                if path.is_file():
                    path.chmod(node_mode)
    return str(target)


def free_port():
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
