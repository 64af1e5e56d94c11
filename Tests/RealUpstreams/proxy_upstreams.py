"""Checks proxy mode against upstreams nobody here wrote: nginx (Debian nginx-light) serving
files over TLS from a throwaway CA, and an aiohttp (PyPI) SSE server, both started here on
127.0.0.1 ephemeral ports; the client side is requests-sse (PyPI).

1. nginx over HTTPS: certificates verified with --proxy-ca (a file passes byte for byte, a
   20 MB download passes whole), refused without it (502 UPSTREAM_UNAVAILABLE), and
   passed unverified with --proxy-insecure; nginx's own 403 passes.
2. aiohttp SSE: ids, retry:, comments and slow events relayed as written; a dropped
   stream resumes with the client's Last-Event-ID sent upstream; a push is injected
   without an id; a bad token gets the upstream's 403; one expire call ends the token's
   stream with the terminal event and answers its next request with that 403 without
   asking upstream; no journal shows the token.
3. A chunked long-poll from aiohttp arrives piece by piece, not at its end; an upload goes
   up as it is sent, from requests over HTTP/1.1 and from httpx (PyPI) over h2c.
4. A WebSocket to a `websockets` (PyPI) echo server through the proxy, from a `websockets`
   client: text and binary messages echo both ways, the subprotocol is negotiated
   end to end, and the upstream's close code reaches the client.
Prints "proxy upstreams: N passed, M failed" and exits non-zero on a failure.

Usage: python proxy_upstreams.py PATH_TO_MOCKBACKEND_BINARY
"""

import asyncio
import contextlib
import hashlib
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import timedelta

import httpx
import requests
import websockets
from aiohttp import web
from requests_sse import EventSource
from websockets.sync.client import connect as websocket_connect

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "RealClients"))
from harness import check, get_json, post, summarize, wait_until  # noqa: E402

TOKEN = "real-upstream-token-9f8e7d6c5b4a"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# MARK: upstreams

def make_certificates(directory):
    """A throwaway CA and a certificate it signs for 127.0.0.1 and localhost."""
    def openssl(*arguments):
        subprocess.run(["openssl", *arguments], check=True, capture_output=True, cwd=directory)
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
            "-subj", "/CN=mockbackend test CA", "-keyout", "ca.key", "-out", "ca.pem",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
    openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=localhost",
            "-keyout", "server.key", "-out", "server.csr")
    with open(os.path.join(directory, "san.ext"), "w") as ext:
        ext.write("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
            "-days", "2", "-extfile", "san.ext", "-out", "server.pem")


def start_nginx(directory):
    port = free_port()
    root = os.path.join(directory, "www")
    os.makedirs(root)
    with open(os.path.join(root, "hello.txt"), "w") as file:
        file.write("hello from nginx\n")
    with open(os.path.join(root, "big.bin"), "wb") as file:
        block = os.urandom(1024 * 1024)
        for _ in range(20):
            file.write(block)
    config = os.path.join(directory, "nginx.conf")
    with open(config, "w") as file:
        file.write(f"""
daemon off;
worker_processes 1;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    default_type application/octet-stream;
    server {{
        listen 127.0.0.1:{port} ssl;
        ssl_certificate {directory}/server.pem;
        ssl_certificate_key {directory}/server.key;
        root {root};
        location = /forbidden {{ default_type application/json; return 403 '{{"error":"nginx says no"}}'; }}
    }}
}}
""")
    process = subprocess.Popen(["nginx", "-c", config, "-p", directory], stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    if not wait_until(lambda: port_open(port), timeout=10):
        raise RuntimeError("nginx did not start: " + process.stderr.read().decode(errors="replace")[:500])
    return process, port, root


def port_open(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


class ThreadedUpstream:
    """A server in a thread of its own on a free port: a subclass's `_serve` runs it and
    sets `ready` once it listens; the constructor returns then."""

    def __init__(self):
        self.port = free_port()
        self.ready = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()
        self.ready.wait(10)

    def _serve(self):
        raise NotImplementedError


@contextlib.contextmanager
def nginx_over_tls_in(prefix):
    """A scratch directory with a throwaway CA and nginx serving over TLS from it:
    (directory, nginx's port, its document root); both gone afterwards."""
    directory = tempfile.mkdtemp(prefix=prefix)
    # nginx's workers run as another user: they must read what is served.
    os.chmod(directory, 0o755)
    nginx = None
    try:
        make_certificates(directory)
        nginx, port, root = start_nginx(directory)
        yield directory, port, root
    finally:
        if nginx:
            nginx.terminate()
            nginx.wait(timeout=5)
        shutil.rmtree(directory, ignore_errors=True)


class SSEUpstream(ThreadedUpstream):
    """An aiohttp SSE server in a thread of its own: /events writes `retry:`, a comment,
    then events with ids every 50 ms (from the Last-Event-ID it is sent), 403 for a bad
    token; /longpoll writes three chunks 300 ms apart."""

    def __init__(self):
        self.last_event_ids = []
        self.tokens = []
        # What /upload read: each piece's length, as it came.
        self.upload_pieces = []
        self.loop = None
        super().__init__()

    def _serve(self):
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        app.router.add_get("/events", self.events)
        app.router.add_get("/longpoll", self.longpoll)
        app.router.add_get("/me", self.me)
        app.router.add_post("/upload", self.upload)
        runner = web.AppRunner(app)
        self.loop.run_until_complete(runner.setup())
        self.loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port).start())
        self.ready.set()
        self.loop.run_forever()

    def token_of(self, request):
        authorization = request.headers.get("Authorization", "")
        token = authorization[7:] if authorization.startswith("Bearer ") else None
        self.tokens.append(token)
        return token

    async def me(self, request):
        if self.token_of(request) == "bad":
            return web.json_response({"error": "SESSION_EXPIRATION", "upstream": "aiohttp"}, status=403)
        return web.json_response({"user": "someone"})

    async def events(self, request):
        if self.token_of(request) == "bad":
            return web.json_response({"error": "SESSION_EXPIRATION", "upstream": "aiohttp"}, status=403)
        last = request.headers.get("Last-Event-ID")
        self.last_event_ids.append(last)
        start = int(last) + 1 if last and last.isdigit() else 1
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        await response.write(b"retry: 1500\n: upstream comment\n\n")
        try:
            for number in range(start, start + 1000):
                await asyncio.sleep(0.05)
                await response.write(f"id: {number}\nevent: tick\ndata: {{\"n\":{number}}}\n\n".encode())
        except ConnectionError:
            pass  # The client (the proxy) went: as it should when its own client leaves.
        return response

    async def upload(self, request):
        total = hashlib.sha256()
        async for piece in request.content.iter_any():
            self.upload_pieces.append(len(piece))
            total.update(piece)
        return web.json_response({"sha256": total.hexdigest(), "chunked": request.headers.get("Transfer-Encoding")})

    async def longpoll(self, request):
        response = web.StreamResponse(headers={"Content-Type": "text/plain"})
        response.enable_chunked_encoding()
        await response.prepare(request)
        for piece in ("one ", "two ", "three"):
            await response.write(piece.encode())
            await asyncio.sleep(0.3)
        await response.write_eof()
        return response


class EchoUpstream(ThreadedUpstream):
    """A `websockets` server in a thread: /echo echoes every message; a message "bye"
    closes with 4000; the subprotocol "chat.v1" is accepted."""

    def _serve(self):
        async def echo(socket):
            async for message in socket:
                if message == "bye":
                    await socket.close(4000, "upstream says bye")
                    return
                await socket.send(message)

        async def main():
            async with websockets.serve(echo, "127.0.0.1", self.port, subprotocols=["chat.v1"]):
                self.ready.set()
                await asyncio.Future()

        asyncio.run(main())


def websocket_through_proxy(binary, upstream):
    server, base, _ = start_mock(binary, "--proxy", f"http://127.0.0.1:{upstream.port}")
    try:
        url = base.replace("http://", "ws://") + "/echo"
        with websocket_connect(url, subprotocols=["chat.v1"], open_timeout=10) as socket:
            check("websockets: the subprotocol is negotiated through the proxy", socket.subprotocol == "chat.v1",
                  socket.subprotocol)
            socket.send("hello")
            check("websockets: a text message echoes through the proxy", socket.recv(timeout=10) == "hello")
            socket.send(b"\x00\x01binary")
            check("websockets: a binary message echoes through the proxy",
                  socket.recv(timeout=10) == b"\x00\x01binary")
            big = "x" * 200_000
            socket.send(big)
            check("websockets: a 200 kB message echoes whole", socket.recv(timeout=10) == big)
            socket.send("bye")
            try:
                socket.recv(timeout=10)
                closed = None
            except websockets.exceptions.ConnectionClosed as closing:
                closed = closing.rcvd
            check("websockets: the upstream's close code reaches the client",
                  closed is not None and closed.code == 4000 and closed.reason == "upstream says bye", closed)
        streams = get_json(base, "/__admin/streams/connections")
        check("websockets: the proxied socket is journaled as a websocket of proxy/echo",
              any(r["stream"] == "proxy/echo" and r["protocol"] == "websocket" for r in streams), streams)
    finally:
        server.terminate()
        server.wait(timeout=5)


def start_mock(binary, *arguments):
    server = subprocess.Popen([binary, "--port", "0", "--log-level", "info", *arguments],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = server.stdout.readline()
        if not line:
            break
        lines.append(line)
        match = re.search(r"mockbackend listening on http://127\.0\.0\.1:(\d+)", line)
        if match:
            # Keep reading the log so the server never waits on a full pipe.
            threading.Thread(target=lambda: lines.extend(server.stdout), daemon=True).start()
            return server, f"http://127.0.0.1:{match.group(1)}", lines
    server.kill()
    raise RuntimeError("mockbackend did not start: " + "".join(lines)[-500:])


def fetch(url, headers=None):
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


# MARK: scenarios

def nginx_over_tls(binary, directory, nginx_port, root):
    upstream = f"https://127.0.0.1:{nginx_port}"
    server, base, _ = start_mock(binary, "--proxy", upstream, "--proxy-ca", os.path.join(directory, "ca.pem"))
    try:
        status, headers, body = fetch(base + "/hello.txt")
        check("nginx: a file passes through a verified TLS upstream", status == 200 and body == b"hello from nginx\n",
              f"{status} {body[:200]!r}")
        check("nginx: the answer says it came through the proxy", "mockbackend" in headers.get("Via", ""), headers)
        with open(os.path.join(root, "big.bin"), "rb") as file:
            expected = hashlib.sha256(file.read()).hexdigest()
        # Ten times: bytes read before the client's side is ready must never be overtaken
        # by later ones (a race that showed about once in five downloads).
        outcomes = []
        for _ in range(10):
            status, headers, body = fetch(base + "/big.bin")
            outcomes.append((status, len(body), hashlib.sha256(body).hexdigest() == expected))
        check("nginx: a 20 MB download passes whole, byte for byte, ten times out of ten",
              all(status == 200 and same for status, _, same in outcomes), outcomes)
        status, _, body = fetch(base + "/forbidden")
        check("nginx: its own 403 passes", status == 403 and b"nginx says no" in body, f"{status} {body!r}")
        journal = get_json(base, "/__admin/requests")
        proxied = [entry for entry in journal if entry.get("path") == "/hello.txt"]
        check("nginx: the journal marks the request proxied with the upstream's status",
              proxied and proxied[0].get("proxied") is True and proxied[0].get("upstreamStatus") == 200, proxied)
    finally:
        server.terminate()
        server.wait(timeout=5)
    server, base, _ = start_mock(binary, "--proxy", upstream)
    try:
        status, _, body = fetch(base + "/hello.txt")
        check("nginx: a certificate from an unknown CA is refused with 502",
              status == 502 and b"UPSTREAM_UNAVAILABLE" in body, f"{status} {body[:300]!r}")
    finally:
        server.terminate()
        server.wait(timeout=5)
    # No --proxy: a WireMock mapping proxies one path, to a host --proxy-allow names.
    server, base, _ = start_mock(binary, "--proxy-allow", "127.0.0.1", "--proxy-ca", os.path.join(directory, "ca.pem"))
    try:
        mapping = {"request": {"urlPathPattern": "/files/.*"},
                   "response": {"proxyBaseUrl": upstream, "proxyUrlPrefixToRemove": "/files"}}
        post(base, "/__admin/mappings", mapping)
        status, _, body = fetch(base + "/files/hello.txt")
        check("nginx: a proxyBaseUrl mapping proxies its path, prefix removed",
              status == 200 and body == b"hello from nginx\n", f"{status} {body[:200]!r}")
        status, _, _ = fetch(base + "/health")
        check("nginx: other paths stay the mock's own without --proxy", status == 200)
    finally:
        server.terminate()
        server.wait(timeout=5)
    server, base, lines = start_mock(binary, "--proxy", upstream, "--proxy-insecure")
    try:
        status, _, body = fetch(base + "/hello.txt")
        check("nginx: --proxy-insecure passes without verifying", status == 200 and body == b"hello from nginx\n",
              f"{status} {body[:200]!r}")
        check("nginx: --proxy-insecure is said at start", any("proxy-insecure" in line for line in lines), lines)
    finally:
        server.terminate()
        server.wait(timeout=5)


def aiohttp_sse(binary, upstream):
    server, base, lines = start_mock(binary, "--proxy", f"http://127.0.0.1:{upstream.port}")
    try:
        received = []
        with EventSource(base + "/events", timeout=10, reconnection_time=timedelta(milliseconds=100),
                         headers={"Authorization": f"Bearer {TOKEN}"}) as source:
            for event in source:
                received.append((event.last_event_id, event.type, event.data))
                if len(received) == 3:
                    post(base, "/__admin/streams/proxy/events/events", {"event": "injected", "data": "from the mock"})
                if len(received) == 5:
                    post(base, "/__admin/streams/proxy/events/disconnect", {})
                if len(received) == 8:
                    break
        ids = [event_id for event_id, kind, _ in received if kind == "tick"]
        injected = [entry for entry in received if entry[1] == "injected"]
        check("aiohttp: events arrive with the upstream's ids", ids[:3] == ["1", "2", "3"], received)
        check("aiohttp: a push is injected between upstream events", len(injected) == 1, received)
        check("aiohttp: a resume sends the client's Last-Event-ID upstream, never an injected one",
              len(upstream.last_event_ids) >= 2 and upstream.last_event_ids[1] in ids,
              f"{upstream.last_event_ids} {received}")
        check("aiohttp: every upstream event arrives once, in order, across the resume",
              ids == [str(number) for number in range(1, len(ids) + 1)], ids)
        connections = get_json(base, "/__admin/streams/connections")
        proxied = [record for record in connections if record["stream"] == "proxy/events"]
        check("aiohttp: the stream journal records the upstream ids",
              proxied and proxied[0].get("proxied") is True and proxied[0].get("upstreamIds", [])[:2] == ["1", "2"],
              proxied[:1])
        # Quiet stretches: the raw bytes keep the upstream's retry and comment.
        raw = urllib.request.urlopen(urllib.request.Request(base + "/events"), timeout=10)
        first = raw.read1(4096) if hasattr(raw, "read1") else raw.read(64)
        raw.close()
        check("aiohttp: retry: and comments pass as written", b"retry: 1500\n: upstream comment\n\n" in first, first)
        # A bad token: the upstream's own 403, kept for the overlay.
        status, _, body = fetch(base + "/me", {"Authorization": "Bearer bad"})
        check("aiohttp: a bad token gets the upstream's 403", status == 403 and b"aiohttp" in body, f"{status} {body!r}")
        # One expire call: the open stream gets the terminal event and ends; the next
        # request gets the 403 without going upstream.
        ended = threading.Event()
        terminal = []

        def listen():
            with EventSource(base + "/events", timeout=10, max_connect_retry=0,
                             headers={"Authorization": f"Bearer {TOKEN}"}) as source:
                try:
                    for event in source:
                        if event.type == "SESSION_EXPIRATION":
                            terminal.append(event.data)
                except Exception:
                    pass
            ended.set()

        threading.Thread(target=listen, daemon=True).start()
        check("aiohttp: the token's stream is open before the expiry",
              wait_until(lambda: any(s["name"] == "proxy/events" and s["subscribers"]
                                     for s in get_json(base, "/__admin/streams"))))
        asked = len(upstream.tokens)
        expired = post(base, f"/__admin/proxy/sessions/{TOKEN}/expire",
                       {"event": {"event": "SESSION_EXPIRATION", "data": {"token": "{{token}}"}}})
        check("aiohttp: the expiry ended the token's open stream", expired["endedStreams"] == 1, expired)
        check("aiohttp: the stream got the terminal event with the token",
              wait_until(lambda: terminal, timeout=5) and TOKEN in terminal[0], terminal)
        status, _, body = fetch(base + "/me", {"Authorization": f"Bearer {TOKEN}"})
        check("aiohttp: the expired token's next request gets the upstream's 403",
              status == 403 and b"aiohttp" in body, f"{status} {body!r}")
        check("aiohttp: nothing of the expired token went upstream",
              upstream.tokens[asked:].count(TOKEN) == 0, upstream.tokens[asked:])
        shown = "".join(fetch(base + path)[2].decode() for path in
                        ["/__admin/requests", "/__admin/streams/connections", "/__admin/proxy/sessions"])
        check("aiohttp: no journal shows the token", TOKEN not in shown, "token found")
        check("aiohttp: no log line shows the token", not any(TOKEN in line for line in lines),
              [line for line in lines if TOKEN in line][:3])
        # A chunked long-poll arrives piece by piece.
        started = time.monotonic()
        response = urllib.request.urlopen(base + "/longpoll", timeout=10)
        first = response.read1(64)
        first_at = time.monotonic() - started
        rest = response.read()
        check("aiohttp: a chunked body is relayed as read, not at its end",
              first.startswith(b"one") and first_at < 0.5 and (first + rest) == b"one two three",
              f"{first!r} after {first_at:.2f}s, then {rest!r}")
        # An upload goes up as it is sent: its first piece is upstream before the rest leaves.
        rest = os.urandom(1 << 20)
        seen_first = []

        def pieces():
            yield b"first piece"
            seen_first.append(wait_until(lambda: sum(upstream.upload_pieces) >= len(b"first piece"), timeout=5))
            yield rest

        answer = requests.post(base + "/upload", data=pieces(), timeout=20)
        expected = hashlib.sha256(b"first piece" + rest).hexdigest()
        check("aiohttp: a chunked upload's first piece is upstream before the client sends the rest",
              seen_first == [True], upstream.upload_pieces[:3])
        check("aiohttp: the upload arrives whole and chunked",
              answer.status_code == 200 and answer.json() == {"sha256": expected, "chunked": "chunked"},
              f"{answer.status_code} {answer.text[:200]}")
        # The same over HTTP/2 with prior knowledge (httpx): DATA frames go up as they come.
        upstream.upload_pieces.clear()
        seen_first.clear()
        with httpx.Client(http1=False, http2=True, timeout=20) as client:
            answer = client.post(base + "/upload", content=pieces())
        check("httpx over h2c: an upload's first piece is upstream before the client sends the rest",
              seen_first == [True] and answer.http_version == "HTTP/2", (upstream.upload_pieces[:3], answer.http_version))
        check("httpx over h2c: the upload arrives whole, re-chunked upstream",
              answer.status_code == 200 and answer.json() == {"sha256": expected, "chunked": "chunked"},
              f"{answer.status_code} {answer.text[:200]}")
    finally:
        server.terminate()
        server.wait(timeout=5)


def slow_upload_within_the_timeout(binary, upstream):
    """--proxy-timeout 1 and a client that pauses 2.5 s mid-upload: the pause is the
    client's, so the upload arrives whole and the upstream's answer comes back."""
    server, base, _ = start_mock(binary, "--proxy", f"http://127.0.0.1:{upstream.port}", "--proxy-timeout", "1")
    try:
        rest = os.urandom(64 * 1024)

        def pieces():
            yield b"first piece"
            time.sleep(2.5)
            yield rest

        answer = requests.post(base + "/upload", data=pieces(), timeout=20)
        expected = hashlib.sha256(b"first piece" + rest).hexdigest()
        check("aiohttp: a client pausing mid-upload past --proxy-timeout still gets the upstream's answer",
              answer.status_code == 200 and answer.json().get("sha256") == expected,
              f"{answer.status_code} {answer.text[:200]}")
    finally:
        server.terminate()
        server.wait(timeout=5)


def main():
    binary = sys.argv[1]
    with nginx_over_tls_in("mockbackend-upstreams-") as (directory, nginx_port, root):
        upstream = SSEUpstream()
        echo = EchoUpstream()
        for scenario, arguments in ((nginx_over_tls, (binary, directory, nginx_port, root)),
                                    (aiohttp_sse, (binary, upstream)),
                                    (slow_upload_within_the_timeout, (binary, upstream)),
                                    (websocket_through_proxy, (binary, echo))):
            try:
                scenario(*arguments)
            except Exception as error:
                check(scenario.__name__, False, repr(error))
    return summarize("proxy upstreams")


if __name__ == "__main__":
    sys.exit(main())
