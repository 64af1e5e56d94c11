#!/usr/bin/env python3
"""Real-browser tests: the dashboard in headless Chromium (each of its buttons clicked at
least once, its effect checked through the API or the live feed), Chromium's own
EventSource resuming an import stream with Last-Event-ID, and Chromium's own WebSocket on
the V1 progress socket (a whole job, then the close codes of the admin disconnects). Run by
Tests/Browser/run.sh.

  python3 Tests/Browser/dashboard_test.py --binary .build/debug/mockbackend [--screenshots DIR]

Each test starts its own mockbackend on port 0 and stops it; every wait has a deadline.
Exits 1 with a message naming the failed check."""

import argparse
import json
import signal
import sys
import time
import traceback

from selenium.webdriver.common.by import By

from cross_origin_test import test_cross_origin_in_chromium
from http2_test import test_seventh_source_waits_over_http1, test_twenty_sources_over_http2
from proxy_dashboard_test import (test_proxy_dashboard_in_chromium, test_recording_from_the_dashboard,
                                  test_scenarios_on_the_dashboard)
from browser_support import (
    Browser,
    Failure,
    Server,
    books_csv,
    check,
    press,
    save_screenshot,
    uncaught_script_errors,
    wait_for,
)

DEMO = {"username": "demo", "password": "demo1234"}
DEMO_USER_ID = 7000001


def check_no_script_errors(driver):
    errors = uncaught_script_errors(driver)
    check(not errors, "the page had script errors:\n" + "\n".join(errors))


def feed_state(driver):
    return driver.find_element(By.ID, "feed-state").get_attribute("data-state")


def feed_items(driver, event_type, containing):
    return [
        item
        for item in driver.find_elements(By.CSS_SELECTOR, f'#feed li[data-event-type="{event_type}"]')
        if containing in item.text
    ]


def click_when_present(driver, selector, what, timeout=10):
    """Clicks the element once it is there; a table redrawn in between is looked up again."""

    def attempt():
        elements = driver.find_elements(By.CSS_SELECTOR, selector)
        if not elements or not elements[0].is_displayed() or not elements[0].is_enabled():
            return False
        press(driver, elements[0])
        return True

    wait_for(attempt, timeout, what)


# A WebSocket opened by the page, its messages (parsed as JSON), its open and its close
# event kept in `window.__sockets[name]` for selenium to poll.
OPEN_SOCKET = """
const [name, path] = arguments;
const record = { opened: false, messages: [], unparsed: [], close: null, errors: 0 };
const socket = new WebSocket(`ws://${location.host}${path}`);
socket.addEventListener("open", () => { record.opened = true; });
socket.addEventListener("message", (event) => {
  try {
    record.messages.push(JSON.parse(event.data));
  } catch {
    record.unparsed.push(String(event.data));
  }
});
socket.addEventListener("error", () => { record.errors += 1; });
socket.addEventListener("close", (event) => {
  record.close = { code: event.code, reason: event.reason, wasClean: event.wasClean };
});
window.__sockets = window.__sockets || {};
window.__sockets[name] = { record, socket };
"""


def open_socket(driver, name, job_id):
    """`new WebSocket("ws://<this page's host>/ws/progress?jobId=…")` in the page."""
    driver.execute_script(OPEN_SOCKET, name, f"/ws/progress?jobId={job_id}")
    return lambda: driver.execute_script("return window.__sockets[arguments[0]].record", name)


def stream_events(server, stream):
    snapshot = next((s for s in server.json("GET", "/__admin/streams") if s["name"] == stream), None)
    return int(snapshot.get("lastEventId") or 0) if snapshot else 0


def player_login(server):
    login = server.json("POST", "/v1/player/legislation/login", DEMO)
    check(login.get("userId") == DEMO_USER_ID, f"login answered {login}")
    return login["sessionId"]


def test_expire_from_the_dashboard(binary, screenshots):
    """Log in through the player API, press Expire on the dashboard, see the expiry in the
    live feed, and get 403 from the API with that session. Then take the screenshot with
    some of everything on screen."""
    with Server(binary) as server, Browser() as driver:
        driver.get(server.url("/"))
        wait_for(lambda: feed_state(driver) == "live", 15, "the dashboard's live feed to open")

        session = player_login(server)
        balance_path = f"/v2/player/{DEMO_USER_ID}/balance"
        status, _, _ = server.request("GET", balance_path, headers={"X-SessionId": session})
        check(status == 200, f"the fresh session got {status} from {balance_path}")
        wait_for(lambda: feed_items(driver, "login", session), 10, "the login in the live feed")

        click_when_present(
            driver, f'tr[data-session-id="{session}"] button[data-action="expire"]', "the session's Expire button"
        )
        expired = wait_for(
            lambda: feed_items(driver, "session.expired", session), 10, "the expiry in the live feed"
        )
        check("Expired (1)" in expired[0].text, f"the feed says {expired[0].text!r}")
        wait_for(
            lambda: driver.find_elements(By.CSS_SELECTOR, f'tr[data-session-id="{session}"][data-state="expired"]'),
            10,
            "the session row to show the expiry",
        )
        status, _, body = server.request("GET", balance_path, headers={"X-SessionId": session})
        check(status == 403, f"after the expiry {balance_path} answered {status}, not 403")
        check(json.loads(body).get("errorCode") == 403, f"the 403 body is {body!r}")

        fill_the_dashboard(server, driver)
        path = save_screenshot(driver, screenshots, "dashboard.png")
        check_no_script_errors(driver)
        print(f"ok  expire from the dashboard (screenshot {path})")


def fill_the_dashboard(server, driver):
    """Puts live data on every panel through the page's own controls where it has them:
    a balance update, a fault added and fired, a job failed, streams with subscribers."""
    sessions = [
        server.json("POST", "/v1/player/legislation/login", {"username": "alice", "password": "alice1234"}),
        server.json("POST", "/v1/player/legislation/login", DEMO),
    ]
    # The sessions panel sits above the users panel: its two new rows are drawn before
    # anything below is touched, so nothing moves while it is.
    for login in sessions:
        wait_for(
            lambda: driver.find_elements(By.CSS_SELECTOR, f'tr[data-session-id="{login["sessionId"]}"]'),
            10,
            f"the session of user {login['userId']} on the dashboard",
        )

    # A balance update pushed from the users table moves the balance the API reports.
    amount = driver.find_element(By.CSS_SELECTOR, f'tr[data-user-id="{DEMO_USER_ID}"] input.amount')
    amount.clear()
    amount.send_keys("-28")
    click_when_present(driver, f'tr[data-user-id="{DEMO_USER_ID}"] button[data-action="balance"]', "Push balance")
    wait_for(
        lambda: any(
            user["userId"] == DEMO_USER_ID and abs(user["realBalance"] - 717.96) < 0.001
            for user in server.json("GET", "/__admin/users")
        ),
        10,
        "the pushed balance update (745.96 - 28) in the user's balance",
        detail=lambda: (
            f"users {[(u['userId'], u['realBalance']) for u in server.json('GET', '/__admin/users')]}, "
            f"notice {driver.find_element(By.ID, 'notice').text!r}"
        ),
    )

    # A fault added through the form fires on the next matching request.
    form = driver.find_element(By.ID, "fault-form")
    form.find_element(By.NAME, "path").send_keys("/health")
    form.find_element(By.NAME, "times").send_keys("1")
    press(driver, form.find_element(By.CSS_SELECTOR, "button[type=submit]"))
    rule = wait_for(
        lambda: next((r for r in server.json("GET", "/__admin/faults") if r["match"].get("path") == "/health"), None),
        10,
        "the fault rule added from the form",
    )
    status, _, _ = server.request("GET", "/health")
    check(status == 503, f"the fault from the form should answer 503 on /health, got {status}")
    wait_for(lambda: feed_items(driver, "fault.fired", rule["id"]), 10, "fault.fired in the live feed")

    # Two imports (one failed from the page, one still running) and a generation.
    running = server.upload_csv(books_csv(5000))
    failing = server.upload_csv(books_csv(3000))["jobId"]
    click_when_present(
        driver, f'tr[data-job-id="{failing}"] button[data-action="fail"]', "the import's Fail button", timeout=15
    )
    wait_for(
        lambda: server.json("GET", f"/api/v2/imports/{failing}")["status"] == "error", 10, "the import failed"
    )
    token = server.json("POST", "/api/auth/login", {"email": "demo@example.com", "password": "demo1234"})["token"]
    server.json(
        "POST",
        "/api/generations",
        {"prompt": "a lighthouse at dusk"},
        headers={"Authorization": f"Bearer {token}"},
        expect=201,
    )
    # Subscribers: this page listens on a channel and on the running import's stream.
    driver.execute_script(
        "window.__demoStreams = [new EventSource('/sse/channels/demo'), new EventSource(arguments[0])];",
        running["sseUrl"],
    )
    open_socket(driver, "demo", running["jobId"])
    wait_for(
        lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-stream="channels/demo"] li'),
        10,
        "the channel's subscriber on the dashboard",
    )
    wait_for(
        lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-generation-id][data-status="processing"]'),
        10,
        "the generation in progress on the dashboard",
    )
    wait_for(
        lambda: driver.find_elements(By.CSS_SELECTOR, f'tr[data-job-id="{failing}"][data-status="error"]'),
        10,
        "the failed import on the dashboard",
    )
    driver.execute_script("window.scrollTo(0, 0)")


def test_every_other_action(binary):
    """The buttons the first test leaves alone, each clicked once and its effect checked
    outside the page: Kick, Complete and Fail on a generation, Complete on an import, Drop
    on a stream, Remove on a fault rule. A manual clock holds every job where it is until a
    button moves it."""
    with Server(binary, "--clock", "manual") as server, Browser() as driver:
        driver.get(server.url("/"))
        wait_for(lambda: feed_state(driver) == "live", 15, "the dashboard's live feed to open")

        # Kick: the session ends as Kicked (3), the feed says so, and the API answers 403.
        session = player_login(server)
        balance_path = f"/v2/player/{DEMO_USER_ID}/balance"
        click_when_present(
            driver, f'tr[data-session-id="{session}"] button[data-action="kick"]', "the session's Kick button"
        )
        kicked = wait_for(lambda: feed_items(driver, "session.expired", session), 10, "the kick in the live feed")
        check("Kicked (3)" in kicked[0].text, f"the feed says {kicked[0].text!r}, not Kicked (3)")
        status, _, body = server.request("GET", balance_path, headers={"X-SessionId": session})
        check(status == 403, f"after the kick {balance_path} answered {status}, not 403")
        check(json.loads(body).get("errorCode") == 403, f"the 403 body is {body!r}")

        # Complete on an import: every row processed at once.
        job = server.upload_csv(books_csv(40))["jobId"]
        click_when_present(driver, f'tr[data-job-id="{job}"] button[data-action="complete"]', "the import's Complete")
        snapshot = wait_for(
            lambda: (s := server.json("GET", f"/api/v2/imports/{job}"))["status"] == "complete" and s,
            10,
            "the import completed",
        )
        check(snapshot["processedRows"] == 40, f"the completed import says {snapshot}")

        # Complete and Fail on generations.
        token = server.json("POST", "/api/auth/login", {"email": "demo@example.com", "password": "demo1234"})["token"]
        bearer = {"Authorization": f"Bearer {token}"}
        create = lambda prompt: server.json(  # noqa: E731
            "POST", "/api/generations", {"prompt": prompt}, headers=bearer, expect=201
        )["id"]
        for action, expected in (("complete", "completed"), ("fail", "failed")):
            generation = create(f"a lighthouse, then {action}")
            click_when_present(
                driver,
                f'tr[data-generation-id="{generation}"] button[data-action="{action}"]',
                f"the generation's {action} button",
            )
            wait_for(
                lambda: server.json("GET", f"/api/generations/{generation}", headers=bearer)["status"] == expected,
                10,
                f"the generation {expected}",
            )

        # Drop and End on a stream with a subscriber: the server ends its connection (Drop
        # without the end of the body, End with it), as the feed tells (`admin` either way).
        for channel, action, label in (("actions", "disconnect", "Drop"), ("ended", "end-gracefully", "End")):
            driver.execute_script(f"window.__dropped = new EventSource('/sse/channels/{channel}');")
            wait_for(
                lambda: feed_items(driver, "stream.connected", f"channels/{channel}"), 10, "the channel's subscriber"
            )
            click_when_present(driver, f'tr[data-stream="channels/{channel}"] button[data-action="{action}"]', label)
            dropped = wait_for(
                lambda: feed_items(driver, "stream.disconnected", f"channels/{channel}"),
                10,
                f"the {label} in the live feed",
            )
            check("(admin)" in dropped[0].text, f"the feed says {dropped[0].text!r}, not an admin end")
            driver.execute_script("window.__dropped.close();")

        # The same buttons on a WebSocket subscriber (the V1 progress socket of an import):
        # the panel shows it with a WebSocket badge, the feed names the protocol, and the
        # page's own socket sees the server end it (Drop: 1006, End: a close frame 1001).
        for action, label, code in (("disconnect", "Drop", 1006), ("end-gracefully", "End", 1001)):
            job = server.upload_csv(books_csv(40))["jobId"]
            stream = f"imports/{job}"
            record = open_socket(driver, f"dashboard-{action}", job)
            subscriber = f'tr[data-stream="{stream}"] li[data-protocol="websocket"]'
            wait_for(
                lambda: any(
                    badge.text == "WebSocket"
                    for badge in driver.find_elements(By.CSS_SELECTOR, f"{subscriber} .badge.protocol")
                ),
                10,
                "the WebSocket subscriber with its badge in the streams panel",
            )
            connected = wait_for(
                lambda: feed_items(driver, "stream.connected", stream), 10, "the socket's stream.connected in the feed"
            )
            check("WebSocket connection" in connected[0].text, f"the feed says {connected[0].text!r}")
            button = f'tr[data-stream="{stream}"] button[data-action="{action}"]'
            click_when_present(driver, button, f"{label} on the WebSocket's stream")
            closed = wait_for(lambda: record()["close"], 10, f"the page's socket to close after {label}")
            check(closed["code"] == code, f"after {label} the page's close event was {closed}, not code {code}")
            dropped = wait_for(
                lambda: feed_items(driver, "stream.disconnected", stream), 10, f"the {label} of the socket in the feed"
            )
            check("(admin)" in dropped[0].text, f"the feed says {dropped[0].text!r}, not an admin end")
            wait_for(
                lambda: not driver.find_elements(By.CSS_SELECTOR, subscriber), 10, "the subscriber to leave the panel"
            )

        # Remove on a fault rule: the admin API no longer lists it.
        fault = {"match": {"path": "/nowhere"}, "fault": {"kind": "reset"}}
        rule = server.json("POST", "/__admin/faults", fault, expect=201)
        click_when_present(
            driver, f'tr[data-fault-id="{rule["id"]}"] button[data-action="remove"]', "the rule's Remove button"
        )
        wait_for(
            lambda: all(r["id"] != rule["id"] for r in server.json("GET", "/__admin/faults")),
            10,
            "the fault rule removed",
        )
        wait_for(
            lambda: not driver.find_elements(By.CSS_SELECTOR, f'tr[data-fault-id="{rule["id"]}"]'),
            10,
            "the rule's row to go",
        )
        check_no_script_errors(driver)
        print("ok  every other dashboard action (kick, complete, fail, drop, end, drop and end a WebSocket, remove)")


def test_import_stream_resumes_in_chromium(binary):
    """Chromium's EventSource on an import stream; the admin API drops the connection; the
    browser comes back after `retry:` with Last-Event-ID and sees every event exactly once.
    A manual clock makes the events come exactly when the test says."""
    with Server(binary, "--clock", "manual", "--seed", "11") as server, Browser() as driver:
        driver.get(server.url("/"))
        job = server.upload_csv(books_csv(100))
        stream = f"imports/{job['jobId']}"
        driver.execute_script(
            """
            const record = { events: [], opens: 0, errors: 0 };
            const source = new EventSource(arguments[0]);
            source.onopen = () => { record.opens += 1; };
            source.onerror = () => { record.errors += 1; };
            for (const type of ["started", "progress", "complete", "error"]) {
              source.addEventListener(type, (event) => {
                // The stream's own `event: error` shares its name with EventSource's
                // connection error, which carries no data.
                if (event.data === undefined) return;
                record.events.push({ type, id: event.lastEventId, data: JSON.parse(event.data) });
              });
            }
            window.__import = { record, source };
            """,
            job["sseUrl"],
        )
        record = lambda: driver.execute_script("return window.__import.record")  # noqa: E731
        ready_state = lambda: driver.execute_script("return window.__import.source.readyState")  # noqa: E731
        advance = lambda ms: server.json("POST", "/__admin/clock/advance", {"ms": ms})  # noqa: E731

        wait_for(lambda: record()["opens"] == 1, 10, "the import stream to open in the browser")
        advance(100)  # the queue delay: `started`
        advance(400)  # two ticks of 10 rows: two `progress`
        wait_for(lambda: len(record()["events"]) == 3, 10, "three events in the browser")
        before_drop = record()["events"]
        last_before_drop = before_drop[-1]["id"]

        dropped = server.json("POST", f"/__admin/streams/{stream}/disconnect", {})
        check(dropped["disconnected"] == 1, f"the disconnect dropped {dropped['disconnected']} connections, not 1")
        wait_for(lambda: record()["errors"] >= 1, 10, "the browser to notice the dropped connection")
        advance(400)  # two more events while the browser is away: they must come by replay
        # The stream says `retry: 5000`, so the browser comes back after about five seconds.
        wait_for(lambda: record()["opens"] == 2, 15, "the browser to reconnect")
        wait_for(lambda: len(record()["events"]) == 5, 10, "the two missed events replayed")
        advance(2000)  # the remaining 60 rows, then `complete`; the stream ends
        wait_for(lambda: any(e["type"] == "complete" for e in record()["events"]), 10, "the complete event")
        # After the end the browser asks once more with Last-Event-ID; 204 stops it for good.
        wait_for(lambda: ready_state() == 2, 15, "EventSource to stop (CLOSED) on 204")

        events = record()["events"]
        ids = [int(event["id"]) for event in events]
        snapshot = next(s for s in server.json("GET", "/__admin/streams") if s["name"] == stream)
        expected = list(range(1, int(snapshot["lastEventId"]) + 1))
        check(ids == expected, f"the browser saw ids {ids}, expected each of {expected} exactly once in order")
        check(events[0]["type"] == "started" and events[-1]["type"] == "complete", f"events: {events}")
        rows = [e["data"]["processedRows"] for e in events if e["type"] == "progress"]
        check(rows == sorted(set(rows)), f"processedRows went {rows}")

        connections = server.json("GET", f"/__admin/streams/connections?stream={stream}")
        streamed = [c for c in connections if c.get("deliveredCount", 0) > 0]
        check(len(streamed) == 2, f"expected two connections with events, got {json.dumps(connections)}")
        first, second = streamed
        check(first.get("lastEventId") is None, f"the first connection sent Last-Event-ID {first.get('lastEventId')}")
        check(
            second.get("lastEventId") == last_before_drop,
            f"the reconnect sent Last-Event-ID {second.get('lastEventId')!r}, not {last_before_drop!r}",
        )
        delivered = first["deliveredIds"] + second["deliveredIds"]
        check(
            [int(i) for i in delivered] == expected,
            f"the server delivered {delivered} over the two connections, expected {expected} once each",
        )
        gap = (second.get("reconnect") or {}).get("gapMs")
        check(gap is not None and gap >= 4500, f"the reconnect came {gap} ms after the drop; retry was 5000 ms")
        check_no_script_errors(driver)
        print(f"ok  import stream resumed in Chromium (Last-Event-ID {last_before_drop}, gap {gap:.0f} ms)")


def test_progress_websocket_in_chromium(binary):
    """Chromium's own WebSocket on the V1 progress socket: a whole job arrives as JSON
    messages (started first, complete last) and ends with a clean close 1000; then the admin
    disconnect ends other sockets, and the page's `close` event says how: 1001 with
    `graceful`, 1006 (not clean) by default (FIN) and with `reset` (RST). A manual clock
    moves the jobs only when the test says."""
    with Server(binary, "--clock", "manual") as server, Browser() as driver:
        driver.get(server.url("/"))
        advance = lambda ms: server.json("POST", "/__admin/clock/advance", {"ms": ms})  # noqa: E731

        job = server.upload_csv(books_csv(100))["jobId"]
        record = open_socket(driver, "whole", job)
        wait_for(lambda: record()["opened"], 10, "the WebSocket to open in the browser")
        advance(100)  # the queue delay: `started`
        advance(400)  # two ticks of 10 rows: two `progress`
        wait_for(lambda: len(record()["messages"]) == 3, 10, "three messages in the browser")
        advance(2000)  # the other 80 rows, then `complete` and the close frame
        closed = wait_for(lambda: record()["close"], 10, "the socket's close event after complete")
        whole = record()
        types = [message.get("type") for message in whole["messages"]]
        check(not whole["unparsed"], f"messages that are not JSON: {whole['unparsed']}")
        check(
            types[0] == "started" and types[-1] == "complete" and set(types[1:-1]) == {"progress"},
            f"the browser saw the types {types}",
        )
        check(len(types) == stream_events(server, f"imports/{job}"), f"{len(types)} messages for the stream's events")
        check(all(m.get("jobId") == job for m in whole["messages"]), f"messages of another job: {whole['messages']}")
        rows = [m["processedRows"] for m in whole["messages"] if m["type"] == "progress"]
        check(rows == sorted(set(rows)) and rows[-1] == 100, f"processedRows went {rows}")
        check(whole["messages"][-1].get("successfulRows") == 100, f"complete says {whole['messages'][-1]}")
        check(closed["code"] == 1000 and closed["wasClean"], f"the close event after complete was {closed}")
        check(whole["errors"] == 0, f"{whole['errors']} error event(s) on a clean run")

        # The admin disconnect, in each mode, on a socket that has read the history.
        for mode, body, code, clean in (
            ("graceful", {"graceful": True}, 1001, True),
            ("default", {}, 1006, False),
            ("reset", {"reset": True}, 1006, False),
        ):
            job = server.upload_csv(books_csv(100))["jobId"]
            advance(100)
            record = open_socket(driver, mode, job)
            wait_for(lambda: len(record()["messages"]) >= 1, 10, f"the history on the {mode} socket")
            stream = f"imports/{job}"
            wait_for(
                lambda: any(
                    s["name"] == stream and [x.get("protocol") for x in s["subscribers"]] == ["websocket"]
                    for s in server.json("GET", "/__admin/streams")
                ),
                10,
                f"the {mode} socket among the stream's subscribers, as websocket",
            )
            answer = server.json("POST", f"/__admin/streams/{stream}/disconnect", body)
            check(answer["disconnected"] == 1, f"the {mode} disconnect ended {answer['disconnected']} connections")
            closed = wait_for(lambda: record()["close"], 10, f"the close event after the {mode} disconnect")
            check(
                closed["code"] == code and closed["wasClean"] is clean,
                f"after the {mode} disconnect the close event was {closed}, expected code {code}, clean {clean}",
            )
            status = server.json("GET", f"/v1/jobs/{job}/status")
            check(status["jobId"] == job and status["status"] == "processing", f"V1 polling answered {status}")
        check_no_script_errors(driver)
        print(f"ok  V1 progress WebSocket in Chromium ({len(types)} messages, close 1000; admin 1001, 1006, 1006)")


def test_admin_token(binary, screenshots):
    """With --admin-token the page asks for the token, refuses a wrong one, and with the
    right one the panels load and the live feed works (it passes the token as ?access_token=)."""
    token = "browser-test-token"
    with Server(binary, "--admin-token", token) as server, Browser() as driver:
        status, _, _ = server.request("GET", "/__admin/sessions")
        check(status == 401, f"/__admin/sessions without the token answered {status}, not 401")

        driver.get(server.url("/"))
        field = wait_for(
            lambda: (e := driver.find_element(By.ID, "admin-token")).is_displayed() and e, 10, "the token prompt"
        )
        check(feed_state(driver) == "token", f"the feed state is {feed_state(driver)!r} before the token")
        save_screenshot(driver, screenshots, "dashboard-token.png")

        field.send_keys("not-the-token")
        driver.find_element(By.CSS_SELECTOR, "#token-form button[type=submit]").click()
        wait_for(
            lambda: "refused" in driver.find_element(By.ID, "token-error").text, 10, "the wrong token to be refused"
        )
        check(not driver.find_element(By.ID, "dashboard").is_displayed(), "the dashboard showed with a wrong token")

        field.clear()
        field.send_keys(token)
        driver.find_element(By.CSS_SELECTOR, "#token-form button[type=submit]").click()
        wait_for(lambda: feed_state(driver) == "live", 15, "the live feed to open with the token")
        check(not driver.find_element(By.ID, "token-panel").is_displayed(), "the token prompt is still shown")

        session = player_login(server)
        wait_for(lambda: feed_items(driver, "login", session), 10, "the login in the live feed")
        wait_for(
            lambda: driver.find_elements(By.CSS_SELECTOR, f'tr[data-session-id="{session}"]'),
            10,
            "the new session in the sessions table",
        )

        # "Forget it on this tab": the prompt comes back, and the admin API still wants the token.
        driver.find_element(By.ID, "forget-token").click()
        wait_for(lambda: driver.find_element(By.ID, "admin-token").is_displayed(), 10, "the prompt after forgetting")
        check(feed_state(driver) == "token", f"the feed state is {feed_state(driver)!r} after forgetting the token")
        check(
            driver.execute_script("return sessionStorage.getItem('mockbackend.adminToken')") is None,
            "the token is still kept on the tab",
        )
        check_no_script_errors(driver)
        print("ok  dashboard with --admin-token")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the mockbackend executable")
    parser.add_argument("--screenshots", default=".build/browser-screenshots", help="where screenshots go")
    options = parser.parse_args()
    # SIGTERM (run.sh's trap) unwinds like an error, so every server and browser is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tests = [
        ("expire from the dashboard", lambda: test_expire_from_the_dashboard(options.binary, options.screenshots)),
        ("every other dashboard action", lambda: test_every_other_action(options.binary)),
        ("import stream resumes in Chromium", lambda: test_import_stream_resumes_in_chromium(options.binary)),
        ("V1 progress WebSocket in Chromium", lambda: test_progress_websocket_in_chromium(options.binary)),
        ("dashboard with --admin-token", lambda: test_admin_token(options.binary, options.screenshots)),
        ("cross-origin page in Chromium", lambda: test_cross_origin_in_chromium(options.binary)),
        ("dashboard in proxy mode", lambda: test_proxy_dashboard_in_chromium(options.binary, click_when_present)),
        ("recording from the dashboard", lambda: test_recording_from_the_dashboard(options.binary, click_when_present)),
        ("scenarios on the dashboard", lambda: test_scenarios_on_the_dashboard(options.binary, click_when_present)),
        ("20 EventSources over HTTP/2", lambda: test_twenty_sources_over_http2(options.binary)),
        ("the seventh EventSource waits over HTTP/1.1", lambda: test_seventh_source_waits_over_http1(options.binary)),
    ]
    failed = []
    for name, test in tests:
        started = time.monotonic()
        try:
            test()
        except Failure as failure:
            failed.append(name)
            print(f"FAIL {name}: {failure}", file=sys.stderr)
        except Exception:  # a driver or network error is a failure too, with its trace
            failed.append(name)
            print(f"FAIL {name}:\n{traceback.format_exc()}", file=sys.stderr)
        print(f"     ({time.monotonic() - started:.1f} s)")
    if failed:
        print(f"browser tests failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    print(f"browser tests passed ({len(tests)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
