"""`envcheck export` from peers' locks and from environments."""
import pytest

from clienv import CORPUS_LOCKS, realenv

envcheck = realenv.envcheck


@pytest.mark.skipif(not CORPUS_LOCKS.is_dir(), reason="shared corpus missing")
def test_export_conda_lock_to_explicit(tmp_path):
    source = CORPUS_LOCKS / "pangeo-data__pangeo-docker-images__pytorch-notebook_conda-lock.yml"
    out = tmp_path / "explicit.txt"
    result = envcheck("export", "--lock", source, "--platform", "linux-64", "--output", out)
    assert result.returncode == 0, result.stderr
    lines = out.read_text().splitlines()
    assert "@EXPLICIT" in lines
    urls = [line for line in lines if line.startswith("https://")]
    assert len(urls) == 885
    assert all("#" in url for url in urls)
    # conda-lock records both hashes: sha256 by default, md5 when asked.
    md5 = envcheck("export", "--lock", source, "--platform", "linux-64", "--hash", "md5")
    assert all(len(line.rsplit("#", 1)[1]) == 32 for line in md5.stdout.splitlines() if line.startswith("https://"))
    # The export is a lock envcheck reads back: against an empty environment, all 885 missing.
    empty = tmp_path / "empty"
    (empty / "conda-meta").mkdir(parents=True)
    code, report = realenv.check_json("--prefix", empty, "--lock", out, "--no-gpu")
    assert code == 1
    assert report["summary"]["missing"] == 885
    assert all(len(package["expected"]["sha256"]) == 64 for package in report["packages"])


@pytest.mark.skipif(not CORPUS_LOCKS.is_dir(), reason="shared corpus missing")
def test_export_pixi_lock_with_pypi_packages():
    source = CORPUS_LOCKS / "1235467__diff-svc__pixi.lock"
    environment = envcheck("export", "--lock", source, "--format", "environment")
    assert environment.returncode == 0, environment.stderr
    assert "channels:\n  - conda-forge\n" in environment.stdout
    assert "  - pip:\n" in environment.stdout
    assert "      - absl-py==2.4.0\n" in environment.stdout
    requirements = envcheck("export", "--lock", source, "--format", "requirements")
    assert "absl-py==2.4.0" in requirements.stdout.splitlines()
    explicit = envcheck("export", "--lock", source)
    assert "pip package(s) cannot be part of an explicit file" in explicit.stdout


def test_export_usage_errors(tmp_path):
    assert envcheck("export", "--lock", tmp_path / "missing.lock").returncode == 2
    assert envcheck("export", "--lock", tmp_path, "--format", "yaml").returncode == 2
    assert envcheck("export", cwd=tmp_path).returncode == 2  # no environment, no lock
