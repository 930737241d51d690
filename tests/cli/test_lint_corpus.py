"""envcheck lint over every real environment file in ../shared/corpus/envs/ (118 files from
public projects): a JSON report that follows the schema and exit status 0 or 1 for each; the 11
files committed broken (INDEX.tsv notes starting with BROKEN) each get a positioned error under
the rule that names what is wrong; no other file gets a syntax error, except the lines listed in
GENUINE_ERRORS, which are wrong in the original too."""
import csv

import pytest

from lint_support import SHARED_DIR, lint_json, schema_validator

CORPUS_DIR = SHARED_DIR / "corpus" / "envs"
INDEX = SHARED_DIR / "corpus" / "INDEX.tsv"

# file -> (rule, line) of the error the break must produce
BROKEN = {
    "CosmiQ__solaris__environment-gpu.at-b4535d6.yml": ("yaml.merge-conflict", 30),
    "CosmiQ__solaris__environment.at-a3172a1.yml": ("yaml.syntax", 31),
    "Dana-Farber-AIOS__pathml__environment.at-2e7f4f4.yml": ("yaml.merge-conflict", 37),
    "ESMValGroup__ESMValCore__environment.at-f571faa.yml": ("yaml.template", 20),
    "ETH-DISCO__cluster-tutorial__environment.at-292c12d.yml": ("yaml.duplicate-key", 2),
    "NRCan__geo-deep-learning__environment.at-a3b6f06.yml": ("yaml.not-a-mapping", 27),
    "dask__dask__continuous_integration_environment-3.8-dev.at-560881b.yaml": ("yaml.syntax", 63),
    "dask__dask__continuous_integration_environment-3.9.at-63b78c2.yaml": ("yaml.not-a-mapping", 2),
    "dask__dask__continuous_integration_environment-mindeps-optional.at-39fbe0f.yaml": ("yaml.syntax", 55),
    "pydata__xarray__doc_environment.at-073a2ea.yml": ("yaml.merge-conflict", 28),
    "scipy__scipy__environment.at-315c96b.yml": ("yaml.syntax", 6),
}

# Syntax errors in files that otherwise load: each is wrong in the original as well.
GENUINE_ERRORS = {
    # INDEX.tsv: "BROKEN-for-pip: 'gradio=3.36.1' (single '=' in pip list)"
    ("guoyww__AnimateDiff__environment.yaml", "syntax.pip-line"),
    # conda's test template: "-e git+{ARGH_PATH_PLACEHOLDER}#egg=argh" until the test fills it in
    ("conda__conda__tests_env_support_advanced-pip_env_template.yml", "syntax.pip-line"),
}

SYNTAX_RULES = ("syntax.", "yaml.")


def corpus_files():
    if not CORPUS_DIR.is_dir():
        return []
    return sorted(CORPUS_DIR.iterdir())


def broken_in_index():
    with INDEX.open(newline="") as handle:
        names = set()
        for row in csv.DictReader(handle, delimiter="\t"):
            name = row.get("#local_name") or ""
            if name.startswith("envs/") and (row.get("note") or "").startswith("BROKEN"):
                names.add(name.removeprefix("envs/"))
        return names


def test_corpus_present():
    assert corpus_files(), f"shared corpus missing under {CORPUS_DIR} (set ENVCHECK_SHARED_DIR)"
    assert len(corpus_files()) == 118


def test_broken_list_matches_index():
    assert INDEX.exists(), f"{INDEX} missing (set ENVCHECK_SHARED_DIR)"
    assert broken_in_index() == set(BROKEN)


@pytest.mark.parametrize("path", corpus_files(), ids=lambda path: path.name)
def test_lint_corpus_file(path):
    result, report = lint_json(path)
    schema_validator("lint-report.schema.json").validate(report)
    diagnostics = report["files"][0]["diagnostics"]
    errors = [d for d in diagnostics if d["severity"] == "error"]
    assert result.returncode == (1 if errors else 0)
    assert report["summary"]["errors"] == len(errors)
    for diagnostic in diagnostics:
        assert diagnostic["line"] >= 1 and diagnostic["column"] >= 1

    if path.name in BROKEN:
        rule, line = BROKEN[path.name]
        assert [(d["rule"], d["line"]) for d in errors] == [(rule, line)], diagnostics
        return
    syntax_errors = [d for d in errors if d["rule"].startswith(SYNTAX_RULES)
                     and (path.name, d["rule"]) not in GENUINE_ERRORS]
    assert syntax_errors == [], syntax_errors
