"""ENVCHECK_PGO=ON (src/dist/pgo.cmake) built as a user builds it: a fresh build tree of this
source, an instrumented envcheck trained by tests/bench/pgo_training.py, then envcheck compiled
with the profiles it wrote. The build compiles envcheck twice (label selfbuild: the sanitizer
run leaves it out).
"""
import json
import os
import pathlib
import shlex
import subprocess

SOURCE_DIR = pathlib.Path(os.environ.get("ENVCHECK_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))


def test_pgo_build_trains_then_compiles_every_source_with_the_profiles(tmp_path):
    build = tmp_path / "build"
    configure = subprocess.run(
        ["cmake", "-S", str(SOURCE_DIR), "-B", str(build), "-G", "Ninja", "-DENVCHECK_PGO=ON",
         "-DENVCHECK_CUDA=OFF", "-DENVCHECK_TESTS=OFF", "-DENVCHECK_BENCH=OFF"],
        capture_output=True, text=True, timeout=300, check=False)
    assert configure.returncode == 0, configure.stderr
    assert "profile-guided optimization (an instrumented build first)" in configure.stdout

    built = subprocess.run(["cmake", "--build", str(build), "--target", "envcheck"],
                           capture_output=True, text=True, timeout=1700, check=False)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-4000:]
    assert "pgo_training: " in built.stdout and " profiles from 1500 records" in built.stdout

    # The profiles are named after the objects' paths in their build tree (-fprofile-prefix-path),
    # the record parser's among them.
    profiles = {path.name for path in (build / "pgo" / "profiles").glob("*.gcda")}
    scanner = "src#CMakeFiles#envcheck_formats.dir#formats#conda_meta_scanner.cpp.gcda"
    assert scanner in profiles, sorted(profiles)[:20]

    # Every C++ file of src/ was compiled with them, and GCC finds the scanner's under this
    # tree's name: its compilation again (to the same object: the profile's name is the
    # object's), with a missing profile an error, succeeds.
    commands = json.loads((build / "compile_commands.json").read_text())
    sources = [entry for entry in commands
               if entry["file"].startswith(str(SOURCE_DIR / "src")) and entry["file"].endswith(".cpp")]
    assert sources
    assert all("-fprofile-use=" in entry["command"] for entry in sources)
    entry = next(entry for entry in sources if entry["file"].endswith("formats/conda_meta_scanner.cpp"))
    again = shlex.split(entry["command"].replace("-Wno-missing-profile", "-Werror=missing-profile"))
    recompiled = subprocess.run(again, cwd=entry["directory"], capture_output=True, text=True,
                                timeout=300, check=False)
    assert recompiled.returncode == 0, recompiled.stderr
    assert "profile" not in recompiled.stderr, recompiled.stderr

    # The optimized binary checks the training's prefix against its lock: 1,500 packages ok.
    envcheck = build / "envcheck"
    work = build / "pgo" / "work"
    check = subprocess.run([str(envcheck), "check", "--no-gpu", "--prefix", str(work / "prefix"),
                            "--lock", str(work / "environment.lock.json")],
                           capture_output=True, text=True, timeout=120, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "packages: 1500 ok" in check.stdout
