"""The HTML reports (`--format html` of smoke, check and doctor) in a real headless Chromium.

Each page is loaded over the DevTools protocol (a browser started with --remote-debugging-port,
driven with websocket-client): it must raise no page error and log no console or CSP error (so
Runtime.exceptionThrown and Log.entryAdded are collected while it loads), its plots must be in
the rendered DOM (querySelectorAll in the page), and a screenshot of it, and of its first plot
alone, must not be blank. The DevTools protocol rather than --dump-dom and a grep of
--enable-logging: it reports exceptions and CSP violations as events tied to the page, with no
log format to parse, and one browser serves every page in seconds.

The pages: the golden files of tests/report/test_html_report.cpp, and reports made here by the
built envcheck (doctor over a sysroot whose driver library is missing, check of a real conda
environment against its lock after a change). Two control pages prove that the error detection
can fail. ENVCHECK_UPDATE_SCREENSHOTS=1 rewrites tests/data/screenshots/*.png (the README shows
them) from the golden pages; `optipng -o2 -strip all` (Debian's optipng) shrinks them before a
commit.
"""
import base64
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import time
import zlib

import pytest
import websocket

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "cli"))

from sysroots import copy_root  # noqa: E402

SOURCE = pathlib.Path(os.environ.get("ENVCHECK_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
GOLDEN = SOURCE / "tests" / "data" / "golden" / "html"
SCREENSHOTS = SOURCE / "tests" / "data" / "screenshots"
ENVCHECK = os.environ.get("ENVCHECK", "envcheck")
WIDTH = 1200
STEP_SECONDS = 15  # any one DevTools answer or page load; the whole file runs in seconds


class DevTools:
    """One headless Chromium and a flat-session DevTools connection to it."""

    def __init__(self, profile):
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        assert binary, "chromium is not installed (.ci/setup installs Debian's chromium)"
        self.process = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--hide-scrollbars", "--remote-debugging-port=0", "--remote-allow-origins=*",
             f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url = self._devtools_url()
        self.socket = websocket.create_connection(url, timeout=STEP_SECONDS, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def _devtools_url(self):
        deadline = time.monotonic() + 30
        seen = []
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                if self.process.poll() is not None:
                    break
                continue
            seen.append(line)
            if line.startswith("DevTools listening on "):
                return line.split(" on ", 1)[1].strip()
        self.process.kill()
        raise AssertionError("chromium did not start its DevTools endpoint:\n" + "".join(seen[-20:]))

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        deadline = time.monotonic() + STEP_SECONDS
        while time.monotonic() < deadline:
            reply = json.loads(self.socket.recv())
            if reply.get("id") == self.next_id:
                assert "error" not in reply, f"{method}: {reply['error']}"
                return reply["result"]
            self.events.append(reply)
        raise AssertionError(f"{method}: no answer in {STEP_SECONDS} s")

    def wait_for(self, method, session):
        deadline = time.monotonic() + STEP_SECONDS
        while time.monotonic() < deadline:
            if any(e.get("method") == method and e.get("sessionId") == session for e in self.events):
                return
            self.events.append(json.loads(self.socket.recv()))
        raise AssertionError(f"no {method} in {STEP_SECONDS} s")

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:  # noqa: BLE001 (the browser may already be gone)
            pass
        self.socket.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    tools = DevTools(tmp_path_factory.mktemp("chromium-profile"))
    yield tools
    tools.close()


# What each page must show, as DOM queries with the count (or minimum count) they must match.
QUERIES = {
    "polylines": "svg polyline.series",
    "points": "svg circle.point",
    "bands": "svg rect.band",
    "bars": "svg rect.bar",
    "nodes": "svg g.node",
    "broken": "svg g.node.broken",
    "svgs": "svg.plot",
    "rows": "tbody tr",
}


def render(browser, path, dark=False):
    """Loads `path`; returns the DOM counts, the page's errors and PNG screenshots (the page,
    a thumbnail of it, its first plot)."""
    target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
    session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
    try:
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            browser.send(domain, session=session)
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": WIDTH, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session)
        browser.send("Emulation.setEmulatedMedia",
                     {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]},
                     session)
        browser.send("Page.navigate", {"url": pathlib.Path(path).resolve().as_uri()}, session)
        browser.wait_for("Page.loadEventFired", session)
        expression = "JSON.stringify({%s, height: document.documentElement.scrollHeight, " \
                     "background: getComputedStyle(document.body).backgroundColor, " \
                     "plot: (() => { const s = document.querySelector('svg.plot'); if (!s) return null; " \
                     "const r = s.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })()})" % \
                     ", ".join(f"{key}: document.querySelectorAll({json.dumps(query)}).length"
                               for key, query in QUERIES.items())
        result = browser.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session)
        assert "exceptionDetails" not in result, result
        dom = json.loads(result["result"]["value"])
        def screenshot(x, y, width, height, scale):
            return base64.b64decode(browser.send(
                "Page.captureScreenshot",
                {"format": "png", "captureBeyondViewport": True,
                 "clip": {"x": x, "y": y, "width": width, "height": height, "scale": scale}},
                session)["data"])

        # Full size for the README; a fifth of it is enough to see whether anything drew (and
        # keeps the pure-Python PNG decoding below a second).
        shots = {"page": screenshot(0, 0, WIDTH, dom["height"], 1),
                 "thumbnail": screenshot(0, 0, WIDTH, dom["height"], 0.2)}
        if dom["plot"]:
            shots["plot"] = screenshot(*dom["plot"], 0.5)
        return dom, page_errors(browser.events, session), shots
    finally:
        browser.send("Target.closeTarget", {"targetId": target})
        browser.events = [e for e in browser.events if e.get("sessionId") != session]


def page_errors(events, session):
    errors = []
    for event in events:
        if event.get("sessionId") != session:
            continue
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.exceptionThrown":
            errors.append(params["exceptionDetails"].get("exception", {}).get("description")
                          or params["exceptionDetails"].get("text"))
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            errors.append(params["entry"]["text"])
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            errors.append(str(params["args"]))
    return errors


def pixels(png):
    """The PNG's width, height and RGB pixels (8-bit RGB or RGBA, as Chromium writes them)."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    offset, idat, width = 8, b"", None
    while offset < len(png):
        length, kind = struct.unpack(">I4s", png[offset:offset + 8])
        data = png[offset + 8:offset + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", data[:10])
            assert depth == 8 and colour in (2, 6), (depth, colour)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += data
        offset += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, [bytes(row[x * channels:x * channels + 3]) for row in rows for x in range(width)]


def drawn_share(png):
    """The share of pixels that differ from the most common colour, the background,
    and the number of distinct colours."""
    _, _, sample = pixels(png)
    counts = {}
    for pixel in sample:
        counts[pixel] = counts.get(pixel, 0) + 1
    background = max(counts.values())
    return 1 - background / len(sample), len(counts)


def assert_drew(dom, errors, shots):
    assert errors == [], errors
    share, colours = drawn_share(shots["thumbnail"])
    assert share > 0.02 and colours > 8, (share, colours)
    if dom["svgs"]:
        plot_share, plot_colours = drawn_share(shots["plot"])
        assert plot_share > 0.03 and plot_colours > 4, (plot_share, plot_colours)


@pytest.mark.parametrize("name, expected", [
    ("smoke", {"polylines": 6, "points": 42, "svgs": 1}),
    ("check", {"bands": 6, "bars": 5, "svgs": 1}),
    ("doctor", {"nodes": 9, "broken": 1, "svgs": 1}),
])
def test_golden_page(browser, tmp_path, name, expected):
    path = GOLDEN / f"{name}.html"
    dom, errors, shots = render(browser, path)
    for key, count in expected.items():
        assert dom[key] == count, (key, dom)
    assert dom["rows"] > 0
    assert_drew(dom, errors, shots)
    assert struct.unpack(">I", shots["page"][16:20])[0] == WIDTH  # IHDR's width
    if os.environ.get("ENVCHECK_UPDATE_SCREENSHOTS") == "1" and name != "smoke":
        # smoke's screenshot is of the page made on the H200 (below).
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (SCREENSHOTS / f"{name}.png").write_bytes(shots["page"])


@pytest.mark.parametrize("name, screenshot, expected", [
    # smoke --full on the H200 (tests/device/run.sh): six copy kinds over seven sizes.
    ("h200-smoke-full", "smoke", {"polylines": 6, "points": 42, "svgs": 1}),
    # check --lock against a lock whose 16 baselines were made better than measured.
    # (Its 197 package rows make a page too long for the README: check's screenshot is the
    # golden page's.)
    ("h200-check-inflated", None, {"bands": 16, "svgs": 1}),
])
def test_page_made_on_the_h200(browser, name, screenshot, expected):
    dom, errors, shots = render(browser, SOURCE / "tests" / "data" / "device" / f"{name}.html")
    for key, count in expected.items():
        assert dom[key] == count, (key, dom)
    assert_drew(dom, errors, shots)
    if os.environ.get("ENVCHECK_UPDATE_SCREENSHOTS") == "1" and screenshot:
        (SCREENSHOTS / f"{screenshot}.png").write_bytes(shots["page"])


def test_dark_mode_follows_the_system(browser):
    light, errors_light, _ = render(browser, GOLDEN / "doctor.html")
    dark, errors_dark, shots = render(browser, GOLDEN / "doctor.html", dark=True)
    assert errors_light == []
    assert light["background"] != dark["background"], (light["background"], dark["background"])
    assert_drew(dark, errors_dark, shots)


def run_envcheck(*args, cwd=None, env=None):
    return subprocess.run([ENVCHECK, *map(str, args)], capture_output=True, text=True, timeout=120,
                          cwd=cwd, env=env)


def test_doctor_report_made_here(browser, tmp_path):
    out = tmp_path / "doctor.html"
    environment = {k: v for k, v in os.environ.items() if k not in ("CUDA_VISIBLE_DEVICES", "CONDA_PREFIX", "VIRTUAL_ENV")}
    result = run_envcheck("doctor", "--root", copy_root(tmp_path, "no-libcuda"), "--format", "html", "-o", out,
                          env=environment)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    dom, errors, shots = render(browser, out)
    assert dom["broken"] == 1 and dom["nodes"] >= 5, dom
    assert_drew(dom, errors, shots)
    assert "driver.libcuda-found" in out.read_text()


def test_check_report_made_here(browser, tmp_path):
    from clienv import project, realenv

    channel = realenv.build_channel(tmp_path / "channel")
    directory, prefix = project(tmp_path, channel)
    environment = dict(os.environ, CONDA_PREFIX=str(prefix))
    assert run_envcheck("lock", "--no-gpu", cwd=directory, env=environment).returncode == 0
    realenv.create_env(channel, prefix, ["greet", "hello ==1.0 h1_1"], tmp_path / "cache")
    out = tmp_path / "check.html"
    result = run_envcheck("check", "--no-gpu", "--format", "html", "-o", out, cwd=directory, env=environment)
    assert result.returncode == 1, result.stderr
    dom, errors, shots = render(browser, out)
    assert dom["rows"] >= 2, dom
    assert_drew(dom, errors, shots)
    text = out.read_text()
    assert "hello" in text and "changed" in text


def test_smoke_report_made_here(browser, tmp_path):
    # No GPU here (or no CUDA in this build): the page says why no probe ran.
    out = tmp_path / "smoke.html"
    result = run_envcheck("smoke", "--format", "html", "-o", out)
    assert result.returncode in (0, 1), result.stderr
    _, errors, shots = render(browser, out)
    assert errors == [], errors
    assert drawn_share(shots["thumbnail"])[0] > 0.01


@pytest.mark.parametrize("markup, expected", [
    # A script that throws: a page error (our pages carry no script at all).
    ("<!DOCTYPE html><title>t</title><p>x</p><script>throw new Error('boom')</script>", "boom"),
    # Our pages' policy refuses any script: Chromium reports the refusal as an error.
    ("<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
     "style-src 'unsafe-inline'\"><title>t</title><p>x</p><script>document.title='ran'</script>",
     "Content Security Policy"),
])
def test_the_error_detection_can_fail(browser, tmp_path, markup, expected):
    path = tmp_path / "control.html"
    path.write_text(markup)
    _, errors, _ = render(browser, path)
    assert any(expected in (error or "") for error in errors), errors
