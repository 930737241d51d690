"""The pre-commit hooks in .pre-commit-hooks.yaml, run for real by pre-commit in a repository
whose .pre-commit-config.yaml lists this source tree (at its HEAD commit) as a hook repository:
pre-commit builds envcheck from this repository into the hook's own environment (`language:
python`; no envcheck on PATH), a clean environment file passes, a broken one fails the commit
with envcheck's file:line:column diagnostics, --strict turns unpinned packages into errors, and
the hooks' `files` pattern picks environment files and leaves other YAML alone.

The hook environment is built once for the module (one PRE_COMMIT_HOME; `pre-commit try-repo`
would build it again for every call): a full build of the binary, without the CUDA kernels
(SKBUILD_CMAKE_DEFINE), which lint does not use. Being pre-commit's clone, it is HEAD's tree:
commit a change to .pre-commit-hooks.yaml before running this.

Skipped with the reason when pre-commit is not installed (.ci/setup installs it).
"""
import os
import pathlib
import re
import shutil
import subprocess

import pytest
import yaml

ENVCHECK = pathlib.Path(os.environ["ENVCHECK"]).resolve()
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
HOOKS = yaml.safe_load((SOURCE_DIR / ".pre-commit-hooks.yaml").read_text())
PRE_COMMIT = shutil.which("pre-commit")
# CI sets ENVCHECK_REQUIRE_FLEET_TOOLS=1: there a missing pre-commit is a failure, not a skip.
if PRE_COMMIT is None and os.environ.get("ENVCHECK_REQUIRE_FLEET_TOOLS") == "1":
    pytest.fail("pre-commit is required here", pytrace=False)

CLEAN = """name: train
channels: [conda-forge, nodefaults]
dependencies:
  - python=3.11
  - numpy=2.1
"""
CONFLICT = """name: train
channels: [conda-forge, nodefaults]
dependencies:
  - python=3.11
  - numpy>=2
  - numpy<1.26
"""
UNPINNED = """name: train
channels: [conda-forge, nodefaults]
dependencies:
  - python=3.11
  - numpy
"""


def hook(hook_id):
    return next(entry for entry in HOOKS if entry["id"] == hook_id)


@pytest.mark.parametrize("path, picked", [
    ("environment.yml", True),
    ("environment-gpu.yaml", True),
    ("envs/environment.yml", True),
    ("ci/conda-linux.yml", True),
    ("env.yml", True),
    ("docs/mkdocs.yml", False),
    (".github/workflows/ci.yml", False),
    ("environment.yml.bak", False),
    ("my-environment.txt", False),
    ("environment_cuda.yml", True),
    ("conda.yml", True),
    ("conda-recipe.yaml", True),  # an environment file despite its name (PKU-Alignment/omnisafe)
    # named like environment files, but none: locks, conda-build and conda-smithy configuration,
    # conda's settings, recipes, other tools' YAML (issue 12)
    ("conda-lock.yml", False),
    ("envs/conda-lock.yaml", False),
    ("environment.lock.yml", False),
    ("conda-linux-64.lock.yml", False),
    ("env-lock.yml", False),
    ("conda_build_config.yaml", False),
    ("recipe/conda_build_config.yml", False),
    ("conda-forge.yml", False),
    ("condarc.yml", False),
    ("envoy.yaml", False),
])
def test_files_pattern_picks_environment_files(path, picked):
    for hook_id in ("envcheck-lint", "envcheck-lint-strict"):
        entry = hook(hook_id)
        selected = bool(re.search(entry["files"], path)) and not re.search(entry.get("exclude", "$^"), path)
        assert selected == picked, (hook_id, path)


def test_hooks_run_envcheck_lint():
    assert hook("envcheck-lint")["entry"] == "envcheck lint"
    assert hook("envcheck-lint-strict")["entry"] == "envcheck lint --strict"
    for entry in HOOKS:
        assert entry["language"] == "python"  # pre-commit installs envcheck itself


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory):
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def repository(tmp_path, pre_commit_home):
    if PRE_COMMIT is None:
        pytest.skip("pre-commit is not installed; .ci/setup installs it")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo.parent / "pre-commit-home").symlink_to(pre_commit_home)
    return repo


def try_repo(repo, hook_id, *files, verbose=False, all_files=False):
    head = subprocess.run(["git", "-C", str(SOURCE_DIR), "rev-parse", "HEAD"], check=True,
                          capture_output=True, text=True).stdout.strip()
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{
        "repo": str(SOURCE_DIR), "rev": head,
        "hooks": [{"id": "envcheck-lint"}, {"id": "envcheck-lint-strict"}]}]}))
    # No envcheck on PATH: the hook must run the one pre-commit built into its environment.
    path = ":".join(part for part in os.environ["PATH"].split(":")
                    if not (pathlib.Path(part) / "envcheck").exists())
    environment = dict(os.environ, PATH=path,
                       PRE_COMMIT_HOME=str(repo.parent / "pre-commit-home"),
                       SKBUILD_CMAKE_DEFINE="ENVCHECK_CUDA=OFF",
                       GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                       GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
    subprocess.run(["git", "add", ".pre-commit-config.yaml", *files], cwd=repo, check=True)
    options = ["--verbose"] if verbose else []  # pre-commit hides a passing hook's output
    selection = ["--all-files"] if all_files else ["--files", *files]
    return subprocess.run([PRE_COMMIT, "run", hook_id, *options, *selection],
                          cwd=repo, env=environment, capture_output=True, text=True, timeout=2400)


def test_clean_environment_file_passes(repository):
    (repository / "environment.yml").write_text(CLEAN)
    result = try_repo(repository, "envcheck-lint", "environment.yml")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"envcheck lint\.+Passed", result.stdout)
    # The envcheck that ran is the one pip built into the hook's environment.
    built = list((repository.parent / "pre-commit-home").glob("repo*/py_env-*/bin/envcheck"))
    assert len(built) == 1, list((repository.parent / "pre-commit-home").rglob("bin/envcheck"))


def test_contradiction_fails_the_commit_with_its_position(repository):
    (repository / "environment.yml").write_text(CONFLICT)
    result = try_repo(repository, "envcheck-lint", "environment.yml")
    assert result.returncode == 1, result.stdout + result.stderr
    assert re.search(r"envcheck lint\.+Failed", result.stdout)
    assert re.search(r"environment\.yml:\d+:\d+: error \[conflict\.unsatisfiable\]", result.stdout)


def test_strict_hook_makes_unpinned_packages_errors(repository):
    (repository / "environment.yml").write_text(UNPINNED)
    relaxed = try_repo(repository, "envcheck-lint", "environment.yml", verbose=True)
    assert relaxed.returncode == 0, relaxed.stdout + relaxed.stderr
    assert "warning [repro.unpinned]" in relaxed.stdout
    strict = try_repo(repository, "envcheck-lint-strict", "environment.yml")
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "error [repro.unpinned]" in strict.stdout


def test_locks_and_build_configuration_do_not_fail_the_commit(repository):
    """A repository with a conda-lock.yml (a real one, pangeo-docker-images') and a
    conda_build_config.yaml beside its environment file: the hook lints the environment file and
    leaves the others alone (before, each failed with env.missing-dependencies)."""
    shared = pathlib.Path(os.environ["ENVCHECK_SHARED_DIR"]) / "corpus/locks"
    (repository / "environment.yml").write_text(CLEAN)
    (repository / "conda-lock.yml").write_bytes(
        (shared / "pangeo-data__pangeo-docker-images__pytorch-notebook_conda-lock.yml").read_bytes())
    (repository / "conda_build_config.yaml").write_text("python:\n  - 3.11\n")
    result = try_repo(repository, "envcheck-lint", "environment.yml", "conda-lock.yml",
                      "conda_build_config.yaml", verbose=True, all_files=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "checked 1 file" in result.stdout
