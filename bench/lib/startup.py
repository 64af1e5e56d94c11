#!/usr/bin/env python3
"""Startup time to first 200 on GET /health, in milliseconds, and RSS idle after it.

usage: startup.py STARTS SERVER_CPU -- COMMAND... (COMMAND gets `--port PORT` appended)

For each start: pick a free loopback port, note the time, spawn the server pinned to
SERVER_CPU, then poll GET /health (new connection each try, 1 ms apart at most) until it
answers 200; that elapsed time is one sample. Half a second later, with nothing else
asked of it, the server's VmRSS (/proc/PID/status) is the idle RSS of that start. The
server is stopped (SIGTERM, then SIGKILL) before the next start. Prints one line per
start, then `MEDIAN <ms>`, `MIN`, `MAX`, and `RSS_MEDIAN`/`RSS_MIN`/`RSS_MAX <KiB>`.
"""
import os
import signal
import socket
import statistics
import subprocess
import sys
import time


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


REQUEST = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def health_ok(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
            s.sendall(REQUEST)
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(256)
                if not chunk:
                    break
                data += chunk
            return data.startswith(b"HTTP/1.1 200") or data.startswith(b"HTTP/1.0 200")
    except OSError:
        return False


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise SystemExit("no VmRSS for the server")


def one_start(command, cpu) -> tuple[float, int]:
    port = free_port()
    argv = ["taskset", "-c", str(cpu)] + command + ["--port", str(port)]
    t0 = time.perf_counter_ns()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = t0 + 10_000_000_000
        while True:
            if health_ok(port):
                elapsed = (time.perf_counter_ns() - t0) / 1e6
                time.sleep(0.5)
                # taskset execs the server: the child's pid is the server's.
                return elapsed, rss_kib(proc.pid)
            if proc.poll() is not None:
                raise SystemExit(f"server exited with {proc.returncode} before answering")
            if time.perf_counter_ns() > deadline:
                raise SystemExit("server did not answer 200 within 10 s")
            time.sleep(0.001)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    args = sys.argv[1:]
    sep = args.index("--")
    starts, cpu = int(args[0]), int(args[1])
    command = args[sep + 1:]
    samples = []
    rss = []
    for i in range(starts):
        ms, kib = one_start(command, cpu)
        samples.append(ms)
        rss.append(kib)
        print(f"start {i + 1}: {ms:.1f} ms, idle RSS {kib} KiB", flush=True)
    print(f"MEDIAN {statistics.median(samples):.1f}")
    print(f"MIN {min(samples):.1f}")
    print(f"MAX {max(samples):.1f}")
    print(f"RSS_MEDIAN {statistics.median(rss):.0f}")
    print(f"RSS_MIN {min(rss)}")
    print(f"RSS_MAX {max(rss)}")


if __name__ == "__main__":
    main()
