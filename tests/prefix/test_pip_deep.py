"""`check --deep` of pip distributions against their dist-info RECORD, on real venvs (pip from
ensurepip, wheels the test builds installed by the real pip) and on the site-packages of a real
conda environment made with py-rattler: modified, missing, --untracked, a RECORD wrong from
install (uv#11723), and RECORD files that are malformed or name paths outside the environment."""
import base64
import hashlib
import os
import subprocess
import sys

import pytest

import realenv
from realenv import check_json_of_itself, envcheck, nothing_required


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    directory = tmp_path_factory.mktemp("wheels")
    return {name: realenv.build_wheel(directory, name, "1.0", module_text=f"NAME = {name!r}\n".encode())
            for name in ("alpha", "beta_pkg")}


@pytest.fixture
def venv(tmp_path, wheels):
    prefix = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", prefix], check=True)
    site = next(prefix.glob("lib/python3*/site-packages"))
    realenv.pip_install(["--target", site, wheels["alpha"], wheels["beta_pkg"]])
    return prefix, site


def later_than_record(path, site, dist):
    """Gives `path` an mtime after its RECORD's, as any edit after install has."""
    record = os.stat(site / dist / "RECORD")
    os.utime(path, ns=(record.st_atime_ns, record.st_mtime_ns + 10**9))


def recorded(site):
    """How many files the RECORDs in `site` list, .pyc and the installer's own files
    (direct_url.json, INSTALLER, REQUESTED) left out: what --deep checks."""
    installer = ("/direct_url.json,", "/INSTALLER,", "/REQUESTED,")
    return sum(1 for record in site.glob("*.dist-info/RECORD")
               for line in record.read_text().splitlines()
               if line and ".pyc," not in line and not any(name in line for name in installer))


def files_of(report):
    return sorted((f["package"], f["path"].split("site-packages/")[-1], f["status"]) for f in report["files"])


def test_clean_venv_passes(venv):
    prefix, site = venv
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--untracked", "--no-gpu")
    assert code == 0, report
    assert report["files"] == [] and report["problems"] == []
    # alpha and beta_pkg: __init__.py, METADATA, WHEEL and RECORD (no hash: must exist); the
    # .pyc pip compiled are listed without hash, and direct_url.json, INSTALLER and REQUESTED
    # are pip's own: not checked.
    assert report["summary"]["files_checked"] == recorded(site) == 8
    assert report["summary"]["bytes_hashed"] > 0
    assert report["inputs"]["untracked"] is True
    assert not any("no conda records" in note for note in report["notes"])
    realenv.validate(report, "check-report.schema.json")


def test_real_pip_venv_has_no_false_findings(tmp_path):
    """A venv with pip itself installed by ensurepip (a real RECORD of hundreds of files, .pyc
    entries without hashes, entry points in bin/): nothing is reported."""
    prefix = tmp_path / "real"
    subprocess.run([sys.executable, "-m", "venv", prefix], check=True)
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--untracked", "--no-gpu")
    assert code == 0, (report["files"][:5], report["problems"][:5])
    assert report["summary"]["files_checked"] > 500
    # The same venv after `echo '# x' >> .../pip/__init__.py` (the case).
    target = next(prefix.glob("lib/python3*/site-packages/pip/__init__.py"))
    with open(target, "a") as handle:
        handle.write("# x\n")
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--no-gpu")
    assert code == 1
    assert [(f["package"], f["status"]) for f in report["files"]] == [("pip", "modified")]
    assert report["files"][0]["detail"].startswith("size ")
    assert report["files"][0]["path"].endswith("site-packages/pip/__init__.py")


def test_modified_missing_untracked(venv):
    prefix, site = venv
    (site / "alpha" / "__init__.py").write_bytes(b"NAME = 'alpha'\n# x\n")
    later_than_record(site / "alpha" / "__init__.py", site, "alpha-1.0.dist-info")
    (site / "beta_pkg" / "__init__.py").write_bytes(b"NAME = 'BETA_PKG'\n")  # same size, new content
    later_than_record(site / "beta_pkg" / "__init__.py", site, "beta_pkg-1.0.dist-info")
    (site / "beta_pkg-1.0.dist-info" / "WHEEL").unlink()
    (site / "alpha" / "injected.py").write_bytes(b"import os\n")
    (site / "alpha" / "sub").mkdir()
    (site / "alpha" / "sub" / "deeper.so").write_bytes(b"\x7fELF")
    (site / "alpha" / "__pycache__").mkdir(exist_ok=True)
    (site / "alpha" / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"compiled")
    (site / "alpha-1.0.dist-info" / "direct_url.json").write_text('{"url": "file:///x"}')
    (site / "unrelated.py").write_bytes(b"not in a distribution's directory\n")

    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--no-gpu")
    assert code == 1
    assert files_of(report) == [
        ("alpha", "alpha/__init__.py", "modified"),
        ("beta_pkg", "beta_pkg-1.0.dist-info/WHEEL", "missing"),
        ("beta_pkg", "beta_pkg/__init__.py", "modified"),
    ]
    details = {f["path"].split("site-packages/")[-1]: f["detail"] for f in report["files"]}
    assert details["alpha/__init__.py"].startswith("size 19 bytes, expected 15")
    assert details["beta_pkg/__init__.py"] == "sha256 differs"
    assert report["summary"]["files_modified"] == 2 and report["summary"]["files_missing"] == 1
    assert report["summary"]["files_untracked"] == 0
    realenv.validate(report, "check-report.schema.json")

    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--untracked", "--no-gpu")
    assert code == 1
    assert [f for f in files_of(report) if f[2] == "untracked"] == [
        ("alpha", "alpha/injected.py", "untracked"),
        ("alpha", "alpha/sub/deeper.so", "untracked"),
    ]
    assert report["summary"]["files_untracked"] == 2
    realenv.validate(report, "check-report.schema.json")

    text = envcheck("check", "--env", nothing_required(), "--prefix", prefix, "--deep", "--untracked", "--no-gpu").stdout
    assert f"files (--deep): 2 modified, 1 missing, 2 untracked, of {recorded(site)} checked" in text
    assert "untracked" in text and "alpha/sub/deeper.so" in text
    junit = envcheck("check", "--env", nothing_required(), "--prefix", prefix, "--deep", "--untracked", "--no-gpu", "--format", "junit").stdout
    assert "untracked" in junit and "alpha/injected.py" in junit
    assert "modified" in junit and "beta_pkg/__init__.py" in junit


def test_untracked_needs_deep(venv):
    prefix, _ = venv
    result = envcheck("check", "--env", nothing_required(), "--prefix", prefix, "--untracked", "--no-gpu")
    assert result.returncode == 2
    assert "--deep" in result.stderr


def test_wrong_hash_from_install_is_reported_apart(venv):
    """A wheel whose RECORD is wrong (uv#11723): the file was not written after RECORD."""
    prefix, site = venv
    record = site / "beta_pkg-1.0.dist-info" / "RECORD"
    content = (site / "beta_pkg" / "__init__.py").read_bytes()
    text = record.read_text().replace(record_hash(content), record_hash(b"what the wheel claimed\n"))
    assert text != record.read_text()
    record.write_text(text)  # RECORD is now newer than the file, as when the wheel was made wrong
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--no-gpu")
    assert code == 0, report
    assert files_of(report) == [("beta_pkg", "beta_pkg/__init__.py", "wrong-record-hash")]
    assert "uv#11723" in report["files"][0]["detail"]
    assert report["summary"]["files_wrong_record_hash"] == 1
    realenv.validate(report, "check-report.schema.json")
    # Edited after install as well: now it is tampering.
    later_than_record(site / "beta_pkg" / "__init__.py", site, "beta_pkg-1.0.dist-info")
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--no-gpu")
    assert code == 1
    assert files_of(report) == [("beta_pkg", "beta_pkg/__init__.py", "modified")]


@pytest.mark.parametrize("line, message", [
    ("../../../../../../etc/passwd,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0",
     "outside the environment"),
    ("/etc/passwd,,", "outside the environment"),
    ("alpha/__init__.py,sha256=not-base64!,15", "not a sha256"),
    ("alpha/__init__.py,sha256=abc", "expected 3 fields"),
    ('"alpha/__init__.py,,', "unterminated"),
    ("alpha/__init__.py,,fifteen", "not a number of bytes"),
])
def test_hostile_record(venv, line, message):
    prefix, site = venv
    record = site / "alpha-1.0.dist-info" / "RECORD"
    lines = record.read_text().splitlines()
    record.write_text("\n".join(lines[:1] + [line] + lines[1:]) + "\n")
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--no-gpu")
    assert code == 1
    problem = report["problems"][0]
    assert message in problem["message"]
    assert problem["location"]["file"].endswith("alpha-1.0.dist-info/RECORD")
    assert problem["location"]["line"] == 2
    # beta_pkg is still verified.
    assert report["summary"]["files_checked"] >= 4
    assert len(report["problems"]) == 1
    realenv.validate(report, "check-report.schema.json")


def test_symlink_out_of_the_prefix_is_not_followed(venv, tmp_path):
    prefix, site = venv
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"NAME = 'alpha'\n")  # even the right bytes: outside is outside
    target = site / "alpha" / "__init__.py"
    target.unlink()
    target.symlink_to(secret)
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--no-gpu")
    assert code == 1
    assert [(f["status"], f["detail"]) for f in report["files"]] == [
        ("modified", "a symbolic link to outside the environment (not followed)")]


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    return realenv.build_channel(tmp_path_factory.mktemp("channel"))


def test_pip_files_in_a_conda_environment(channel, wheels, tmp_path):
    prefix = tmp_path / "env"
    realenv.create_env(channel, prefix, ["greet", "hello ==1.0 h0_0"], tmp_path / "cache")
    site = prefix / realenv.SITE_PACKAGES
    realenv.pip_install(["--target", site, wheels["alpha"]])
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--untracked", "--no-gpu")
    assert code == 0, report
    (site / "alpha" / "__init__.py").write_bytes(b"NAME = 'tampered'\n")
    later_than_record(site / "alpha" / "__init__.py", site, "alpha-1.0.dist-info")
    realenv.replace_file(prefix / "share" / "hello" / "data.txt", b"DATA\n")
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--untracked", "--no-gpu")
    assert code == 1
    assert sorted((f["package"], f["path"], f["status"]) for f in report["files"]) == [
        ("alpha", f"{realenv.SITE_PACKAGES}/alpha/__init__.py", "modified"),
        ("hello", "share/hello/data.txt", "modified"),
    ]


def test_non_utf8_names_and_missing_metadata(venv):
    """A RECORD naming a file whose name is not UTF-8, and a dist-info without METADATA: the
    reports stay valid JSON, and the other distribution is still verified."""
    prefix, site = venv
    record = site / "alpha-1.0.dist-info" / "RECORD"
    record.write_bytes(record.read_bytes() + b"alpha/caf\xe9.py,,\n")
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--no-gpu")
    assert code == 1
    assert [(f["package"], f["status"]) for f in report["files"]] == [("alpha", "missing")]
    assert report["files"][0]["path"].startswith(f"{site.relative_to(prefix)}/alpha/caf")
    realenv.validate(report, "check-report.schema.json")
    (site / "beta_pkg-1.0.dist-info" / "METADATA").unlink()
    code, report = check_json_of_itself("--prefix", prefix, "--deep", "--no-gpu")
    assert code == 1
    assert [p["location"]["file"] for p in report["problems"]] == [
        f"{site.relative_to(prefix)}/beta_pkg-1.0.dist-info/METADATA"]
    assert [(f["package"], f["status"]) for f in report["files"]] == [("alpha", "missing")]
