"""Replay timing: how close to its recorded offset each event of a replayed `sse` stub
arrives, on the real clock, beside an aiohttp server writing the same schedule (each event
at its own deadline from the request, asyncio's loop time), the two taking turns run by run.

Usage: python driver.py MOCKBACKEND_BINARY RUNS EVENTS
Prints one JSON object: per run and per server, the errors' p50, p99 and max in ms.
"""

import asyncio
import json
import random
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request

from aiohttp import web


def schedule(events, seed=7):
    rng = random.Random(seed)
    return [rng.randint(2, 40) for _ in range(events)]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Peer:
    """Writes event i at its offset from the request, by absolute deadline."""

    def __init__(self, delays):
        self.delays = delays
        self.port = free_port()
        ready = threading.Event()

        def serve():
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            app = web.Application()
            app.router.add_get("/timed", self.timed)
            runner = web.AppRunner(app)
            loop.run_until_complete(runner.setup())
            loop.run_until_complete(web.TCPSite(runner, "127.0.0.1", self.port).start())
            ready.set()
            loop.run_forever()

        threading.Thread(target=serve, daemon=True).start()
        ready.wait(10)

    async def timed(self, request):
        loop = asyncio.get_running_loop()
        start = loop.time()
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        offset = 0
        for number, delay in enumerate(self.delays, start=1):
            offset += delay
            await asyncio.sleep(max(0, start + offset / 1000 - loop.time()))
            await response.write(f"id: {number}\ndata: {number}\n\n".encode())
        await response.write_eof()
        return response


def measure(port, delays):
    """Arrival errors in ms of every event against its offset from the response head."""
    offsets, total = [], 0
    for delay in delays:
        total += delay
        offsets.append(total)
    with socket.create_connection(("127.0.0.1", port)) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        connection.sendall(b"GET /timed HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        buffer, head_at, arrivals = b"", None, {}
        while len(arrivals) < len(delays):
            chunk = connection.recv(65536)
            now = time.monotonic()
            if not chunk:
                break
            buffer += chunk
            if head_at is None and b"\r\n\r\n" in buffer:
                head_at = now
            for match in re.finditer(rb"id: (\d+)\ndata: \d+\n\n", buffer):
                arrivals.setdefault(int(match.group(1)), now)
    errors = sorted(abs((arrivals[i + 1] - head_at) * 1000 - offsets[i]) for i in range(len(delays)))
    return {"p50": errors[len(errors) // 2], "p99": errors[int(len(errors) * 0.99) - 1], "max": errors[-1]}


def main():
    binary, runs, events = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    delays = schedule(events)
    peer = Peer(delays)
    server = subprocess.Popen([binary, "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    port = None
    while port is None:
        line = server.stdout.readline()
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if match:
            port = int(match.group(1))
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    try:
        stub = {"request": {"urlPath": "/timed"}, "response": {"sse": {"events": [
            {"id": str(i + 1), "data": str(i + 1), "delayMs": delay} for i, delay in enumerate(delays)]}}}
        request = urllib.request.Request(f"http://127.0.0.1:{port}/__admin/mappings", data=json.dumps(stub).encode(),
                                         headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request).read()
        results = []
        for run in range(runs):
            # Taking turns: which goes first alternates.
            order = [("mockbackend", port), ("aiohttp", peer.port)]
            if run % 2:
                order.reverse()
            results.append({name: measure(where, delays) for name, where in order})
        print(json.dumps({"events": events, "runs": results}))
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
