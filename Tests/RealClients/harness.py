"""What the real-client scripts share: the checks and their summary, small JSON calls to the
admin API, a bounded wait, and starting the built server on 127.0.0.1:0.

Standard library only; every wait is bounded, and `run` always stops the server it started.
"""

import json
import re
import subprocess
import time
import urllib.error
import urllib.request

results = []


def check(name, condition, detail=""):
    results.append((name, condition))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"), flush=True)


def summarize(label):
    """Prints "LABEL: N passed, M failed" and returns the exit status."""
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"{label}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def request(base, method, path, body=None, headers=None, raw=None):
    """Sends a request and returns its JSON body (None for an empty one); raises on a status
    of 400 or more, naming the call."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    all_headers = {"Content-Type": "application/json"} if body is not None else {}
    all_headers.update(headers or {})
    call = urllib.request.Request(base + path, data=data, method=method, headers=all_headers)
    try:
        with urllib.request.urlopen(call, timeout=5) as response:
            payload = response.read()
            return json.loads(payload) if payload else None
    except urllib.error.HTTPError as error:
        raise RuntimeError(f"{method} {path} answered {error.code}: {error.read()[:300]!r}") from None


def post(base, path, body=None):
    return request(base, "POST", path, body if body is not None else {})


def get_json(base, path):
    return request(base, "GET", path)


def subscribers(base, name):
    for stream in get_json(base, "/__admin/streams"):
        if stream["name"] == name:
            return len(stream["subscribers"])
    return 0


def wait_until(condition, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def run(label, binary, scenarios, extra_arguments=()):
    """Starts the server, runs each scenario with its base URL (a scenario that crashes is a
    failure, not a stop), stops the server, prints "LABEL: N passed, M failed" and returns
    the exit status."""
    server = subprocess.Popen(
        [binary, "--port", "0", "--log-level", "warning", *extra_arguments],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        port = None
        deadline = time.monotonic() + 20
        while port is None and time.monotonic() < deadline:
            line = server.stdout.readline()
            match = re.search(r"mockbackend listening on http://127\.0\.0\.1:(\d+)", line)
            if match:
                port = int(match.group(1))
        if port is None:
            print(f"{label}: 0 passed, 1 failed (server did not start)")
            return 1
        for scenario in scenarios:
            try:
                scenario(f"http://127.0.0.1:{port}")
            except Exception as error:
                check(scenario.__name__, False, repr(error))
    finally:
        server.terminate()
        server.wait(timeout=5)
    passed = sum(1 for _, ok in results if ok)
    failed = len(results) - passed
    print(f"{label}: {passed} passed, {failed} failed")
    return 0 if failed == 0 else 1
