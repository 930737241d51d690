"""check_layers.py on fixture trees: each rule reports exactly what breaks it, and a tree that
keeps the layering passes (the real tree is checked by the ctest `layers`)."""
import pathlib
import subprocess
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"


def check(fixture):
    root = FIXTURES / fixture
    result = subprocess.run([sys.executable, str(HERE / "check_layers.py"), "--src", str(root / "src"),
                             "--table", str(root / "layers.json")], capture_output=True, text=True, check=False)
    return result.returncode, result.stdout.splitlines()[:-1]


@pytest.mark.parametrize("fixture, problems", [
    ("pure-reaches-world", [
        "specs/version.cpp: pure module includes fsio/files.hpp of the support fsio",
        "specs/version.cpp:7: pure module calls getenv",
    ]),
    ("usecase-reaches-adapter", [
        "app (usecase) depends on prefix (adapter)",
        "app/check.cpp: usecase module includes <filesystem>, which reaches the world",
        "app/check.cpp: usecase module includes prefix/reader.hpp of the adapter prefix",
        "app/check.cpp:11: usecase module calls steady_clock::now",
    ]),
    ("adapter-uses-usecase", [
        "net (adapter) depends on the use cases app",
    ]),
    ("host-and-root", [
        "cli (root) depends on the adapter prefix; the host wires it",
        "cli/main.cpp: root module includes <filesystem>, which reaches the world",
        "cli/main.cpp: root module includes prefix/reader.hpp of the adapter prefix",
        "cli/main.cpp:9: root module calls getenv",
        "cli/main.cpp:14: root module calls unsetenv",
        "host/ports.cpp: host module includes app/check.hpp; of the use cases only app/ports.hpp",
        "prefix (adapter) depends on host (host); only the root may",
    ]),
    ("clean", []),
])
def test_fixture(fixture, problems):
    code, reported = check(fixture)
    assert reported == problems
    assert code == (1 if problems else 0)
