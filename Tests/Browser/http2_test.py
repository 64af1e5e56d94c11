"""Chromium opens 20 EventSources to one origin over the TLS listener: over HTTP/2 they
share one connection and all 20 get an event within a second; with `--http2 off` the
browser's six connections per origin are all it opens, and the seventh source stays
CONNECTING. The certificate is the server's own self-signed one, which this Chromium is
told to accept."""

import re
import time

from browser_support import Browser, Failure, Server, check, wait_for

SOURCES = 20


def tls_base(server):
    for line in server.output:
        if match := re.search(r"(https://127\.0\.0\.1:\d+)/", line):
            return match.group(1)
    raise Failure("the server printed no https address")


def open_sources(driver, base):
    # A page with no requests of its own: the dashboard's live feed and polling would take
    # some of the six HTTP/1.1 connections, in an order that varies from run to run.
    driver.get(base + "/health")
    driver.execute_script(
        """
        const record = { events: new Array(arguments[1]).fill(0) };
        window.__sources = [];
        for (let n = 0; n < arguments[1]; n++) {
          const source = new EventSource(arguments[0] + "/sse/channels/h2-browser?n=" + n);
          source.onmessage = () => { record.events[n] += 1; };
          window.__sources.push(source);
        }
        window.__h2 = record;
        """,
        base,
        SOURCES,
    )


def states(driver):
    return driver.execute_script("return window.__sources.map((s) => s.readyState)")


def received(driver):
    return driver.execute_script("return window.__h2.events")


def test_twenty_sources_over_http2(binary):
    with Server(binary, "--tls-port", "0", "--tls-self-signed") as server, Browser(insecure=True) as driver:
        base = tls_base(server)
        open_sources(driver, base)
        wait_for(lambda: all(state == 1 for state in states(driver)), 10, "20 EventSources open over h2")
        started = time.monotonic()
        server.json("POST", "/__admin/streams/channels/h2-browser/events", {"data": "hello"})
        wait_for(lambda: all(count >= 1 for count in received(driver)), 2, "the event at all 20 sources")
        elapsed = time.monotonic() - started
        check(elapsed < 1.0, f"the 20 sources took {elapsed:.2f} s")
        requests = server.json("GET", "/__admin/requests?limit=40")
        entries = requests["requests"] if isinstance(requests, dict) else requests
        h2 = [entry for entry in entries if entry.get("protocol") == "h2" and "h2-browser" in entry["target"]]
        check(len(h2) == SOURCES, f"{len(h2)} of the stream requests came over h2, not {SOURCES}")
        check(len({entry["http2Connection"] for entry in h2}) == 1, "the 20 streams did not share one connection")
        print(f"ok  20 EventSources over h2 on one connection, the event at all 20 in {elapsed:.2f} s")


def test_seventh_source_waits_over_http1(binary):
    with Server(binary, "--tls-port", "0", "--tls-self-signed", "--http2", "off") as server, \
            Browser(insecure=True) as driver:
        base = tls_base(server)
        open_sources(driver, base)
        wait_for(lambda: states(driver).count(1) >= 6, 30,
                 "six EventSources open over HTTP/1.1", detail=lambda: f"states {states(driver)}")
        time.sleep(2)
        open_now = states(driver)
        check(open_now.count(1) == 6 and open_now.count(0) == SOURCES - 6,
              f"over HTTP/1.1 the browser opened {open_now.count(1)} sources, not 6 with the rest CONNECTING")
        print("ok  over HTTP/1.1 six EventSources open, the seventh and later CONNECTING")
