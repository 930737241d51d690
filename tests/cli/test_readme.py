"""README.md stays true: every ```console block in it is run from the repository root, each
`$ command` line through the shell with this build's envcheck first on PATH, and must print
exactly the lines that follow it; `$ echo $?` lines check the previous command's exit code.
(```text blocks are outputs recorded on other machines and are not run.)"""
import os
import pathlib
import re
import subprocess

import pytest

ENVCHECK = pathlib.Path(os.environ["ENVCHECK"]).resolve()
SOURCE_DIR = pathlib.Path(os.environ["ENVCHECK_SOURCE_DIR"])
README = (SOURCE_DIR / "README.md").read_text()
BLOCKS = re.findall(r"^```console\n(.*?)^```$", README, flags=re.S | re.M)


def steps(block):
    """[(command, expected output)] of a console block."""
    result = []
    for line in block.splitlines():
        if line.startswith("$ "):
            result.append([line[2:], []])
        else:
            assert result, "a console block must start with a '$ ' line"
            result[-1][1].append(line)
    return [(command, "\n".join(lines)) for command, lines in result]


def test_readme_has_console_examples():
    assert len(BLOCKS) >= 8


@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: block.splitlines()[0][2:60])
def test_console_example_prints_what_the_readme_shows(block):
    environment = {key: value for key, value in os.environ.items()
                   if key not in ("CONDA_PREFIX", "VIRTUAL_ENV", "GITHUB_STEP_SUMMARY",
                                  "CUDA_VISIBLE_DEVICES")}
    environment["PATH"] = f"{ENVCHECK.parent}:{environment.get('PATH', '/usr/bin:/bin')}"
    last_status = None
    for command, expected in steps(block):
        if command == "echo $?":
            assert str(last_status) == expected.strip(), "exit status of the command before"
            continue
        result = subprocess.run(["bash", "-c", command], cwd=SOURCE_DIR, env=environment,
                                capture_output=True, text=True, timeout=120)
        last_status = result.returncode
        assert (result.stdout + result.stderr).rstrip("\n") == expected, command
