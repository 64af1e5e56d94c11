"""The proxy benchmark's driver (bench/proxy/run.sh starts it): one upstream mockbackend,
one mockbackend in proxy mode in front of it, and clients that read the same streams
directly from the upstream and through the proxy, in turns, run by run.

Phases, each run (RUNS, medians reported with every run's figure):
  latency  STREAMS streams, one channel each; RATE events/s in total, each event pushed
           to one channel (round robin); per event, the time from the push to the
           client's read of it. Direct and proxied take turns; the added delay is the
           proxied p50/p99 minus the direct one in the same run.
  fanout   STREAMS proxied streams on one channel; FANOUT_EVENTS pushes; CPU per delivery
           of the upstream (a local broadcast delivery) and of the proxy (a relayed one),
           measured over the same events.
  memory   RSS per open proxied stream (the proxy's RSS with the streams open, less idle).
Then once: a 100 MB download through a proxy in front of Python's http.server, the
proxy's RSS sampled every 50 ms; and a proxied stream left quiet for QUIET_SECONDS
(heartbeats only), which must still be open at the end.

Standard library only. Writes one JSON document to --out.
"""

import argparse
import asyncio
import json
import os
import re
import socket
import sys
import threading
import time

def _load_sse_driver():
    """bench/sse/driver.py, for the /proc readings and the percentile it already has."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sse", "driver.py")
    spec = importlib.util.spec_from_file_location("sse_driver", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_sse = _load_sse_driver()
rss_kib, cpu_seconds, percentile = _sse.rss_kib, _sse.cpu_seconds, _sse.percentile


def log(message):
    print(f"[proxy-bench] {message}", file=sys.stderr, flush=True)


class Admin:
    """Pushes on one kept-alive connection (the upstream's admin API)."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def push(self, channel, data):
        body = json.dumps({"data": data}).encode()
        request = (f"POST /__admin/streams/channels/{channel}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        sent = time.monotonic_ns()
        self.sock.sendall(request)
        self._read_response()
        return sent

    def _read_response(self):
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(65536)
        head, rest = self.buffer.split(b"\r\n\r\n", 1)
        length = int(re.search(rb"Content-Length: (\d+)", head, re.I).group(1))
        while len(rest) < length:
            rest += self.sock.recv(65536)
        self.buffer = rest[length:]
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(head.decode(errors="replace"))

    def get_json(self, path):
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self.sock.recv(65536)
        head, rest = self.buffer.split(b"\r\n\r\n", 1)
        length = int(re.search(rb"Content-Length: (\d+)", head, re.I).group(1))
        while len(rest) < length:
            rest += self.sock.recv(65536)
        self.buffer = rest[length:]
        return json.loads(rest[:length])


class Readers:
    """STREAMS event-stream connections read on an asyncio loop in a thread of its own;
    each records when it read `data: <marker>` for a marker it has not seen."""

    def __init__(self, port, paths):
        self.port = port
        self.paths = paths
        self.seen = {}
        self.lock = threading.Lock()
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.writers = []
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        if not self.ready.wait(120):
            raise RuntimeError("streams did not open")

    def _run(self):
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._open_all())
        self.ready.set()
        self.loop.run_forever()

    async def _open_all(self):
        self.tasks = []
        for path in self.paths:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            if not head.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(head.decode(errors="replace"))
            self.writers.append(writer)
            self.tasks.append(self.loop.create_task(self._read(reader)))

    async def _read(self, reader):
        pattern = re.compile(rb"data: (m[0-9_]+)")
        pending = b""
        while True:
            chunk = await reader.read(65536)
            if not chunk:
                return
            now = time.monotonic_ns()
            pending = pending[-32:] + chunk
            for match in pattern.finditer(pending):
                marker = match.group(1).decode()
                with self.lock:
                    self.seen.setdefault(marker, []).append(now)

    def times(self, marker):
        with self.lock:
            return list(self.seen.get(marker, []))

    def close(self):
        async def shut():
            for task in self.tasks:
                task.cancel()
            for writer in self.writers:
                writer.close()
            await asyncio.gather(*self.tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shut(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def wait_subscribers(admin, channels, expected, timeout=60):
    deadline = time.monotonic() + timeout
    wanted = set(channels)
    while time.monotonic() < deadline:
        streams = admin.get_json("/__admin/streams")
        counts = {s["name"][len("channels/"):]: len(s["subscribers"]) for s in streams
                  if s["name"].startswith("channels/")}
        if all(counts.get(name, 0) >= expected for name in wanted):
            return
        time.sleep(0.1)
    raise RuntimeError("upstream subscribers did not all arrive")


def latency_phase(args, admin, port, run, label):
    channels = [f"lat{run}{label[0]}{i}" for i in range(args.streams)]
    readers = Readers(port, [f"/sse/channels/{name}" for name in channels])
    try:
        wait_subscribers(admin, channels, 1)
        delays = []
        interval = 1.0 / args.rate
        start = time.monotonic()
        for index in range(args.events):
            marker = f"m{run}_{0 if label == 'direct' else 1}_{index}"
            sent = admin.push(channels[index % len(channels)], marker)
            deadline = time.monotonic() + 10
            while not readers.times(marker):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{label}: event {marker} never arrived")
                time.sleep(0.0002)
            delays.append((readers.times(marker)[0] - sent) / 1e6)
            pause = start + (index + 1) * interval - time.monotonic()
            if pause > 0:
                time.sleep(pause)
        return {"p50_ms": round(percentile(delays, 50), 3), "p99_ms": round(percentile(delays, 99), 3),
                "events": len(delays)}
    finally:
        readers.close()


def fanout_and_memory_phase(args, admin, proxy_pid, upstream_pid, proxy_port, run):
    channel = f"fan{run}"
    time.sleep(0.5)
    idle = rss_kib(proxy_pid)
    readers = Readers(proxy_port, [f"/sse/channels/{channel}"] * args.streams)
    try:
        wait_subscribers(admin, [channel], args.streams)
        time.sleep(1.0)
        with_streams = rss_kib(proxy_pid)
        proxy0, upstream0 = cpu_seconds(proxy_pid), cpu_seconds(upstream_pid)
        for index in range(args.fanout_events):
            marker = f"m{run}_2_{index}"
            admin.push(channel, marker)
            deadline = time.monotonic() + 30
            while len(readers.times(marker)) < args.streams:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"fan-out event {marker} reached {len(readers.times(marker))} streams")
                time.sleep(0.001)
            time.sleep(0.05)
        proxy1, upstream1 = cpu_seconds(proxy_pid), cpu_seconds(upstream_pid)
        deliveries = args.fanout_events * args.streams
        return {
            "proxy_cpu_us_per_relayed_delivery": round((proxy1 - proxy0) * 1e6 / deliveries, 2),
            "upstream_cpu_us_per_local_delivery": round((upstream1 - upstream0) * 1e6 / deliveries, 2),
            "rss_idle_kib": idle, "rss_with_streams_kib": with_streams,
            "kib_per_proxied_stream": round((with_streams - idle) / args.streams, 2),
        }
    finally:
        readers.close()


def download_phase(args, proxy_pid, proxy_port):
    samples = []
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            samples.append(rss_kib(proxy_pid))
            time.sleep(0.05)

    idle = rss_kib(proxy_pid)
    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    sock = socket.create_connection(("127.0.0.1", proxy_port))
    sock.sendall(b"GET /big.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
    received = 0
    started = time.monotonic()
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            break
        received += len(chunk)
    seconds = time.monotonic() - started
    sock.close()
    stop.set()
    thread.join()
    return {"bytes": received, "seconds": round(seconds, 2), "rss_idle_kib": idle,
            "rss_max_kib": max(samples + [idle]), "rss_growth_kib": max(samples + [idle]) - idle}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--upstream-port", type=int, required=True)
    parser.add_argument("--upstream-pid", type=int, required=True)
    parser.add_argument("--proxy-port", type=int, required=True)
    parser.add_argument("--proxy-pid", type=int, required=True)
    parser.add_argument("--download-port", type=int, required=True)
    parser.add_argument("--download-pid", type=int, required=True)
    parser.add_argument("--streams", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=100)
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--fanout-events", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quiet-seconds", type=float, default=600)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    admin = Admin(args.upstream_port)
    # The quiet stream: opened first, checked last.
    quiet = socket.create_connection(("127.0.0.1", args.proxy_port))
    quiet.sendall(b"GET /sse/channels/quiet HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    quiet_opened = time.monotonic()
    quiet_bytes = bytearray()

    def read_quiet():
        while True:
            try:
                chunk = quiet.recv(4096)
            except OSError:
                return
            if not chunk:
                return
            quiet_bytes.extend(chunk)

    quiet_thread = threading.Thread(target=read_quiet, daemon=True)
    quiet_thread.start()

    runs = []
    for run in range(args.runs):
        order = ["direct", "proxied"] if run % 2 == 0 else ["proxied", "direct"]
        result = {}
        for label in order:
            port = args.upstream_port if label == "direct" else args.proxy_port
            result[label] = latency_phase(args, admin, port, run, label)
            log(f"run {run + 1}: {label}: p50 {result[label]['p50_ms']} ms, p99 {result[label]['p99_ms']} ms")
        result["fanout"] = fanout_and_memory_phase(
            args, admin, args.proxy_pid, args.upstream_pid, args.proxy_port, run)
        log(f"run {run + 1}: fan-out: {result['fanout']}")
        runs.append(result)
    download = download_phase(args, args.download_pid, args.download_port)
    log(f"download: {download}")
    remaining = args.quiet_seconds - (time.monotonic() - quiet_opened)
    if remaining > 0:
        log(f"waiting {round(remaining)} s more for the quiet stream")
        time.sleep(remaining)
    alive = quiet_thread.is_alive()
    heartbeats = bytes(quiet_bytes).count(b": keep-alive")
    quiet.close()
    out = {"runs": runs, "download": download,
           "quiet": {"seconds": round(time.monotonic() - quiet_opened), "open": alive, "heartbeats": heartbeats}}
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
