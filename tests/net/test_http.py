"""End-to-end tests of src/net (net::HttpClient, net::Cache, net::read_input) against real
servers that the tests start on loopback: Python's http.server for the well-behaved cases, a
raw-socket server of our own for broken ones (slow, truncated, silent, bad encodings), a TLS
server with a CA generated here by `openssl`, and a forward proxy for the proxy variables.

They drive tests/net/tools/net_fetch_tool.cpp (path in NET_FETCH_TOOL, set by ctest), a thin CLI
over the adapter. Nothing here leaves the machine: servers bind 127.0.0.1 on ports the OS picks,
the proxy only tunnels to loopback, and the DNS failure runs in a network namespace of its own.
"""
import gzip
import hashlib
import http.server
import json
import os
import pathlib
import shutil
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
import time

import pytest

TOOL = os.environ.get("NET_FETCH_TOOL", "")
if not TOOL or not os.access(TOOL, os.X_OK):
    raise RuntimeError("NET_FETCH_TOOL must name the built net_fetch_tool (ctest sets it)")

PROXY_VARIABLES = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                   "ALL_PROXY", "no_proxy", "NO_PROXY")
ENV_YML = "name: demo\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n"
LAST_MODIFIED = "Wed, 21 Oct 2026 07:28:00 GMT"


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env.update(extra)
    return env


def fetch(*args, env=None, timeout=60):
    """Runs the tool; returns (exit code, parsed JSON or None, stderr)."""
    done = subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=timeout,
                          env=env if env is not None else clean_env())
    payload = json.loads(done.stdout) if done.returncode == 0 else None
    return done.returncode, payload, done.stderr


def serve(server):
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


# --- a well-behaved server: http.server -----------------------------------------------------

class AppHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_body(self, body, status=200, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        state = self.server.state
        with state["lock"]:
            state["requests"].append((self.path, dict(self.headers)))
        path = self.path
        if path == "/env.yml":
            if self.headers.get("If-None-Match") == '"v1"':
                return self.send_body(b"", 304, [("ETag", '"v1"')])
            return self.send_body(ENV_YML.encode(), 200,
                                  [("ETag", '"v1"'), ("Last-Modified", LAST_MODIFIED)])
        if path == "/versioned":
            tag = f'"r{state["version"]}"'
            if self.headers.get("If-None-Match") == tag:
                return self.send_body(b"", 304, [("ETag", tag)])
            return self.send_body(f"revision {state['version']}\n".encode(), 200, [("ETag", tag)])
        if path == "/lastmod-only":
            if self.headers.get("If-Modified-Since") == LAST_MODIFIED:
                return self.send_body(b"", 304)
            return self.send_body(b"dated body\n", 200, [("Last-Modified", LAST_MODIFIED)])
        if path == "/gzip":
            body = (ENV_YML * 200).encode()
            if "gzip" in self.headers.get("Accept-Encoding", ""):
                return self.send_body(gzip.compress(body), 200, [("Content-Encoding", "gzip")])
            return self.send_body(body)
        if path == "/bomb":
            # 8 MiB of zeros in a few kB: the size cap must hold on the decoded bytes.
            return self.send_body(gzip.compress(b"\0" * (8 << 20)), 200,
                                  [("Content-Encoding", "gzip")])
        if path == "/big":
            return self.send_body(b"x" * (2 << 20))
        if path == "/redirect":
            return self.send_body(b"", 302, [("Location", "/env.yml")])
        if path == "/redirect-chain/3":
            return self.send_body(b"", 302, [("Location", "/env.yml")])
        if path.startswith("/redirect-chain/"):
            step = int(path.rsplit("/", 1)[1])
            return self.send_body(b"", 302, [("Location", f"/redirect-chain/{step + 1}")])
        if path == "/loop":
            return self.send_body(b"", 302, [("Location", "/loop")])
        if path == "/downgrade":
            return self.send_body(b"", 302, [("Location", state["redirect_to"])])
        if path == "/to-file":
            return self.send_body(b"", 302, [("Location", "file:///etc/hostname")])
        if path.startswith("/status/"):
            return self.send_body(b"failure page\n", int(path.rsplit("/", 1)[1]))
        return self.send_body(b"no such page\n", 404)


class AppServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), AppHandler)
        self.state = {"lock": threading.Lock(), "requests": [], "version": 1}

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"

    def requests_for(self, path):
        with self.state["lock"]:
            return [headers for p, headers in self.state["requests"] if p == path]


@pytest.fixture(scope="module")
def app():
    server = serve(AppServer())
    yield server
    server.shutdown()
    server.server_close()


# --- a misbehaving server: raw sockets ----------------------------------------------------

class RawHandler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        sock.settimeout(10)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                return
            head += chunk
        path = head.split(b" ", 2)[1].decode()
        if path == "/slow-headers":
            time.sleep(3)  # longer than the client's total timeout
            return
        if path == "/slow-body":
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
            time.sleep(3)
            return
        if path == "/truncated":
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n"
                         b"0123456789")
            return
        if path == "/nothing":
            return
        if path == "/bad-gzip":
            body = b"this is not gzip data at all"
            sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
            return
        if path.startswith("/chunked-mib/"):
            # N MiB without Content-Length, of a known content: sha256 of (b"z" * 1 MiB) * N.
            sock.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                         b"Connection: close\r\n\r\n")
            chunk = b"z" * (1 << 20)
            try:
                for _ in range(int(path.rsplit("/", 1)[1])):
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sock.sendall(b"0\r\n\r\n")
            except OSError:
                pass
            return
        if path == "/chunked-big":
            # No Content-Length: only the running count of received bytes can stop this one.
            sock.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            chunk = b"y" * 65536
            try:
                for _ in range(64):  # 4 MiB
                    sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                sock.sendall(b"0\r\n\r\n")
            except OSError:
                pass  # the client hung up at its limit, as it should
            return
        sock.sendall(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")


class RawServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), RawHandler)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture(scope="module")
def raw():
    server = serve(RawServer())
    yield server
    server.shutdown()
    server.server_close()


# --- TLS: a private CA made here with openssl --------------------------------------------

def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(directory, name):
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
            f"/CN={name}", "-keyout", f"{name}.key", "-out", f"{name}.pem", cwd=directory)


def make_leaf(directory, ca, name, san):
    (directory / f"{name}.ext").write_text(
        f"subjectAltName={san}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\n")
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={name}", "-keyout",
            f"{name}.key", "-out", f"{name}.csr", cwd=directory)
    openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
            "-CAcreateserial", "-days", "2", "-extfile", f"{name}.ext", "-out", f"{name}.pem",
            cwd=directory)


class TlsServer(AppServer):
    def __init__(self, directory, leaf):
        super().__init__()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(directory / f"{leaf}.pem", directory / f"{leaf}.key")
        self.socket = context.wrap_socket(self.socket, server_side=True)

    @property
    def url(self):
        return f"https://localhost:{self.server_address[1]}"


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    if shutil.which("openssl") is None:
        raise RuntimeError("the TLS tests need the openssl command")
    directory = tmp_path_factory.mktemp("pki")
    make_ca(directory, "test-ca")
    make_ca(directory, "other-ca")
    make_leaf(directory, "test-ca", "localhost", "DNS:localhost,IP:127.0.0.1")
    make_leaf(directory, "test-ca", "elsewhere", "DNS:elsewhere.test")
    return directory


@pytest.fixture(scope="module")
def tls(pki):
    server = serve(TlsServer(pki, "localhost"))
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def tls_wrong_name(pki):
    server = serve(TlsServer(pki, "elsewhere"))
    yield server
    server.shutdown()
    server.server_close()


# --- a forward proxy (plain-HTTP GET with absolute URIs, and CONNECT to loopback) ----------

class ProxyHandler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        sock.settimeout(10)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                return
            head += chunk
        method, target, _ = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
        self.server.seen.append((method, target))
        if method == "CONNECT":
            host, port = target.rsplit(":", 1)
            if host not in ("localhost", "127.0.0.1"):
                sock.sendall(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n")
                return
            upstream = socket.create_connection(("127.0.0.1", int(port)), timeout=10)
            sock.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.pipe(sock, upstream)
            return
        body = f"via proxy: {method} {target}\n".encode()
        sock.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: "
                     + str(len(body)).encode() + b"\r\n\r\n" + body)

    @staticmethod
    def pipe(a, b):
        def forward(source, sink):
            try:
                while data := source.recv(65536):
                    sink.sendall(data)
            except OSError:
                pass
            finally:
                for s in (source, sink):
                    try:
                        s.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        other = threading.Thread(target=forward, args=(b, a), daemon=True)
        other.start()
        forward(a, b)
        other.join(timeout=10)


class ProxyServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), ProxyHandler)
        self.seen = []

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture(scope="module")
def proxy():
    server = serve(ProxyServer())
    yield server
    server.shutdown()
    server.server_close()


def free_port():
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# === fetching =============================================================================

def test_fetch_ok_with_validators(app):
    rc, out, err = fetch(app.url + "/env.yml")
    assert rc == 0, err
    assert out["status"] == 200
    assert out["body"] == ENV_YML
    assert out["etag"] == '"v1"'
    assert out["last_modified"] == LAST_MODIFIED


def test_conditional_request_gets_304(app):
    rc, out, err = fetch(app.url + "/env.yml", "--etag", '"v1"')
    assert rc == 0, err
    assert out["status"] == 304
    assert out["body"] == ""
    assert app.requests_for("/env.yml")[-1]["If-None-Match"] == '"v1"'


def test_compressed_transfer_is_decoded(app):
    rc, out, err = fetch(app.url + "/gzip")
    assert rc == 0, err
    assert out["content_encoding"] == "gzip"
    assert out["body"] == ENV_YML * 200
    offered = app.requests_for("/gzip")[-1]["Accept-Encoding"]
    assert "gzip" in offered and "deflate" in offered


def test_redirects_are_followed(app):
    rc, out, err = fetch(app.url + "/redirect")
    assert rc == 0, err
    assert out["body"] == ENV_YML
    assert out["effective_url"] == app.url + "/env.yml"
    # /redirect-chain/1 -> /2 -> /3 -> /env.yml: three redirects.
    rc, out, err = fetch(app.url + "/redirect-chain/1", "--max-redirects", "3")
    assert rc == 0, err
    assert out["body"] == ENV_YML
    rc, out, err = fetch(app.url + "/redirect-chain/1", "--max-redirects", "2")
    assert rc == 2 and "too many redirects (2)" in err


@pytest.mark.parametrize("max_redirects", ["5", "1"])
def test_redirect_loop_is_bounded(app, max_redirects):
    rc, _, err = fetch(app.url + "/loop", "--max-redirects", max_redirects)
    assert rc == 2
    assert f"{app.url}/loop: too many redirects ({max_redirects})" in err
    assert "kind: network" in err


def test_redirect_to_file_url_is_refused(app):
    rc, _, err = fetch(app.url + "/to-file")
    assert rc == 2
    assert "redirected to a URL scheme that is not allowed" in err


@pytest.mark.parametrize("status,reason", [(404, "Not Found"), (500, "Internal Server Error"),
                                           (503, "Service Unavailable"), (403, "Forbidden")])
def test_http_errors_name_status_and_url(app, status, reason):
    rc, _, err = fetch(f"{app.url}/status/{status}")
    assert rc == 2
    assert f"envcheck: error: {app.url}/status/{status}: HTTP {status} {reason}" in err
    assert "kind: network" in err


def test_oversized_body_with_content_length(app):
    rc, _, err = fetch(app.url + "/big", "--max-bytes", "1048576")
    assert rc == 2
    assert "response larger than the limit of 1048576 bytes" in err
    rc, out, err = fetch(app.url + "/big", "--max-bytes", str(4 << 20))
    assert rc == 0, err
    assert out["body_size"] == 2 << 20


def test_size_cap_holds_on_decompressed_bytes(app):
    rc, _, err = fetch(app.url + "/bomb", "--max-bytes", "1048576")
    assert rc == 2
    assert "response larger than the limit of 1048576 bytes" in err


def test_oversized_chunked_body(raw):
    rc, _, err = fetch(raw.url + "/chunked-big", "--max-bytes", "1048576")
    assert rc == 2
    assert "response larger than the limit of 1048576 bytes" in err


def test_total_timeout_on_silent_server(raw):
    started = time.monotonic()
    rc, _, err = fetch(raw.url + "/slow-headers", "--timeout-ms", "500")
    assert rc == 2
    assert f"{raw.url}/slow-headers: timed out after 500 ms" in err
    assert "kind: timeout" in err
    assert time.monotonic() - started < 2.5  # gave up at its limit, not the server's 3 s


def test_total_timeout_on_slow_body(raw):
    rc, _, err = fetch(raw.url + "/slow-body", "--timeout-ms", "1000")
    assert rc == 2
    assert "timed out after 1 s (received 10 bytes)" in err
    assert "kind: timeout" in err


def test_connect_timeout():
    # A listener with a full accept queue: the kernel drops further SYNs, so connect() hangs.
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    try:
        for _ in range(3):
            filler = socket.socket()
            filler.setblocking(False)
            try:
                filler.connect(("127.0.0.1", port))
            except BlockingIOError:
                pass
            fillers.append(filler)
        time.sleep(0.2)
        rc, _, err = fetch(f"http://127.0.0.1:{port}/x", "--connect-timeout-ms", "300")
        assert rc == 2
        assert "could not connect: timed out after 300 ms" in err
        assert "kind: timeout" in err
    finally:
        for s in fillers + [listener]:
            s.close()


def test_truncated_body(raw):
    rc, _, err = fetch(raw.url + "/truncated")
    assert rc == 2
    assert "truncated response: the connection closed before the whole body arrived" in err


def test_empty_reply(raw):
    rc, _, err = fetch(raw.url + "/nothing")
    assert rc == 2
    assert "the server closed the connection without sending a response" in err


def test_bad_content_encoding(raw):
    rc, _, err = fetch(raw.url + "/bad-gzip")
    assert rc == 2
    assert "cannot decode the compressed response" in err


def test_connection_refused():
    port = free_port()
    rc, _, err = fetch(f"http://127.0.0.1:{port}/env.yml")
    assert rc == 2
    assert f"http://127.0.0.1:{port}/env.yml: connection refused" in err


def test_cannot_resolve_host():
    # In a network namespace of its own the resolver is unreachable, so the lookup fails here
    # without a packet leaving the machine.
    unshare = shutil.which("unshare")
    if unshare is None or subprocess.run([unshare, "-rn", "true"]).returncode != 0:
        pytest.skip("needs unshare -rn to isolate the DNS lookup")
    done = subprocess.run([unshare, "-rn", TOOL, "http://envcheck-no-such-host.invalid/env.yml"],
                          capture_output=True, text=True, timeout=60, env=clean_env())
    assert done.returncode == 2
    assert "cannot resolve host 'envcheck-no-such-host.invalid'" in done.stderr


def test_unsupported_and_malformed_urls(tmp_path):
    rc, _, err = fetch("ftp://127.0.0.1/env.yml")
    assert rc == 2
    assert "unsupported URL scheme" in err
    rc, _, err = fetch("ftp://127.0.0.1/env.yml", "--read-input")
    assert rc == 2
    assert "unsupported URL scheme" in err and "kind: usage" in err
    rc, _, err = fetch("http://[::1/env.yml")
    assert rc == 2
    assert "malformed URL" in err


def test_file_urls(tmp_path):
    env = tmp_path / "env file.yml"
    env.write_text(ENV_YML)
    rc, out, err = fetch("file://" + str(env).replace(" ", "%20"))
    assert rc == 0, err
    assert out["body"] == ENV_YML
    rc, _, err = fetch("file://" + str(tmp_path / "missing.yml"))
    assert rc == 2
    assert "cannot read the file" in err and "kind: io" in err
    rc, _, err = fetch("file://" + str(tmp_path))
    assert rc == 2
    assert "is a directory, not a file" in err


def test_read_input_takes_paths_and_urls(app, tmp_path):
    env = tmp_path / "environment.yml"
    env.write_text(ENV_YML)
    rc, out, err = fetch(str(env), "--read-input")
    assert rc == 0, err
    assert out["body"] == ENV_YML
    rc, out, err = fetch(app.url + "/env.yml", "--read-input")
    assert rc == 0, err
    assert out["body"] == ENV_YML
    rc, _, err = fetch(app.url + "/status/404", "--read-input")
    assert rc == 2 and "HTTP 404 Not Found" in err
    rc, _, err = fetch(str(tmp_path / "missing.yml"), "--read-input")
    assert rc == 2 and "kind: io" in err


# === TLS ===================================================================================

def test_tls_self_signed_is_refused_without_its_ca(tls):
    rc, _, err = fetch(tls.url + "/env.yml")
    assert rc == 2
    assert f"{tls.url}/env.yml: TLS certificate verify failed" in err
    assert "hint: use --ca-bundle FILE if the server uses a private CA" in err


def test_tls_accepted_with_its_ca(tls, pki):
    rc, out, err = fetch(tls.url + "/env.yml", "--ca-bundle", str(pki / "test-ca.pem"))
    assert rc == 0, err
    assert out["body"] == ENV_YML


def test_tls_refused_with_another_ca(tls, pki):
    rc, _, err = fetch(tls.url + "/env.yml", "--ca-bundle", str(pki / "other-ca.pem"))
    assert rc == 2
    assert "TLS certificate verify failed" in err


def test_tls_refused_on_host_name_mismatch(tls_wrong_name, pki):
    rc, _, err = fetch(tls_wrong_name.url + "/env.yml", "--ca-bundle", str(pki / "test-ca.pem"))
    assert rc == 2
    assert "TLS certificate verify failed" in err


def test_tls_missing_ca_bundle(tls, tmp_path):
    rc, _, err = fetch(tls.url + "/env.yml", "--ca-bundle", str(tmp_path / "absent.pem"))
    assert rc == 2
    assert f"cannot use the CA bundle '{tmp_path / 'absent.pem'}'" in err


def test_tls_against_plain_http_server(app):
    rc, _, err = fetch(app.url.replace("http://", "https://") + "/env.yml")
    assert rc == 2
    assert "TLS handshake failed: not TLS" in err


def test_tls_against_silent_plain_server(raw):
    # A plain server that waits for a request line the TLS client never sends: said to be no
    # TLS, within the connect timeout, not "timed out" after the total one.
    started = time.monotonic()
    rc, _, err = fetch(raw.url.replace("http://", "https://") + "/x", "--connect-timeout-ms", "1000")
    assert rc == 2
    assert "not TLS" in err, err
    assert time.monotonic() - started < 5


def test_https_never_redirects_to_http(tls, pki, app):
    # An https server whose answer is a redirect to plain http.
    tls.state["redirect_to"] = app.url + "/env.yml"
    before = len(app.requests_for("/env.yml"))
    rc, _, err = fetch(tls.url + "/downgrade", "--ca-bundle", str(pki / "test-ca.pem"))
    assert rc == 2
    assert "never downgrades from TLS" in err
    assert len(app.requests_for("/env.yml")) == before  # the http URL was never asked for
    # https -> https is still followed.
    rc, payload, err = fetch(tls.url + "/redirect", "--ca-bundle", str(pki / "test-ca.pem"))
    assert rc == 0, err


def test_low_speed_limit_ends_a_stalled_transfer(raw):
    started = time.monotonic()
    rc, _, err = fetch(raw.url + "/slow-body", "--low-speed-time-s", "1", "--timeout-ms", "60000")
    assert rc == 2
    assert "slower than 1024 bytes/s for 1 s" in err, err
    assert time.monotonic() - started < 2.9  # before the server's 3 s, far before 60 s


# === proxies ===============================================================================

@pytest.mark.parametrize("variable", ["ALL_PROXY", "all_proxy", "http_proxy"])
def test_http_through_proxy_variables(proxy, variable):
    url = "http://mirror.envcheck.test/env.yml"  # never resolved: the proxy answers for it
    rc, out, err = fetch(url, env=clean_env(**{variable: proxy.url}))
    assert rc == 0, err
    assert out["body"] == f"via proxy: GET {url}\n"


def test_uppercase_http_proxy_is_ignored_for_http(app, proxy):
    # libcurl ignores HTTP_PROXY for http:// (httpoxy); the request goes direct.
    rc, out, err = fetch(app.url + "/env.yml", env=clean_env(HTTP_PROXY=proxy.url))
    assert rc == 0, err
    assert out["body"] == ENV_YML


@pytest.mark.parametrize("variable", ["HTTPS_PROXY", "https_proxy", "ALL_PROXY"])
def test_https_through_proxy_tunnel(tls, pki, proxy, variable):
    before = len(proxy.seen)
    rc, out, err = fetch(tls.url + "/env.yml", "--ca-bundle", str(pki / "test-ca.pem"),
                         env=clean_env(**{variable: proxy.url}))
    assert rc == 0, err
    assert out["body"] == ENV_YML
    assert ("CONNECT", f"localhost:{tls.server_address[1]}") in proxy.seen[before:]


def test_no_proxy_bypasses_proxy(app):
    dead_proxy = f"http://127.0.0.1:{free_port()}"
    rc, out, err = fetch(app.url + "/env.yml",
                         env=clean_env(ALL_PROXY=dead_proxy, NO_PROXY="127.0.0.1"))
    assert rc == 0, err
    assert out["body"] == ENV_YML
    rc, _, err = fetch(app.url + "/env.yml", env=clean_env(ALL_PROXY=dead_proxy))
    assert rc == 2
    assert "connection refused" in err


# === the cache =============================================================================

def cache_files(directory):
    return sorted(p.name for p in pathlib.Path(directory).iterdir())


def test_cache_downloads_then_revalidates(app, tmp_path):
    cache = tmp_path / "cache"
    rc, out, err = fetch(app.url + "/env.yml", "--cache-dir", str(cache))
    assert rc == 0, err
    assert out["source"] == "downloaded"
    assert out["body"] == ENV_YML
    names = cache_files(cache)
    assert len(names) == 3 and {n.rsplit(".", 1)[1] for n in names} == {"body", "json", "lock"}
    sidecar = json.loads(next(cache.glob("*.json")).read_text())
    assert sidecar["url"] == app.url + "/env.yml"
    assert sidecar["etag"] == '"v1"'
    assert sidecar["last_modified"] == LAST_MODIFIED
    assert sidecar["size"] == len(ENV_YML)
    assert isinstance(sidecar["fetched_at"], int)

    rc, out, err = fetch(app.url + "/env.yml", "--cache-dir", str(cache))
    assert rc == 0, err
    assert out["source"] == "revalidated"
    assert out["body"] == ENV_YML
    last = app.requests_for("/env.yml")[-1]
    assert last["If-None-Match"] == '"v1"'
    assert last["If-Modified-Since"] == LAST_MODIFIED


def test_cache_revalidates_with_last_modified_alone(app, tmp_path):
    cache = str(tmp_path / "cache")
    assert fetch(app.url + "/lastmod-only", "--cache-dir", cache)[1]["source"] == "downloaded"
    rc, out, err = fetch(app.url + "/lastmod-only", "--cache-dir", cache)
    assert rc == 0, err
    assert out["source"] == "revalidated"
    assert out["body"] == "dated body\n"


def test_cache_replaces_changed_content(app, tmp_path):
    cache = str(tmp_path / "cache")
    app.state["version"] = 1
    assert fetch(app.url + "/versioned", "--cache-dir", cache)[1]["body"] == "revision 1\n"
    app.state["version"] = 2
    rc, out, err = fetch(app.url + "/versioned", "--cache-dir", cache)
    assert rc == 0, err
    assert out["source"] == "downloaded"
    assert out["body"] == "revision 2\n"
    assert out["etag"] == '"r2"'


def test_offline_answers_from_cache_without_asking(app, tmp_path):
    cache = str(tmp_path / "cache")
    assert fetch(app.url + "/env.yml", "--cache-dir", cache)[0] == 0
    asked = len(app.requests_for("/env.yml"))
    rc, out, err = fetch(app.url + "/env.yml", "--cache-dir", cache, "--offline")
    assert rc == 0, err
    assert out["source"] == "offline"
    assert out["body"] == ENV_YML
    assert len(app.requests_for("/env.yml")) == asked


def test_offline_says_when_it_cannot(app, tmp_path):
    cache = tmp_path / "cache"
    rc, _, err = fetch(app.url + "/env.yml", "--cache-dir", str(cache), "--offline")
    assert rc == 2
    assert f"offline, and the cache in {cache} holds no copy of this URL" in err
    assert "hint: run once without --offline to fill the cache" in err


def test_network_failure_hint_names_the_cached_copy(tmp_path):
    # A server that answers once, then fails: the second fetch reports the failure and points
    # at the cached copy instead of using it silently.
    class FlakyHandler(AppHandler):
        def do_GET(self):
            self.server.calls += 1
            if self.server.calls == 1:
                return self.send_body(b"first\n", 200, [("ETag", '"f1"')])
            return self.send_body(b"down\n", 503)

    server = AppServer()
    server.RequestHandlerClass = FlakyHandler
    server.calls = 0
    serve(server)
    try:
        cache = str(tmp_path / "cache")
        assert fetch(server.url + "/flaky", "--cache-dir", cache)[0] == 0
        rc, _, err = fetch(server.url + "/flaky", "--cache-dir", cache)
        assert rc == 2
        assert "HTTP 503 Service Unavailable" in err
        assert "a cached copy from" in err and "--offline uses it" in err
        rc, out, err = fetch(server.url + "/flaky", "--cache-dir", cache, "--offline")
        assert rc == 0 and out["body"] == "first\n"
    finally:
        server.shutdown()
        server.server_close()


def test_cache_streams_a_download_to_disk(raw, tmp_path):
    # A body without Content-Length goes to the cache file as it arrives and is read back once:
    # the peak is about one body. Held in memory while it arrived, the doubling buffer would
    # reach one and a half bodies (the old buffer and the new one) before the copy to disk.
    # Measured against a 1 MiB download by the same tool, so that a sanitizer build's larger
    # footprint cancels out.
    mib = 128
    cache = str(tmp_path / "cache")
    rc, small, err = fetch(raw.url + "/chunked-mib/1", "--cache-dir", cache, "--summary")
    assert rc == 0, err
    rc, out, err = fetch(raw.url + f"/chunked-mib/{mib}", "--cache-dir", cache, "--summary")
    assert rc == 0, err
    assert out["source"] == "downloaded"
    assert out["body_size"] == mib << 20
    assert out["body_sha256"] == hashlib.sha256(b"z" * (mib << 20)).hexdigest()
    grown_kib = out["peak_rss_kib"] - small["peak_rss_kib"]
    assert grown_kib < (mib + 24) * 1024, f"{grown_kib} KiB for a {mib} MiB body"
    bodies = sorted(pathlib.Path(cache).glob("*.body"), key=lambda p: p.stat().st_size)
    assert [p.stat().st_size for p in bodies] == [1 << 20, mib << 20]
    assert all(oct(p.stat().st_mode & 0o777) == "0o600" for p in bodies)


def test_failed_download_leaves_the_cached_copy_and_no_temporary_file(tmp_path):
    # The second answer is an error page, then a truncated body: neither replaces the first.
    class ChangingHandler(AppHandler):
        def do_GET(self):
            self.server.calls += 1
            if self.server.calls == 1:
                return self.send_body(b"good\n", 200, [("ETag", '"g1"')])
            if self.server.calls == 2:
                return self.send_body(b"<html>error page</html>\n", 500)
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"partial")
            self.close_connection = True

    server = AppServer()
    server.RequestHandlerClass = ChangingHandler
    server.calls = 0
    serve(server)
    try:
        cache = tmp_path / "cache"
        assert fetch(server.url + "/changing", "--cache-dir", str(cache))[0] == 0
        rc, _, err = fetch(server.url + "/changing", "--cache-dir", str(cache))
        assert rc == 2 and "HTTP 500" in err
        rc, _, err = fetch(server.url + "/changing", "--cache-dir", str(cache))
        assert rc == 2 and "truncated response" in err
        rc, out, err = fetch(server.url + "/changing", "--cache-dir", str(cache), "--offline")
        assert rc == 0, err
        assert out["body"] == "good\n"
        assert {p.suffix for p in cache.iterdir()} == {".body", ".json", ".lock"}
    finally:
        server.shutdown()
        server.server_close()


def test_a_full_disk_is_named_as_the_cache_s_failure(app, tmp_path):
    # A full file system needs root to arrange (a small tmpfs); RLIMIT_FSIZE makes writes past
    # 4 KiB fail with EFBIG the way a full disk's fail with ENOSPC.
    cache = str(tmp_path / "cache")
    limited = ("import resource, subprocess, sys\n"
               "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
               "import signal; signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
               "sys.exit(subprocess.run(sys.argv[1:], restore_signals=False).returncode)\n")
    done = subprocess.run([sys.executable, "-c", limited, TOOL, app.url + "/big",
                           "--cache-dir", cache], capture_output=True, text=True, timeout=60,
                          env=clean_env())
    assert done.returncode == 2, done.stderr
    assert "kind: io" in done.stderr
    assert "cannot write the cache: File too large" in done.stderr
    assert not list(pathlib.Path(cache).glob("*.body"))


def test_damaged_cache_entries_are_refetched(app, tmp_path):
    cache = tmp_path / "cache"
    assert fetch(app.url + "/env.yml", "--cache-dir", str(cache))[0] == 0
    body = next(cache.glob("*.body"))
    body.write_text("torn")  # as if a writer died between body and sidecar
    rc, out, err = fetch(app.url + "/env.yml", "--cache-dir", str(cache), "--offline")
    assert rc == 2 and "holds no copy" in err
    rc, out, err = fetch(app.url + "/env.yml", "--cache-dir", str(cache))
    assert rc == 0, err
    assert out["source"] == "downloaded" and out["body"] == ENV_YML
    next(cache.glob("*.json")).write_text("{not json")
    rc, out, err = fetch(app.url + "/env.yml", "--cache-dir", str(cache))
    assert rc == 0, err
    assert out["source"] == "downloaded"


def test_parallel_jobs_share_one_cache(app, tmp_path):
    cache = str(tmp_path / "cache")
    app.state["version"] = 3
    jobs = [subprocess.Popen([TOOL, app.url + "/versioned", "--cache-dir", cache],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=clean_env())
            for _ in range(8)]
    results = [(job.wait(timeout=60), job.stdout.read(), job.stderr.read()) for job in jobs]
    for job in jobs:
        job.stdout.close()
        job.stderr.close()
    assert all(rc == 0 for rc, _, _ in results), results
    bodies = {json.loads(out)["body"] for _, out, _ in results}
    assert bodies == {"revision 3\n"}
    sources = sorted(json.loads(out)["source"] for _, out, _ in results)
    # The lock serialises them: one downloads, the others find its copy and revalidate it.
    assert sources.count("downloaded") == 1 and sources.count("revalidated") == 7
    assert len(cache_files(cache)) == 3  # body, sidecar, lock: no temporary files left behind


def test_default_cache_directory_follows_xdg(app, tmp_path):
    xdg = tmp_path / "xdg"
    rc, out, err = fetch(app.url + "/env.yml", "--default-cache",
                         env=clean_env(XDG_CACHE_HOME=str(xdg), HOME=str(tmp_path / "home")))
    assert rc == 0, err
    assert out["cache_dir"] == str(xdg / "envcheck")
    # A relative XDG_CACHE_HOME is ignored, as the XDG spec says.
    rc, out, err = fetch(app.url + "/env.yml", "--default-cache",
                         env=clean_env(XDG_CACHE_HOME="relative", HOME=str(tmp_path / "home")))
    assert rc == 0, err
    assert out["cache_dir"] == str(tmp_path / "home" / ".cache" / "envcheck")
