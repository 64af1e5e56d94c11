"""Validates every golden example in openapi/examples/ against the schema that describes it
in openapi/openapi.yaml, and fails on an example that no schema claims.

The Swift tests decode the same files into the wire types and compare them with what the
server sends (GoldenExampleTests), so the document, the examples and the server are held
to one another. Run by openapi/check.sh with the contract venv's Python.
"""

from __future__ import annotations

import json
import pathlib
import sys

import yaml
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = pathlib.Path(__file__).resolve().parent
SCHEMAS = "#/components/schemas/"
PATHS = "#/paths/"


def path(route: str) -> str:
    """A JSON pointer to a path item: `/` in the route is `~1`."""
    return PATHS + route.replace("~", "~0").replace("/", "~1")


def event_data(schema: str) -> str:
    """The schema of an event's data: its `contentSchema`."""
    return SCHEMAS + schema + "/properties/data/contentSchema"


JSON = "/content/application~1json/schema"

EXAMPLES = {
    "player/login-request.json": SCHEMAS + "PlayerLoginRequest",
    "player/login-response.json": SCHEMAS + "PlayerLoginResponse",
    "player/error-session-expired.json": SCHEMAS + "PlayerError",
    "player/balance.json": SCHEMAS + "PlayerBalance",
    "player/balance-update.json": SCHEMAS + "UserInfoMessage",
    "player/balance-update-v2.json": SCHEMAS + "UserInfoMessage",
    "player/session-expiration.json": SCHEMAS + "UserInfoMessage",
    "player/session-terminated.json": SCHEMAS + "UserInfoMessage",
    "imports/accepted.json": SCHEMAS + "ImportAccepted",
    "imports/status.json": SCHEMAS + "ImportStatus",
    "imports/status-failed.json": SCHEMAS + "ImportStatus",
    "imports/event-started.json": event_data("ImportStartedEvent"),
    "imports/event-progress.json": event_data("ImportProgressEvent"),
    "imports/event-complete.json": event_data("ImportCompleteEvent"),
    "imports/event-error.json": event_data("ImportErrorEvent"),
    # Text messages of the V1 progress WebSocket: the event data above with `type`.
    "imports/v1-message-progress.json": SCHEMAS + "V1ProgressMessage",
    "imports/v1-message-error.json": SCHEMAS + "V1ProgressMessage",
    "generations/login-request.json": path("/api/auth/login") + "/post/requestBody" + JSON,
    "generations/login-response.json": path("/api/auth/login") + "/post/responses/200" + JSON,
    "generations/create-request.json": path("/api/generations") + "/post/requestBody" + JSON,
    "generations/create-response.json": SCHEMAS + "GenerationCreated",
    "generations/status.json": SCHEMAS + "Generation",
    "generations/status-failed.json": SCHEMAS + "Generation",
    "generations/token-balance.json": SCHEMAS + "TokenBalance",
    "generations/event-progress.json": event_data("GenerationProgressEvent"),
    "generations/event-completed.json": event_data("GenerationCompletedEvent"),
    "generations/event-failed.json": event_data("GenerationFailedEvent"),
    "workflows/sessions.json": path("/api/sessions") + "/get/responses/200" + JSON,
    "workflows/status.json": SCHEMAS + "WorkflowStatus",
    # One example per topic the simulation publishes; WorkflowEvent holds each topic's
    # payload to its schema.
    "workflows/event-iteration-started.json": SCHEMAS + "WorkflowEvent",
    "workflows/event-tool-called.json": SCHEMAS + "WorkflowEvent",
    "workflows/event-hat-changed.json": SCHEMAS + "WorkflowEvent",
    "workflows/event-session-paused.json": SCHEMAS + "WorkflowEvent",
    "workflows/event-session-resumed.json": SCHEMAS + "WorkflowEvent",
    "workflows/event-session-steered.json": SCHEMAS + "WorkflowEvent",
    "workflows/event-loop-completed.json": SCHEMAS + "WorkflowEvent",
    "workflows/steer-request.json": path("/api/sessions/{id}/steer") + "/post/requestBody" + JSON,
}


# Examples a schema must refuse: the schemas that tell two shapes apart really do. A
# session's status has `mode`, which the list's items must not have.
COUNTER_EXAMPLES = {
    "workflows/status.json": SCHEMAS + "WorkflowSummary",
}


def main() -> int:
    document = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    registry = Registry().with_resource("urn:openapi", Resource.from_contents(document, DRAFT202012))
    failures = 0
    present = {str(p.relative_to(ROOT / "examples")) for p in (ROOT / "examples").rglob("*.json")}
    for name in sorted(present - EXAMPLES.keys()):
        print(f"examples/{name}: no schema is named for it in check_examples.py")
        failures += 1
    for name, pointer in sorted(EXAMPLES.items()):
        if name not in present:
            print(f"examples/{name}: missing")
            failures += 1
            continue
        example = json.loads((ROOT / "examples" / name).read_text(encoding="utf-8"))
        validator = Draft202012Validator({"$ref": "urn:openapi" + pointer}, registry=registry)
        for error in validator.iter_errors(example):
            print(f"examples/{name}: {'/'.join(map(str, error.absolute_path)) or '(root)'}: {error.message}")
            failures += 1
    for name, pointer in sorted(COUNTER_EXAMPLES.items()):
        example = json.loads((ROOT / "examples" / name).read_text(encoding="utf-8"))
        validator = Draft202012Validator({"$ref": "urn:openapi" + pointer}, registry=registry)
        if validator.is_valid(example):
            print(f"examples/{name}: {pointer.removeprefix(SCHEMAS)} accepts it, but must not")
            failures += 1
    print(f"golden examples: {len(present)} checked, {failures} problems")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
