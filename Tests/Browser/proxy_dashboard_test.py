"""The dashboard in proxy mode, in Chromium: served at /__admin/dashboard/ (every other path
is the upstream's), it marks proxied streams and requests as such, lists the session
tokens it has seen (redacted) and expires one with its Expire button, after which that
token's requests are answered without going upstream. The upstream is a second
mockbackend. Run by dashboard_test.py's main."""

import json
import os
import shutil
import tarfile
import tempfile
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from browser_support import Browser, Server, check, wait_for

TOKEN = "browser-proxy-token-5e4d3c2b1a"


def test_proxy_dashboard_in_chromium(binary, click_when_present):
    with Server(binary) as upstream, Server(binary, "--proxy", upstream.base) as proxy, Browser() as driver:
        status, _, _ = proxy.request("GET", "/health", headers={"Authorization": f"Bearer {TOKEN}"})
        check(status == 200, f"a proxied request answered {status}")
        stream = urllib.request.urlopen(
            urllib.request.Request(proxy.url("/sse/channels/shown"), headers={"Authorization": f"Bearer {TOKEN}"}),
            timeout=10)
        try:
            driver.get(proxy.url("/__admin/dashboard/"))
            rows = wait_for(
                lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-proxy-session="t1"]'), 15,
                "the token's row in the proxy session panel")
            check(TOKEN not in rows[0].text, f"the dashboard shows the token whole: {rows[0].text!r}")
            wait_for(
                lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-stream="proxy/sse/channels/shown"] .proxied'),
                15, "the proxied stream marked as such")
            wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "#journal .proxied"), 15,
                     "a proxied request marked as such in the journal")
            click_when_present(driver, 'tr[data-proxy-session="t1"] button[data-action="expire-proxy-session"]',
                               "the token's Expire button")
            wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-proxy-session="t1"][data-state="expired"]'),
                     10, "the token's row to show the expiry")
            # The open stream of that token ended cleanly (read() raises on a timeout or a cut
            # body), and its next request is answered here.
            stream.read()
            asked = len(upstream.json("GET", "/__admin/requests"))
            status, _, body = proxy.request("GET", "/health", headers={"Authorization": f"Bearer {TOKEN}"})
            check(status == 401 and b"SESSION_EXPIRED" in body, f"the expired token got {status} {body[:200]!r}")
            check(len(upstream.json("GET", "/__admin/requests")) == asked, "the expired token's request went upstream")
        finally:
            stream.close()
        print("ok  dashboard in proxy mode: proxied streams and requests marked, a token expired")


def test_recording_from_the_dashboard(binary, click_when_present):
    """Start, a proxied request, Stop, then both downloads: the tar unpacks to the recorded
    mapping, the HAR holds the request."""
    downloads = tempfile.mkdtemp(prefix="mockbackend-downloads-")
    try:
        _record_and_download(binary, click_when_present, downloads)
    finally:
        shutil.rmtree(downloads, ignore_errors=True)


def _record_and_download(binary, click_when_present, downloads):
    with Server(binary) as upstream, Server(binary, "--proxy", upstream.base) as proxy, \
            Browser(downloads=downloads) as driver:
        upstream.request("POST", "/__admin/mappings",
                         body={"request": {"urlPath": "/api/shown"}, "response": {"jsonBody": {"ok": True}}})
        driver.get(proxy.url("/__admin/dashboard/"))
        click_when_present(driver, 'button[data-action="start-recording"]', "the recording's Start button")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, '[data-recording-status="Recording"]'), 10,
                 "the panel to say Recording")
        status, _, _ = proxy.request("GET", "/api/shown")
        check(status == 200, f"the proxied request answered {status}")
        click_when_present(driver, 'button[data-action="stop-recording"]', "the recording's Stop button")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, '[data-recording-status="Stopped"]'), 10,
                 "the panel to say Stopped")
        click_when_present(driver, 'button[data-action="download-recording"]', "the Mappings (.tar) button")
        archive = os.path.join(downloads, "mockbackend-recording.tar")
        wait_for(lambda: os.path.exists(archive) and tarfile.is_tarfile(archive), 10, "the tar download")
        with tarfile.open(archive) as tar:
            names = tar.getnames()
            mapping = json.load(tar.extractfile(names[0]))
        check(len(names) == 1 and mapping["request"]["url"] == "/api/shown", f"the tar holds {names}")
        click_when_present(driver, 'button[data-action="download-har"]', "the Requests (.har) button")
        har = os.path.join(downloads, "mockbackend.har")

        def har_entries():
            try:
                with open(har) as file:
                    return json.load(file)["log"]["entries"]
            except (OSError, ValueError):
                return None

        entries = wait_for(har_entries, 10, "the HAR download")
        check(any(entry["request"]["url"].endswith("/api/shown") for entry in entries), "the HAR lacks the request")
        print("ok  recording from the dashboard: started, stopped, mappings and HAR downloaded")


def test_scenarios_on_the_dashboard(binary, click_when_present):
    """A scenario's state shows, moves when its stub answers, and is set and reset from the
    dashboard."""
    with Server(binary) as server, Browser() as driver:
        for required, new, status in (("Started", "failed once", 503), ("failed once", None, 200)):
            mapping = {"scenarioName": "flaky", "requiredScenarioState": required,
                       "request": {"urlPath": "/api/save"}, "response": {"status": status}}
            if new:
                mapping["newScenarioState"] = new
            server.request("POST", "/__admin/mappings", body=mapping)
        driver.get(server.url("/__admin/dashboard/"))
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-scenario="flaky"][data-state="Started"]'), 15,
                 "the scenario in Started")
        status, _, _ = server.request("GET", "/api/save")
        check(status == 503, f"the first answer was {status}")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-scenario="flaky"][data-state="failed once"]'),
                 15, "the scenario moved by its stub")
        click_when_present(driver, 'button[data-action="reset-scenarios"]', "Reset all")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-scenario="flaky"][data-state="Started"]'), 10,
                 "the scenario reset")
        select = wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, 'select[data-scenario-state="flaky"]'), 10,
                          "the state select")[0]
        Select(select).select_by_value("failed once")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, 'tr[data-scenario="flaky"][data-state="failed once"]'),
                 10, "the state set from the dashboard")
        status, _, _ = server.request("GET", "/api/save")
        check(status == 200, f"the answer in the state set was {status}")
        print("ok  scenarios on the dashboard: moved by a stub, reset, set")
