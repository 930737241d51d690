"""Hostile inputs and outputs (issue 15): FIFOs and devices never hang envcheck, writes to
streams go through them, concurrent writers never clobber each other, export never replaces its
input."""
import json
import os
import shutil
import stat
import subprocess
import threading

import pytest

from clienv import project, realenv

envcheck = realenv.envcheck
DATA_LOCKS = realenv.SOURCE_DIR / "tests/data/locks"
HANG = 30  # seconds: far beyond any of these commands, far below "forever"


def run(*args, cwd=None, env=None, stdin=subprocess.DEVNULL):
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([realenv.ENVCHECK, *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=environment, timeout=HANG, stdin=stdin)


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    return realenv.build_channel(tmp_path_factory.mktemp("channel"))


def test_fifo_and_device_inputs_are_refused_at_once(tmp_path):
    fifo = tmp_path / "environment.yml"
    os.mkfifo(fifo)
    linted = run("lint", fifo)
    assert linted.returncode == 2
    assert "is a FIFO, not a regular file" in linted.stderr
    checked = run("check", "--lock", fifo, "--prefix", tmp_path, "--no-gpu")
    assert checked.returncode == 2
    assert "FIFO" in checked.stderr
    zero = run("lint", "/dev/zero")
    assert zero.returncode == 2
    assert "is a device" in zero.stderr
    # Where a stream is meant, it is read: standard input and bash's <(...).
    piped = subprocess.run([realenv.ENVCHECK, "lint", "-"], input="dependencies:\n  - python=3.11\n",
                           capture_output=True, text=True, timeout=HANG)
    assert piped.returncode in (0, 1), piped.stderr
    substituted = subprocess.run(
        ["bash", "-c", f'"{realenv.ENVCHECK}" lint <(printf "dependencies:\\n  - python=3.11\\n")'],
        capture_output=True, text=True, timeout=HANG)
    assert substituted.returncode in (0, 1), substituted.stderr


def test_lock_to_dev_stdout_writes_through(channel, tmp_path):
    _, prefix = project(tmp_path, channel)
    # `| head -c 1` closes the pipe early; the lock used to read /dev/stdout, its own output.
    piped = subprocess.run(
        ["bash", "-c", f'"{realenv.ENVCHECK}" lock --no-gpu --prefix "{prefix}" -o /dev/stdout | head -c 1'],
        capture_output=True, text=True, timeout=HANG)
    assert piped.stdout == "{"
    full = run("lock", "--no-gpu", "--prefix", prefix, "-o", "/dev/stdout")
    assert full.returncode == 0, full.stderr
    assert full.stdout.startswith("{") and '"packages"' in full.stdout
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    # /dev/null stays a device (as root, it used to be renamed over with a regular file).
    exported = run("export", "--prefix", prefix, "-o", "/dev/null")
    assert exported.returncode == 0, exported.stderr
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_concurrent_locks_never_clobber(channel, tmp_path):
    _, prefix = project(tmp_path, channel)
    other = tmp_path / "other"
    realenv.create_env(channel, other, ["greet", "hello ==1.0 h1_1"], tmp_path / "cache")
    target = tmp_path / "same.lock.json"
    results = {}

    def lock(name, environment):
        results[name] = run("lock", "--no-gpu", "--prefix", environment, "-o", target)

    for _ in range(5):
        if target.exists():
            target.unlink()
        threads = [threading.Thread(target=lock, args=(name, environment))
                   for name, environment in (("a", prefix), ("b", other))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wrote = [name for name, result in results.items() if "envcheck: wrote" in result.stdout]
        # Exactly one writes; the other is refused (it found the file, or lost the race).
        assert len(wrote) == 1, {name: (r.stdout, r.stderr) for name, r in results.items()}
        loser = results["b" if wrote == ["a"] else "a"]
        assert loser.returncode != 0
        leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".same.lock.json")]
        assert leftovers == []


def test_export_never_replaces_its_input(tmp_path):
    lock = tmp_path / "env.lock.json"
    shutil.copy(DATA_LOCKS / "sample.lock.json", lock)
    before = lock.read_bytes()
    onto_input = run("export", "--lock", lock, "-o", lock)
    assert onto_input.returncode == 2
    assert "names the input lock" in onto_input.stderr
    assert lock.read_bytes() == before
    via_link = tmp_path / "link.json"
    via_link.symlink_to(lock)
    assert run("export", "--lock", lock, "-o", via_link).returncode == 2
    assert lock.read_bytes() == before

    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    refused = run("export", "--lock", lock, "-o", other)
    assert refused.returncode == 2
    assert "pass --force" in refused.stderr
    assert other.read_text() == "my notes\n"
    forced = run("export", "--lock", lock, "-o", other, "--force")
    assert forced.returncode in (0, 1), forced.stderr
    assert "@EXPLICIT" in other.read_text()
    again = run("export", "--lock", lock, "-o", other)  # the same content: nothing to refuse
    assert again.returncode == forced.returncode


SECRET_CHANNEL = "https://alice:pa55w0rd@conda.example.com/t/tk-0123-abcd/private"


def secret_lock(tmp_path):
    """sample.lock.json with its packages served from a private channel behind credentials, and a
    package name that carries terminal escapes."""
    document = json.loads((DATA_LOCKS / "sample.lock.json").read_text())
    for package in document["packages"]:
        if package["manager"] == "conda":
            package["channel"] = SECRET_CHANNEL
            package["url"] = f"{SECRET_CHANNEL}/linux-64/{package['name']}-{package['version']}-{package['build']}.conda"
    document["packages"][0]["name"] = "evil\u001b]0;owned\u0007\u001b[2J"
    path = tmp_path / "secret.lock.json"
    path.write_text(json.dumps(document))
    return path


def assert_clean(text):
    assert "pa55w0rd" not in text and "alice" not in text and "tk-0123-abcd" not in text, text
    assert "\x1b" not in text and "\x07" not in text, repr(text)


def test_no_credentials_or_escapes_in_any_output(tmp_path):
    lock = secret_lock(tmp_path)
    empty = tmp_path / "empty"
    (empty / "conda-meta").mkdir(parents=True)
    for fmt in ("text", "json", "html"):
        checked = run("check", "--lock", lock, "--prefix", empty, "--no-gpu", "--format", fmt)
        assert checked.returncode == 1, checked.stderr
        assert_clean(checked.stdout + checked.stderr)
    assert "evil\\x1b]0;owned\\x07" in run("check", "--lock", lock, "--prefix", empty, "--no-gpu").stdout
    for fmt in ("explicit", "environment", "requirements"):
        exported = run("export", "--lock", lock, "--format", fmt)
        assert_clean(exported.stdout + exported.stderr)
    explicit = run("export", "--lock", lock).stdout
    # What installs is kept: the URL without the secret, as `conda list --explicit` writes it.
    assert "https://conda.example.com/private/linux-64/" in explicit

    environment = tmp_path / "environment.yml"
    environment.write_text(f"channels:\n  - {SECRET_CHANNEL}\ndependencies:\n  - python=3.11\n")
    other = tmp_path / "other.yml"
    other.write_text("channels:\n  - conda-forge\ndependencies:\n  - python=3.12\n")
    for fmt in ("text", "markdown", "json"):
        diffed = run("diff", environment, other, "--format", fmt)
        assert_clean(diffed.stdout + diffed.stderr)
    for fmt in ("text", "json"):
        linted = run("lint", environment, "--format", fmt)
        assert_clean(linted.stdout + linted.stderr)
    # An unreadable record's name, as lock and export report it.
    prefix = tmp_path / "broken-prefix"
    (prefix / "conda-meta").mkdir(parents=True)
    (prefix / "conda-meta" / "bad\u001b[31mred\u0007.json").write_text('{"name": "x",')
    for command in (("lock", "--no-gpu", "-o", tmp_path / "broken.lock.json"), ("export",)):
        unreadable = run(*command, "--prefix", prefix)
        assert unreadable.returncode == 2, unreadable.stderr
        assert "conda-meta/bad\\x1b[31mred\\x07.json:1:14" in unreadable.stderr, unreadable.stderr
        assert_clean(unreadable.stdout + unreadable.stderr)
    # A URL input's own name.
    remote = run("lint", "https://bob:hunter2@127.0.0.1:9/t/tk-0123-abcd/env.yml", "--connect-timeout", "2")
    assert remote.returncode == 2
    assert "hunter2" not in remote.stderr and "tk-0123-abcd" not in remote.stderr

    written = tmp_path / "written.lock.json"
    prefix = tmp_path / "prefix"
    (prefix / "conda-meta").mkdir(parents=True)
    record = {"name": "pkg", "version": "1.0", "build": "0", "build_number": 0,
              "channel": SECRET_CHANNEL, "subdir": "linux-64",
              "url": f"{SECRET_CHANNEL}/linux-64/pkg-1.0-0.conda", "fn": "pkg-1.0-0.conda",
              "depends": [], "files": []}
    (prefix / "conda-meta" / "pkg-1.0-0.json").write_text(json.dumps(record))
    locked = run("lock", "--no-gpu", "--prefix", prefix, "-o", written)
    assert locked.returncode == 0, locked.stderr
    assert_clean(written.read_text())
    assert "https://conda.example.com/private/linux-64/pkg-1.0-0.conda" in written.read_text()
