"""Shared by tests/dist/test_*.py: the portable wheel that the `dist_build_wheel` ctest fixture
built (tests/dist/build_wheel.sh, in $ENVCHECK_DIST_DIR), the binary inside it, and the
bullseye sysroot (tests/dist/make_sysroot.sh), which is also a chroot to run things in."""
import os
import pathlib
import shutil
import subprocess
import zipfile

SOURCE_DIR = pathlib.Path(os.environ.get("ENVCHECK_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))
DIST_DIR = pathlib.Path(os.environ["ENVCHECK_DIST_DIR"])
SYSROOT = pathlib.Path(os.environ.get("ENVCHECK_DIST_SYSROOT", DIST_DIR / "sysroot"))
GLIBC_FLOOR = (2, 31)
# The shared libraries glibc itself provides: the only ones the portable binary may need.
GLIBC_LIBRARIES = {"libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
                   "ld-linux-x86-64.so.2"}


def wheel() -> pathlib.Path:
    wheels = sorted((DIST_DIR / "wheelhouse").glob("envcheck_gpu-*.whl"))
    assert len(wheels) == 1, f"expected one repaired wheel in {DIST_DIR / 'wheelhouse'}: {wheels}"
    return wheels[0]


def unpack_wheel_tree(target: pathlib.Path) -> pathlib.Path:
    """The wheel's install tree (bin/envcheck, share/envcheck/...) under `target`: what pip
    installs into an environment's prefix."""
    with zipfile.ZipFile(wheel()) as archive:
        for info in archive.infolist():
            parts = pathlib.PurePosixPath(info.filename).parts
            if info.is_dir() or len(parts) < 3 or not parts[0].endswith(".data"):
                continue
            kind, rest = parts[1], parts[2:]
            destination = target / ("bin" if kind == "scripts" else "") / pathlib.Path(*rest)
            destination.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, open(destination, "wb") as out:
                shutil.copyfileobj(source, out)
            mode = (info.external_attr >> 16) & 0o777
            destination.chmod(mode or (0o755 if kind == "scripts" else 0o644))
    return target


def in_chroot(command, *, timeout=300, input_text=None):
    """Runs a shell command inside the bullseye sysroot, with /proc mounted in a private mount
    namespace (gone when the command ends)."""
    script = f'mount -t proc proc "{SYSROOT}/proc" && exec chroot "{SYSROOT}" /bin/sh -c "$0"'
    return subprocess.run(["unshare", "--mount", "--fork", "sh", "-c", script, command],
                          capture_output=True, text=True, timeout=timeout, input=input_text,
                          env={"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                               "LANG": "C.UTF-8", "HOME": "/root"})


def copy_into_chroot(source: pathlib.Path, name: str) -> str:
    """Copies a file or tree into the chroot's /tmp/envcheck-tests; returns its path there."""
    directory = SYSROOT / "tmp" / "envcheck-tests"
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / name
    if target.is_dir():
        shutil.rmtree(target)
    if source.is_dir():
        shutil.copytree(source, target, symlinks=True)
    else:
        shutil.copy2(source, target)
    return f"/tmp/envcheck-tests/{name}"
