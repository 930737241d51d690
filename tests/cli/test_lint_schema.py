"""schemas/environment.schema.json and envcheck's loader agree on every example in envs/, every
fixture in tests/data/envfiles/ and every real file in the shared corpus: a file the schema
accepts (after a conda-like YAML load) loads without a loader error, and the reverse."""
import pytest

from lint_support import LOADER_PREFIXES, SHARED_DIR, SOURCE_DIR, lint_json, load_like_conda, schema_validator

FIXTURES = sorted(SOURCE_DIR.glob("envs/*.yml")) + sorted(SOURCE_DIR.glob("envs/broken/*.yml")) + \
    sorted(SOURCE_DIR.glob("tests/data/envfiles/*.yml")) + sorted(SOURCE_DIR.glob("tests/data/envfiles/broken/*.yml"))
CORPUS = sorted((SHARED_DIR / "corpus" / "envs").glob("*")) if (SHARED_DIR / "corpus" / "envs").is_dir() else []


def schema_accepts(path):
    document = load_like_conda(path.read_bytes())
    if document is None:
        return False, "conda-like YAML load failed"
    errors = sorted(schema_validator("environment.schema.json").iter_errors(document), key=str)
    return not errors, "; ".join(error.message for error in errors[:3])


def loader_accepts(path):
    _, report = lint_json(path)
    errors = [d for d in report["files"][0]["diagnostics"]
              if d["severity"] == "error" and d["rule"].startswith(LOADER_PREFIXES)]
    return not errors, "; ".join(f"{d['line']}:{d['column']} [{d['rule']}] {d['message']}" for d in errors)


def check_agreement(path):
    schema_ok, schema_why = schema_accepts(path)
    loader_ok, loader_why = loader_accepts(path)
    assert schema_ok == loader_ok, f"schema: {schema_ok} ({schema_why}); loader: {loader_ok} ({loader_why})"
    return schema_ok


def test_fixtures_cover_both_verdicts():
    verdicts = [schema_accepts(path)[0] for path in FIXTURES]
    assert verdicts.count(True) >= 10
    assert verdicts.count(False) >= 15


@pytest.mark.parametrize("path", FIXTURES, ids=lambda path: path.relative_to(SOURCE_DIR).as_posix())
def test_schema_and_loader_agree(path):
    check_agreement(path)


@pytest.mark.parametrize("path", CORPUS, ids=lambda path: path.name)
def test_schema_and_loader_agree_on_corpus(path):
    check_agreement(path)


def test_corpus_present():
    assert CORPUS, f"shared corpus missing under {SHARED_DIR} (set ENVCHECK_SHARED_DIR)"
    assert len(CORPUS) >= 100
