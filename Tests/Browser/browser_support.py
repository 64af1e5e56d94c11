"""What the browser tests share: a mockbackend process, plain HTTP calls, a headless
Chromium driven by selenium, and waits that poll a condition until a deadline."""

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

LISTENING = re.compile(r"^mockbackend listening on (http://\S+)$")


class Failure(Exception):
    """A check that did not hold; its message says which and what was seen."""


def wait_for(condition, timeout, what, interval=0.05, detail=None):
    """Polls `condition` until it returns something truthy (returned) or `timeout` seconds pass.
    A stale element (the page redrew a table meanwhile) counts as "not yet". `detail`, if
    given, says what was seen instead, for the failure's message."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except (StaleElementReferenceException, ConnectionError) as error:
            last_error = error
        if time.monotonic() >= deadline:
            seen = f"; seen: {detail()}" if detail else ""
            error = f" (last error: {last_error})" if last_error else ""
            raise Failure(f"timed out after {timeout} s waiting for {what}{seen}{error}")
        time.sleep(interval)


def press(driver, element):
    """Clicks `element` as the page's own script would (`element.click()`), after checking
    that it is shown and enabled. A pointer click aims at coordinates: the dashboard redraws
    panels as the live feed brings events, and a row that moved between the aim and the
    press lost the click to whatever took its place."""
    check(element.is_displayed(), f"the element to press is not shown: {element.get_attribute('outerHTML')[:200]}")
    check(element.is_enabled(), f"the element to press is disabled: {element.get_attribute('outerHTML')[:200]}")
    driver.execute_script("arguments[0].click();", element)


def check(condition, message):
    if not condition:
        raise Failure(message)


class Server:
    """`mockbackend --port 0 …` from the repository root, stopped (SIGTERM, then SIGKILL) on exit."""

    def __init__(self, binary, *arguments, startup_timeout=20):
        self.binary = binary
        self.arguments = list(arguments)
        self.startup_timeout = startup_timeout
        self.output = []
        self.process = None
        self.base = None

    def __enter__(self):
        command = [self.binary, "--port", "0", "--log-level", "warning", *self.arguments]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
        )
        found = threading.Event()

        def drain():
            for line in self.process.stdout:
                self.output.append(line.rstrip("\n"))
                match = LISTENING.match(line.strip())
                if match and not found.is_set():
                    self.base = match.group(1)
                    found.set()

        threading.Thread(target=drain, daemon=True).start()
        deadline = time.monotonic() + self.startup_timeout
        while not found.wait(0.05):
            if self.process.poll() is not None or time.monotonic() >= deadline:
                self.stop()
                tail = "\n".join(self.output[-20:])
                ended = f"exited with {self.process.returncode}" if self.process.poll() is not None else "timed out"
                raise Failure(f"{' '.join(command)} {ended} before its 'listening' line:\n{tail}")
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def url(self, path):
        return self.base + path

    def request(self, method, path, body=None, headers=None, raw_body=None):
        """(status, headers, body bytes); JSON bodies are sent as application/json."""
        data = raw_body
        all_headers = dict(headers or {})
        if body is not None:
            data = json.dumps(body).encode()
            all_headers.setdefault("Content-Type", "application/json")
        request = urllib.request.Request(self.url(path), data=data, method=method, headers=all_headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    def json(self, method, path, body=None, headers=None, expect=200):
        status, _, payload = self.request(method, path, body=body, headers=headers)
        check(status == expect, f"{method} {path} answered {status}, not {expect}: {payload[:300]!r}")
        return json.loads(payload) if payload else None

    def upload_csv(self, csv_text, headers=None):
        """POST /api/v2/imports with a multipart `file` part, as `curl -F file=@books.csv` does."""
        boundary = "----mockbackend-browser-test"
        body = (
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"books.csv\"\r\n"
            f"Content-Type: text/csv\r\n\r\n{csv_text}\r\n--{boundary}--\r\n"
        ).encode()
        all_headers = {"Content-Type": f"multipart/form-data; boundary={boundary}", **(headers or {})}
        status, _, payload = self.request("POST", "/api/v2/imports", headers=all_headers, raw_body=body)
        check(status == 202, f"the CSV upload answered {status}: {payload[:300]!r}")
        return json.loads(payload)


def books_csv(rows):
    lines = ["title,author,year"] + [f'"Book, {n}",Author {n},{1900 + n}' for n in range(1, rows + 1)]
    return "\r\n".join(lines) + "\r\n"


class Browser:
    """A headless Chromium with its own profile directory, quit on exit."""

    def __init__(self, width=1440, height=1300, downloads=None, insecure=False):
        self.size = (width, height)
        # Whether certificates are taken unchecked (the server's self-signed one).
        self.insecure = insecure
        self.profile = None
        self.driver = None
        # Where files the page downloads go; None leaves Chromium's default.
        self.downloads = downloads

    def __enter__(self):
        self.profile = tempfile.mkdtemp(prefix="mockbackend-chromium-")
        options = Options()
        options.binary_location = "/usr/bin/chromium"
        for argument in (
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            f"--user-data-dir={self.profile}",
            f"--window-size={self.size[0]},{self.size[1]}",
        ):
            options.add_argument(argument)
        if self.insecure:
            options.add_argument("--ignore-certificate-errors")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        if self.downloads:
            options.add_experimental_option("prefs", {"download.default_directory": self.downloads,
                                                      "download.prompt_for_download": False})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        if self.downloads:
            self.driver.execute_cdp_cmd("Page.setDownloadBehavior",
                                        {"behavior": "allow", "downloadPath": self.downloads})
        self.driver.set_page_load_timeout(20)
        self.driver.set_script_timeout(20)
        return self.driver

    def __exit__(self, *exc):
        try:
            if self.driver is not None:
                self.driver.quit()
        except WebDriverException:
            pass
        shutil.rmtree(self.profile, ignore_errors=True)


def uncaught_script_errors(driver):
    """Script errors the page logged (a 401 or a dropped stream is logged too, and is not one)."""
    return [entry["message"] for entry in driver.get_log("browser") if "Uncaught" in entry.get("message", "")]


def save_screenshot(driver, directory, name):
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, name)
    check(driver.save_screenshot(path), f"could not save the screenshot {path}")
    return path
