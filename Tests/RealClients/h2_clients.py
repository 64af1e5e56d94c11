"""Checks mockbackend's HTTP/2 with clients nobody here wrote: PyPI `h2` (frames asserted
one by one) and `httpx[http2]`, over h2c (prior knowledge, the plain listener) and h2 (ALPN,
the TLS listener).

1. h2c and h2 answer; ALPN picks h2; `Upgrade: h2c` is served over HTTP/1.1.
2. An event stream is DATA frames, one per event as it comes, END_STREAM at its end.
3. Twenty streams on one connection each get an event at once; a client's RST_STREAM ends
   only its stream; the journal names the protocol and the stream.
4. Flow control: a client that opens no window gets no more than its window, then the rest
   when it opens it.
5. Stopping the server sends GOAWAY (NO_ERROR) and ends the streams cleanly.
6. Faults with their HTTP/2 meaning: a drop is RST_STREAM CANCEL (INTERNAL_ERROR with a
   reset) on its stream alone, `rst_stream` sends its code, `goaway` its code and last
   stream id, `max_concurrent_streams` lowers what the next connection announces,
   `window_stall` holds DATA with the window open, `content_length_on_stream` makes h2
   reject the stream.
7. What RFC 9113 says to refuse, refused with GOAWAY or RST_STREAM and memory bounded: a
   bad preface, an oversized frame, DATA on a closed stream, an HPACK header list past the
   limit, a SETTINGS flood, rapid reset (CVE-2023-44487), a CONTINUATION flood (CVE-2024-27316)
   — and the server answers the next client after each.
Prints "h2 clients: N passed, M failed" and exits non-zero on a failure.

Usage: python h2_clients.py PATH_TO_MOCKBACKEND_BINARY
"""

import json
import re
import signal
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings
import hpack
import httpx

from harness import check, get_json, post, summarize, wait_until

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
# RFC 9113 §7 error codes.
NO_ERROR, PROTOCOL_ERROR, INTERNAL_ERROR, STREAM_CLOSED, FRAME_SIZE_ERROR, CANCEL, ENHANCE_YOUR_CALM = 0, 1, 2, 5, 6, 8, 11


def start_server(binary, *arguments):
    server = subprocess.Popen(
        [binary, "--port", "0", "--tls-port", "0", "--tls-self-signed", "--log-level", "warning", *arguments],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    plain = tls = None
    deadline = time.monotonic() + 20
    while (plain is None or tls is None) and time.monotonic() < deadline:
        line = server.stdout.readline()
        if match := re.search(r"listening on http://127\.0\.0\.1:(\d+)", line):
            plain = int(match.group(1))
        if match := re.search(r"https://127\.0\.0\.1:(\d+)", line):
            tls = int(match.group(1))
    threading.Thread(target=server.stdout.read, daemon=True).start()
    return server, plain, tls


class Client:
    """One HTTP/2 connection driven by `h2`, events gathered as they come."""

    def __init__(self, port, tls=False, settings=None):
        raw = socket.create_connection(("127.0.0.1", port), timeout=5)
        if tls:
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            context.set_alpn_protocols(["h2", "http/1.1"])
            raw = context.wrap_socket(raw, server_hostname="localhost")
            self.alpn = raw.selected_alpn_protocol()
        self.sock = raw
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.conn.initiate_connection()
        if settings:
            self.conn.update_settings(settings)
        self.flush()
        self.events = []
        self.closed = False

    def flush(self):
        data = self.conn.data_to_send()
        if data:
            self.sock.sendall(data)

    def get(self, path, headers=(), end=True):
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(
            stream, [(":method", "GET"), (":path", path), (":scheme", "http"), (":authority", "127.0.0.1"),
                     *headers], end_stream=end)
        self.flush()
        return stream

    def upload(self, path, size, seconds):
        """POSTs `size` bytes to `path`, sending as flow control lets it, for up to `seconds`.
        Returns the stream and how many bytes went."""
        stream = self.conn.get_next_available_stream_id()
        self.conn.send_headers(stream, [(":method", "POST"), (":path", path), (":scheme", "http"),
                                        (":authority", "127.0.0.1"), ("content-length", str(size))])
        self.flush()
        sent = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.closed:
            room = min(self.conn.local_flow_control_window(stream), self.conn.max_outbound_frame_size, size - sent)
            if room > 0:
                sent += room
                self.conn.send_data(stream, b"x" * room, end_stream=sent == size)
                self.flush()
                continue
            if sent == size and self.of(h2.events.StreamEnded, stream):
                break
            self.pump(0.05)
        return stream, sent

    def pump(self, seconds, until=None, acknowledge=True):
        """Reads for up to `seconds` (or until `until()`), acknowledging data unless told not to."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and not self.closed:
            if until and until():
                return True
            self.sock.settimeout(max(0.01, min(0.1, deadline - time.monotonic())))
            try:
                data = self.sock.recv(65536)
            except (socket.timeout, ssl.SSLWantReadError, TimeoutError):
                continue
            except OSError:
                self.closed = True
                break
            if not data:
                self.closed = True
                break
            for event in self.conn.receive_data(data):
                event.at = time.monotonic()
                self.events.append(event)
                if acknowledge and isinstance(event, h2.events.DataReceived) and event.flow_controlled_length:
                    self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            self.flush()
        return until() if until else False

    def of(self, kind, stream=None):
        return [e for e in self.events if isinstance(e, kind) and (stream is None or e.stream_id == stream)]

    def body(self, stream):
        return b"".join(e.data for e in self.of(h2.events.DataReceived, stream))

    def status(self, stream):
        for event in self.of(h2.events.ResponseReceived, stream):
            return dict(event.headers).get(":status")
        return None

    def raw_frames_until_close(self, timeout):
        """The frames that come until the server closes, read past `h2`, which refuses what
        may follow a GOAWAY (streams up to its last stream id go on, RFC 9113 §6.8)."""
        raw = b""
        self.sock.settimeout(timeout)
        try:
            while chunk := self.sock.recv(65536):
                raw += chunk
        except OSError:
            pass
        return parse_frames(raw)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload


def raw_session(port, *frames, read_for=1.5):
    """Sends the preface, an empty SETTINGS and `frames` on a bare socket; returns what came
    back parsed into (type, flags, stream, payload) frames, and whether the server closed."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    received = b""
    closed = False
    try:
        sock.sendall(PREFACE + frame(4, 0, 0))
        for item in frames:
            try:
                sock.sendall(item)
            except OSError:
                closed = True
                break
        deadline = time.monotonic() + read_for
        while time.monotonic() < deadline:
            sock.settimeout(0.1)
            try:
                data = sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                closed = True
                break
            if not data:
                closed = True
                break
            received += data
    finally:
        sock.close()
    return parse_frames(received), closed


def parse_frames(received):
    frames_back = []
    while len(received) >= 9:
        length = int.from_bytes(received[:3], "big")
        if len(received) < 9 + length:
            break
        frames_back.append((received[3], received[4], int.from_bytes(received[5:9], "big") & 0x7FFFFFFF,
                            received[9:9 + length]))
        received = received[9 + length:]
    return frames_back


def goaway_code(frames_back):
    for kind, _, _, payload in frames_back:
        if kind == 7:
            return int.from_bytes(payload[4:8], "big")
    return None


def headers_block(path):
    """A literal HPACK header block, no indexing (RFC 7541 §6.2.2)."""
    def literal(name, value):
        return bytes([0, len(name)]) + name + bytes([len(value)]) + value
    return (literal(b":method", b"GET") + literal(b":path", path.encode()) + literal(b":scheme", b"http")
            + literal(b":authority", b"x"))


def healthy(plain):
    try:
        with httpx.Client(http2=True, http1=False, timeout=5) as client:
            return client.get(f"http://127.0.0.1:{plain}/health").status_code == 200
    except httpx.HTTPError:
        return False


def main(binary):
    server, plain, tls = start_server(binary)
    base = f"http://127.0.0.1:{plain}"
    try:
        # 1. Both listeners.
        client = Client(plain)
        stream = client.get("/health")
        client.pump(3, until=lambda: client.of(h2.events.StreamEnded, stream))
        check("h2c by prior knowledge answers", client.status(stream) == "200" and client.body(stream) == b'{"status":"ok"}',
              client.events)
        client.close()
        secure = Client(tls, tls=True)
        stream = secure.get("/health")
        secure.pump(3, until=lambda: secure.of(h2.events.StreamEnded, stream))
        check("ALPN picks h2 on the TLS listener", secure.alpn == "h2" and secure.status(stream) == "200", secure.alpn)
        secure.close()
        with httpx.Client(http2=True, verify=False, timeout=5) as plain_client:
            answer = plain_client.get(base + "/health", headers={"Connection": "Upgrade, HTTP2-Settings",
                                                                 "Upgrade": "h2c", "HTTP2-Settings": "AAMAAABkAAQAAP__"})
            check("Upgrade: h2c is served over HTTP/1.1", answer.http_version == "HTTP/1.1" and answer.status_code == 200,
                  answer.http_version)
            tls_answer = plain_client.get(f"https://127.0.0.1:{tls}/health")
            check("httpx negotiates h2 over TLS", tls_answer.http_version == "HTTP/2", tls_answer.http_version)

        # 2. An event stream: DATA per event.
        post(base, "/__admin/mappings", {"request": {"urlPath": "/h2/events"}, "response": {"sse": {"events": [
            {"id": "1", "data": "a"}, {"id": "2", "data": "b", "delayMs": 250}, {"id": "3", "data": "c", "delayMs": 250}]}}})
        client = Client(plain)
        stream = client.get("/h2/events", headers=[("accept", "text/event-stream")])
        client.pump(5, until=lambda: client.of(h2.events.StreamEnded, stream))
        data = client.of(h2.events.DataReceived, stream)
        head = dict(client.of(h2.events.ResponseReceived, stream)[0].headers)
        check("an event stream's head has no content-length",
              head.get("content-type", "").startswith("text/event-stream") and "content-length" not in head, head)
        events = [d for d in data if d.data]
        check("each event is its own DATA frame, as it comes",
              [d.data for d in events] == [b"id: 1\ndata: a\n\n", b"id: 2\ndata: b\n\n", b"id: 3\ndata: c\n\n"]
              and events[1].at - events[0].at > 0.2 and events[2].at - events[1].at > 0.2, [d.data for d in data])
        check("the stream ends with END_STREAM", len(client.of(h2.events.StreamEnded, stream)) == 1)
        client.close()

        # 3. Many streams on one connection; a reset ends only its stream.
        client = Client(plain)
        streams = [client.get("/sse/channels/h2", headers=[("x-client-id", f"c{n}")]) for n in range(20)]
        wait_until(lambda: client.pump(0.05) or False or len(subscribed(base)) == 20, timeout=5)
        started = time.monotonic()
        post(base, "/__admin/streams/channels/h2/events", {"data": "hello"})
        client.pump(3, until=lambda: all(b"hello" in client.body(s) for s in streams))
        got = [s for s in streams if b"hello" in client.body(s)]
        check("20 streams on one connection all get the event within 1 s",
              len(got) == 20 and time.monotonic() - started < 1.5, len(got))
        client.conn.reset_stream(streams[0], error_code=CANCEL)
        client.flush()
        wait_until(lambda: client.pump(0.05) or len(subscribed(base)) == 19, timeout=5)
        post(base, "/__admin/streams/channels/h2/events", {"data": "again"})
        client.pump(3, until=lambda: all(b"again" in client.body(s) for s in streams[1:]))
        check("a client's RST_STREAM ends only its stream",
              len(subscribed(base)) == 19 and all(b"again" in client.body(s) for s in streams[1:])
              and b"again" not in client.body(streams[0]) and not client.closed, len(subscribed(base)))
        client.close()
        journal = get_json(base, "/__admin/requests?limit=50")
        entries = journal["requests"] if isinstance(journal, dict) else journal
        h2_entries = [e for e in entries if e.get("request", e).get("protocol") == "h2c"]
        check("the journal names the protocol and the stream",
              h2_entries and all(isinstance(e.get("request", e).get("streamId"), int) for e in h2_entries),
              entries[:2])
        cancelled = [e for e in h2_entries if e.get("headers", {}).get("x-client-id") == "c0"]
        check("and the RST_STREAM the client sent, with its code",
              cancelled and cancelled[0].get("http2Endings") == [
                  {"frame": "RST_STREAM", "code": CANCEL, "codeName": "CANCEL", "sentBy": "client"}],
              cancelled[:1])

        # 4. Flow control.
        client = Client(plain, settings={h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 100})
        stream = client.get("/openapi.yaml")
        client.pump(1.5, acknowledge=False)
        held = len(client.body(stream))
        check("a stream sends no more than the client's window", 0 < held <= 100, held)
        client.conn.update_settings({h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 1 << 20})
        client.flush()
        client.pump(5, until=lambda: client.of(h2.events.StreamEnded, stream))
        check("and the rest once the window opens", len(client.body(stream)) > 100_000
              and client.of(h2.events.StreamEnded, stream), len(client.body(stream)))
        client.close()

        # Faults with their HTTP/2 meaning, each seen from the client.
        post(base, "/__admin/mappings", {"request": {"urlPath": "/h2/faulted"}, "response": {"sse": {"end": "open",
            "events": [{"id": "1", "data": "one"}, {"id": "2", "data": "two", "delayMs": 100},
                       {"id": "3", "data": "three", "delayMs": 100}]}}})

        def fault(kind, **fields):
            post(base, "/__admin/faults", {"match": {"path": "/h2/faulted"}, "fault": {"kind": kind, **fields}, "times": 1})

        def resets(client, stream):
            return [e for e in client.events if isinstance(e, h2.events.StreamReset) and e.stream_id == stream]

        for kind, fields, code in [("drop_after_events", {"events": 1}, CANCEL),
                                   ("drop_after_events", {"events": 1, "reset": True}, INTERNAL_ERROR),
                                   ("rst_stream", {"code": 7, "afterEvents": 1}, 7)]:
            fault(kind, **fields)
            client = Client(plain)
            faulted = client.get("/h2/faulted")
            other = client.get("/health")
            client.pump(3, until=lambda: resets(client, faulted) and client.of(h2.events.StreamEnded, other))
            check(f"{kind} {fields} over h2: one event, then RST_STREAM {code}; the connection's other stream is whole",
                  client.body(faulted) == b"id: 1\ndata: one\n\n" and [r.error_code for r in resets(client, faulted)] == [code]
                  and client.status(other) == "200" and not client.closed, (client.body(faulted), resets(client, faulted)))
            client.close()
            entry = get_json(base, "/__admin/requests?limit=1&path=/h2/faulted")[0]
            check(f"{kind} {fields}: the journal shows the RST_STREAM {code} the server sent",
                  [(e["frame"], e["code"], e["sentBy"]) for e in entry.get("http2Endings", [])]
                  == [("RST_STREAM", code, "server")], entry.get("http2Endings"))
        fault("goaway", code=ENHANCE_YOUR_CALM, afterEvents=1, lastStreamId=1)
        client = Client(plain)
        faulted = client.get("/h2/faulted")
        frames_back = client.raw_frames_until_close(3)
        goaway = [payload for kind, _, _, payload in frames_back if kind == 7]
        check("goaway over h2: GOAWAY with the code and last stream id asked for, then the connection closes",
              goaway and int.from_bytes(goaway[0][4:8], "big") == ENHANCE_YOUR_CALM
              and int.from_bytes(goaway[0][:4], "big") & 0x7FFFFFFF == 1, frames_back[-2:])
        client.close()
        entry = get_json(base, "/__admin/requests?limit=1&path=/h2/faulted")[0]
        check("goaway: the journal shows it on the stream, with its code and last stream id",
              {"frame": "GOAWAY", "code": ENHANCE_YOUR_CALM, "codeName": "ENHANCE_YOUR_CALM", "sentBy": "server",
               "lastStreamId": 1} in entry.get("http2Endings", []), entry.get("http2Endings"))
        post(base, "/__admin/faults", {"fault": {"kind": "max_concurrent_streams", "n": 2}, "times": 1})
        client = Client(plain)
        client.pump(1, until=lambda: client.of(h2.events.RemoteSettingsChanged))
        announced = client.conn.remote_settings.max_concurrent_streams
        check("max_concurrent_streams: the next connection announces the limit", announced == 2, announced)
        client.close()
        client = Client(plain)
        client.pump(1, until=lambda: client.of(h2.events.RemoteSettingsChanged))
        check("and the one after it the default again (times: 1)", client.conn.remote_settings.max_concurrent_streams == 100)
        client.close()
        fault("window_stall", afterBytes=10)
        client = Client(plain)
        faulted = client.get("/h2/faulted")
        client.pump(1.5)
        held = client.body(faulted)
        window = client.conn.remote_flow_control_window(faulted)
        check("window_stall: after its bytes no DATA comes, though the stream's window is open",
              held == b"id: 1\ndata" and window > 1000 and not resets(client, faulted), (held, window))
        client.close()
        # window_stall on a request body: no WINDOW_UPDATE past its bytes, so the upload
        # stops where the client's window ends; without it the same upload goes through.
        post(base, "/__admin/mappings", {"request": {"method": "POST", "urlPath": "/h2/upload"},
                                         "response": {"status": 200, "body": "got it"}})
        client = Client(plain)
        stream, sent = client.upload("/h2/upload", 200_000, seconds=3)
        check("an upload of 200,000 bytes over h2 goes through as the server opens the window",
              sent == 200_000 and client.status(stream) == "200" and client.body(stream) == b"got it",
              (sent, client.status(stream)))
        client.close()
        post(base, "/__admin/faults", {"match": {"path": "/h2/upload"},
                                       "fault": {"kind": "window_stall", "afterBytes": 1000}, "times": 1})
        client = Client(plain)
        stream, sent = client.upload("/h2/upload", 200_000, seconds=1.5)
        window = client.conn.local_flow_control_window(stream)
        other = client.get("/health")
        client.pump(2, until=lambda: client.of(h2.events.StreamEnded, other))
        check("window_stall on a request body: the window never opens again (65,535 bytes, then nothing), "
              "no answer comes, and the connection's other streams go on",
              sent == 65_535 and window == 0 and client.status(stream) is None and client.status(other) == "200",
              (sent, window, client.status(stream), client.status(other)))
        client.close()
        fault("content_length_on_stream")
        client = Client(plain)
        faulted = client.get("/h2/faulted")
        raw = b""
        client.sock.settimeout(0.2)
        deadline = time.monotonic() + 1.5
        while time.monotonic() < deadline:
            try:
                raw += client.sock.recv(65536)
            except OSError:
                continue
        frames_back = parse_frames(raw)
        heads = [hpack.Decoder().decode(p) for kind, _, number, p in frames_back if kind == 1 and number == faulted]
        head = dict(heads[0]) if heads else {}
        sent = sum(len(p) for kind, _, number, p in frames_back if kind == 0 and number == faulted)
        client.close()
        fault("content_length_on_stream")
        checker = Client(plain)
        checker.get("/h2/faulted")
        try:
            checker.pump(1.5)
            rejected = False
        except h2.exceptions.ProtocolError:
            rejected = True
        checker.close()
        check("content_length_on_stream: the head says content-length 0, DATA follow, and h2 rejects the stream",
              head.get("content-length") == "0" and sent > 0 and rejected, (head, sent, rejected))

        # 6. Refusals, each followed by a healthy answer.
        frames_back, closed = raw_session(plain, frame(0, 0, 0, b"x" * 20000))
        check("an oversized frame: GOAWAY FRAME_SIZE_ERROR", goaway_code(frames_back) == FRAME_SIZE_ERROR and closed,
              frames_back)
        frames_back, closed = raw_session(plain, frame(1, 0x5, 1, headers_block("/health")), frame(0, 1, 1, b"late"))
        check("DATA on a closed stream: STREAM_CLOSED",
              goaway_code(frames_back) == STREAM_CLOSED or any(k == 3 for k, *_ in frames_back), frames_back)
        bomb = headers_block("/health") + b"".join(
            bytes([0, 5]) + b"x-big" + bytes([0x7F, 0x81, 0x7F]) + b"v" * 16384 for _ in range(8))
        pieces = [bomb[i:i + 16384] for i in range(0, len(bomb), 16384)]
        bomb_frames = [frame(1, 0x1, 3, pieces[0])] + [
            frame(9, 0x4 if i == len(pieces) - 1 else 0, 3, piece) for i, piece in enumerate(pieces[1:], 1)]
        frames_back, closed = raw_session(plain, *bomb_frames)
        refused = goaway_code(frames_back) is not None or any(k == 3 for k, *_ in frames_back) or any(
            k == 1 and b"431" in p for k, _, _, p in frames_back)
        check("a header list past the limit (an HPACK bomb) is refused", refused, frames_back[:4])
        frames_back, closed = raw_session(plain, *[frame(4, 0, 0, struct.pack(">HI", 3, 100)) for _ in range(5000)],
                                          read_for=2)
        check("a SETTINGS flood: GOAWAY ENHANCE_YOUR_CALM", goaway_code(frames_back) == ENHANCE_YOUR_CALM,
              goaway_code(frames_back))
        rapid = []
        for number in range(1, 2001, 2):
            rapid.append(frame(1, 0x5, number, headers_block("/health")))
            rapid.append(frame(3, 0, number, struct.pack(">I", CANCEL)))
        frames_back, closed = raw_session(plain, *rapid, read_for=2)
        # nghttp2's stream reset rate limit ends the connection with INTERNAL_ERROR.
        check("rapid reset (CVE-2023-44487): GOAWAY", goaway_code(frames_back) in (INTERNAL_ERROR, ENHANCE_YOUR_CALM),
              goaway_code(frames_back))
        continuation = [frame(1, 0, 1, headers_block("/health"))] + [frame(9, 0, 1, b"\x00\x01a\x01b") for _ in range(100)]
        frames_back, closed = raw_session(plain, *continuation)
        check("a CONTINUATION flood (CVE-2024-27316 class): GOAWAY ENHANCE_YOUR_CALM",
              goaway_code(frames_back) == ENHANCE_YOUR_CALM and closed, frames_back[-2:])
        sock = socket.create_connection(("127.0.0.1", plain), timeout=5)
        sock.sendall(b"PRI * HTTP/2.0\r\n\r\nXX\r\n\r\n")
        sock.settimeout(2)
        try:
            reply = sock.recv(4096)
        except OSError:
            reply = b""
        sock.close()
        check("a bad preface is answered as the HTTP/1.1 it then is, and closed", reply.startswith(b"HTTP/1.1 505") or
              reply.startswith(b"HTTP/1.1 400"), reply[:40])
        check("after all of that the server answers", healthy(plain))
        rss = memory_kib(server.pid)
        check("its memory stays bounded (< 200 MiB resident)", rss is None or rss < 200 * 1024, rss)

        # 5. GOAWAY when the server stops.
        client = Client(plain)
        stream = client.get("/sse/channels/stop")
        wait_until(lambda: client.pump(0.05) or subscribers_of(base, "channels/stop") == 1, timeout=5)
        server.send_signal(signal.SIGTERM)
        frames_back = client.raw_frames_until_close(5)
        ended = any(kind in (0, 1) and flags & 0x1 and number == stream for kind, flags, number, _ in frames_back)
        check("stopping sends GOAWAY NO_ERROR, then ends the stream with END_STREAM",
              goaway_code(frames_back) == NO_ERROR and ended, frames_back[-3:])
        client.close()
    finally:
        if server.poll() is None:
            server.terminate()
        server.wait(timeout=10)
    check("the server exits 0", server.returncode == 0, server.returncode)

    # --http2 off: HTTP/1.1 only.
    server, plain, tls = start_server(binary, "--http2", "off")
    try:
        with httpx.Client(http2=True, verify=False, timeout=5) as client:
            answer = client.get(f"https://127.0.0.1:{tls}/health")
            check("--http2 off: ALPN picks http/1.1", answer.http_version == "HTTP/1.1", answer.http_version)
        frames_back, _ = raw_session(plain)
        check("--http2 off: the preface is not HTTP/2", goaway_code(frames_back) is None)
    finally:
        server.terminate()
        server.wait(timeout=10)
    return summarize("h2 clients")


def subscribed(base):
    for stream in get_json(base, "/__admin/streams"):
        if stream["name"] == "channels/h2":
            return stream["subscribers"]
    return []


def subscribers_of(base, name):
    for stream in get_json(base, "/__admin/streams"):
        if stream["name"] == name:
            return len(stream["subscribers"])
    return 0


def memory_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
