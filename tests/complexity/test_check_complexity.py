"""check_complexity.py on its fixture: each check reports exactly what breaks it (the real tree is
checked by the ctests `complexity` and `cli_budget`)."""
import pathlib
import re
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
FIXTURE = HERE / "fixture"


def check(*args):
    result = subprocess.run([sys.executable, str(HERE / "check_complexity.py"), "--root", str(FIXTURE), *args],
                            capture_output=True, text=True, check=False)
    return result.returncode, result.stdout.splitlines()


@pytest.mark.parametrize("args, problems", [
    (["--allow", str(FIXTURE / "allow.txt"), "src"], [
        "src/specs/names.cpp: envcheck::specs::unlisted_name has cyclomatic complexity 31 (limit 25): split it",
    ]),
    (["--budget", "src/cli", "50"], [
        "src/cli: 72 lines (budget 50): move what is not option parsing, rendering or exit mapping out of it",
        "src/cli/commands.cpp: envcheck::cli::too_long is 62 lines long (limit 60): split it",
    ]),
    (["--budget", "src/cli", "72", "--function-lines", "62"], []),
])
def test_fixture(args, problems):
    code, lines = check(*args)
    assert lines[-1] == f"{len(problems)} problems"
    summaries = re.compile(r"lines in \d+ files|functions above \d+, \d+ allowed")
    assert [line for line in lines[:-1] if not summaries.search(line)] == problems
    assert code == (1 if problems else 0)
