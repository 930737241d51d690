"""envcheck lock / check / export against real conda environments.

The packages are built by the test, indexed into a local channel and installed by rattler's
solver and installer (tests/prefix/realenv.py); then the environment is changed the ways real
ones drift (another build, a deleted file, an edited file, a pip install, a removed record, a
corrupt record) and the drift envcheck reports is asserted.
"""
import json
import pathlib
import shutil

import pytest

import realenv
from realenv import check_json, envcheck, statuses


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    return realenv.build_channel(tmp_path_factory.mktemp("channel"))


@pytest.fixture
def env(channel, tmp_path):
    """A fresh environment: greet (noarch python, owns its dist-info), hello 1.0 build 0, python."""
    prefix = tmp_path / "env"
    records = realenv.create_env(channel, prefix, ["greet", "hello ==1.0 h0_0"], tmp_path / "cache")
    return prefix, records


@pytest.fixture
def locked(env, tmp_path):
    prefix, records = env
    lock = tmp_path / "env.lock.json"
    result = envcheck("lock", "--prefix", prefix, "--output", lock, "--no-gpu")
    assert result.returncode == 0, result.stderr
    return prefix, lock, records


def test_lock_records_every_package(locked):
    prefix, lock, _ = locked
    document = json.loads(lock.read_text())
    realenv.validate(document, "lock.schema.json")
    packages = {package["name"]: package for package in document["packages"]}
    assert sorted(packages) == ["greet", "hello", "python"]
    hello = packages["hello"]
    assert hello["manager"] == "conda"
    assert (hello["version"], hello["build"], hello["build_number"]) == ("1.0", "h0_0", 0)
    assert hello["subdir"] == "linux-64"
    assert hello["url"].endswith("/linux-64/hello-1.0-h0_0.tar.bz2")
    assert len(hello["sha256"]) == 64 and len(hello["md5"]) == 32
    assert hello["requested"] is True
    assert packages["python"]["requested"] is False
    # greet's dist-info belongs to its conda record: no pip package for it.
    assert all(package["manager"] == "conda" for package in document["packages"])
    machine = document["machine"]
    assert machine["platform"] == "linux-64"
    assert machine["python"] == "3.11.9"
    assert machine["driver_version"] is None and machine["gpus"] is None  # --no-gpu: unknown, not guessed
    assert document["performance"] is None
    assert document["environment_file"] is None


def test_check_clean_environment_passes(locked):
    prefix, lock, _ = locked
    code, report = check_json("--prefix", prefix, "--lock", lock, "--deep", "--no-gpu")
    realenv.validate(report, "check-report.schema.json")
    assert code == 0, report
    assert report["status"] == "pass"
    assert set(statuses(report).values()) == {"ok"}
    assert report["summary"]["files_checked"] >= 7
    text = envcheck("check", "--prefix", prefix, "--lock", lock, "--no-gpu")
    assert text.returncode == 0
    assert "envcheck check: pass" in text.stdout


def test_another_build_is_changed(locked, channel, tmp_path):
    prefix, lock, _ = locked
    realenv.create_env(channel, prefix, ["greet", "hello ==1.0 h1_1"], tmp_path / "cache")
    code, report = check_json("--prefix", prefix, "--lock", lock, "--no-gpu")
    assert code == 1
    assert statuses(report) == {("conda", "greet"): "ok", ("conda", "hello"): "changed", ("conda", "python"): "ok"}
    hello = next(package for package in report["packages"] if package["name"] == "hello")
    assert hello["reason"] == "installed 1.0 h1_1, locked 1.0 h0_0 (sha256 differs)"
    assert hello["expected"]["build"] == "h0_0" and hello["installed"]["build"] == "h1_1"


def test_deleted_and_edited_files(locked):
    prefix, lock, _ = locked
    (prefix / "bin" / "hello").unlink()
    realenv.replace_file(prefix / "lib" / "libhello.so", b"\x7fELF hello 1.0 build 0\n".replace(b"0", b"9"))
    realenv.replace_file(prefix / "share" / "hello" / "data.txt", b"data, edited\n")
    # Without --deep the package records still match.
    code, _ = check_json("--prefix", prefix, "--lock", lock, "--no-gpu")
    assert code == 0
    code, report = check_json("--prefix", prefix, "--lock", lock, "--deep", "--no-gpu")
    assert code == 1
    files = {(item["package"], item["path"]): (item["status"], item["detail"]) for item in report["files"]}
    assert files == {
        ("hello", "bin/hello"): ("missing", "not in the prefix"),
        ("hello", "lib/libhello.so"): ("modified", "sha256 differs"),  # same size, other bytes
        ("hello", "share/hello/data.txt"): ("modified", "size 13 bytes, expected 5"),
    }
    assert report["summary"]["files_modified"] == 2 and report["summary"]["files_missing"] == 1
    text = envcheck("check", "--prefix", prefix, "--lock", lock, "--deep", "--no-gpu").stdout
    assert "files (--deep): 2 modified, 1 missing" in text


def test_pip_installed_package_is_extra(locked, tmp_path):
    prefix, lock, _ = locked
    wheel = realenv.build_wheel(tmp_path / "wheels", "tinyextra", "0.1")
    realenv.pip_install(["--target", prefix / realenv.SITE_PACKAGES, wheel])
    code, report = check_json("--prefix", prefix, "--lock", lock, "--no-gpu")
    assert code == 1
    assert statuses(report)[("pip", "tinyextra")] == "extra"
    extra = next(package for package in report["packages"] if package["name"] == "tinyextra")
    assert extra["installed"]["installer"] == "pip"
    assert extra["reason"] == "installed 0.1 by pip, not in the lock"
    # Locking again records it as a pip package.
    relock = envcheck("lock", "--prefix", prefix, "--output", lock, "--no-gpu", "--force")
    assert relock.returncode == 0, relock.stderr
    document = json.loads(lock.read_text())
    pip = [package for package in document["packages"] if package["manager"] == "pip"]
    assert [(package["name"], package["version"], package["installer"]) for package in pip] == [
        ("tinyextra", "0.1", "pip")]


def test_removed_record_is_missing(locked):
    prefix, lock, _ = locked
    next((prefix / "conda-meta").glob("greet-*.json")).unlink()
    code, report = check_json("--prefix", prefix, "--lock", lock, "--no-gpu")
    assert code == 1
    # Its files stay, and its dist-info, no longer owned by a record, is what pip sees of it.
    greet = next(package for package in report["packages"] if package["name"] == "greet")
    assert greet["status"] == "changed"
    assert greet["reason"] == "its conda-meta record is gone; only its Python distribution, installed by conda, remains"
    assert greet["installed"]["installer"] == "conda"
    # A package whose record and files are gone is missing.
    next((prefix / "conda-meta").glob("hello-*.json")).unlink()
    code, report = check_json("--prefix", prefix, "--lock", lock, "--no-gpu")
    assert statuses(report)[("conda", "hello")] == "missing"


def test_corrupt_record_is_reported_and_not_locked(locked, tmp_path):
    prefix, lock, _ = locked
    record = next((prefix / "conda-meta").glob("hello-*.json"))
    record.write_text(record.read_text()[:200])
    code, report = check_json("--prefix", prefix, "--lock", lock, "--no-gpu")
    assert code == 1
    assert report["summary"]["unreadable"] == 1
    problem = report["problems"][0]
    assert problem["location"]["file"] == f"conda-meta/{record.name}"
    assert problem["location"]["line"] >= 1
    assert statuses(report)[("conda", "hello")] == "missing"
    refused = envcheck("lock", "--prefix", prefix, "--output", tmp_path / "new.lock.json", "--no-gpu")
    assert refused.returncode == 2
    assert record.name in refused.stderr
    assert not (tmp_path / "new.lock.json").exists()


def test_environment_file(env, tmp_path):
    prefix, _ = env
    good = tmp_path / "environment.yml"
    good.write_text("name: test\nchannels: [local]\ndependencies:\n  - python=3.11\n  - hello 1.0.*\n  - greet\n"
                    "  - pip:\n    - greet==0.3\n")
    code, report = check_json("--prefix", prefix, "--env", good, "--no-gpu")
    assert code == 0, report
    assert [package["status"] for package in report["packages"]] == ["ok", "ok", "ok", "ok"]
    bad = tmp_path / "bad.yml"
    bad.write_text("dependencies:\n  - hello>=2\n  - extra-tool\n  - pip:\n    - greet>=1\n")
    code, report = check_json("--prefix", prefix, "--env", bad, "--no-gpu")
    assert code == 1
    rows = [(package["name"], package["spec"], package["status"]) for package in report["packages"]]
    assert rows == [("hello", "hello>=2", "unsatisfied"), ("extra-tool", "extra-tool", "missing"),
                    ("greet", "greet>=1", "unsatisfied")]
    assert report["packages"][0]["spec_location"] == {"file": str(bad), "line": 2, "column": 5}
    # Locking an environment that does not satisfy its own file is refused.
    refused = envcheck("lock", "--prefix", prefix, "--env", bad, "--no-gpu")
    assert refused.returncode == 1
    assert "does not satisfy" in refused.stderr
    assert not (tmp_path / "bad.lock.json").exists()
    written = envcheck("lock", "--prefix", prefix, "--env", good, "--no-gpu")
    assert written.returncode == 0, written.stderr
    document = json.loads((tmp_path / "environment.lock.json").read_text())
    assert document["environment_file"]["path"] == "environment.yml"
    assert document["environment_file"]["sha256"] == realenv.sha256(good.read_bytes())


def test_pixi_lock_written_by_rattler(env, channel, tmp_path):
    prefix, records = env
    pixi = tmp_path / "pixi.lock"
    realenv.write_pixi_lock(records, pixi, channel)
    code, report = check_json("--prefix", prefix, "--lock", pixi, "--no-gpu")
    assert code == 0, report
    assert report["inputs"]["lock_format"] == "pixi"
    assert len(report["packages"]) == 3
    realenv.create_env(channel, prefix, ["greet", "hello ==2.0"], tmp_path / "cache")
    code, report = check_json("--prefix", prefix, "--lock", pixi, "--no-gpu")
    assert code == 1
    assert statuses(report)[("conda", "hello")] == "changed"


def test_export_round_trips(locked, tmp_path):
    prefix, lock, _ = locked
    explicit = tmp_path / "explicit.txt"
    result = envcheck("export", "--prefix", prefix, "--output", explicit)
    assert result.returncode == 0, result.stderr
    text = explicit.read_text()
    assert "@EXPLICIT" in text and "# platform: linux-64" in text
    urls = [line for line in text.splitlines() if line.startswith("file:")]
    assert len(urls) == 3 and all("#" in url and len(url.rsplit("#", 1)[1]) == 64 for url in urls)
    # The explicit file is itself a lock this environment matches.
    code, report = check_json("--prefix", prefix, "--lock", explicit, "--no-gpu")
    assert code == 0, report
    # The same from the lock, with md5.
    from_lock = envcheck("export", "--lock", lock, "--hash", "md5")
    assert from_lock.returncode == 0
    assert all(len(line.rsplit("#", 1)[1]) == 32 for line in from_lock.stdout.splitlines() if line.startswith("file:"))
    environment = envcheck("export", "--lock", lock, "--format", "environment", "--env-name", "copy")
    assert environment.returncode == 0
    assert "name: copy\n" in environment.stdout
    assert "  - hello=1.0=h0_0\n" in environment.stdout
    # A pinned environment.yml this environment satisfies.
    pinned = tmp_path / "pinned.yml"
    pinned.write_text(environment.stdout)
    code, report = check_json("--prefix", prefix, "--env", pinned, "--no-gpu")
    assert code == 0, report


def test_rattler_reads_what_envcheck_reads(env):
    """The conda-meta records rattler wrote, read by rattler and by envcheck, agree."""
    prefix, _ = env
    code, report = check_json("--prefix", prefix, "--env", _write_all_specs(prefix), "--no-gpu")
    assert code == 0, report
    ours = {package["name"]: package["installed"] for package in report["packages"]}
    for path in (prefix / "conda-meta").glob("*.json"):
        record = realenv.rattler.PrefixRecord.from_path(path)
        mine = ours[record.name.normalized]
        assert mine["version"] == str(record.version)
        assert mine["build"] == str(record.build)
        assert mine["sha256"] == record.sha256.hex()
        assert mine["md5"] == record.md5.hex()


def _write_all_specs(prefix: pathlib.Path) -> pathlib.Path:
    names = sorted(path.name.rsplit("-", 2)[0] for path in (prefix / "conda-meta").glob("*.json"))
    target = prefix.parent / "all.yml"
    target.write_text("dependencies:\n" + "".join(f"  - {name}\n" for name in names))
    return target
