"""Chromium as a web app on its own dev-server origin: a page served by one mockbackend
(the "dev server") calls another (the mock) cross-origin. With the default `--cors any` it
logs in with JSON (a preflight), opens an EventSource `withCredentials` and reads pushed
events; the same page's calls to the mock's admin API are refused, so a web page the
developer visits cannot drive it. Run by dashboard_test.py's main."""

import json
import os
import tempfile

from browser_support import Browser, Server, check, wait_for

PAGE = """<!doctype html>
<meta charset="utf-8">
<title>cross-origin client</title>
<script>
window.record = { events: [], opens: 0, errors: 0, login: null, admin: [] };
</script>
"""


def test_cross_origin_in_chromium(binary):
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "index.html"), "w") as page:
            page.write(PAGE)
        with Server(binary) as mock, Server(binary, "--public-dir", directory) as dev, Browser() as driver:
            driver.get(dev.url("/"))
            check(mock.base != dev.base, "the two servers share an origin")

            # JSON login: a non-simple request, so Chromium sends a preflight first.
            driver.execute_script(
                """
                fetch(arguments[0] + "/v1/player/legislation/login", {
                  method: "POST", credentials: "include",
                  headers: { "Content-Type": "application/json" },
                  body: JSON.stringify({ username: "demo", password: "demo1234" }),
                }).then(async (response) => {
                  window.record.login = { status: response.status,
                    sessionId: response.headers.get("X-SessionId"), body: await response.json() };
                }).catch((error) => { window.record.login = { error: String(error) }; });
                """,
                mock.base,
            )
            wait_for(lambda: driver.execute_script("return window.record.login") is not None, 10, "the login")
            login = driver.execute_script("return window.record.login")
            check(login.get("status") == 200, f"the cross-origin login: {login}")
            check(login["body"].get("sessionId"), f"the page could not read the login body: {login}")

            # EventSource with credentials on the mock's origin.
            driver.execute_script(
                """
                const source = new EventSource(arguments[0] + "/sse/channels/cors", { withCredentials: true });
                source.onopen = () => { window.record.opens += 1; };
                source.onerror = () => { window.record.errors += 1; };
                source.onmessage = (event) => { window.record.events.push(event.data); };
                window.source = source;
                """,
                mock.base,
            )
            wait_for(lambda: driver.execute_script("return window.record.opens") == 1, 10, "the stream to open")
            for text in ["one", "two"]:
                mock.json("POST", "/__admin/streams/channels/cors/events", {"data": text})
            wait_for(
                lambda: driver.execute_script("return window.record.events") == ["one", "two"],
                10,
                "both pushed events in the page",
            )

            # The admin API, from the same page: a JSON POST (preflighted) and a simple one.
            driver.execute_script(
                """
                const base = arguments[0];
                const attempt = (options) => fetch(base + "/__admin/mappings", options)
                  .then((response) => ({ status: response.status }))
                  .catch((error) => ({ error: String(error) }));
                Promise.all([
                  attempt({ method: "POST", headers: { "Content-Type": "application/json" },
                    body: JSON.stringify({ request: { urlPath: "/owned" }, response: { status: 201 } }) }),
                  attempt({ method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" },
                    body: JSON.stringify({ request: { urlPath: "/owned" }, response: { status: 201 } }) }),
                  attempt({ method: "POST", body: "" }),
                ]).then((results) => { window.record.admin = results; });
                """,
                mock.base,
            )
            wait_for(lambda: len(driver.execute_script("return window.record.admin")) == 3, 10, "the admin calls")
            admin = driver.execute_script("return window.record.admin")
            check(all("status" not in r or r["status"] == 0 for r in admin), f"the page read an admin answer: {admin}")
            mappings = mock.json("GET", "/__admin/mappings")
            check(mappings.get("mappings") == [], f"the page added a stub through the admin API: {json.dumps(mappings)}")
            status, _, body = mock.request(
                "POST", "/__admin/reset", headers={"Origin": dev.base, "Content-Type": "application/json"}, raw_body=b"{}"
            )
            check(status == 403 and b"CROSS_ORIGIN_ADMIN" in body, f"a foreign Origin on the admin API: {status} {body!r}")
            print("ok  cross-origin page: login, credentialed EventSource, admin API refused")
