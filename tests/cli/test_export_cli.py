"""`envcheck export` from peers' locks and from environments."""
import pytest

from clienv import CORPUS_LOCKS, realenv

envcheck = realenv.envcheck
DATA_LOCKS = realenv.SOURCE_DIR / "tests/data/locks"


@pytest.fixture(autouse=True)
def shared_corpus():
    assert CORPUS_LOCKS.is_dir(), f"shared corpus missing: {CORPUS_LOCKS} (set ENVCHECK_SHARED_DIR)"


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
    assert "pip package(s) follow as '# pip' lines" in explicit.stdout
    assert "# pip absl-py==2.4.0" in explicit.stdout.splitlines()


def test_export_usage_errors(tmp_path):
    assert envcheck("export", "--lock", tmp_path / "missing.lock").returncode == 2
    assert envcheck("export", "--lock", tmp_path, "--format", "yaml").returncode == 2
    assert envcheck("export", cwd=tmp_path).returncode == 2  # no environment, no lock


def test_export_keeps_every_category_and_where_pip_packages_came_from(tmp_path):
    """conda-lock's dev and docs categories are exported with main (they were dropped), and pip
    packages from git or another index keep their source (they came out as name==version)."""
    source = DATA_LOCKS / "categories.conda-lock.yml"
    environment = envcheck("export", "--lock", source, "--platform", "linux-64", "--format", "environment")
    assert environment.returncode == 0, environment.stderr
    lines = environment.stdout.splitlines()
    assert "# conda-lock categories: main, dev, docs" in lines
    for pinned in ("  - nvidia::cuda-cudart=12.4.127=0", "  - conda-forge::mkdocs=1.6.1=pyhd8ed1ab_1",
                   "  - conda-forge::numpy=1.26.4=py311h64a7726_0", "  - conda-forge::pytest=8.3.4=pyhd8ed1ab_1"):
        assert pinned in lines
    assert ("      - python-dateutil @ git+https://github.com/dateutil/dateutil"
            "@9eaa5de584f9f374c6e4943069925cc53522ad61") in lines
    assert "      - antlr4-python3-runtime==4.9.3" in lines
    # The export reads back as the same packages (envcheck's own reader).
    written = tmp_path / "environment.yml"
    written.write_text(environment.stdout)
    assert envcheck("lint", written).returncode == 0


def test_export_pixi_named_platform_names_its_subdir():
    source = DATA_LOCKS / "named-platforms.pixi.lock"
    jetson = envcheck("export", "--lock", source, "--platform", "jetson")
    assert jetson.returncode == 0, jetson.stderr
    assert "# platform: linux-aarch64" in jetson.stdout.splitlines()
    assert any(line.startswith("https://conda.anaconda.org/conda-forge/linux-aarch64/zlib-1.3.1-h86ecc28_2.conda#")
               for line in jetson.stdout.splitlines())
    ambiguous = envcheck("export", "--lock", source, "--platform", "linux-64")
    assert ambiguous.returncode == 0  # the platform named linux-64 itself
    gpu = envcheck("export", "--lock", source, "--platform", "gpu", "--format", "environment")
    assert "  - cuda-version=12.0=hffde075_3" in gpu.stdout.splitlines()


def test_export_explicit_pip_lines_round_trip(tmp_path):
    """conda-lock's '# pip' lines: an sdist with dashes in its name, '#md5=None', git, another
    index; each comes out with its version or its source."""
    source = DATA_LOCKS / "pip-lines.explicit.txt"
    requirements = envcheck("export", "--lock", source, "--format", "requirements")
    assert requirements.returncode == 0, requirements.stderr
    lines = requirements.stdout.splitlines()
    assert "antlr4-python3-runtime==4.9.3" in lines
    assert "class-resolver==0.3.10" in lines
    assert ("python-dateutil @ git+https://github.com/dateutil/dateutil"
            "@9eaa5de584f9f374c6e4943069925cc53522ad61") in lines
    assert any(line.startswith("torch @ https://download.pytorch.org/whl/cu121/torch-2.3.1%2Bcu121-") for line in lines)
    again = tmp_path / "again.txt"
    explicit = envcheck("export", "--lock", source, "--output", again)
    assert explicit.returncode == 0, explicit.stderr
    assert envcheck("export", "--lock", again, "--format", "requirements").stdout.splitlines()[1:] == lines[1:]
