"""Event payloads in the contract run: that schemathesis validates them, and that every stream
operation yielded some. Run by openapi/check.sh with the contract venv's Python.

    sse_payloads.py broken-copy openapi.yaml broken.json
    sse_payloads.py coverage openapi.yaml tally.jsonl

The document gives the JSON inside an event's `data` as the `contentSchema` of the `data`
field. JSON Schema treats `contentSchema` as an annotation, so a validator checks nothing
with it on its own; schemathesis (4.32) does, in its own `contentMediaType` keyword for
event streams (schemathesis/specs/openapi/content_keywords.py), inside `oneOf` and through
`$ref`. `broken-copy` writes a copy of the document whose `headers` event (GET
/conformance/sse/headers) requires a header no request sends: check.sh runs schemathesis on
it and requires the failure, so an upgrade that stopped checking payloads would fail the
check instead of passing silently.

Schemathesis validates only the events a stream sent before it stopped reading (20 events or
the request timeout). openapi/contract_hooks.py tallies the events of every 2xx stream
response (CONTRACT_SSE_TALLY); `coverage` reads that tally and the document, and fails unless
every operation whose events declare a `contentSchema` yielded at least one such event with
JSON data.
"""

from __future__ import annotations

import json
import sys

import yaml


def lookup(document: dict, ref: str):
    node = document
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def deref(document: dict, node):
    while isinstance(node, dict) and "$ref" in node:
        node = lookup(document, node["$ref"])
    return node


def json_kinds(document: dict, schema) -> set[str]:
    """The `event` names of the event schemas (through `$ref` and `oneOf`/`anyOf`) whose
    `data` declares a `contentSchema`."""
    schema = deref(document, schema)
    if not isinstance(schema, dict):
        return set()
    kinds: set[str] = set()
    for branch in schema.get("oneOf", []) + schema.get("anyOf", []):
        kinds |= json_kinds(document, branch)
    properties = schema.get("properties", {})
    data = deref(document, properties.get("data", {}))
    if isinstance(data, dict) and "contentSchema" in data:
        event = deref(document, properties.get("event", {}))
        if "const" in event:
            kinds.add(event["const"])
        kinds.update(event.get("enum", []))
    return kinds


def stream_operations(document: dict) -> dict[tuple[str, str], tuple[str, set[str]]]:
    """(method, path) → (operationId, event names with JSON data) for each operation with a
    text/event-stream response."""
    found = {}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            kinds: set[str] = set()
            streams = False
            for response in operation["responses"].values():
                content = deref(document, response).get("content", {})
                if "text/event-stream" in content:
                    streams = True
                    kinds |= json_kinds(document, content["text/event-stream"].get("schema"))
            if streams:
                found[(method, path)] = (operation.get("operationId", f"{method} {path}"), kinds)
    return found


def load(document_path: str) -> dict:
    with open(document_path, encoding="utf-8") as file:
        return yaml.safe_load(file)


CANARY = "x-contract-canary"


def broken_copy(document_path: str, output_path: str) -> int:
    document = load(document_path)
    payload = document["components"]["schemas"]["ConformanceHeadersEvent"]["properties"]["data"]["contentSchema"]
    payload["required"] = [*payload.get("required", []), CANARY]
    with open(output_path, "w", encoding="utf-8") as file:
        json.dump(document, file, default=str)
    return 0


def coverage(document_path: str, tally_path: str) -> int:
    document = load(document_path)
    operations = stream_operations(document)
    responses = {key: 0 for key in operations}
    seen: dict[tuple[str, str], dict[str, int]] = {key: {} for key in operations}
    try:
        with open(tally_path, encoding="utf-8") as file:
            lines = [json.loads(line) for line in file if line.strip()]
    except FileNotFoundError:
        lines = []
    for line in lines:
        key = (line["method"], line["path"])
        if key not in seen:
            continue
        responses[key] += 1
        for kind, count in line["json"].items():
            seen[key][kind] = seen[key].get(kind, 0) + count
    missing = []
    for key, (operation_id, kinds) in sorted(operations.items(), key=lambda item: item[1][0]):
        checked = {kind: count for kind, count in seen[key].items() if kind in kinds}
        summary = ", ".join(f"{kind} {count}" for kind, count in sorted(checked.items())) or "none"
        if not kinds:
            print(f"  {operation_id}: {responses[key]} streams, no JSON payloads documented")
            continue
        print(f"  {operation_id}: {responses[key]} streams, JSON payloads checked: {summary}")
        if not checked:
            missing.append(f"{operation_id} (documents {', '.join(sorted(kinds))})")
    if missing:
        print("contract: no event with a JSON payload was read from:", file=sys.stderr)
        for entry in missing:
            print(f"  {entry}", file=sys.stderr)
        print(
            "contract: so their contentSchema was never checked; make them send events within the read",
            file=sys.stderr,
        )
        return 1
    return 0


COMMANDS = {"broken-copy": broken_copy, "coverage": coverage}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    sys.exit(COMMANDS[sys.argv[1]](*sys.argv[2:4]))
