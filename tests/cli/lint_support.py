"""Shared helpers for the lint and diff end-to-end tests: the binary, the checkout, the shared
directory, running envcheck, and a YAML reader that behaves like conda's (duplicate keys and
several documents are errors; the !!python/tuple tag of old conda exports is a list)."""
import json
import os
import pathlib
import subprocess

import pytest
import yaml

ENVCHECK = os.environ.get("ENVCHECK", "")
SOURCE_DIR = pathlib.Path(os.environ.get("ENVCHECK_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
SHARED_DIR = pathlib.Path(os.environ.get("ENVCHECK_SHARED_DIR", SOURCE_DIR.parent / "shared"))
SCHEMAS = SOURCE_DIR / "schemas"

# The ids the loader reports under when a file does not load, or loads only in part.
LOADER_PREFIXES = ("yaml.", "env.")


def require_binary():
    if not ENVCHECK or not pathlib.Path(ENVCHECK).exists():
        pytest.fail("ENVCHECK must name the built envcheck binary")


def run(*args, cwd=SOURCE_DIR, stdin=None):
    require_binary()
    return subprocess.run([ENVCHECK, *map(str, args)], cwd=cwd, input=stdin, capture_output=True,
                          text=True, timeout=120)


def lint_json(path, *extra, cwd=SOURCE_DIR):
    result = run("lint", "--format", "json", path, *extra, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    return result, json.loads(result.stdout)


def schema_validator(name):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((SCHEMAS / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


class DuplicateKey(yaml.YAMLError):
    pass


class CondaLikeLoader(yaml.SafeLoader):
    """PyYAML's safe loader with conda's (ruamel's) refusal of duplicate keys."""


def _mapping(loader, node, deep=False):
    loader.flatten_mapping(node)
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, (list, dict)):
            raise yaml.constructor.ConstructorError(None, None, "unhashable key", key_node.start_mark)
        if key in seen:
            raise DuplicateKey(f"duplicate key {key!r} at {key_node.start_mark}")
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


CondaLikeLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
CondaLikeLoader.add_constructor("tag:yaml.org,2002:python/tuple",
                                lambda loader, node: loader.construct_sequence(node))


def load_like_conda(data: bytes):
    """The document, or None when conda could not load the file at all."""
    try:
        documents = [doc for doc in yaml.load_all(data, Loader=CondaLikeLoader)]
    except (yaml.YAMLError, UnicodeDecodeError, ValueError):
        return None
    documents = [doc for doc in documents if doc is not None]
    if len(documents) != 1:
        return None
    return documents[0]
