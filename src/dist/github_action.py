#!/usr/bin/env python3
"""The steps of envcheck's GitHub Action (action.yml), one subcommand each, standard library only:

  install   a pinned envcheck into its own venv, its bin/ onto $GITHUB_PATH: a wheel (path or
            https URL, checked against --sha256), else built from the action's own checkout
  run       `envcheck COMMAND ARGS...` with GitHub annotations on stdout, the markdown report
            into a file for the comment; the exit code into $GITHUB_OUTPUT
  comment   one pull-request comment per command, found again by a hidden marker and updated
            on every push, never a second one

tests/dist/test_action.py runs each step against a fake GITHUB_* environment and a loopback
server standing in for the GitHub API.
"""
import argparse
import hashlib
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request
import venv

MARKER = "<!-- envcheck-action:{command} -->"
COMMENT_LIMIT = 65536  # GitHub refuses longer comment bodies


def fail(message):
    print(f"::error title=envcheck action::{message}")
    sys.exit(2)


def append_line(variable, line):
    path = os.environ.get(variable)
    if path:
        with open(path, "a", encoding="utf-8") as stream:
            stream.write(line + "\n")


def sha256_of(path):
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_wheel(source, directory):
    """A local copy of the wheel at `source` (a path or an https:// URL)."""
    if "://" not in source:
        return pathlib.Path(source)
    if not source.startswith("https://"):
        fail(f"the wheel URL must be https:// ({source})")
    name = pathlib.PurePosixPath(urllib.parse.urlparse(source).path).name
    target = pathlib.Path(directory) / name
    with urllib.request.urlopen(source, timeout=120) as response, open(target, "wb") as out:
        shutil.copyfileobj(response, out)
    return target


def install(args):
    prefix = pathlib.Path(args.prefix)
    venv.EnvBuilder(with_pip=True, clear=True).create(prefix)
    python = prefix / "bin" / "python"
    if args.wheel:
        if not args.sha256:
            fail("the 'wheel' input needs 'wheel-sha256' too: the action installs only a "
                 "wheel it can verify")
        with tempfile.TemporaryDirectory() as scratch:
            wheel = fetch_wheel(args.wheel, scratch)
            actual = sha256_of(wheel)
            if actual != args.sha256.lower():
                fail(f"{wheel.name} has sha256 {actual}, expected {args.sha256}")
            subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--no-deps",
                            "--disable-pip-version-check", str(wheel)], check=True)
    else:
        # The action's own checkout, pinned by the ref in `uses: ...@REF`.
        subprocess.run([str(python), "-m", "pip", "install", "--quiet",
                        "--disable-pip-version-check", args.source], check=True)
    binary = prefix / "bin" / "envcheck"
    version = subprocess.run([str(binary), "--version"], check=True, capture_output=True,
                             text=True).stdout.splitlines()[0]
    print(f"installed {version} into {prefix}")
    append_line("GITHUB_PATH", str(prefix / "bin"))
    append_line("GITHUB_OUTPUT", f"version={version}")


def run(args):
    envcheck = args.envcheck or shutil.which("envcheck")
    if envcheck is None:
        fail("envcheck is not on PATH (the install step puts it there)")
    extra = shlex.split(args.args)
    annotations = subprocess.run([envcheck, args.command, *extra, "--format", "github"],
                                 text=True, capture_output=True)
    sys.stdout.write(annotations.stdout)
    sys.stderr.write(annotations.stderr)
    report = pathlib.Path(args.report)
    markdown = subprocess.run([envcheck, args.command, *extra, "--format", "markdown", "-o",
                               str(report)], text=True, capture_output=True)
    if markdown.returncode not in (0, 1) or not report.exists():
        report.write_text(f"`envcheck {args.command}` could not run (exit "
                          f"{markdown.returncode}):\n\n```\n{markdown.stderr.strip()}\n```\n")
    append_line("GITHUB_OUTPUT", f"exit-code={annotations.returncode}")
    append_line("GITHUB_OUTPUT", f"report={report}")
    return annotations.returncode


class GitHub:
    def __init__(self, token):
        self.api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
        self.token = token

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.api + path, data=data, method=method, headers={
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self.token}",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "envcheck-action",
            **({"Content-Type": "application/json"} if data is not None else {}),
        })
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            fail(f"GitHub API {method} {path}: HTTP {error.code} {error.reason}"
                 + (" (the workflow needs `permissions: pull-requests: write`)"
                    if error.code in (401, 403) else ""))


def pull_request_number():
    event_path = os.environ.get("GITHUB_EVENT_PATH")
    if not event_path or not os.path.exists(event_path):
        return None
    event = json.loads(pathlib.Path(event_path).read_text())
    number = (event.get("pull_request") or {}).get("number")
    return int(number) if number is not None else None


def comment(args):
    number = pull_request_number()
    if number is None:
        print("not a pull_request event: no comment")
        return 0
    repository = os.environ["GITHUB_REPOSITORY"]
    marker = MARKER.format(command=args.command)
    body = marker + "\n" + pathlib.Path(args.report).read_text()
    if len(body) > COMMENT_LIMIT:
        body = body[:COMMENT_LIMIT - 200] + "\n\n… (cut; the job summary has the whole report)\n"
    github = GitHub(args.token)
    existing = None
    page = 1
    while existing is None:
        comments = github.request(
            "GET", f"/repos/{repository}/issues/{number}/comments?per_page=100&page={page}")
        if not comments:
            break
        existing = next((c for c in comments if marker in (c.get("body") or "")), None)
        page += 1
    if existing is not None:
        github.request("PATCH", f"/repos/{repository}/issues/comments/{existing['id']}",
                       {"body": body})
        print(f"updated comment {existing['id']} on #{number}")
    else:
        created = github.request("POST", f"/repos/{repository}/issues/{number}/comments",
                                 {"body": body})
        print(f"created comment {created['id']} on #{number}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    step = steps.add_parser("install")
    step.add_argument("--prefix", required=True)
    step.add_argument("--wheel", default="")
    step.add_argument("--sha256", default="")
    step.add_argument("--source", default=str(pathlib.Path(__file__).resolve().parents[2]))
    step = steps.add_parser("run")
    step.add_argument("--command", choices=["lint", "check"], required=True)
    step.add_argument("--args", default="", help="the command's arguments, as a shell would split them")
    step.add_argument("--report", required=True)
    step.add_argument("--envcheck", default="")
    step = steps.add_parser("comment")
    step.add_argument("--command", required=True)
    step.add_argument("--report", required=True)
    step.add_argument("--token", default=os.environ.get("GITHUB_TOKEN", ""))
    args = parser.parse_args()
    if args.step == "install":
        return install(args)
    if args.step == "run":
        return run(args)
    return comment(args)


if __name__ == "__main__":
    sys.exit(main() or 0)
