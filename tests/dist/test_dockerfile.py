"""The Dockerfile's stages, run as commands on this machine: CI has no container engine (README
"Container image"), so each stage's RUN lines run here with the image's paths (/build,
/opt/envcheck, /usr/local) mapped into a scratch directory, and COPY --from becomes a copy.
The build stage is the README's build of the tool alone; the image stage's entry point then
runs from the installed tree.
"""
import os
import pathlib
import re
import shlex
import shutil
import subprocess

import pytest

import distenv

DOCKERFILE = (distenv.SOURCE_DIR / "src" / "dist" / "Dockerfile").read_text()


def stages(text):
    """[(name, [(instruction, argument)])] with continuation lines joined and comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", re.sub(r"^\s*#.*\n", "", text, flags=re.M))
    result = []
    for line in joined.splitlines():
        if not line.strip():
            continue
        instruction, _, argument = line.strip().partition(" ")
        if instruction == "FROM":
            name = argument.split(" AS ")[-1] if " AS " in argument else str(len(result))
            result.append((name, [(instruction, argument)]))
        else:
            result[-1][1].append((instruction, argument))
    return result


STAGES = dict(stages(DOCKERFILE))


def test_two_stages_from_debian_12():
    assert list(STAGES) == ["build", "1"]
    assert STAGES["build"][0] == ("FROM", "debian:12 AS build")
    assert STAGES["1"][0] == ("FROM", "debian:12-slim")
    assert ("ENTRYPOINT", '["envcheck"]') in STAGES["1"]


def test_build_stage_is_the_readme_build_of_the_tool_alone():
    readme = (distenv.SOURCE_DIR / "README.md").read_text()
    for instruction, argument in STAGES["build"]:
        if instruction == "RUN" and "cmake" in argument:
            for command in (part.strip() for part in argument.split(" && ")):
                assert command.replace("/build", "build").replace(" --prefix /opt/envcheck", "") \
                    .replace(" --strip", "") in readme.replace("\\\n   ", ""), command


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    """Runs both stages; returns the image's /usr/local."""
    scratch = tmp_path_factory.mktemp("image")
    mapping = {"/build": str(scratch / "build"), "/opt/envcheck": str(scratch / "opt-envcheck")}
    for instruction, argument in STAGES["build"]:
        if instruction != "RUN":
            continue
        for old, new in mapping.items():
            argument = argument.replace(old + " ", new + " ")
        # The image removes apt's lists to stay small; this machine keeps them.
        argument = argument.replace(" && rm -rf /var/lib/apt/lists/*", "")
        result = subprocess.run(["bash", "-c", argument], cwd=distenv.SOURCE_DIR,
                                capture_output=True, text=True, timeout=3000)
        assert result.returncode == 0, argument + "\n" + result.stdout[-3000:] + result.stderr[-3000:]
    usr_local = scratch / "usr-local"
    for instruction, argument in STAGES["1"]:
        if instruction == "COPY":
            source, target = argument.replace("--from=build ", "").split()
            assert (source, target) == ("/opt/envcheck/", "/usr/local/")
            shutil.copytree(mapping["/opt/envcheck"], usr_local)
        elif instruction == "RUN" and "apt-get" in argument:
            # The runtime libraries: already on this machine; their names must be Debian's.
            names = re.findall(r"--no-install-recommends ([^&]+)", argument)[0].split()
            known = subprocess.run(["apt-cache", "show", *names], capture_output=True)
            assert known.returncode == 0, names
        elif instruction == "RUN":
            result = subprocess.run(["bash", "-c", argument], capture_output=True, text=True,
                                    env=dict(os.environ, PATH=f"{usr_local / 'bin'}:/usr/bin:/bin"))
            assert result.returncode == 0, argument + result.stderr
    return usr_local


def test_image_runs_its_entry_point(image):
    command = ["envcheck", "probe"]  # ENTRYPOINT + CMD
    result = subprocess.run(command, capture_output=True, text=True,
                            env={"PATH": f"{image / 'bin'}:/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("envcheck   probe of this machine\n")
    assert "runtime    envcheck carries CUDA runtime 13.0" in result.stdout


def test_image_has_the_schemas_and_fleet_hooks(image):
    assert (image / "share/envcheck/schemas/check-report.schema.json").is_file()
    prolog = image / "share/envcheck/fleet/slurm/envcheck-prolog"
    assert prolog.is_file() and os.access(prolog, os.X_OK)
    assert (image / "share/envcheck/fleet/kubernetes/daemonset.yaml").is_file()


def test_daemonset_runs_the_image_the_dockerfile_builds():
    text = (distenv.SOURCE_DIR / "envs/fleet/kubernetes/daemonset.yaml").read_text()
    assert "image: registry.example.com/envcheck:0.1.0" in text
    command = "docker build -f src/dist/Dockerfile -t envcheck:0.1.0 ."
    assert command in text and command in DOCKERFILE
