"""Checks mockbackend's event streams with real third-party SSE clients (requests-sse and
aiohttp-sse-client2, from PyPI).

Starts the built server on 127.0.0.1:0 and checks, over real sockets:
1. a dropped stream is resumed with Last-Event-ID and every event arrives exactly once;
2. the client parses exact bytes written one byte at a time with CR-only line ends;
3. a finished stream answers the reconnect with 204 and the client does not read on;
4. the user-info stream sends deltas with an id on every frame, the session's expiry ends
   it, and the reconnect's 403 stops the client;
5. aiohttp-sse-client2, which cannot resume from a broken chunked body, resumes from a
   graceful admin disconnect with Last-Event-ID.
Prints "real clients: N passed, M failed" and exits non-zero on a failure.

Usage: python sse_clients.py PATH_TO_MOCKBACKEND_BINARY
"""

import json
import sys
import threading
import time
from datetime import timedelta

import asyncio

from aiohttp_sse_client2 import client as aiohttp_sse
from requests_sse import EventSource, InvalidStatusCodeError

from harness import check, get_json, post, run, subscribers, wait_until


def resume_after_drop(base):
    received = []

    def publisher():
        wait_until(lambda: subscribers(base, "channels/real") == 1)
        for index in range(1, 4):
            post(base, "/__admin/streams/channels/real/events", {"data": f"e{index}"})
        wait_until(lambda: len(received) == 3)
        post(base, "/__admin/streams/channels/real/disconnect")
        for index in range(4, 6):
            post(base, "/__admin/streams/channels/real/events", {"data": f"e{index}"})

    thread = threading.Thread(target=publisher, daemon=True)
    thread.start()
    with EventSource(
        base + "/sse/channels/real", timeout=10, reconnection_time=timedelta(milliseconds=100),
        headers={"X-Client-Id": "requests-sse"},
    ) as source:
        for event in source:
            received.append((event.last_event_id, event.data))
            if len(received) == 5:
                break
    thread.join(timeout=5)
    check("resumes a dropped stream, every event once, in order",
          [data for _, data in received] == ["e1", "e2", "e3", "e4", "e5"], received)
    check("ids are increasing integers", [event_id for event_id, _ in received] == ["1", "2", "3", "4", "5"], received)
    journal = get_json(base, "/__admin/streams/connections?stream=channels/real")
    check("the reconnect sent Last-Event-ID 3", len(journal) == 2 and journal[1].get("lastEventId") == "3", journal)


def byte_by_byte(base):
    body = "data:%20caf%C3%A9%0D%0Did:%207%0Ddata:%20two%0Ddata:%20lines%0D%0D"
    with EventSource(base + f"/conformance/sse/raw?body={body}&chunk=1", timeout=10, max_connect_retry=0) as source:
        events = []
        for event in source:
            events.append((event.data, event.last_event_id))
            if len(events) == 2:
                break
    check("parses CR line ends written one byte at a time", events == [("café", ""), ("two\nlines", "7")], events)


def stops_on_204(base):
    connections = []
    try:
        with EventSource(
            base + "/conformance/sse/reconnect-then-204?retry=50", timeout=10, max_connect_retry=1,
            on_open=lambda: connections.append(time.monotonic()),
        ) as source:
            data = [event.data for event in source]
            check("reads the event before the 204", data == ["first"], data)
    except InvalidStatusCodeError as error:
        check("stops on 204 with the status", "204" in str(error), error)
        return
    check("stops on 204", len(connections) == 1, connections)


def user_info_deltas_and_expiry(base):
    login = post(base, "/v1/player/legislation/login", {"username": "demo", "password": "demo1234"})
    session = login["sessionId"]
    # Before the stream opens: not replayed to it.
    post(base, "/__admin/users/7000001/balance", {"amount": -1})
    frames = []

    def admin():
        wait_until(lambda: subscribers(base, "userinfo/7000001") == 1)
        post(base, "/__admin/users/7000001/balance", {"amount": 2})
        wait_until(lambda: len(frames) == 2)
        post(base, f"/__admin/sessions/{session}/expire", {"reason": "Expired", "code": 1})

    thread = threading.Thread(target=admin, daemon=True)
    thread.start()
    status = None
    try:
        with EventSource(
            base + "/v2/player/7000001/information/updates", timeout=10,
            reconnection_time=timedelta(milliseconds=100), max_connect_retry=1,
            headers={"X-SessionId": session},
        ) as source:
            for event in source:
                frames.append((event.last_event_id, json.loads(event.data)))
    except InvalidStatusCodeError as error:
        status = str(error)
    thread.join(timeout=5)
    types = [frame["type"] for _, frame in frames]
    check("user-info: only what happened after connecting, then the expiry",
          types == ["BALANCE_UPDATE", "BALANCE_UPDATE_V2", "SESSION_EXPIRATION"], types)
    check("user-info: every frame has an id", all(event_id for event_id, _ in frames), frames)
    check("user-info: the reconnect after the expiry gets 403 and the client stops", "403" in (status or ""), status)


def aiohttp_resumes_after_graceful_end(base):
    received = []

    def publisher():
        wait_until(lambda: subscribers(base, "channels/polite") == 1)
        for index in range(1, 4):
            post(base, "/__admin/streams/channels/polite/events", {"data": f"e{index}"})
        wait_until(lambda: len(received) == 3)
        post(base, "/__admin/streams/channels/polite/disconnect", {"graceful": True})
        wait_until(lambda: subscribers(base, "channels/polite") == 0)
        for index in range(4, 6):
            post(base, "/__admin/streams/channels/polite/events", {"data": f"e{index}"})

    async def read():
        async with aiohttp_sse.EventSource(
            base + "/sse/channels/polite", reconnection_time=timedelta(milliseconds=100),
            headers={"X-Client-Id": "aiohttp"},
        ) as source:
            async for event in source:
                received.append(event.data)
                if len(received) == 5:
                    break

    thread = threading.Thread(target=publisher, daemon=True)
    thread.start()
    asyncio.run(asyncio.wait_for(read(), timeout=20))
    thread.join(timeout=5)
    check("aiohttp-sse-client2 resumes after a graceful end, every event once",
          received == ["e1", "e2", "e3", "e4", "e5"], received)
    journal = get_json(base, "/__admin/streams/connections?stream=channels/polite")
    check("aiohttp-sse-client2 sent Last-Event-ID 3 and the first connection ended as admin",
          len(journal) == 2 and journal[0].get("endReason") == "admin" and journal[1].get("lastEventId") == "3",
          journal)


def main():
    return run("real clients", sys.argv[1], (
        resume_after_drop, byte_by_byte, stops_on_204, user_info_deltas_and_expiry,
        aiohttp_resumes_after_graceful_end,
    ))


if __name__ == "__main__":
    sys.exit(main())
