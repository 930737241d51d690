"""The conda package (recipe.yaml, built with rattler-build from PyPI's py-rattler-build) of the
wheel's binary: put in a local channel, installed into a new environment by py-rattler, and
run there as users of conda and pixi run it; `envcheck check` inside that environment then
checks the environment it was installed into against its own lock.
"""
import asyncio
import hashlib
import json
import os
import pathlib
import subprocess

import pytest
import rattler
import rattler_build

import distenv


def sha256(path):
    return hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def channel(tmp_path_factory):
    root = tmp_path_factory.mktemp("conda")
    tree = distenv.unpack_wheel_tree(root / "tree")
    for subdir in ("noarch", "linux-64"):  # no dependencies: nothing to find, nothing fetched
        (root / "empty-channel" / subdir).mkdir(parents=True)
        (root / "empty-channel" / subdir / "repodata.json").write_text(
            json.dumps({"info": {"subdir": subdir}, "packages": {}, "packages.conda": {}}))
    os.environ["ENVCHECK_DIST_TREE"] = str(tree)
    try:
        rattler_build.build_recipes([distenv.SOURCE_DIR / "recipe.yaml"],
                                    channel=[(root / "empty-channel").as_uri()],
                                    output_dir=root / "channel", package_format="conda",
                                    no_include_recipe=True, test="skip")
    finally:
        del os.environ["ENVCHECK_DIST_TREE"]
    return root / "channel", tree


def test_package_is_linux_64_conda(channel):
    packages = sorted((channel[0] / "linux-64").glob("envcheck-0.1.0-*.conda"))
    assert len(packages) == 1, list(channel[0].rglob("*"))


@pytest.fixture(scope="module")
def environment(channel, tmp_path_factory):
    prefix = tmp_path_factory.mktemp("env") / "env"
    cache = tmp_path_factory.mktemp("cache")

    async def create():
        records = await rattler.solve([channel[0].as_uri()], ["envcheck"],
                                      platforms=["linux-64", "noarch"],
                                      virtual_packages=[rattler.GenericVirtualPackage(
                                          rattler.PackageName("__glibc"), rattler.Version("2.36"),
                                          rattler.BuildString("0"))])
        await rattler.install(records, prefix, cache_dir=cache, show_progress=False,
                              requested_specs=[rattler.MatchSpec("envcheck")._match_spec])
    asyncio.run(create())
    return prefix


def test_the_same_binary_as_the_wheel(channel, environment):
    assert sha256(environment / "bin/envcheck") == sha256(channel[1] / "bin/envcheck")
    assert (environment / "share/envcheck/schemas/lock.schema.json").is_file()


def envcheck(environment, *args, cwd=None):
    # As `conda activate` / `pixi shell` leave it: the environment's bin first, CONDA_PREFIX set.
    variables = {"PATH": f"{environment / 'bin'}:/usr/bin:/bin", "CONDA_PREFIX": str(environment),
                 "LANG": "C.UTF-8"}
    return subprocess.run(["envcheck", *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          env=variables)


def test_check_inside_the_environment_against_itself(environment, tmp_path):
    (tmp_path / "environment.yml").write_text(
        "name: tools\nchannels: [local]\ndependencies:\n  - envcheck=0.1.0\n")
    locked = envcheck(environment, "lock", cwd=tmp_path)
    assert locked.returncode == 0, locked.stderr
    assert "wrote environment.lock.json: 1 packages (1 conda, 0 pip)" in locked.stderr + locked.stdout
    checked = envcheck(environment, "check", "--deep", "--no-gpu", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("envcheck check: pass\n")
    assert "packages: 1 ok" in checked.stdout
