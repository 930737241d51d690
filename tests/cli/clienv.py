"""Shared setup of the lock/check/export CLI tests: the real-environment helpers of
tests/prefix/realenv.py and a project directory with an installed environment."""
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "prefix"))

import realenv  # noqa: E402  (after the path is set)

SHARED = pathlib.Path(realenv.os.environ.get("ENVCHECK_SHARED_DIR", realenv.SOURCE_DIR.parent / "shared"))
CORPUS_LOCKS = SHARED / "corpus" / "locks"


def project(tmp_path, channel, specs=("greet", "hello ==1.0 h0_0"), environment_yml=None):
    """tmp_path/project with environment.yml, and an environment installed at tmp_path/env."""
    prefix = tmp_path / "env"
    realenv.create_env(channel, prefix, list(specs), tmp_path / "cache")
    directory = tmp_path / "project"
    directory.mkdir()
    (directory / "environment.yml").write_text(
        environment_yml or "name: demo\nchannels: [local]\ndependencies:\n  - greet\n  - hello=1.0\n")
    return directory, prefix
