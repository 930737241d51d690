"""Every example in envs/ linted as a new user would, against the expected output beside it
(<name>.lint.txt). ENVCHECK_UPDATE_GOLDEN=1 rewrites the expected files from envcheck's output.
A comment '#   envcheck lint <this file> <options>' in an example names the options to use."""
import json
import os
import re

import pytest

from lint_support import SOURCE_DIR, run, schema_validator

EXAMPLES = sorted(SOURCE_DIR.glob("envs/*.yml")) + sorted(SOURCE_DIR.glob("envs/broken/*.yml"))
COMMAND = re.compile(r"^#\s+envcheck lint (\S+)(.*)$", re.M)


def command_for(path):
    relative = path.relative_to(SOURCE_DIR).as_posix()
    for match in COMMAND.finditer(path.read_text(encoding="utf-8", errors="replace")):
        if match.group(1) == relative:
            return relative, match.group(2).split()
    return relative, []


def test_examples_exist():
    names = {path.name for path in EXAMPLES}
    for expected in ("resnet50-cuda11.8.yml", "async-streams-cudatoolkit11.8.yml", "conda-forge-cuda12.yml",
                     "pip-heavy.yml"):
        assert expected in names
    assert sum(1 for path in EXAMPLES if path.parent.name == "broken") >= 10


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.relative_to(SOURCE_DIR).as_posix())
def test_lint_output_matches_expected(path):
    relative, options = command_for(path)
    result = run("lint", relative, *options)
    expected = path.with_suffix(".lint.txt")
    if os.environ.get("ENVCHECK_UPDATE_GOLDEN") == "1":
        expected.write_text(result.stdout)
    assert result.stderr == ""
    assert result.stdout == expected.read_text()
    broken = path.parent.name == "broken"
    assert result.returncode == (1 if broken else 0)
    if not broken:
        assert " error [" not in result.stdout


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.relative_to(SOURCE_DIR).as_posix())
def test_lint_formats_agree(path):
    relative, options = command_for(path)
    text = run("lint", relative, *options)
    as_json = run("lint", "--format", "json", relative, *options)
    sarif = run("lint", "--format", "sarif", relative, *options)
    github = run("lint", "--format", "github", relative, *options)
    assert text.returncode == as_json.returncode == sarif.returncode == github.returncode

    report = json.loads(as_json.stdout)
    schema_validator("lint-report.schema.json").validate(report)
    diagnostics = report["files"][0]["diagnostics"]
    assert report["files"][0]["path"] == relative

    # text: one "file:line:col: severity [rule] message" line per diagnostic
    lines = [line for line in text.stdout.splitlines() if line.startswith(relative + ":")]
    assert lines == [f"{relative}:{d['line']}:{d['column']}: {d['severity']} [{d['rule']}] {d['message']}"
                     for d in diagnostics]

    results = json.loads(sarif.stdout)["runs"][0]["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == \
        [(d["rule"], d["line"]) for d in diagnostics]

    commands = github.stdout.splitlines()
    assert len(commands) == len(diagnostics)
    for command, diagnostic in zip(commands, diagnostics):
        kind = {"error": "error", "warning": "warning", "info": "notice"}[diagnostic["severity"]]
        assert command.startswith(f"::{kind} file={relative},line={diagnostic['line']},col={diagnostic['column']},"
                                  f"title=[{diagnostic['rule']}]::")
