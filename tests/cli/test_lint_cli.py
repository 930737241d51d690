"""envcheck lint from the command line: exit codes, inputs (files, stdin, process substitution),
options and output formats."""
import json
import subprocess

from lint_support import ENVCHECK, SOURCE_DIR, require_binary, run, schema_validator

GOOD = "envs/resnet50-cuda11.8.yml"
BROKEN = "envs/broken/cuda-mismatch.yml"


def test_clean_file_exits_0():
    result = run("lint", GOOD)
    assert result.returncode == 0
    assert result.stdout.endswith("checked 1 file: no problems\n")


def test_error_exits_1():
    result = run("lint", BROKEN)
    assert result.returncode == 1
    assert f"{BROKEN}:12:5: error [cuda.version-mismatch]" in result.stdout
    assert "    fix: " in result.stdout


def test_unreadable_file_exits_2():
    result = run("lint", GOOD, "envs/does-not-exist.yml")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "envs/does-not-exist.yml" in result.stderr


def test_no_file_exits_2():
    result = run("lint")
    assert result.returncode == 2
    assert "at least one environment file" in result.stderr


def test_bad_options_exit_2():
    assert run("lint", "--format", "xml", GOOD).returncode == 2
    bad_driver = run("lint", "--target-driver", "twelve", GOOD)
    assert bad_driver.returncode == 2
    assert "--target-driver" in bad_driver.stderr
    assert run("lint", "--target-cuda", "12.x", GOOD).returncode == 2
    assert run("lint", "--target-driver", "535.104.05", "--target-cuda", "12.2", GOOD).returncode == 2


def test_stdin():
    text = (SOURCE_DIR / BROKEN).read_text()
    result = run("lint", "-", stdin=text)
    assert result.returncode == 1
    assert "-:12:5: error [cuda.version-mismatch]" in result.stdout


def test_process_substitution():
    require_binary()
    result = subprocess.run(["bash", "-c", f'"{ENVCHECK}" lint --format json <(cat {GOOD})'], cwd=SOURCE_DIR,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["files"][0]["path"].startswith("/dev/fd/")


def test_several_files_one_report():
    result = run("lint", "--format", "json", GOOD, BROKEN)
    assert result.returncode == 1
    report = json.loads(result.stdout)
    schema_validator("lint-report.schema.json").validate(report)
    assert [file["path"] for file in report["files"]] == [GOOD, BROKEN]
    assert report["summary"]["errors"] >= 1


def test_strict_makes_unpinned_an_error():
    path = "envs/broken/not-reproducible.yml"
    relaxed = run("lint", "--format", "json", path)
    strict = run("lint", "--format", "json", "--strict", path)
    assert relaxed.returncode == 0
    assert strict.returncode == 1
    severities = {d["severity"] for d in json.loads(strict.stdout)["files"][0]["diagnostics"]
                  if d["rule"] == "repro.unpinned"}
    assert severities == {"error"}


def test_target_driver():
    path = "envs/conda-forge-cuda12.yml"
    assert run("lint", path).returncode == 0
    old = run("lint", "--target-driver", "520.61.05", path)
    assert old.returncode == 1
    assert "[cuda.driver-too-old]" in old.stdout
    compat = run("lint", "--target-cuda", "12.2", path)
    assert compat.returncode == 0
    assert "[cuda.driver-minor-compat]" in compat.stdout
    assert run("lint", "--target-driver", "550.54.14", path).stdout.endswith("no problems\n")


def test_output_file(tmp_path):
    target = tmp_path / "report.sarif"
    result = run("lint", "--format", "sarif", "-o", target, BROKEN)
    assert result.returncode == 1
    assert result.stdout == ""
    sarif = json.loads(target.read_text())
    assert sarif["version"] == "2.1.0"
    location = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == BROKEN


def test_list_rules():
    text = run("lint", "--list-rules")
    assert text.returncode == 0
    rules = json.loads(run("lint", "--list-rules", "--format", "json").stdout)
    ids = [rule["id"] for rule in rules]
    assert len(ids) == len(set(ids))
    for expected in ("syntax.matchspec", "syntax.pip-line", "duplicate.package", "conflict.unsatisfiable",
                     "conflict.conda-and-pip", "repro.unpinned", "repro.pip-url-unpinned", "repro.no-channels",
                     "repro.defaults-mixed", "repro.nodefaults", "cuda.version-mismatch",
                     "cuda.gpu-build-with-cpuonly", "cuda.pytorch-cuda-needs-nvidia", "cuda.pytorch-cuda-unpublished",
                     "python.build-mismatch", "cuda.driver-too-old", "yaml.syntax", "yaml.duplicate-key",
                     "env.unknown-key", "file.lock", "file.lock-unreadable", "file.pip-unreadable",
                     "file.not-environment"):
        assert expected in ids
        assert expected in text.stdout
    for rule in rules:
        assert rule["severity"] in ("error", "warning", "info")
        assert rule["fix"]


def test_every_reported_rule_is_listed():
    ids = {rule["id"] for rule in json.loads(run("lint", "--list-rules", "--format", "json").stdout)}
    for path in sorted(SOURCE_DIR.glob("envs/broken/*.yml")):
        report = json.loads(run("lint", "--format", "json", path.relative_to(SOURCE_DIR)).stdout)
        for diagnostic in report["files"][0]["diagnostics"]:
            assert diagnostic["rule"] in ids


def test_github_format_annotates_and_writes_the_job_summary(tmp_path):
    """In GitHub Actions: one annotation per finding on stdout, and the markdown summary
    appended to the file $GITHUB_STEP_SUMMARY names (other steps' summaries are kept)."""
    require_binary()
    summary = tmp_path / "step_summary.md"
    summary.write_text("earlier step\n")
    result = subprocess.run([ENVCHECK, "lint", "--format", "github", "envs/broken/conflicts.yml"],
                            cwd=SOURCE_DIR, capture_output=True, text=True, timeout=60,
                            env={"GITHUB_STEP_SUMMARY": str(summary), "PATH": "/usr/bin:/bin"})
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("::warning file=envs/broken/conflicts.yml,line=10,col=5,")
    assert "::error file=envs/broken/conflicts.yml,line=10,col=10,title=[conflict.unsatisfiable]::" \
        in result.stdout
    text = summary.read_text()
    assert text.startswith("earlier step\n")
    assert "conflict.unsatisfiable" in text and "|" in text
