"""envcheck diff OLD NEW: exit 0 when equal, 1 when different, 2 on errors; text, markdown and
JSON output; process substitution as in 'envcheck diff <(git show origin/main:environment.yml)
environment.yml'."""
import json
import subprocess

from lint_support import ENVCHECK, SOURCE_DIR, require_binary, run, schema_validator

RESNET = "envs/resnet50-cuda11.8.yml"
MODERN = "envs/conda-forge-cuda12.yml"


def bash(command):
    require_binary()
    return subprocess.run(["bash", "-c", command], cwd=SOURCE_DIR, capture_output=True, text=True, timeout=60)


def test_same_file_exits_0():
    result = run("diff", RESNET, RESNET)
    assert result.returncode == 0
    assert result.stdout.endswith("no differences\n")


def test_different_files_exit_1():
    result = run("diff", RESNET, MODERN)
    assert result.returncode == 1
    assert result.stdout.startswith(f"--- {RESNET}\n+++ {MODERN}\n")
    assert "risk (cuda): CUDA 11.8 -> 12.4" in result.stdout


def test_json_follows_schema():
    result = run("diff", "--format", "json", RESNET, MODERN)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    schema_validator("diff-report.schema.json").validate(report)
    assert report["equal"] is False
    assert report["old"]["path"] == RESNET
    assert "nvidia" in report["channels"]["removed"]
    changes = {package["name"]: package for package in report["packages"]}
    assert changes["python"]["change"] == "changed"
    assert changes["python"]["risks"][0]["kind"] == "python"
    assert changes["pytorch-cuda"]["change"] == "removed"
    assert changes["cuda-version"]["change"] == "added"
    same = json.loads(run("diff", "--format", "json", RESNET, RESNET).stdout)
    schema_validator("diff-report.schema.json").validate(same)
    assert same["equal"] is True and same["packages"] == []


def test_markdown_for_pull_requests():
    result = run("diff", "--format", "markdown", RESNET, MODERN)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"**envcheck diff** `{RESNET}` → `{MODERN}`: ")
    assert "| change | package | manager | old | new | risk |" in lines
    assert any(line.startswith("| re-pinned | python | conda | `python=3.9` | `python=3.11` |") for line in lines)


def test_process_substitution():
    # What a pull request check runs: the base branch's file against the working copy.
    result = bash(f'"{ENVCHECK}" diff <(sed "s/pytorch-cuda=11.8/pytorch-cuda=11.7/" {RESNET}) {RESNET}')
    assert result.returncode == 1, result.stderr
    assert "~ conda pytorch-cuda: pytorch-cuda=11.7 -> pytorch-cuda=11.8" in result.stdout
    assert "risk (cuda): CUDA 11.7 -> 11.8" in result.stdout
    same = bash(f'"{ENVCHECK}" diff <(cat {RESNET}) {RESNET}')
    assert same.returncode == 0, same.stderr


def test_stdin_as_old():
    result = run("diff", "-", RESNET, stdin=(SOURCE_DIR / RESNET).read_text())
    assert result.returncode == 0


def test_errors_exit_2():
    missing = run("diff", RESNET, "envs/missing.yml")
    assert missing.returncode == 2
    assert "envs/missing.yml" in missing.stderr
    broken = run("diff", RESNET, "envs/broken/duplicate-key.yml")
    assert broken.returncode == 2
    assert "envs/broken/duplicate-key.yml:6:1: duplicate key 'dependencies'" in broken.stderr
    assert run("diff", RESNET).returncode == 2
    assert run("diff", "--format", "html", RESNET, RESNET).returncode == 2


def test_diff_two_locks(tmp_path):
    """Two envcheck locks of one prefix before and after a package changed build: the changed
    package shows with its exact old and new pins; a lock against an environment file is refused."""
    import shutil
    prefix = tmp_path / "prefix"
    shutil.copytree(SOURCE_DIR / "tests" / "data" / "prefixes" / "conda-basic", prefix, symlinks=True)
    (prefix / "conda-meta" / "broken-1.0-0.json").unlink()
    shutil.rmtree(prefix / "lib" / "python3.11" / "site-packages" / "broken_dist-1.0.dist-info")
    old_lock, new_lock = tmp_path / "old.lock.json", tmp_path / "new.lock.json"
    assert run("lock", "--prefix", prefix, "--no-gpu", "-o", old_lock).returncode == 0
    record = next(p for p in (prefix / "conda-meta").glob("*.json"))
    data = json.loads(record.read_text())
    data["build"] = data["build"] + "_rebuilt"
    data["sha256"] = "0" * 64
    record.write_text(json.dumps(data))
    assert run("lock", "--prefix", prefix, "--no-gpu", "-o", new_lock).returncode == 0

    same = run("diff", old_lock, old_lock)
    assert same.returncode == 0, same.stdout
    changed = run("diff", "--format", "json", old_lock, new_lock)
    assert changed.returncode == 1, changed.stderr
    entries = json.loads(changed.stdout)["packages"]
    assert [e["name"] for e in entries] == [data["name"]]
    assert entries[0]["new"].endswith("_rebuilt")

    mixed = run("diff", old_lock, SOURCE_DIR / "envs" / "pip-heavy.yml")
    assert mixed.returncode == 2 and "is a lock" in mixed.stderr
