"""The GitHub Action (action.yml): its steps (src/dist/github_action.py) run as a composite
action's `run:` lines run them, against a fake GITHUB_* environment and a loopback HTTP server
standing in for the GitHub API. The pull-request comment is created once and then updated on
every push, never posted twice; the install step refuses a wheel whose sha256 does not match.
"""
import http.server
import json
import os
import pathlib
import re
import subprocess
import sys
import threading

import pytest
import yaml

import distenv

SCRIPT = distenv.SOURCE_DIR / "src/dist/github_action.py"
ACTION = yaml.safe_load((distenv.SOURCE_DIR / "action.yml").read_text())
ENVCHECK = os.environ["ENVCHECK"]


class FakeGitHub(http.server.ThreadingHTTPServer):
    """Issue comments of one repository, as GitHub's REST API serves them."""

    def __init__(self):
        super().__init__(("127.0.0.1", 0), FakeGitHubHandler)
        self.comments = {}  # id -> {"id", "body", "issue"}
        self.requests = []  # (method, path, authorization)
        self.next_id = 1000

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


class FakeGitHubHandler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, document):
        data = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def record(self):
        self.server.requests.append((self.command, self.path, self.headers.get("Authorization")))
        if self.headers.get("Authorization") != "Bearer secret-token":
            self.reply(401, {"message": "Bad credentials"})
            return None
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def do_GET(self):
        if self.record() is None:
            return
        match = re.fullmatch(r"/repos/org/project/issues/(\d+)/comments\?per_page=(\d+)&page=(\d+)",
                             self.path)
        if not match:
            self.reply(404, {"message": "Not Found"})
            return
        issue, per_page, page = map(int, match.groups())
        comments = [c for c in self.server.comments.values() if c["issue"] == issue]
        self.reply(200, comments[(page - 1) * per_page:page * per_page])

    def do_POST(self):
        body = self.record()
        if body is None:
            return
        match = re.fullmatch(r"/repos/org/project/issues/(\d+)/comments", self.path)
        self.server.next_id += 1
        comment = {"id": self.server.next_id, "body": body["body"], "issue": int(match.group(1))}
        self.server.comments[comment["id"]] = comment
        self.reply(201, comment)

    def do_PATCH(self):
        body = self.record()
        if body is None:
            return
        match = re.fullmatch(r"/repos/org/project/issues/comments/(\d+)", self.path)
        comment = self.server.comments[int(match.group(1))]
        comment["body"] = body["body"]
        self.reply(200, comment)


@pytest.fixture
def github(tmp_path):
    server = FakeGitHub()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def runner(tmp_path, github):
    """The variables a GitHub runner gives a composite action's steps, for a pull_request event."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7}}))
    for name in ("output", "path", "summary"):
        (tmp_path / name).write_text("")
    (tmp_path / "runner-temp").mkdir()
    return {"PATH": os.environ["PATH"], "GITHUB_API_URL": github.url,
            "GITHUB_REPOSITORY": "org/project", "GITHUB_EVENT_PATH": str(event),
            "GITHUB_EVENT_NAME": "pull_request", "GITHUB_OUTPUT": str(tmp_path / "output"),
            "GITHUB_PATH": str(tmp_path / "path"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary"),
            "RUNNER_TEMP": str(tmp_path / "runner-temp"), "GITHUB_TOKEN": "secret-token"}


def step(runner, *args, cwd=None):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], env=runner, cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def outputs(runner):
    lines = pathlib.Path(runner["GITHUB_OUTPUT"]).read_text().splitlines()
    return dict(line.split("=", 1) for line in lines)


def test_action_steps_call_the_script_steps():
    assert ACTION["runs"]["using"] == "composite"
    commands = [entry.get("run", "") for entry in ACTION["runs"]["steps"]]
    for name in ("install", "run", "comment"):
        assert any(f'github_action.py" {name}' in command for command in commands), name
    # Inputs reach the scripts through the environment, never pasted into the shell text.
    for command in commands:
        assert "${{ inputs." not in command, command


def test_run_annotates_and_writes_the_report(runner, tmp_path):
    report = tmp_path / "report.md"
    result = step(runner, "run", "--command", "lint", "--envcheck", ENVCHECK, "--report", report,
                  "--args", "envs/broken/cuda-mismatch.yml envs/resnet50-cuda11.8.yml",
                  cwd=distenv.SOURCE_DIR)
    assert result.returncode == 1, result.stderr
    assert "::error file=envs/broken/cuda-mismatch.yml,line=11,col=5" in result.stdout
    assert outputs(runner)["exit-code"] == "1"
    assert "cuda.version-mismatch" in report.read_text()


def comment(runner, report, command="lint"):
    result = step(runner, "comment", "--command", command, "--report", report)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_one_comment_updated_on_each_push(runner, github, tmp_path):
    report = tmp_path / "report.md"
    report.write_text("first push: 2 errors\n")
    assert comment(runner, report) == "created comment 1001 on #7\n"
    report.write_text("second push: clean\n")
    assert comment(runner, report) == "updated comment 1001 on #7\n"
    assert list(github.comments) == [1001]
    assert github.comments[1001]["body"].endswith("second push: clean\n")
    # Another command keeps its own comment.
    assert comment(runner, report, command="check") == "created comment 1002 on #7\n"
    assert sorted(github.comments) == [1001, 1002]
    assert {auth for _, _, auth in github.requests} == {"Bearer secret-token"}


def test_finds_its_comment_among_many(runner, github, tmp_path):
    for number in range(150):  # two pages of other people's comments first
        github.comments[number] = {"id": number, "body": f"review {number}", "issue": 7}
    report = tmp_path / "report.md"
    report.write_text("report\n")
    comment(runner, report)
    comment(runner, report)
    assert len(github.comments) == 151


def test_no_comment_outside_pull_requests(runner, github, tmp_path):
    pathlib.Path(runner["GITHUB_EVENT_PATH"]).write_text(json.dumps({"ref": "refs/heads/main"}))
    report = tmp_path / "report.md"
    report.write_text("report\n")
    assert comment(runner, report) == "not a pull_request event: no comment\n"
    assert github.requests == []


def test_refused_token_names_the_permission(runner, tmp_path):
    report = tmp_path / "report.md"
    report.write_text("report\n")
    result = step(dict(runner, GITHUB_TOKEN="wrong"), "comment", "--command", "lint", "--report",
                  report)
    assert result.returncode == 2
    assert "HTTP 401" in result.stdout and "pull-requests: write" in result.stdout


def test_install_refuses_a_wheel_that_does_not_match(runner, tmp_path):
    result = step(runner, "install", "--prefix", tmp_path / "venv", "--wheel", distenv.wheel(),
                  "--sha256", "0" * 64)
    assert result.returncode == 2
    assert f"{distenv.wheel().name} has sha256 " in result.stdout
    assert pathlib.Path(runner["GITHUB_PATH"]).read_text() == ""


def test_install_puts_the_pinned_wheel_on_path(runner, tmp_path):
    import hashlib
    digest = hashlib.sha256(distenv.wheel().read_bytes()).hexdigest()
    result = step(runner, "install", "--prefix", tmp_path / "venv", "--wheel", distenv.wheel(),
                  "--sha256", digest)
    assert result.returncode == 0, result.stdout + result.stderr
    assert pathlib.Path(runner["GITHUB_PATH"]).read_text() == f"{tmp_path / 'venv' / 'bin'}\n"
    assert outputs(runner)["version"] == "envcheck 0.1.0"
    assert (tmp_path / "venv/bin/envcheck").is_file()
