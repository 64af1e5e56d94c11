"""Checks mockbackend's V1 progress WebSocket (`GET /ws/progress?jobId=`, RFC 6455) with a real
third-party client: `websockets` from PyPI, through its blocking client.

Starts the built server on 127.0.0.1:0 with `--clock manual`, so a job moves only when the
script advances the clock, and checks, over real sockets:
1. a whole job read over the socket: every message is JSON, `started` first, `progress`
   with rising counts, `complete` last, then the library reports close code 1000; the
   stream journal lists the connection as `websocket`, ended `finished`;
2. a reconnect gets the whole history again, then the live events;
3. the admin disconnect: `graceful` gives close code 1001, the default (FIN, no close
   frame) and `reset` an abnormal closure (1006); V1 polling still answers afterwards;
4. a `drop_after_events` fault ends the socket after exactly N messages (1006), and the
   next connection, without the rule, gets the whole history;
5. the handshake refusals, raised by the library as rejected handshakes: an unknown or
   missing job 404, a plain GET 426 (with `Upgrade: websocket`), another version 426
   (with `Sec-WebSocket-Version: 13`).
Prints "websocket clients: N passed, M failed" and exits non-zero on a failure.

Usage: python websocket_clients.py PATH_TO_MOCKBACKEND_BINARY
"""

import json
import sys

import websockets
from websockets.exceptions import ConnectionClosed, ConnectionClosedOK, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from harness import check, get_json, post, request, run, wait_until


def upload(base, rows, path="/api/import/csv-gemini"):
    """A multipart upload with a `file` part, as `curl -F file=@books.csv` sends it; the job id."""
    lines = ["title,author,year"] + [f'"Book, {n}",Author {n},{1900 + n}' for n in range(1, rows + 1)]
    boundary = "----mockbackend-websocket-clients"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="books.csv"\r\n'
        f"Content-Type: text/csv\r\n\r\n" + "\r\n".join(lines) + f"\r\n\r\n--{boundary}--\r\n"
    ).encode()
    headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
    return request(base, "POST", path, headers=headers, raw=body)["jobId"]


def advance(base, ms):
    post(base, "/__admin/clock/advance", {"ms": ms})


def stream(base, job):
    """The job stream's entry in GET /__admin/streams (events so far, subscribers), or None."""
    return next((s for s in get_json(base, "/__admin/streams") if s["name"] == f"imports/{job}"), None)


def events_so_far(base, job):
    entry = stream(base, job)
    return int(entry["lastEventId"] or 0) if entry else 0


def journal(base, job):
    return get_json(base, f"/__admin/streams/connections?stream=imports/{job}")


def socket_url(ws_base, job):
    return f"{ws_base}/ws/progress?jobId={job}"


def open_socket(ws_base, job, **options):
    # No keepalive pings from this side: the checks below count what the server sends.
    return connect(socket_url(ws_base, job), open_timeout=5, close_timeout=5, ping_interval=None, **options)


def read_n(ws, count, timeout=5):
    """`count` messages, each parsed as JSON."""
    return [json.loads(ws.recv(timeout=timeout)) for _ in range(count)]


def read_to_close(ws, timeout=10):
    """Every message until the connection closes, parsed as JSON; the closing exception
    (ConnectionClosedOK after a close frame 1000/1001, ConnectionClosedError otherwise)."""
    messages = []
    try:
        while True:
            messages.append(json.loads(ws.recv(timeout=timeout)))
    except ConnectionClosed as closed:
        return messages, closed


def whole_job(base, ws_base):
    job = upload(base, 200)
    with open_socket(ws_base, job) as ws:
        check("whole job: the upgrade answered 101", ws.response.status_code == 101, ws.response.status_code)
        wait_until(lambda: len((stream(base, job) or {}).get("subscribers", [])) == 1)
        for _ in range(4):
            advance(base, 250)  # started after 100 ms, then 10 rows every 200 ms
        post(base, f"/__admin/imports/{job}/complete")  # the other 150 rows at once
        messages, closed = read_to_close(ws)
        close_code = ws.close_code
    types = [m.get("type") for m in messages]
    check("whole job: every message is a JSON object with a type", all(isinstance(t, str) for t in types), messages)
    check(
        "whole job: started first, progress between, complete last",
        len(types) >= 3 and types[0] == "started" and types[-1] == "complete"
        and set(types[1:-1]) == {"progress"}, types)
    check("whole job: every message is of this job", all(m.get("jobId") == job for m in messages), messages)
    rows = [m["processedRows"] for m in messages if m.get("type") == "progress"]
    check("whole job: processedRows only rises", rows == sorted(set(rows)), rows)
    check("whole job: complete says 200 rows", messages[-1].get("successfulRows") == 200, messages[-1])
    check("whole job: the library saw a clean close (ConnectionClosedOK)", isinstance(closed, ConnectionClosedOK),
          repr(closed))
    check("whole job: close code 1000", close_code == 1000, close_code)
    check("whole job: as many messages as the stream has events", len(messages) == events_so_far(base, job),
          (len(messages), events_so_far(base, job)))
    connections = journal(base, job)
    check(
        "whole job: the stream journal lists one websocket connection, ended finished",
        [(c.get("protocol"), c.get("endReason")) for c in connections] == [("websocket", "finished")], connections)


def reconnect_gets_history(base, ws_base):
    job = upload(base, 100)
    advance(base, 100)
    advance(base, 400)
    history = events_so_far(base, job)
    with open_socket(ws_base, job) as ws:
        first = read_n(ws, history)
    advance(base, 400)
    history_now = events_so_far(base, job)
    with open_socket(ws_base, job) as ws:
        second = read_n(ws, history_now)
        advance(base, 200)
        live = read_n(ws, 1)
    check("reconnect: the first connection got the history (started, then progress)",
          [m["type"] for m in first] == ["started"] + ["progress"] * (history - 1), first)
    check("reconnect: the second connection got the whole history again, from started",
          second[: len(first)] == first and len(second) == history_now > history, (first, second))
    check("reconnect: then the live events", live[0]["type"] == "progress"
          and live[0]["processedRows"] > second[-1]["processedRows"], live)


def admin_disconnects(base, ws_base):
    for mode, body, expected in (
        ("graceful", {"graceful": True}, 1001),
        ("default (FIN)", {}, 1006),
        ("reset (RST)", {"reset": True}, 1006),
    ):
        job = upload(base, 100)
        advance(base, 100)
        with open_socket(ws_base, job) as ws:
            read_n(ws, events_so_far(base, job))
            wait_until(lambda: len((stream(base, job) or {}).get("subscribers", [])) == 1)
            protocols = [s.get("protocol") for s in stream(base, job)["subscribers"]]
            answer = post(base, f"/__admin/streams/imports/{job}/disconnect", body)
            messages, closed = read_to_close(ws)
            close_code = ws.close_code
        check(f"disconnect {mode}: the subscriber was listed as websocket", protocols == ["websocket"], protocols)
        check(f"disconnect {mode}: one connection ended", (answer or {}).get("disconnected") == 1, answer)
        check(f"disconnect {mode}: nothing more arrived", messages == [], messages)
        check(f"disconnect {mode}: the library reports close code {expected}", close_code == expected,
              f"{close_code} ({closed!r})")
        if expected == 1006:
            check(f"disconnect {mode}: no close frame was received", closed.rcvd is None, repr(closed))
        ended = wait_until(lambda: [c.get("endReason") for c in journal(base, job)] == ["admin"])
        check(f"disconnect {mode}: the journal says admin", ended, journal(base, job))
        status = get_json(base, f"/v1/jobs/{job}/status")
        check(f"disconnect {mode}: V1 polling still answers", status.get("jobId") == job
              and status.get("status") == "processing", status)


def drop_after_events(base, ws_base):
    job = upload(base, 100)
    advance(base, 100)
    advance(base, 800)
    history = events_so_far(base, job)
    rule = post(base, "/__admin/faults", {
        "match": {"path": "/ws/progress"}, "fault": {"kind": "drop_after_events", "events": 3}, "times": 1})
    with open_socket(ws_base, job) as ws:
        messages, closed = read_to_close(ws)
        close_code = ws.close_code
    check(f"drop_after_events 3: exactly 3 of the {history} messages arrived", len(messages) == 3 and history > 3,
          (history, messages))
    check("drop_after_events 3: they are the first three", [m["type"] for m in messages] == ["started"] + [
        "progress"] * 2, messages)
    check("drop_after_events 3: an abnormal closure (1006), no close frame", close_code == 1006
          and closed.rcvd is None, f"{close_code} ({closed!r})")
    fired = next((r for r in get_json(base, "/__admin/faults") if r["id"] == rule["id"]), None)
    check("drop_after_events 3: the rule fired once", fired is None or fired.get("fired") == 1, fired)
    with open_socket(ws_base, job) as ws:
        again = read_n(ws, history)
    check("drop_after_events 3: the next connection gets the whole history",
          again[:3] == messages and len(again) == history, again)


class PlainGetConnection(ClientConnection):
    """This library's connection, sending its request without the upgrade headers: a plain GET."""

    def handshake(self, *args, **kwargs):
        build = self.protocol.connect

        def plain_get():
            built = build()
            for name in ("Upgrade", "Connection", "Sec-WebSocket-Key", "Sec-WebSocket-Version"):
                del built.headers[name]
            return built

        self.protocol.connect = plain_get
        super().handshake(*args, **kwargs)


class Version8Connection(ClientConnection):
    """This library's connection, asking for WebSocket version 8 instead of 13."""

    def handshake(self, *args, **kwargs):
        build = self.protocol.connect

        def version_8():
            built = build()
            del built.headers["Sec-WebSocket-Version"]
            built.headers["Sec-WebSocket-Version"] = "8"
            return built

        self.protocol.connect = version_8
        super().handshake(*args, **kwargs)


def refusals(base, ws_base):
    job = upload(base, 10)
    for name, url, connection, status, header in (
        ("an unknown job", f"{ws_base}/ws/progress?jobId=import_000000000000", None, 404, None),
        ("no jobId", f"{ws_base}/ws/progress", None, 404, None),
        ("a plain GET", socket_url(ws_base, job), PlainGetConnection, 426, ("Upgrade", "websocket")),
        ("version 8", socket_url(ws_base, job), Version8Connection, 426, ("Sec-WebSocket-Version", "13")),
    ):
        try:
            with connect(url, open_timeout=5, create_connection=connection):
                pass
        except InvalidStatus as refused:
            response = refused.response
            check(f"refusal, {name}: rejected handshake with {status}", response.status_code == status,
                  response.status_code)
            check(f"refusal, {name}: a problem+json body",
                  response.headers.get("Content-Type") == "application/problem+json"
                  and json.loads(response.body).get("status") == status, (response.headers, response.body))
            if header:
                check(f"refusal, {name}: {header[0]}: {header[1]}", response.headers.get(header[0]) == header[1],
                      response.headers)
        else:
            check(f"refusal, {name}: rejected handshake with {status}", False, "the upgrade went through")


def main():
    print(f"websockets {websockets.__version__}", flush=True)

    def with_socket_base(scenario):
        def call(base):
            scenario(base, base.replace("http://", "ws://"))
        call.__name__ = scenario.__name__
        return call

    scenarios = (whole_job, reconnect_gets_history, admin_disconnects, drop_after_events, refusals)
    return run("websocket clients", sys.argv[1], [with_socket_base(s) for s in scenarios], ("--clock", "manual"))


if __name__ == "__main__":
    sys.exit(main())
