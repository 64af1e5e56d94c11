#!/usr/bin/env python3
"""Drives the SSE benchmark against one running server (bench/sse/run.sh starts it).

    driver.py measure --name NAME --kind mockbackend|hummingbird|floor --pid PID --port PORT \
        --client bench/results/sse/bin/sse_client --out RESULT.json --raw DIR [options]
    driver.py report DIRECTORY [--meta META.json]
        (merges DIRECTORY/mockbackend-*.json, hummingbird-*.json and floor-*.json if any;
        markdown on stdout)
    driver.py report-ws DIRECTORY [--meta META.json]
        (bench/ws/run.sh: merges DIRECTORY/import-sse-*.json and import-ws-*.json, the same
        import job stream read as SSE and as the V1 progress WebSocket; markdown on stdout)

Kinds: mockbackend (channel streams), hummingbird and floor (GET /sse, POST /publish) for
bench/sse/run.sh; import-sse and import-ws for bench/ws/run.sh: every stream is a fresh
import job (a CSV uploaded and paused at once, so it never ends), read at
/api/v2/imports/<jobId>/stream or /ws/progress?jobId=<jobId>, with events pushed by
POST /__admin/streams/imports/<jobId>/events as {"data":{"seq":N}}. WebSocket messages carry
no id, so for import-ws the clients report each message's "seq".

Runs as one process pinned (by run.sh) to the client CPU; the sse_client processes it starts
inherit that pinning. Standard library only. Every wait is bounded; every client process is
told to quit (and killed if it does not) before the driver returns.
"""

import argparse
import glob
import json
import math
import os
import queue
import socket
import statistics
import subprocess
import sys
import threading
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(message):
    print(f"[sse] {message}", file=sys.stderr, flush=True)


# --- /proc ------------------------------------------------------------------------------
def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def cpu_seconds(pid):
    """utime + stime of the whole process (all threads, living and dead), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    # fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def cpu_user_system_seconds(pid):
    """utime and stime of the whole process, apart, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def cpu_busy_seconds(cpu):
    """Busy time of one CPU (user, nice, system, irq, softirq, steal) from /proc/stat."""
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith(f"cpu{cpu} "):
                v = [int(x) for x in line.split()[1:9]]
                return (v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / CLK_TCK
    raise RuntimeError(f"no cpu{cpu} in /proc/stat")


def minor_faults(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[7])  # field 10, minflt


def thread_count(pid):
    return len(os.listdir(f"/proc/{pid}/task"))


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def percentile(values, p):
    """Nearest-rank percentile (p in 0..100)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


# --- a keep-alive HTTP/1.1 client for the publish requests ------------------------------
class HTTPClient:
    def __init__(self, port):
        self.port = port
        self.sock = None
        self.buffer = b""

    def _connect(self):
        self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=120)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def post(self, path, payload):
        """Returns (send time in monotonic ns, status, parsed JSON body)."""
        return self.request("POST", path, json.dumps(payload).encode(), "application/json")

    def request(self, method, path, body, content_type):
        """Returns (send time in monotonic ns, status, parsed JSON body)."""
        if self.sock is None:
            self._connect()
        request = (
            f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        t0 = time.monotonic_ns()
        self.sock.sendall(request)
        while b"\r\n\r\n" not in self.buffer:
            self._recv()
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            length = int(headers["content-length"])
            while len(self.buffer) < length:
                self._recv()
            data, self.buffer = self.buffer[:length], self.buffer[length:]
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            data = b""
            while True:
                while b"\r\n" not in self.buffer:
                    self._recv()
                size_line, self.buffer = self.buffer.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                while len(self.buffer) < size + 2:
                    self._recv()
                data += self.buffer[:size]
                self.buffer = self.buffer[size + 2 :]
                if size == 0:
                    break
        else:
            raise RuntimeError(f"response without framing: {head!r}")
        if headers.get("connection", "").lower() == "close":
            self.close()
        return t0, status, (json.loads(data) if data else None)

    def _recv(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise RuntimeError("publish connection closed by the server")
        self.buffer += chunk

    def close(self):
        if self.sock is not None:
            self.sock.close()
            self.sock = None


# --- client processes -------------------------------------------------------------------
class ClientGroup:
    """Several sse_client processes sharing N streams; their stdout lines arrive on one queue."""

    def __init__(self, binary, port, path, streams, per_process, stderr_path):
        self.lines = queue.Queue()
        self.procs = []
        self.stderr = open(stderr_path, "ab")
        count = max(1, math.ceil(streams / per_process))
        shares = [streams // count + (1 if i < streams % count else 0) for i in range(count)]
        for index, share in enumerate(shares):
            proc = subprocess.Popen(
                [binary, str(port), path, str(share)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                bufsize=0,
            )
            self.procs.append(proc)
            threading.Thread(target=self._pump, args=(index, proc), daemon=True).start()
        self.shares = shares

    def _pump(self, index, proc):
        for raw in proc.stdout:
            self.lines.put((index, raw.decode().split()))
        self.lines.put((index, ["EOF"]))

    def send(self, command, index=None):
        targets = self.procs if index is None else [self.procs[index]]
        for proc in targets:
            proc.stdin.write((command + "\n").encode())
            proc.stdin.flush()

    def next_line(self, deadline):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError
        try:
            return self.lines.get(timeout=remaining)
        except queue.Empty:
            raise TimeoutError from None

    def wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        ready = {}
        while len(ready) < len(self.procs):
            index, words = self.next_line(deadline)
            if words[0] == "READY":
                ready[index] = int(words[1])
            elif words[0] in ("EOF", "CLOSED"):
                raise RuntimeError(f"client {index} failed while connecting ({' '.join(words)})")
        return sum(ready.values())

    def close(self):
        for proc in self.procs:
            try:
                proc.stdin.write(b"Q\n")
                proc.stdin.close()
            except OSError:
                pass
        byes = []
        for proc in self.procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        # Drain what is left (BYE lines).
        while True:
            try:
                _, words = self.lines.get_nowait()
            except queue.Empty:
                break
            if words[0] == "BYE":
                byes.append(words)
        self.stderr.close()
        return byes


# --- measurements -----------------------------------------------------------------------
class Server:
    # The CSV of every import job: never processed (the job is paused at once), but it
    # would take 40 s at the default 50 rows/s if the pause came late.
    IMPORT_CSV = ("name,email\n" + "".join(f"user{i},user{i}@example.com\n" for i in range(2000))).encode()

    def __init__(self, args):
        self.args = args
        self.kind = args.kind
        self.pid = args.pid
        self.http = HTTPClient(args.port)
        self.is_import = self.kind in ("import-sse", "import-ws")
        self.seq = 0

    def new_channel(self, name):
        """The stream a phase uses: a channel name, or for the import kinds a fresh job's id."""
        if not self.is_import:
            return name
        boundary = "bench-boundary-7d4e"
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}.csv\"\r\n"
                f"Content-Type: text/csv\r\n\r\n").encode() + self.IMPORT_CSV + f"\r\n--{boundary}--\r\n".encode()
        _, status, answer = self.http.request("POST", "/api/v2/imports", body,
                                              f"multipart/form-data; boundary={boundary}")
        if status != 202:
            raise RuntimeError(f"import upload answered {status}: {answer}")
        job = answer["jobId"]
        _, status, answer = self.http.post(f"/__admin/imports/{job}/pause", {})
        if status != 200 or answer.get("status") != "paused":
            raise RuntimeError(f"pausing {job} answered {status}: {answer}")
        return job

    def stream_path(self, channel):
        if self.kind == "import-sse":
            return f"/api/v2/imports/{channel}/stream"
        if self.kind == "import-ws":
            return f"/ws/progress?jobId={channel}"
        return f"/sse/channels/{channel}" if self.kind == "mockbackend" else "/sse"

    def publish_path(self, channel):
        if self.is_import:
            return f"/__admin/streams/imports/{channel}/events"
        return f"/__admin/streams/channels/{channel}/events" if self.kind == "mockbackend" else "/publish"

    def next_seq(self):
        self.seq += 1
        return self.seq

    def push_body(self, data, count=1):
        """The JSON of one push; for the import kinds the data is {"seq": N}, N new each time."""
        if self.is_import:
            return {"data": {"seq": self.next_seq()}, "count": count}
        return {"data": data, "count": count}

    def publish(self, channel, data, count=1):
        """Returns (send time, the number the clients report for it: the event id, or for
        import-ws the seq of its data) and, for a flood, the last id."""
        payload = self.push_body(data, count)
        t0, status, body = self.http.post(self.publish_path(channel), payload)
        if status != 200:
            raise RuntimeError(f"publish answered {status}: {body}")
        if self.kind == "import-ws":
            return t0, payload["data"]["seq"]
        return t0, int(body["id"])

    def settle(self, baseline_fds, timeout=20):
        """Waits until the server holds no more descriptors than before the streams opened."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if fd_count(self.pid) <= baseline_fds:
                return True
            time.sleep(0.1)
        return False


def fanout_phase(server, args, streams, phase_index):
    channel = server.new_channel(f"fanout-{streams}-{phase_index}")
    pid = server.pid
    time.sleep(1.0)
    baseline_fds = fd_count(pid)
    rss_idle = rss_kib(pid)
    log(f"{args.name}: {streams} streams: RSS idle {rss_idle} KiB; connecting")
    t_connect = time.monotonic()
    connect_cpu0 = cpu_seconds(pid)
    group = ClientGroup(
        args.client, args.port, server.stream_path(channel), streams, args.per_process,
        os.path.join(args.raw, f"{args.name}-clients-{streams}.stderr"),
    )
    result = {"streams": streams, "client_processes": len(group.procs), "rss_idle_kib": rss_idle}
    try:
        opened = group.wait_ready(timeout=180)
        result["connect_seconds"] = round(time.monotonic() - t_connect, 2)
        result["connect_server_cpu_seconds"] = round(cpu_seconds(pid) - connect_cpu0, 3)
        if opened != streams:
            raise RuntimeError(f"only {opened} of {streams} streams opened")
        time.sleep(args.settle)
        result["rss_streams_kib"] = rss_kib(pid)
        result["rss_per_stream_kib"] = round((result["rss_streams_kib"] - rss_idle) / streams, 2)
        result["threads_with_streams"] = thread_count(pid)
        result["fds_with_streams"] = fd_count(pid)
        log(f"{args.name}: {streams} streams open in {result['connect_seconds']} s; RSS "
            f"{result['rss_streams_kib']} KiB ({result['rss_per_stream_kib']} KiB per stream)")
        if args.kind == "import-ws":
            # Each connection's heartbeat now, so that none falls due while the events go out.
            group.send("K")

        def one_event(serial):
            t0, event_id = server.publish(channel, args.data)
            deadline = time.monotonic() + args.event_timeout
            got = {}
            while len(got) < len(group.procs):
                try:
                    index, words = group.next_line(deadline)
                except TimeoutError:
                    raise RuntimeError(f"event {event_id}: only {len(got)} of {len(group.procs)} "
                                       f"client processes had it on every stream after {args.event_timeout} s")
                if words[0] == "GOT" and int(words[1]) == event_id:
                    got[index] = (int(words[3]), int(words[4]))
                elif words[0] in ("CLOSED", "EOF"):
                    raise RuntimeError(f"client {index}: {' '.join(words)} during event {event_id}")
            first = min(v[0] for v in got.values())
            last = max(v[1] for v in got.values())
            return t0, (first - t0) / 1e6, (last - t0) / 1e6

        for serial in range(args.warmup_events):
            t0, _, _ = one_event(serial)
            time.sleep(max(0.02, args.spacing - (time.monotonic_ns() - t0) / 1e9))
        cpu0 = cpu_seconds(pid)
        split0 = cpu_user_system_seconds(pid)
        busy0 = cpu_busy_seconds(args.server_cpu)
        wall0 = time.monotonic()
        firsts, lasts = [], []
        for serial in range(args.events):
            t0, first_ms, last_ms = one_event(serial)
            firsts.append(first_ms)
            lasts.append(last_ms)
            if serial + 1 < args.events:
                time.sleep(max(0.02, args.spacing - (time.monotonic_ns() - t0) / 1e9))
        cpu1 = cpu_seconds(pid)
        split1 = cpu_user_system_seconds(pid)
        busy1 = cpu_busy_seconds(args.server_cpu)
        wall = time.monotonic() - wall0
        deliveries = args.events * streams
        # CPU time the server's CPU spent on other processes while the events went out.
        result["other_work_on_server_cpu_seconds"] = round(max(0.0, (busy1 - busy0) - (cpu1 - cpu0)), 2)
        result.update({
            "events": args.events,
            "latency_last_ms": [round(v, 3) for v in lasts],
            "latency_first_ms": [round(v, 3) for v in firsts],
            "p50_last_ms": round(percentile(lasts, 50), 3),
            "p99_last_ms": round(percentile(lasts, 99), 3),
            "max_last_ms": round(max(lasts), 3),
            "p50_first_ms": round(percentile(firsts, 50), 3),
            "server_cpu_seconds": round(cpu1 - cpu0, 3),
            # The same CPU time apart: the server's own code (user) and the kernel's on its
            # behalf (system: the socket calls and, on loopback, the reader's TCP receive).
            "server_user_seconds": round(split1[0] - split0[0], 3),
            "server_system_seconds": round(split1[1] - split0[1], 3),
            "publish_phase_seconds": round(wall, 3),
            "cpu_us_per_delivery": round((cpu1 - cpu0) * 1e6 / deliveries, 3),
            "threads_after_events": thread_count(pid),
            "rss_after_events_kib": rss_kib(pid),
        })
        log(f"{args.name}: {streams} streams: last subscriber p50 {result['p50_last_ms']} ms, "
            f"p99 {result['p99_last_ms']} ms; {result['cpu_us_per_delivery']} us server CPU per delivery")
    finally:
        byes = group.close()
    result["client_byes"] = [" ".join(b) for b in byes]
    result["released"] = server.settle(baseline_fds)
    time.sleep(args.settle)
    result["rss_after_disconnect_kib"] = rss_kib(pid)
    result["threads_after_disconnect"] = thread_count(pid)
    log(f"{args.name}: {streams} streams closed; RSS {result['rss_after_disconnect_kib']} KiB "
        f"(idle before {rss_idle} KiB; descriptors released: {result['released']})")
    return result


def wait_done(group, result, expected, timeout, stall):
    """Waits for the client's DONE line; asks for its count (S) every second and gives up
    when the count has not moved for `stall` seconds. Returns the DONE words, or None with
    result["error"] set."""
    deadline = time.monotonic() + timeout
    last_count, last_move = -1, time.monotonic()
    while True:
        try:
            _, words = group.next_line(min(deadline, time.monotonic() + 1))
        except TimeoutError:
            if time.monotonic() >= deadline:
                result["error"] = f"{expected} not received within {timeout} s"
                return None
            group.send("S")
            continue
        if words[0] == "DONE":
            return words
        if words[0] == "STATUS":
            count = int(words[1])
            result["received_before_giving_up"] = count
            if count != last_count:
                last_count, last_move = count, time.monotonic()
            elif time.monotonic() - last_move >= stall:
                result["error"] = (f"{expected}: the stream took {count} events, then nothing for "
                                   f"{stall} s")
                return None
        elif words[0] in ("CLOSED", "EOF"):
            result["error"] = f"stream closed by the server after {words[2] if len(words) > 2 else '?'} events"
            return None


def throughput_round(server, args, round_index):
    channel = server.new_channel(f"throughput-{round_index}")
    pid = server.pid
    baseline_fds = fd_count(pid)
    group = ClientGroup(args.client, args.port, server.stream_path(channel), 1, 1,
                        os.path.join(args.raw, f"{args.name}-throughput.stderr"))
    result = {"round": round_index, "requested": args.tp_events}
    try:
        group.wait_ready(timeout=30)
        time.sleep(0.3)
        group.send("R")
        deadline = time.monotonic() + 10
        while group.next_line(deadline)[1][0] != "OK":
            pass
        cpu0 = cpu_seconds(pid)
        busy0 = cpu_busy_seconds(args.server_cpu)
        faults0 = minor_faults(pid)
        t0, last_id = server.publish(channel, args.data, count=args.tp_events)
        t_response = time.monotonic_ns()
        if args.kind == "import-ws":
            # Every copy of a flood carries the same seq: wait for the count instead.
            group.send(f"N {args.tp_events}")
            expected = f"{args.tp_events} messages"
        else:
            group.send(f"E {last_id}")
            expected = f"last event {last_id}"
        done = wait_done(group, result, expected, args.tp_timeout, args.tp_stall)
        cpu1 = cpu_seconds(pid)
        busy1 = cpu_busy_seconds(args.server_cpu)
        result["other_work_on_server_cpu_seconds"] = round(max(0.0, (busy1 - busy0) - (cpu1 - cpu0)), 2)
        result["minor_faults"] = minor_faults(pid) - faults0
        result["publish_request_ms"] = round((t_response - t0) / 1e6, 1)
        result["rss_after_kib"] = rss_kib(pid)
        if done is not None:
            received, first, last = int(done[2]), int(done[3]), int(done[4])
            result.update({
                "received": received,
                "seconds_first_to_last": round((last - first) / 1e9, 4),
                "seconds_publish_to_last": round((last - t0) / 1e9, 4),
                "events_per_second": round((received - 1) / ((last - first) / 1e9)) if last > first else 0,
                "end_to_end_events_per_second": round(received / ((last - t0) / 1e9)),
                "server_cpu_seconds": round(cpu1 - cpu0, 3),
                "cpu_us_per_event": round((cpu1 - cpu0) * 1e6 / received, 3),
            })
    finally:
        group.close()
    server.settle(baseline_fds)
    return result


def push_round(server, args, round_index):
    """One stream; `push_events` single-event pushes sent back to back on one connection
    (HTTP/1.1 pipelining: all requests written at once, the answers read as they come).
    Measures the stream's rate when every event is its own publish, for protocols that
    the flood does not reach."""
    channel = server.new_channel(f"pushes-{round_index}")
    pid = server.pid
    baseline_fds = fd_count(pid)
    count = args.push_events
    path = server.publish_path(channel)
    requests = []
    for _ in range(count):
        body = json.dumps(server.push_body(args.data)).encode()
        requests.append((f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{args.port}\r\n"
                         f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
    blob = b"".join(requests)
    del requests
    group = ClientGroup(args.client, args.port, server.stream_path(channel), 1, 1,
                        os.path.join(args.raw, f"{args.name}-pushes.stderr"))
    result = {"round": round_index, "requested": count, "request_bytes": len(blob)}
    sock = None
    try:
        group.wait_ready(timeout=30)
        time.sleep(0.3)
        group.send("R")
        deadline = time.monotonic() + 10
        while group.next_line(deadline)[1][0] != "OK":
            pass
        sock = socket.create_connection(("127.0.0.1", args.port), timeout=args.tp_timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sender_error = []

        def send_all():
            try:
                sock.sendall(blob)
            except OSError as error:
                sender_error.append(error)

        cpu0 = cpu_seconds(pid)
        busy0 = cpu_busy_seconds(args.server_cpu)
        t0 = time.monotonic_ns()
        sender = threading.Thread(target=send_all, daemon=True)
        sender.start()
        # Count the answers' status lines; a line split across reads is found through
        # the tail kept from the read before (one byte shorter than the pattern, so no
        # line is counted twice).
        answers = ok = 0
        tail_any = tail_ok = b""
        while answers < count:
            chunk = sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError(f"push connection closed after {answers} of {count} answers")
            data = tail_any + chunk
            answers += data.count(b"HTTP/1.1 ")
            tail_any = data[-8:]
            data = tail_ok + chunk
            ok += data.count(b"HTTP/1.1 200")
            tail_ok = data[-11:]
        t_answers = time.monotonic_ns()
        sender.join(timeout=10)
        if sender_error:
            raise RuntimeError(f"sending the pushes failed: {sender_error[0]}")
        if ok != count:
            raise RuntimeError(f"{count - ok} of {count} pushes were not answered 200")
        group.send(f"N {count}")
        done = wait_done(group, result, f"{count} events", args.tp_timeout, args.tp_stall)
        cpu1 = cpu_seconds(pid)
        busy1 = cpu_busy_seconds(args.server_cpu)
        result["other_work_on_server_cpu_seconds"] = round(max(0.0, (busy1 - busy0) - (cpu1 - cpu0)), 2)
        result["pushes_ms"] = round((t_answers - t0) / 1e6, 1)
        result["pushes_per_second"] = round(count / ((t_answers - t0) / 1e9))
        result["rss_after_kib"] = rss_kib(pid)
        if done is not None:
            received, first, last = int(done[2]), int(done[3]), int(done[4])
            result.update({
                "received": received,
                "seconds_first_to_last": round((last - first) / 1e9, 4),
                "events_per_second": round((received - 1) / ((last - first) / 1e9)) if last > first else 0,
                "end_to_end_events_per_second": round(received / ((last - t0) / 1e9)),
                "server_cpu_seconds": round(cpu1 - cpu0, 3),
                "cpu_us_per_event": round((cpu1 - cpu0) * 1e6 / received, 3),
            })
    finally:
        if sock is not None:
            sock.close()
        group.close()
    server.settle(baseline_fds)
    return result


def measure(args):
    os.makedirs(args.raw, exist_ok=True)
    server = Server(args)
    pid = server.pid
    # The CPU the server is pinned to (the first of its affinity mask).
    args.server_cpu = min(os.sched_getaffinity(pid))
    out = {
        "name": args.name, "kind": args.kind, "data_bytes": len(args.data), "events_per_size": args.events,
        "rss_start_kib": rss_kib(pid), "threads_start": thread_count(pid),
        "sizes": [], "throughput": [], "pushes": [],
    }
    # Warm the server: ten streams, a few events (first-use allocations, lazily loaded code).
    warmup = server.new_channel("warmup")
    group = ClientGroup(args.client, args.port, server.stream_path(warmup), 10, 10,
                        os.path.join(args.raw, f"{args.name}-warmup.stderr"))
    try:
        group.wait_ready(timeout=30)
        for _ in range(5):
            server.publish(warmup, args.data)
            time.sleep(0.05)
    finally:
        group.close()
    for index, streams in enumerate(args.sizes):
        result = fanout_phase(server, args, streams, index)
        for cycle in range(1, args.cycles):
            log(f"{args.name}: {streams} streams again (cycle {cycle + 1} of {args.cycles}): does RSS keep growing?")
            again = fanout_phase(server, args, streams, f"{index}-{cycle}")
            result.setdefault("later_cycles", []).append({
                key: again[key] for key in ("rss_idle_kib", "rss_streams_kib", "rss_after_events_kib",
                                            "rss_after_disconnect_kib", "p50_last_ms", "p99_last_ms",
                                            "cpu_us_per_delivery")})
        out["sizes"].append(result)
    for round_index in range(args.tp_rounds):
        result = throughput_round(server, args, round_index)
        log(f"{args.name}: throughput round {round_index + 1}/{args.tp_rounds}: "
            + (f"{result['events_per_second']} events/s, {result['cpu_us_per_event']} us CPU per event"
               if "events_per_second" in result else result.get("error", "failed")))
        out["throughput"].append(result)
    for round_index in range(args.push_rounds if args.push_events > 0 else 0):
        result = push_round(server, args, round_index)
        log(f"{args.name}: push round {round_index + 1}/{args.push_rounds}: "
            + (f"{result['events_per_second']} events/s ({result['pushes_per_second']} pushes/s answered), "
               f"{result['cpu_us_per_event']} us CPU per event"
               if "events_per_second" in result else result.get("error", "failed")))
        out["pushes"].append(result)
    time.sleep(args.settle)
    out["rss_end_kib"] = rss_kib(pid)
    server.http.close()
    with open(args.out, "w") as f:
        json.dump(out, f, indent=1)


def load_runs(directory, name):
    """Merges the JSON files of one server (one file per fresh server process)."""
    merged = {"sizes": [], "throughput": [], "processes": []}
    for path in sorted(glob.glob(os.path.join(directory, f"{name}-*.json"))):
        run = json.load(open(path))
        merged["data_bytes"] = run["data_bytes"]
        merged["events_per_size"] = run["events_per_size"]
        merged["sizes"].extend(run["sizes"])
        merged["throughput"].extend(run["throughput"])
        merged["processes"].append(run)
    rates = [r["events_per_second"] for r in merged["throughput"] if "events_per_second" in r]
    merged["throughput_median_eps"] = round(statistics.median(rates)) if rates else None
    e2e = [r["end_to_end_events_per_second"] for r in merged["throughput"] if "end_to_end_events_per_second" in r]
    merged["throughput_median_e2e"] = round(statistics.median(e2e)) if e2e else None
    cpu = [r["cpu_us_per_event"] for r in merged["throughput"] if "cpu_us_per_event" in r]
    merged["throughput_median_cpu_us"] = statistics.median(cpu) if cpu else None
    tp_procs = [p for p in merged["processes"] if p["throughput"]]
    merged["throughput_rss"] = [(p["rss_start_kib"], p["rss_end_kib"]) for p in tp_procs]
    return merged


# --- report -----------------------------------------------------------------------------
def report(args):
    mb = load_runs(args.directory, "mockbackend")
    hb = load_runs(args.directory, "hummingbird")
    fl = load_runs(args.directory, "floor")
    meta = json.load(open(args.meta)) if args.meta else {}
    by_size = lambda run: {s["streams"]: s for s in run["sizes"]}
    mbs, hbs, fls = by_size(mb), by_size(hb), by_size(fl)
    sizes = sorted(set(mbs) & set(hbs))
    mib = lambda k: f"{k / 1024:.1f}"
    ratio = lambda a, b: f"{a / b:.2f}" if a and b else "n/a"
    verdict = lambda ok: "met" if ok else "**missed**"
    servers = (("mockbackend", mbs), ("hummingbird 2.28.1", hbs)) + ((("C floor", fls),) if fls else ())
    lines = []
    w = lines.append
    w(f"## SSE fan-out — {meta.get('date', time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))}")
    w("")
    if meta:
        w(f"Machine: {meta.get('machine', '')}. {meta.get('notes', '')}")
        w("")
    w(f"Each size ran against a fresh server process (warmed with 10 streams and 5 events). Event data "
      f"{mb.get('data_bytes', '?')} bytes; {mb.get('events_per_size', '?')} measured events per size, "
      f"one at a time, at least {meta.get('spacing_ms', '?')} ms apart, after {meta.get('warmup_events', '?')} "
      f"unmeasured ones. Latency: publish request sent → event read by the last (and first) subscriber; "
      f"CPU: server utime+stime over the measured events ÷ (events × streams).")
    w("")
    w("| streams | server | p50 ms | p99 ms | p50 to first subscriber ms | server CPU µs per delivery |"
      " KiB per idle stream | RSS idle → with streams → after events → after disconnect (MiB) | threads |"
      " other work on the server's CPU (s) |")
    w("|---:|---|---:|---:|---:|---:|---:|---|---:|---:|")
    for n in sizes:
        for label, table in servers:
            if n not in table:
                continue
            s = table[n]
            w(f"| {n:,} | {label} | {s['p50_last_ms']} | {s['p99_last_ms']} | {s['p50_first_ms']} | "
              f"{s['cpu_us_per_delivery']} | {s['rss_per_stream_kib']} | {mib(s['rss_idle_kib'])} → "
              f"{mib(s['rss_streams_kib'])} → {mib(s['rss_after_events_kib'])} → {mib(s['rss_after_disconnect_kib'])} | "
              f"{s['threads_with_streams']} | {s.get('other_work_on_server_cpu_seconds', '?')} of {s['publish_phase_seconds']} |")
    w("")
    for label, table in servers:
        for n in sizes:
            for i, c in enumerate(table.get(n, {}).get("later_cycles", []), start=2):
                w(f"- {label}, {n:,} streams, cycle {i} in the same process: RSS {mib(c['rss_idle_kib'])} → "
                  f"{mib(c['rss_streams_kib'])} → {mib(c['rss_after_events_kib'])} → "
                  f"{mib(c['rss_after_disconnect_kib'])} MiB; p50/p99 {c['p50_last_ms']}/{c['p99_last_ms']} ms; "
                  f"{c['cpu_us_per_delivery']} µs per delivery")
    w("")
    w("One stream, one publish request of many events (a fresh server; rounds one after another):")
    w("")
    w("| server | events/s, first → last event received (median) | per round | end to end: publish request sent → last event, events/s (median; per round) | server CPU µs per event | publish request ms | RSS start → end (MiB) | other work on the server's CPU (s) | errors |")
    w("|---|---:|---|---|---|---|---|---|---|")
    for label, run in (("mockbackend", mb), ("hummingbird 2.28.1", hb)):
        rounds = run["throughput"]
        w(f"| {label} | {run['throughput_median_eps'] or 'n/a'} | "
          f"{' '.join(str(r.get('events_per_second', 'failed')) for r in rounds)} | "
          f"{run['throughput_median_e2e'] or 'n/a'}; "
          f"{' '.join(str(r.get('end_to_end_events_per_second', 'failed')) for r in rounds)} | "
          f"{' '.join(str(r.get('cpu_us_per_event', '-')) for r in rounds)} | "
          f"{' '.join(str(r.get('publish_request_ms', '-')) for r in rounds)} | "
          f"{', '.join(mib(a) + ' → ' + mib(b) for a, b in run['throughput_rss'])} | "
          f"{' '.join(str(r.get('other_work_on_server_cpu_seconds', '?')) for r in rounds)} | "
          f"{'; '.join(r['error'] for r in rounds if 'error' in r) or 'none'} |")
    w("")
    w("| target (mockbackend) | measured | hummingbird | mockbackend / hummingbird | |")
    w("|---|---:|---:|---:|---|")
    if sizes:
        largest = max(sizes)
        m, h = mbs[largest], hbs[largest]
        w(f"| 10,000 concurrent streams, every event to every stream | {largest:,} | {largest:,} | | "
          f"{verdict(largest >= 10000)} |")
        for n in sizes:
            m, h = mbs[n], hbs[n]
            w(f"| (latency, {n:,} streams: p50 / p99 ms) | {m['p50_last_ms']} / {m['p99_last_ms']} | "
              f"{h['p50_last_ms']} / {h['p99_last_ms']} | {ratio(m['p50_last_ms'], h['p50_last_ms'])} / "
              f"{ratio(m['p99_last_ms'], h['p99_last_ms'])} | |")
        for n in sizes:
            m, h = mbs[n], hbs[n]
            name = "≤ 8 µs server CPU per delivery at 5,000 streams" if n == 5000 else f"(CPU per delivery, {n:,} streams, µs)"
            floor = fls.get(n, {}).get("cpu_us_per_delivery")
            beside = f"; the C floor {floor} µs, mockbackend / floor {ratio(m['cpu_us_per_delivery'], floor)}" if floor else ""
            w(f"| {name} | {m['cpu_us_per_delivery']} | {h['cpu_us_per_delivery']} | "
              f"{ratio(m['cpu_us_per_delivery'], h['cpu_us_per_delivery'])} | "
              f"{verdict(m['cpu_us_per_delivery'] <= 8) if n == 5000 else ''}{beside} |")
        for n in sizes:
            m, h = mbs[n], hbs[n]
            w(f"| ≤ 8 KiB per idle stream ({n:,} streams) | {m['rss_per_stream_kib']} | {h['rss_per_stream_kib']} | "
              f"{ratio(m['rss_per_stream_kib'], h['rss_per_stream_kib'])} | {verdict(m['rss_per_stream_kib'] <= 8)} |")
        for n in sizes:
            m, h = mbs[n], hbs[n]
            back = m["rss_after_disconnect_kib"] - m["rss_idle_kib"]
            hback = h["rss_after_disconnect_kib"] - h["rss_idle_kib"]
            w(f"| RSS back to idle after {n:,} streams close (within 2 MiB): after − idle, MiB | {back / 1024:+.1f} | "
              f"{hback / 1024:+.1f} | | {verdict(back <= 2048)} |")
        for n in sizes:
            for i, c in enumerate(mbs[n].get("later_cycles", []), start=2):
                grew = c["rss_after_disconnect_kib"] - c["rss_idle_kib"]
                # 1 MiB: about 100 bytes a stream at 10,000, and twice the spread of RSS seen
                # between cycles of the same process.
                w(f"| no growth: cycle {i} of {n:,} streams in the same process, after − before, MiB | "
                  f"{grew / 1024:+.1f} | | | {verdict(grew <= 1024)} |")
    me, he = mb["throughput_median_eps"], hb["throughput_median_eps"]
    w(f"| ≥ 200,000 events/s on one stream | {me or 'failed'} | {he or 'failed'} | {ratio(me, he)} | "
      f"{verdict(bool(me) and me >= 200000)} |")
    print("\n".join(lines))


def report_ws(args):
    """The WebSocket benchmark's summary (bench/ws/run.sh): import-sse against import-ws."""
    meta = json.load(open(args.meta)) if args.meta else {}
    runs = {}
    for protocol in ("sse", "ws"):
        sizes, floods, pushes = {}, [], []
        for path in sorted(glob.glob(os.path.join(args.directory, f"import-{protocol}-*.json"))):
            run = json.load(open(path))
            for size in run["sizes"]:
                sizes.setdefault(size["streams"], []).append(size)
            floods.extend(run["throughput"])
            pushes.extend(run.get("pushes", []))
        runs[protocol] = {"sizes": sizes, "floods": floods, "pushes": pushes, "data_bytes": None}
    median = lambda values: statistics.median(values) if values else None
    mib = lambda k: f"{k / 1024:.1f}"
    ratio = lambda a, b: a / b if a and b else None
    fmt_ratio = lambda r: f"{r:.2f}" if r is not None else "n/a"
    fmt = lambda v, digits=2: ("n/a" if v is None else f"{v:,.{digits}f}")
    sse, ws = runs["sse"], runs["ws"]
    sizes = sorted(set(sse["sizes"]) & set(ws["sizes"]))
    busy = meta.get("busy_before_percent")
    lines = []
    w = lines.append
    w(f"## V1 progress WebSocket vs SSE, one import job stream — "
      f"{meta.get('date', time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))}")
    w("")
    if meta:
        w(f"Machine: {meta.get('machine', '')}. {meta.get('notes', '')}")
        w("")
    if busy is not None and busy > 15:
        w(f"**The machine was busy** ({busy}% of its CPU time went to other work just before the run): "
          "the figures are noisy; compare the two protocols within this run only, and rerun with "
          "`WAIT_FOR_IDLE=1` on a quiet machine.")
        w("")
    w(f"Every stream is a fresh import job, paused; each event is one admin push of `{{\"data\":{{\"seq\":N}}}}`: "
      f"SSE `id: N` / `data: {{\"seq\":N}}` in a chunk, WebSocket one text frame `{{\"type\":\"message\",\"seq\":N}}`. "
      f"Fan-out: a fresh server per size and protocol, {meta.get('warmup_events', '?')} unmeasured events, "
      f"then one event at a time, at least {meta.get('spacing_ms', '?')} ms apart; latency is push request sent → "
      f"event read by the last (first) subscriber; CPU is server utime+stime over the measured events ÷ "
      f"(events × connections). Figures are medians over the runs, per-run values after them.")
    w("")
    w("| connections | protocol | server CPU µs per delivery: median (per run) | p50 to last ms: median (per run) |"
      " p99 to last ms: median (per run) | p50 to first ms | KiB per idle connection | RSS idle → with connections → "
      "after disconnect, MiB (run 1) | other work on the server's CPU, s (per run) | closed by the server |")
    w("|---:|---|---|---|---|---:|---:|---|---|---:|")
    for n in sizes:
        for label, run in (("SSE", sse), ("WebSocket", ws)):
            rows = run["sizes"][n]
            cpu = [r["cpu_us_per_delivery"] for r in rows]
            p50 = [r["p50_last_ms"] for r in rows]
            p99 = [r["p99_last_ms"] for r in rows]
            first = [r["p50_first_ms"] for r in rows]
            kib = [r["rss_per_stream_kib"] for r in rows]
            r1 = rows[0]
            closed = sum(int(b.split()[2]) for r in rows for b in r.get("client_byes", []) if len(b.split()) > 2)
            w(f"| {n:,} | {label} | **{fmt(median(cpu))}** ({' '.join(f'{v:g}' for v in cpu)}) | "
              f"{fmt(median(p50), 1)} ({' '.join(f'{v:.1f}' for v in p50)}) | "
              f"{fmt(median(p99), 1)} ({' '.join(f'{v:.1f}' for v in p99)}) | {fmt(median(first), 2)} | "
              f"{fmt(median(kib))} | {mib(r1['rss_idle_kib'])} → {mib(r1['rss_streams_kib'])} → "
              f"{mib(r1['rss_after_disconnect_kib'])} | "
              f"{' '.join(str(r.get('other_work_on_server_cpu_seconds', '?')) for r in rows)} | {closed} |")
    w("")
    w("| connections | WebSocket / SSE, server CPU per delivery: ratio of medians (per-run ratios) | "
      "WebSocket / SSE, p50 to the last subscriber | design goal: a WebSocket delivery costs no more than an SSE one |")
    w("|---:|---|---|---|")
    for n in sizes:
        a, b = sse["sizes"][n], ws["sizes"][n]
        cpu_ratio = ratio(median([r["cpu_us_per_delivery"] for r in b]), median([r["cpu_us_per_delivery"] for r in a]))
        per_run = [ratio(y["cpu_us_per_delivery"], x["cpu_us_per_delivery"]) for x, y in zip(a, b)]
        p50_ratio = ratio(median([r["p50_last_ms"] for r in b]), median([r["p50_last_ms"] for r in a]))
        # How many runs the median's side holds in says more than the median alone.
        spread = [r for r in per_run if r is not None]
        if cpu_ratio is None or not spread:
            verdict = "n/a"
        else:
            above = sum(1 for r in spread if r > 1.0)
            runs = f"{above} of {len(spread)} runs above 1, {min(spread):.2f}–{max(spread):.2f}"
            verdict = (f"met ({runs})" if cpu_ratio <= 1.0
                       else f"**missed** (+{(cpu_ratio - 1) * 100:.0f}%; {runs})")
        w(f"| {n:,} | **{fmt_ratio(cpu_ratio)}** ({' '.join(fmt_ratio(r) for r in per_run)}) | "
          f"{fmt_ratio(p50_ratio)} | {verdict} |")
    w("")
    w(f"One connection (one server; the protocols alternate round by round). Flood: one push of "
      f"`count: {meta.get('tp_events', '?')}`; events/s from the first to the last event received. Pushes: "
      f"{meta.get('push_events', '?')} single-event pushes pipelined on one connection; events/s first → last "
      f"received, and the rate the pushes were answered.")
    w("")
    w("| protocol | flood events/s: median (per round) | flood: server CPU µs per event (per round) | flood errors |"
      " pushes, events/s: median (per round) | pushes answered per second (median) | pushes: server CPU µs per event:"
      " median (per round) | other work on the server's CPU, s (flood; pushes) |")
    w("|---|---|---|---|---|---:|---|---|")
    summary = {}
    for label, run in (("SSE", sse), ("WebSocket", ws)):
        fl, pu = run["floods"], run["pushes"]
        flood_eps = median([r["events_per_second"] for r in fl if "events_per_second" in r])
        push_eps = median([r["events_per_second"] for r in pu if "events_per_second" in r])
        push_cpu = median([r["cpu_us_per_event"] for r in pu if "cpu_us_per_event" in r])
        summary[label] = (flood_eps, push_eps, push_cpu)
        errors = "; ".join(sorted(set(r["error"] for r in fl if "error" in r))) or "none"
        w(f"| {label} | {fmt(flood_eps, 0)} ({' '.join(str(r.get('events_per_second', 'failed')) for r in fl)}) | "
          f"{' '.join(str(r.get('cpu_us_per_event', '-')) for r in fl)} | {errors} | "
          f"{fmt(push_eps, 0)} ({' '.join(str(r.get('events_per_second', 'failed')) for r in pu)}) | "
          f"{fmt(median([r['pushes_per_second'] for r in pu if 'pushes_per_second' in r]), 0)} | "
          f"{fmt(push_cpu, 1)} ({' '.join(str(r.get('cpu_us_per_event', '-')) for r in pu)}) | "
          f"{' '.join(str(r.get('other_work_on_server_cpu_seconds', '?')) for r in fl)}; "
          f"{' '.join(str(r.get('other_work_on_server_cpu_seconds', '?')) for r in pu)} |")
    w("")
    (sf, sp, sc), (wf, wp, wc) = summary["SSE"], summary["WebSocket"]
    w("| one connection | WebSocket / SSE |")
    w("|---|---:|")
    w(f"| flood events/s | {fmt_ratio(ratio(wf, sf))} |")
    w(f"| pipelined pushes, events/s | {fmt_ratio(ratio(wp, sp))} |")
    w(f"| pipelined pushes, server CPU per event | {fmt_ratio(ratio(wc, sc))} |")
    print("\n".join(lines))


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--name", required=True)
    # floor (floor_server.c) speaks the Hummingbird peer's routes.
    m.add_argument("--kind", choices=["mockbackend", "hummingbird", "floor", "import-sse", "import-ws"], required=True)
    m.add_argument("--pid", type=int, required=True)
    m.add_argument("--port", type=int, required=True)
    m.add_argument("--client", required=True)
    m.add_argument("--out", required=True)
    m.add_argument("--raw", required=True)
    m.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",") if x], default=[1000, 5000, 10000])
    m.add_argument("--cycles", type=int, default=1, help="connect/publish/disconnect cycles per size")
    m.add_argument("--events", type=int, default=50)
    m.add_argument("--warmup-events", type=int, default=3)
    m.add_argument("--spacing", type=float, default=0.1)
    m.add_argument("--event-timeout", type=float, default=30)
    m.add_argument("--per-process", type=int, default=5000)
    m.add_argument("--settle", type=float, default=1.5)
    m.add_argument("--data", default="0123456789abcdef0123456789abcdef")
    m.add_argument("--tp-events", type=int, default=500000)
    m.add_argument("--tp-rounds", type=int, default=5)
    m.add_argument("--tp-timeout", type=float, default=60)
    m.add_argument("--push-events", type=int, default=0,
                   help="single-event pushes, pipelined on one connection, per push round (0: none)")
    m.add_argument("--push-rounds", type=int, default=1)
    m.add_argument("--tp-stall", type=float, default=10,
                   help="give a single-stream round up when its stream has taken nothing for this long")
    r = sub.add_parser("report")
    r.add_argument("directory", help="where the measure runs wrote mockbackend-*.json and hummingbird-*.json")
    r.add_argument("--meta")
    rw = sub.add_parser("report-ws")
    rw.add_argument("directory", help="where bench/ws/run.sh wrote import-sse-*.json and import-ws-*.json")
    rw.add_argument("--meta")
    args = parser.parse_args()
    if args.command == "measure":
        measure(args)
    elif args.command == "report-ws":
        report_ws(args)
    else:
        report(args)


if __name__ == "__main__":
    main()
