"""Records a session against upstreams nobody here wrote, then replays it offline, 20 times.

The upstreams, started here on 127.0.0.1 ephemeral ports: an aiohttp (PyPI) server with a
JSON endpoint that sets a cookie and a finite event stream (retry:, a comment, ids, uneven
delays) that it ends with RST; nginx (Debian nginx-light) over TLS serving a file, reached
through a proxyBaseUrl mapping; a `websockets` (PyPI) server that sends progress messages
and closes with a code. Each run:

1. `mockbackend --proxy aiohttp --mappings (nginx and websocket mappings) --record DIR`;
   a client session with a bearer token, a session header and a cookie; SIGTERM writes DIR.
2. `mockbackend --mappings DIR` with no upstream: the same session sees the same REST
   answers, the same (id, event, data, retry) sequence ending with a reset, the same
   WebSocket messages and close: 0 differences.
3. The recording holds no secret sent or set; its REST mappings validate against
   WireMock's own schema (Tests/Conformance); the recording server's HAR export parses
   with haralyzer (PyPI) and validates against the HAR 1.2 schema (Tests/Conformance).
4. With "preserveChunking": true (admin API) the replayed stream is byte for byte the
   recorded one.

Prints "record and replay: N passed, M failed" and exits non-zero on a failure.

Usage: python record_replay.py PATH_TO_MOCKBACKEND_BINARY
"""

import asyncio
import glob
import io
import json
import os
import signal
import socket
import struct
import sys
import tarfile
import time

import jsonschema
import referencing
import requests
import websockets
from aiohttp import web
from haralyzer import HarParser
from websockets.sync.client import connect as websocket_connect

sys.path.insert(0, os.path.dirname(__file__))
from proxy_upstreams import ThreadedUpstream, nginx_over_tls_in, start_mock  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "RealClients"))
from harness import check, summarize  # noqa: E402

TOKEN = "rec-bearer-5e1f0c9a7d3b"
SESSION = "rec-session-84c2a6e0b1f7"
COOKIE = "rec-cookie-3d9b7f1e5a2c"
UPSTREAM_COOKIE = "rec-upstream-cookie-c6a0e4b8d2f1"
CONFORMANCE = os.path.join(os.path.dirname(__file__), "..", "Conformance")
RUNS = 20


class AiohttpUpstream(ThreadedUpstream):
    """/me: JSON with a Set-Cookie; /job/events: a finite event stream ended with RST."""

    def _serve(self):
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        app = web.Application()
        app.router.add_get("/me", self.me)
        app.router.add_get("/job/events", self.events)
        runner = web.AppRunner(app)
        loop.run_until_complete(runner.setup())
        loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port).start())
        self.ready.set()
        loop.run_forever()

    async def me(self, request):
        response = web.json_response({"user": {"id": 7, "name": "Ada"}, "roles": ["reader"]})
        response.headers["Set-Cookie"] = f"sid={UPSTREAM_COOKIE}; Path=/; HttpOnly"
        return response

    async def events(self, request):
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        await response.write(b"retry: 2500\n: upstream comment\n\n")
        for number, (delay, data) in enumerate([(0.03, "queued"), (0.12, "10%"), (0.02, "55%\nhalf"),
                                                (0.20, "90%"), (0.01, "done")], start=1):
            await asyncio.sleep(delay)
            await response.write(f"id: {number}\nevent: progress\ndata: {data.replace(chr(10), chr(10) + 'data: ')}\n\n"
                                 .encode())
        await asyncio.sleep(0.05)
        # RST: linger 0, then drop the connection.
        sock = request.transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        request.transport.abort()
        return response


class ProgressUpstream(ThreadedUpstream):
    """A `websockets` server: /progress sends three messages with pauses, then closes 4001."""

    def _serve(self):
        async def progress(socket):
            for delay, message in [(0.02, '{"type":"progress","pct":10}'), (0.08, b"\x00\x01\x02"),
                                   (0.03, '{"type":"progress","pct":100}')]:
                await asyncio.sleep(delay)
                await socket.send(message)
            await socket.close(4001, "job finished")

        async def main():
            async with websockets.serve(progress, "127.0.0.1", self.port):
                self.ready.set()
                await asyncio.Future()

        asyncio.run(main())


SECRETS = {"Authorization": f"Bearer {TOKEN}", "X-Session": SESSION, "Cookie": f"sid={COOKIE}; theme=dark"}


def raw_stream(base, path):
    """The body bytes of GET path, read to the end, and how the connection ended."""
    host, port = base.split("//")[1].split(":")
    with socket.create_connection((host, int(port)), timeout=10) as connection:
        head = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in SECRETS.items())
        connection.sendall((head + "\r\n").encode())
        received = b""
        ending = "complete"
        while not received.endswith(b"\r\n0\r\n\r\n"):
            try:
                chunk = connection.recv(65536)
            except ConnectionResetError:
                ending = "reset"
                break
            if not chunk:
                ending = "fin"
                break
            received += chunk
    _, _, body = received.partition(b"\r\n\r\n")
    return dechunk(body), ending


def dechunk(body):
    output = b""
    while body:
        size_line, separator, rest = body.partition(b"\r\n")
        if not separator:
            break
        size = int(size_line.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        output += rest[:size]
        body = rest[size + 2:]
    return output


def sse_sequence(body):
    """What a client parser sees: (id, event, data) per event and each retry (WHATWG §9.2.6)."""
    sequence, data, event, last_id = [], [], None, None
    for line in body.decode().replace("\r\n", "\n").split("\n"):
        if line == "":
            if data:
                sequence.append(("event", last_id, event or "message", "\n".join(data)))
            data, event = [], None
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id":
            last_id = value
        elif name == "retry" and value.isdigit():
            sequence.append(("retry", int(value)))
    return sequence


def websocket_session(base, path):
    url = base.replace("http://", "ws://") + path
    seen = []
    with websocket_connect(url, open_timeout=10) as connection:
        try:
            while True:
                seen.append(connection.recv(timeout=10))
        except websockets.ConnectionClosed as closed:
            seen.append(("close", closed.rcvd.code if closed.rcvd else None, closed.rcvd.reason if closed.rcvd else None))
    return seen


def session(base):
    """One client session; returns everything it observed."""
    me = requests.get(base + "/me", headers=SECRETS, timeout=10)
    hello = requests.get(base + "/files/hello.txt", headers=SECRETS, timeout=10)
    body, ending = raw_stream(base, "/job/events")
    return {
        "me": (me.status_code, me.json(), me.headers.get("Content-Type")),
        "hello": (hello.status_code, hello.content),
        "events": (sse_sequence(body), ending),
        "socket": websocket_session(base, "/ws/progress"),
    }


def proxy_mappings(directory, nginx_port, socket_port):
    os.makedirs(directory)
    with open(os.path.join(directory, "upstreams.json"), "w") as file:
        json.dump({"mappings": [
            {"priority": 1, "request": {"urlPathPattern": "/files/.*"},
             "response": {"proxyBaseUrl": f"https://127.0.0.1:{nginx_port}", "proxyUrlPrefixToRemove": "/files"}},
            {"priority": 1, "request": {"urlPathPattern": "/ws/.*"},
             "response": {"proxyBaseUrl": f"http://127.0.0.1:{socket_port}", "proxyUrlPrefixToRemove": "/ws"}},
        ]}, file)


def schema_registry():
    resources = []
    for path in glob.glob(os.path.join(CONFORMANCE, "har-schema", "*.json")):
        with open(path) as file:
            schema = json.load(file)
        resources.append((schema["$id"], referencing.Resource.from_contents(
            schema, default_specification=referencing.jsonschema.DRAFT6)))
    return referencing.Registry().with_resources(resources)


def check_conformance(record_dir, har):
    with open(os.path.join(CONFORMANCE, "wiremock-stub-mapping-or-mappings.json")) as file:
        wiremock = json.load(file)
    rest = []
    for path in sorted(glob.glob(os.path.join(record_dir, "*.json"))):
        with open(path) as file:
            mapping = json.load(file)
        if "sse" not in mapping["response"] and "webSocket" not in mapping["response"]:
            rest.append(mapping)
    failures = []
    for mapping in rest:
        try:
            jsonschema.validate(mapping, wiremock)
        except jsonschema.ValidationError as error:
            failures.append(f"{mapping.get('name')}: {error.message}")
    check("the REST mappings written validate against WireMock's schema", rest and not failures,
          failures[:3] or "no REST mapping")
    entries = HarParser(har).har_data["entries"]
    check("the HAR export parses with haralyzer", len(entries) >= 4, len(entries))
    registry = schema_registry()
    validator = jsonschema.Draft6Validator({"$ref": "har.json#"}, registry=registry)
    errors = [error.message for error in validator.iter_errors(har)]
    check("the HAR export validates against the HAR 1.2 schema", not errors, errors[:3])
    stream = [entry for entry in entries if entry["request"]["url"].endswith("/job/events")]
    check("the HAR has the event stream's events as its body text",
          stream and "event: progress" in stream[0]["response"]["content"].get("text", ""), stream[:1])


def check_redaction(record_dir, har_text):
    texts = []
    for path in glob.glob(os.path.join(record_dir, "*.json")):
        with open(path) as file:
            texts.append(file.read())
    found = [secret for secret in (TOKEN, SESSION, COOKIE, UPSTREAM_COOKIE) if any(secret in text for text in texts)]
    check("the recording holds none of the secrets sent or set", not found, found)
    leaked = [secret for secret in (TOKEN, SESSION, COOKIE, UPSTREAM_COOKIE) if secret in har_text]
    check("the HAR export holds none of them either", not leaked, leaked)


def preserved_chunking(binary, upstream_port):
    server, base, _ = start_mock(binary, "--proxy", f"http://127.0.0.1:{upstream_port}")
    try:
        requests.post(base + "/__admin/recordings/start", json={"preserveChunking": True}, timeout=10)
        recorded, _ = raw_stream(base, "/job/events")
        stopped = requests.post(base + "/__admin/recordings/stop", timeout=10).json()
    finally:
        server.terminate()
        server.wait(timeout=10)
    offline, offline_base, _ = start_mock(binary)
    try:
        imported = requests.post(offline_base + "/__admin/mappings/import", json=stopped, timeout=10)
        replayed, ending = raw_stream(offline_base, "/job/events")
        check("preserveChunking: the replayed stream is byte for byte the recorded one",
              imported.status_code == 200 and replayed == recorded and ending == "reset",
              f"{imported.status_code} {ending} {recorded[:80]!r} vs {replayed[:80]!r}")
    finally:
        offline.terminate()
        offline.wait(timeout=10)


def round_trip(binary, directory, run, upstream, nginx_port, socket_port, ca):
    maps = os.path.join(directory, f"proxy-maps-{run}")
    record_dir = os.path.join(directory, f"recording-{run}")
    proxy_mappings(maps, nginx_port, socket_port)
    server, base, lines = start_mock(
        binary, "--proxy", f"http://127.0.0.1:{upstream.port}", "--proxy-ca", ca, "--mappings", maps,
        "--proxy-token", "header:X-Session", "--record", record_dir)
    try:
        recorded = session(base)
        har_response = requests.get(base + "/__admin/requests?format=har", timeout=10)
        archive = requests.get(base + "/__admin/recordings/mappings.tar", timeout=10)
    finally:
        server.send_signal(signal.SIGTERM)
        code = server.wait(timeout=15)
    written = sorted(os.listdir(record_dir)) if os.path.isdir(record_dir) else []
    if run == 1:
        check("SIGTERM writes the recording and exits 0", code == 0 and len(written) == 4, (code, written))
        check_conformance(record_dir, har_response.json())
        check_redaction(record_dir, har_response.text)
        with tarfile.open(fileobj=io.BytesIO(archive.content)) as tar:
            members = [member for member in tar.getmembers() if member.isfile()]
            loaded = [json.load(tar.extractfile(member)) for member in members]
        check("the dashboard's tar download holds the recording's mappings so far",
              archive.headers.get("Content-Type") == "application/x-tar" and len(members) == 4
              and all(member.name.startswith("mappings/") for member in members)
              and sorted(mapping["name"] for mapping in loaded) == sorted(
                  json.load(open(os.path.join(record_dir, name)))["name"] for name in written),
              [member.name for member in members])
    offline, offline_base, _ = start_mock(binary, "--mappings", record_dir)
    try:
        replayed = session(offline_base)
    finally:
        offline.terminate()
        offline.wait(timeout=10)
    differences = [key for key in recorded if recorded[key] != replayed[key]]
    if run == 1:
        check("the recorded session saw what the upstreams sent",
              recorded["events"][1] == "reset" and len(recorded["events"][0]) == 6
              and recorded["socket"][-1] == ("close", 4001, "job finished"), recorded)
    return differences, (recorded, replayed)


def main():
    binary = sys.argv[1]
    with nginx_over_tls_in("mockbackend-record-") as (directory, nginx_port, _):
        upstream = AiohttpUpstream()
        progress = ProgressUpstream()
        ca = os.path.join(directory, "ca.pem")
        differing_runs = []
        started = time.monotonic()
        for run in range(1, RUNS + 1):
            try:
                differences, observed = round_trip(binary, directory, run, upstream, nginx_port, progress.port, ca)
            except Exception as error:  # a run that breaks counts as a difference
                differences, observed = [repr(error)], None
            if differences:
                differing_runs.append((run, differences, observed))
        check(f"round trip, {RUNS} runs: the replay equals the recording, 0 differences", not differing_runs,
              differing_runs[:1])
        print(f"  ({RUNS} round trips in {time.monotonic() - started:.1f} s)")
        preserved_chunking(binary, upstream.port)
    return summarize("record and replay")


if __name__ == "__main__":
    sys.exit(main())
