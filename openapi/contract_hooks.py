"""Schemathesis hooks that `openapi/check.sh` loads for its run against a live mockbackend.

Four jobs, none of which skips an operation or a check:

* Authentication. Every operation that declares security gets real credentials: a fresh
  player session (`X-SessionId`, or the `sessionId` cookie on the casino route), a fresh
  bearer token from `POST /api/auth/login`, the workflow API key (as `Authorization:
  Bearer` or `X-API-Key`, alternately), or the admin token the server was started with
  (`Authorization: Bearer`; on `GET /__admin/events` that or `?access_token=`, alternately),
  when the server has one.
  Schemathesis' `ignored_auth` check then removes or spoils them itself to see that they
  are enforced.
* Test data. Path parameters that name things (a user, an import job, a generation, a
  workflow session, a session, a fault rule, a stub mapping, a stream) are replaced, in
  most cases, by something that exists, made just before the call, so that operations
  are exercised beyond their 404. The other cases keep the generated value.
* Isolation. Fault rules and priority stubs act on every later request; a fuzzed one
  (an empty match with `reset`, a stub that answers everything) would make every later
  check about the fault instead of the route. So whatever the call created is removed
  right after its response was checked, and a clock whose speed was changed is set back.
  Stream pushes given a real stream go to `channels/...` streams: a fuzzed push into a
  backend's stream would be data the backend never sends (the document says an admin
  push can add any event).
* Event streams. Every 2xx event stream is tallied (which events, which with JSON data),
  so that check.sh can fail when a stream operation's payloads were never validated; the
  user-info stream, which is silent unless a balance moves, gets balance postings while it
  is read.

The server is started by check.sh; its base URL, API key, admin token (none for the run
against a server without one) and clock speed come from the environment.
"""

from __future__ import annotations

import http.cookiejar
import itertools
import json
import os
import random
import threading
import time
import uuid

import requests
import schemathesis

BASE = os.environ["CONTRACT_BASE_URL"]
API_KEY = os.environ["CONTRACT_API_KEY"]
# check.sh starts its main run's server with --admin-token: every /__admin route but the
# health check and the certificate asks for it. Its admin-auth run starts one without the
# flag and sets none: the admin API is open, and nothing sends a token.
ADMIN_TOKEN = os.environ.get("CONTRACT_ADMIN_TOKEN", "")
ADMIN_HEADERS = {"Authorization": f"Bearer {ADMIN_TOKEN}"} if ADMIN_TOKEN else {}
SPEED = float(os.environ.get("CONTRACT_SPEED", "1"))
# How often a path parameter names something that exists; the rest stay as generated.
FIXTURE_SHARE = 0.75
# The user the authenticated calls act as; made through the admin API, again after a reset.
USER = {
    "username": "contract",
    "password": "contract-pass",
    "email": "contract@example.com",
    "tokens": 1_000_000,
    "balance": 1000,
}
# Where fixture faults and stubs match: a path nothing requests.
UNTOUCHED = "/contract/untouched"
CHANNEL = "channels/contract"

_random = random.Random(int(os.environ.get("CONTRACT_SEED", "1")))
_lock = threading.Lock()
_http = requests.Session()
# Login sets a `sessionId` cookie; the fixtures' own calls must not carry it around.
_http.cookies.set_policy(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
_counter = itertools.count(1)


def _call(method: str, path: str, **kwargs) -> requests.Response:
    if path.startswith("/__admin/"):
        kwargs["headers"] = {**ADMIN_HEADERS, **(kwargs.get("headers") or {})}
    return _http.request(method, BASE + path, timeout=10, **kwargs)


def _admin_json(method: str, path: str, body=None) -> dict:
    response = _call(method, path, json=body if body is not None else {})
    response.raise_for_status()
    return response.json()


# Credentials ---------------------------------------------------------------------------


def _ensure_user() -> int:
    response = _call("POST", "/__admin/users", json=USER)
    if response.status_code == 201:
        return response.json()["userId"]
    users = _call("GET", "/__admin/users").json()
    for user in users if isinstance(users, list) else []:
        if not isinstance(user, dict) or USER["username"] != user.get("username") and USER["email"] != user.get("email"):
            continue
        # A fuzzed PATCH of the fixture user may have renamed it or changed its password: the
        # fixture's credentials go back, so that its logins work again.
        changed = {key: USER[key] for key in ("username", "password", "email") if user.get(key) != USER[key]}
        if changed:
            _call("PATCH", f"/__admin/users/{user['userId']}", json=changed).raise_for_status()
        return user["userId"]
    raise RuntimeError(f"cannot create the contract user: {response.status_code} {response.text}; users: {users!r:.300}")


def user_id() -> int:
    with _lock:
        return _ensure_user()


def player_session() -> str:
    body = {"username": USER["username"], "password": USER["password"]}
    response = _call("POST", "/v1/player/legislation/login", json=body)
    if response.status_code != 200:
        user_id()
        response = _call("POST", "/v1/player/legislation/login", json=body)
    response.raise_for_status()
    return response.json()["sessionId"]


def bearer_token() -> str:
    body = {"email": USER["email"], "password": USER["password"]}
    response = _call("POST", "/api/auth/login", json=body)
    if response.status_code != 200:
        user_id()
        response = _call("POST", "/api/auth/login", json=body)
    response.raise_for_status()
    return response.json()["token"]


@schemathesis.auth(refresh_interval=None, retry_on=[]).apply_to(path_regex=r"^/v[12]/(player|casino)/").skip_for(
    path="/v1/player/legislation/login"
)
class PlayerSessionAuth:
    """A fresh player session per case: other cases expire, terminate and log out sessions."""

    def get(self, case, context):
        return player_session()

    def set(self, case, data, context):
        if case.operation.path == "/v1/casino/games/recent":
            case.cookies = {**(case.cookies or {}), "sessionId": data}
        else:
            case.headers = {**(case.headers or {}), "X-SessionId": data}


@schemathesis.auth(refresh_interval=None, retry_on=[]).apply_to(path_regex=r"^/api/(generations|tokens)")
class GenerationBearerAuth:
    """A fresh bearer token (a session of the same store) per case."""

    def get(self, case, context):
        return bearer_token()

    def set(self, case, data, context):
        case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schemathesis.auth(refresh_interval=None, retry_on=[]).apply_to(path_regex=r"^/api/sessions")
class WorkflowKeyAuth:
    """The workflow API key, in either of the two places the document allows."""

    def get(self, case, context):
        return API_KEY

    def set(self, case, data, context):
        headers = dict(case.headers or {})
        if next(_counter) % 2:
            headers["Authorization"] = f"Bearer {data}"
        else:
            headers["X-API-Key"] = data
        case.headers = headers


_admin_counter = itertools.count()


class AdminTokenAuth:
    """The admin token: as `Authorization: Bearer`, or on the admin feed (which a browser's
    EventSource opens) as `?access_token=` every other time, the two ways the document allows.
    Registered only when the server has a token: without one the served document declares the
    admin operations open, and a request that carried a token would not show that they are."""

    def get(self, case, context):
        return ADMIN_TOKEN

    def set(self, case, data, context):
        if case.operation.path == "/__admin/events" and next(_admin_counter) % 2:
            case.query = {**(case.query or {}), "access_token": data}
        else:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


if ADMIN_TOKEN:
    schemathesis.auth(refresh_interval=None, retry_on=[]).apply_to(path_regex=r"^/__admin/").skip_for(
        path=["/__admin/health", "/__admin/tls/cert.pem"]
    )(AdminTokenAuth)


# Test data -----------------------------------------------------------------------------


def _csv(rows: int) -> bytes:
    lines = ["title,author,year"] + [f"Book {n},Author {n},{1900 + n % 100}" for n in range(rows)]
    return ("\r\n".join(lines) + "\r\n").encode()


def import_job(paused: bool = False) -> str:
    # Small jobs finish at once; large ones stay queued or processing for a while, so
    # pause, resume and fail meet every state.
    rows = 20_000 if paused else _random.choice([3, 3, 20_000])
    files = {"file": ("books.csv", _csv(rows), "text/csv")}
    response = _call("POST", "/api/v2/imports", files=files)
    response.raise_for_status()
    job = response.json()["jobId"]
    if paused:
        _call("POST", f"/__admin/imports/{job}/pause").raise_for_status()
    return job


def generation_id(completed: bool = False) -> str:
    token = bearer_token()
    response = _call(
        "POST", "/api/generations", json={"prompt": "a lighthouse"}, headers={"Authorization": f"Bearer {token}"}
    )
    response.raise_for_status()
    generation = response.json()["id"]
    if completed:
        _call("POST", f"/__admin/generations/{generation}/complete").raise_for_status()
    return generation


def workflow_id(paused: bool = False) -> str:
    if not paused and _random.random() < 0.3:
        return "s1"
    session = _admin_json("POST", "/__admin/workflows", {"iterations": 3, "paceSeconds": 2})["id"]
    if paused:
        _call("POST", f"/api/sessions/{session}/pause", headers={"X-API-Key": API_KEY}).raise_for_status()
    return session


def fault_id() -> str:
    rule = {"match": {"path": UNTOUCHED}, "fault": {"kind": "status", "status": 418}}
    return _admin_json("POST", "/__admin/faults", rule)["id"]


def mapping_id() -> str:
    mapping = {"request": {"urlPath": UNTOUCHED}, "response": {"status": 204}}
    return _admin_json("POST", "/__admin/mappings", mapping)["id"]


def channel_with_history() -> str:
    """A channel with more events than schemathesis reads, so its stream answers at once."""
    _admin_json("POST", f"/__admin/streams/{CHANNEL}/events", {"event": "note", "data": {"n": 1}, "count": 25})
    return CHANNEL.removeprefix("channels/")


def _fixture(path: str, name: str):
    if name == "userId":
        return user_id()
    if name == "jobId":
        # Mostly a paused job for resume, which answers 409 in every other state.
        return import_job(paused=path.endswith("/resume") and _random.random() < 0.7)
    if name == "sessionId":
        return player_session()
    if name == "stream":
        # Pushes and disconnects act on a channel of its own for each case.
        return f"channels/contract-{next(_counter)}" if _random.random() < 0.5 else CHANNEL
    if name == "name":
        return channel_with_history()
    if name == "id":
        if "/generations/" in path:
            # The image exists once the generation has completed.
            return generation_id(completed=path.endswith("/image.png") and _random.random() < 0.7)
        if "/sessions/" in path or "/workflows/" in path:
            return workflow_id(paused=path.endswith("/resume") and _random.random() < 0.7)
        if "/faults/" in path:
            return fault_id()
        if "/mappings/" in path:
            return mapping_id()
    return None


def _negated_path(case) -> bool:
    """Whether schemathesis made the path parameters invalid on purpose: those stay, or the
    case would be checked as invalid input while sending valid input."""
    components = case.meta.components if case.meta is not None else {}
    return any(location.value == "path" and info.mode.is_negative for location, info in components.items())


def _negated_body(case) -> bool:
    """Whether schemathesis made the body invalid on purpose (it must stay so)."""
    components = case.meta.components if case.meta is not None else {}
    return any(location.value == "body" and info.mode.is_negative for location, info in components.items())


def _feed_user_info(user: int) -> None:
    """Balance postings for `user` (two events each) while its user-info stream is read: the
    stream sends nothing otherwise, and closes after --userinfo-idle-timeout (0.5 s at
    check.sh's speed) without an event, well within the 1 s read. A posting that comes
    before the stream is subscribed is simply not seen, hence three."""

    def post() -> None:
        for _ in range(3):
            time.sleep(0.12)
            try:
                requests.post(
                    f"{BASE}/__admin/users/{user}/balance", json={"amount": 1}, headers=ADMIN_HEADERS, timeout=5
                )
            except requests.RequestException:
                return

    threading.Thread(target=post, daemon=True).start()


# A recording's targetBaseUrl must name an allowed upstream: the server runs with
# --proxy-allow 127.0.0.1, and a generated one is pointed there (port 9, where nothing
# listens), so a valid spec is not refused for the state of the server.
ALLOWED_TARGET = "http://127.0.0.1:9"


# What a mapping's schema cannot say, made true of a valid generated mapping so that it
# is not refused for it: a template (with the response-template transformer) must be one,
# so `{{` in a generated string is split; a bodyFileName names the file check.sh puts in
# the server's __files; a JSONPath is one; pathParameters name urlPathTemplate's variables.
BODY_FILE = "contract.json"


def _without_tags(value):
    if isinstance(value, str):
        return value.replace("{{", "{ {").replace("}}", "} }")
    if isinstance(value, list):
        return [_without_tags(item) for item in value]
    if isinstance(value, dict):
        return {key: _without_tags(item) for key, item in value.items()}
    return value


def _fit_body_pattern(pattern):
    if not isinstance(pattern, dict):
        return pattern
    fitted = dict(pattern)
    if isinstance(fitted.get("matchesJsonPath"), str):
        fitted["matchesJsonPath"] = "$.x"
    elif isinstance(fitted.get("matchesJsonPath"), dict):
        fitted["matchesJsonPath"] = {**fitted["matchesJsonPath"], "expression": "$.x"}
    for key in ("or", "and"):
        if isinstance(fitted.get(key), list):
            fitted[key] = [_fit_body_pattern(item) for item in fitted[key]]
    return fitted


def _fit_mapping(mapping):
    if not isinstance(mapping, dict):
        return mapping
    mapping = dict(mapping)
    response = mapping.get("response")
    if isinstance(response, dict):
        response = dict(response)
        if response.get("transformers"):
            response = _without_tags(response)
        if isinstance(response.get("bodyFileName"), str):
            response["bodyFileName"] = BODY_FILE
        mapping["response"] = response
    request = mapping.get("request")
    if isinstance(request, dict):
        request = dict(request)
        if isinstance(request.get("bodyPatterns"), list):
            request["bodyPatterns"] = [_fit_body_pattern(item) for item in request["bodyPatterns"]]
        if isinstance(request.get("pathParameters"), dict) and request["pathParameters"]:
            for key in ("url", "urlPath", "urlPathPattern", "urlPattern"):
                request.pop(key, None)
            request["urlPathTemplate"] = "/" + "/".join("{%s}" % name for name in request["pathParameters"])
        mapping["request"] = request
    return mapping


MAPPING_OPERATIONS = ("/__admin/mappings", "/__admin/mappings/{id}", "/__admin/mappings/import")


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.operation.path in ("/__admin/recordings/start", "/__admin/recordings/snapshot") and isinstance(
        case.body, dict
    ) and isinstance(case.body.get("targetBaseUrl"), str) and not _negated_body(case):
        case.body = {**case.body, "targetBaseUrl": ALLOWED_TARGET}
    if case.operation.path in MAPPING_OPERATIONS and case.operation.method.upper() in ("POST", "PUT") and isinstance(
        case.body, dict
    ) and not _negated_body(case):
        if isinstance(case.body.get("mappings"), list):
            case.body = {**case.body, "mappings": [_fit_mapping(item) for item in case.body["mappings"]]}
        else:
            case.body = _fit_mapping(case.body)
    parameters = case.path_parameters
    if not parameters or _negated_path(case):
        return
    if _random.random() < FIXTURE_SHARE:
        replaced = dict(parameters)
        for name in parameters:
            value = _fixture(case.operation.path, name)
            if value is not None:
                replaced[name] = value
        case.path_parameters = replaced
    if case.operation.path == "/v2/player/{userId}/information/updates":
        user = user_id()
        if str(case.path_parameters.get("userId")) == str(user):
            _feed_user_info(user)


# Event streams -------------------------------------------------------------------------
#
# Schemathesis validates each event of a text/event-stream response against the schema the
# document gives the response, `data` included: its `contentMediaType` keyword deserializes
# the data and validates it against `contentSchema` (schemathesis/specs/openapi/
# content_keywords.py), inside `oneOf` and through `$ref`. check.sh proves that on every run
# (a copy of the document with one payload schema broken must fail). What it cannot tell is
# whether a stream yielded any event before its read was cut short, so every 2xx stream
# response is tallied here (CONTRACT_SSE_TALLY, one JSON line per response), and
# `sse_payloads.py coverage` fails when a stream operation whose events carry JSON yielded none.

SSE_TALLY = os.environ.get("CONTRACT_SSE_TALLY")


def sse_events(content: bytes) -> list[dict]:
    """The events of a text/event-stream body (WHATWG HTML 9.2.6): lines split at CRLF, LF or
    CR, a leading BOM dropped, comments skipped, one space after the colon removed; a block
    without data is not an event; an event without `event:` is `message`; the last `id:`
    (one without NUL) carries over; a block the body ends in, unterminated, is dropped."""
    text = content.decode("utf-8", errors="replace").removeprefix("\ufeff")
    events, data, fields, last_id = [], [], {}, None
    # The piece after the last line break is no line yet.
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[:-1]:
        if line == "":
            if data:
                events.append({"event": fields.get("event") or "message", "data": "\n".join(data), "id": last_id})
            data, fields = [], {}
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            fields["event"] = value
        elif name == "id" and "\0" not in value:
            last_id = value
    return events


def _tally_events(case, response) -> None:
    content_type = (response.headers.get("content-type") or [""])[0]
    if SSE_TALLY is None or not content_type.lower().startswith("text/event-stream"):
        return
    kinds: dict[str, int] = {}
    json_kinds: dict[str, int] = {}
    for event in sse_events(response.content):
        kinds[event["event"]] = kinds.get(event["event"], 0) + 1
        try:
            json.loads(event["data"])
        except ValueError:
            continue
        json_kinds[event["event"]] = json_kinds.get(event["event"], 0) + 1
    line = {"method": case.method.lower(), "path": case.operation.path, "events": kinds, "json": json_kinds}
    with _lock, open(SSE_TALLY, "a", encoding="utf-8") as tally:
        tally.write(json.dumps(line) + "\n")


# Isolation -----------------------------------------------------------------------------


def _json(response):
    try:
        return response.json()
    except ValueError:
        return None


@schemathesis.hook
def after_call(context, case, response):
    path, method = case.operation.path, case.method.upper()
    if not 200 <= response.status_code < 300:
        return
    _tally_events(case, response)
    body = _json(response)
    if path == "/__admin/faults" and method == "POST" and isinstance(body, dict) and "id" in body:
        _call("DELETE", f"/__admin/faults/{body['id']}")
    elif path.startswith("/__admin/mappings") and method in ("POST", "PUT") and isinstance(body, dict):
        mappings = body.get("mappings") if "mappings" in body else [body]
        for mapping in mappings or []:
            if isinstance(mapping, dict) and "id" in mapping:
                _call("DELETE", f"/__admin/mappings/{mapping['id']}")
    elif path == "/__admin/recordings/start" and method == "POST":
        _call("POST", "/__admin/recordings/stop")
    elif path == "/__admin/clock" and method == "PUT":
        _call("PUT", "/__admin/clock", json={"speed": SPEED})


# Checks ---------------------------------------------------------------------------------


@schemathesis.check
def deliberate_status_only(ctx, response, case):
    """`status-then-ok` answers a first request with the status asked for (503 by default):
    anything but its stream, a 400 for a bad parameter, or exactly that status with the
    CONFORMANCE_STATUS problem is a real failure."""
    if case.operation.path != "/conformance/sse/status-then-ok" or response.status_code < 500:
        return None
    asked = (case.query or {}).get("status", 503)
    body = _json(response)
    code = body.get("code") if isinstance(body, dict) else None
    if str(response.status_code) != str(asked) or code != "CONFORMANCE_STATUS":
        raise AssertionError(
            f"status-then-ok answered {response.status_code} ({code}) where {asked} CONFORMANCE_STATUS was asked for"
        )
    return None
