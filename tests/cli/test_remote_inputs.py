"""Remote inputs end to end: environment files and locks by URL (a real HTTP server on
loopback), and `lint --check-channels` against a real channel's repodata served the same way
(the pytorch channel's linux-64 repodata from the shared corpus, rattler's test data). The
transport itself (TLS, proxies, timeouts, the cache under load) is tested in tests/net."""
import http.server
import json
import shutil
import socketserver
import threading

import pytest

from lint_support import SHARED_DIR, SOURCE_DIR, run

PYTORCH_REPODATA = SHARED_DIR / "corpus" / "conda-meta" / "conda__rattler__test-data_channels_pytorch_linux-64_repodata.json"


class Server:
    def __init__(self, root):
        handler = lambda *a, **k: http.server.SimpleHTTPRequestHandler(*a, directory=str(root), **k)
        handler.log_message = lambda *a: None
        self.requests = []
        outer = self

        class Handler(http.server.SimpleHTTPRequestHandler):
            def __init__(self, *a, **k):
                super().__init__(*a, directory=str(root), **k)

            def log_message(self, *a):
                pass

            def do_GET(self):
                outer.requests.append(self.path)
                super().do_GET()

        self.httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    server = Server(root)
    yield root, server
    server.close()


def test_lint_and_diff_read_urls(served):
    root, server = served
    shutil.copy(SOURCE_DIR / "envs" / "resnet50-cuda11.8.yml", root / "environment.yml")
    shutil.copy(SOURCE_DIR / "envs" / "broken" / "conflicts.yml", root / "conflicts.yml")
    clean = run("lint", f"{server.url}/environment.yml")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    broken = run("lint", "--format", "json", f"{server.url}/conflicts.yml")
    assert broken.returncode == 1
    report = json.loads(broken.stdout)
    assert report["files"][0]["path"] == f"{server.url}/conflicts.yml"
    assert any(d["rule"] == "conflict.unsatisfiable" for d in report["files"][0]["diagnostics"])
    same = run("diff", f"{server.url}/environment.yml", SOURCE_DIR / "envs" / "resnet50-cuda11.8.yml")
    assert same.returncode == 0, same.stdout + same.stderr


def test_missing_and_unreachable_urls_exit_2(served):
    root, server = served
    missing = run("lint", f"{server.url}/nope.yml")
    assert missing.returncode == 2
    assert "HTTP 404 Not Found" in missing.stderr and "/nope.yml" in missing.stderr
    refused = run("lint", "--connect-timeout", "2", "http://127.0.0.1:1/environment.yml")
    assert refused.returncode == 2 and "connection refused" in refused.stderr
    scheme = run("lint", "ftp://example.invalid/environment.yml")
    assert scheme.returncode == 2 and "unsupported URL scheme" in scheme.stderr


def test_lock_needs_output_for_a_url_environment(served):
    root, server = served
    shutil.copy(SOURCE_DIR / "envs" / "pip-heavy.yml", root / "environment.yml")
    result = run("lock", "--env", f"{server.url}/environment.yml", "--prefix", root)
    assert result.returncode == 2
    assert "-o FILE" in result.stderr


def channel(root):
    assert PYTORCH_REPODATA.exists(), f"{PYTORCH_REPODATA} missing (set ENVCHECK_SHARED_DIR)"
    (root / "pytorch" / "linux-64").mkdir(parents=True)
    shutil.copy(PYTORCH_REPODATA, root / "pytorch" / "linux-64" / "repodata.json")
    # No noarch subdir at all: a channel may not publish one (HTTP 404 means empty, as in conda).


ENV = """name: train
channels:
  - pytorch
  - nodefaults
dependencies:
  - pytorch=1.13.1
  - torchvision=9.9
  - pytorchh
"""


def test_check_channels_reports_unpublished_pins(served, tmp_path):
    root, server = served
    channel(root)
    env = tmp_path / "environment.yml"
    env.write_text(ENV)
    cache = tmp_path / "cache"
    args = ["lint", "--format", "json", "--check-channels", "--platform", "linux-64",
            "--channel-alias", server.url, "--cache-dir", cache, env]
    result = run(*args)
    assert result.returncode == 1, result.stderr
    findings = [d for d in json.loads(result.stdout)["files"][0]["diagnostics"] if d["rule"] == "channel-availability"]
    by_line = {d["line"]: d for d in findings}
    assert set(by_line) == {7, 8}, findings
    assert "torchvision=9.9 is not published on pytorch/linux-64" in by_line[7]["message"]
    assert by_line[7]["severity"] == "error" and "published versions" in by_line[7]["fix"]
    assert "no package is named pytorchh" in by_line[8]["message"] and "pytorch" in by_line[8]["fix"]
    assert "/pytorch/linux-64/repodata.json" in server.requests
    assert "/pytorch/noarch/repodata.json" in server.requests

    # The cache answers offline, the absent noarch subdir included.
    server.close()
    offline = run(*args[:-1], "--offline", env)
    assert offline.returncode == 1
    assert json.loads(offline.stdout) == json.loads(result.stdout)


def test_check_channels_offline_without_cache_says_so(tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text(ENV)
    result = run("lint", "--check-channels", "--platform", "linux-64", "--channel-alias", "http://127.0.0.1:1",
                 "--cache-dir", tmp_path / "empty-cache", "--offline", env)
    assert result.returncode == 0, result.stdout
    assert "offline" in result.stdout and "cannot read" in result.stdout


def test_check_channels_platform_typo_is_usage(tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text(ENV)
    result = run("lint", "--check-channels", "--platform", "linux64", env)
    assert result.returncode == 2 and "linux-64" in result.stderr


def test_channel_alias_from_environment_and_condarc(served, tmp_path):
    root, server = served
    channel(root)
    env = tmp_path / "environment.yml"
    env.write_text(ENV)
    import os, subprocess
    from lint_support import ENVCHECK
    base = {k: v for k, v in os.environ.items() if k not in ("ENVCHECK_CHANNEL_ALIAS", "CONDARC")}
    for extra in ({"ENVCHECK_CHANNEL_ALIAS": server.url},):
        result = subprocess.run([ENVCHECK, "lint", "--check-channels", "--platform", "linux-64", "--cache-dir",
                                 str(tmp_path / "c1"), str(env)], env={**base, **extra}, capture_output=True,
                                text=True, timeout=60)
        assert "torchvision=9.9 is not published" in result.stdout, result.stdout + result.stderr
    condarc = tmp_path / "condarc"
    condarc.write_text(f"channel_alias: {server.url}\n")
    result = subprocess.run([ENVCHECK, "lint", "--check-channels", "--platform", "linux-64", "--cache-dir",
                             str(tmp_path / "c2"), str(env)], env={**base, "CONDARC": str(condarc)},
                            capture_output=True, text=True, timeout=60)
    assert "torchvision=9.9 is not published" in result.stdout, result.stdout + result.stderr


@pytest.mark.parametrize("text, where, message", [
    (b"channels: [conda-forge\n", ":2:1:", "end of sequence flow not found"),
    (b"channel_alias: https://mirror.test\x01\n", ":1:35:", "non-printable character U+0001"),
    (b"\0,\0~\0.", ":1:1:", "non-printable character U+0000"),
])
def test_a_condarc_conda_would_refuse_is_usage(tmp_path, text, where, message):
    import os, subprocess
    from lint_support import ENVCHECK
    env = tmp_path / "environment.yml"
    env.write_text(ENV)
    condarc = tmp_path / "condarc"
    condarc.write_bytes(text)
    base = {k: v for k, v in os.environ.items() if k != "ENVCHECK_CHANNEL_ALIAS"}
    result = subprocess.run([ENVCHECK, "lint", "--check-channels", "--offline", "--platform", "linux-64",
                             "--cache-dir", str(tmp_path / "cache"), str(env)],
                            env={**base, "CONDARC": str(condarc)}, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{condarc}{where}" in result.stderr and message in result.stderr, result.stderr


def test_check_against_a_lock_by_url(served, tmp_path):
    root, server = served
    prefix = tmp_path / "prefix"
    shutil.copytree(SOURCE_DIR / "tests" / "data" / "prefixes" / "conda-basic", prefix, symlinks=True)
    # The fixture carries deliberately unreadable records; a lock refuses those.
    (prefix / "conda-meta" / "broken-1.0-0.json").unlink()
    shutil.rmtree(prefix / "lib" / "python3.11" / "site-packages" / "broken_dist-1.0.dist-info")
    lock = tmp_path / "env.lock.json"
    written = run("lock", "--prefix", prefix, "--no-gpu", "-o", lock)
    assert written.returncode == 0, written.stderr
    shutil.copy(lock, root / "env.lock.json")
    result = run("check", "--prefix", prefix, "--no-gpu", "--lock", f"{server.url}/env.lock.json", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["status"] == "pass" and report["packages"]
    exported = run("export", "--lock", f"{server.url}/env.lock.json", "--format", "explicit")
    assert exported.returncode in (0, 1) and "@EXPLICIT" in exported.stdout
