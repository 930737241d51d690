"""`envcheck lock` as a user runs it: default names, $CONDA_PREFIX, -n, --force, refusals."""
import json

import pytest

from clienv import project, realenv

envcheck = realenv.envcheck


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    return realenv.build_channel(tmp_path_factory.mktemp("channel"))


def test_default_lock_beside_the_environment_file(channel, tmp_path):
    directory, prefix = project(tmp_path, channel)
    first = envcheck("lock", "--no-gpu", cwd=directory, env={"CONDA_PREFIX": str(prefix)})
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("envcheck: wrote environment.lock.json: 3 packages (3 conda, 0 pip)")
    lock = directory / "environment.lock.json"
    document = json.loads(lock.read_text())
    realenv.validate(document, "lock.schema.json")
    assert document["environment_file"]["path"] == "environment.yml"
    before = lock.read_bytes()

    # Unchanged: up to date, and the file is left alone.
    again = envcheck("lock", "--no-gpu", cwd=directory, env={"CONDA_PREFIX": str(prefix)})
    assert again.returncode == 0
    assert "environment.lock.json is up to date" in again.stdout
    assert lock.read_bytes() == before

    # Changed: refused without --force, replaced with it.
    realenv.create_env(channel, prefix, ["greet", "hello ==1.0 h1_1"], tmp_path / "cache")
    refused = envcheck("lock", "--no-gpu", cwd=directory, env={"CONDA_PREFIX": str(prefix)})
    assert refused.returncode == 1
    assert "exists and differs: 1 package(s) differ" in refused.stderr
    assert "pass --force" in refused.stderr
    assert lock.read_bytes() == before
    forced = envcheck("lock", "--no-gpu", "--force", cwd=directory, env={"CONDA_PREFIX": str(prefix)})
    assert forced.returncode == 0, forced.stderr
    builds = {package["name"]: package["build"] for package in json.loads(lock.read_text())["packages"]}
    assert builds["hello"] == "h1_1"


def test_lock_without_gpu_flag_records_unknown_not_guessed(channel, tmp_path):
    _, prefix = project(tmp_path, channel)
    lock = tmp_path / "probed.lock.json"
    result = envcheck("lock", "--prefix", prefix, "--output", lock)
    assert result.returncode == 0, result.stderr
    machine = json.loads(lock.read_text())["machine"]
    assert machine["platform"] == "linux-64"
    assert machine["glibc"]  # read from the C library, always known on Linux
    # No GPU and no driver on the test machine: unknown stays null. On a GPU machine the probe
    # fills these in; then they must be consistent.
    if machine["driver_version"] is None:
        assert machine["cuda_driver_version"] is None
        assert machine["gpus"] is None
        assert "performance not recorded" in result.stdout
    else:
        assert isinstance(machine["gpus"], list)


def test_lock_by_name(channel, tmp_path):
    home = tmp_path / "home"
    envs = home / ".conda" / "envs"
    envs.mkdir(parents=True)
    realenv.create_env(channel, envs / "named", ["hello"], tmp_path / "cache")
    result = envcheck("lock", "-n", "named", "--output", tmp_path / "named.lock.json", "--no-gpu", env={"HOME": str(home)})
    assert result.returncode == 0, result.stderr
    missing = envcheck("lock", "-n", "nope", "--no-gpu", cwd=tmp_path, env={"HOME": str(home)})
    assert missing.returncode == 2
    assert "no environment named 'nope'" in missing.stderr


def test_lock_refusals_and_usage(channel, tmp_path):
    directory, prefix = project(tmp_path, channel)
    no_environment = envcheck("lock", "--no-gpu", cwd=directory)
    assert no_environment.returncode == 2
    assert "no environment to read" in no_environment.stderr
    both = envcheck("lock", "--prefix", prefix, "-n", "x", cwd=directory)
    assert both.returncode == 2
    (directory / "environment.lock.json").write_text("not a lock\n")
    foreign = envcheck("lock", "--prefix", prefix, "--no-gpu", cwd=directory)
    assert foreign.returncode == 1
    assert "exists and is not an envcheck lock" in foreign.stderr
    assert (directory / "environment.lock.json").read_text() == "not a lock\n"
    broken_env = tmp_path / "broken.yml"
    broken_env.write_text("dependencies:\n\t- numpy\n")
    bad_input = envcheck("lock", "--prefix", prefix, "--env", broken_env, "--no-gpu")
    assert bad_input.returncode == 2
    assert str(broken_env) + ":2:" in bad_input.stderr
