#!/usr/bin/env bash
# Checks openapi/openapi.yaml against the running server.
#
# 1. Validates the document (openapi-spec-validator), and the golden examples in
#    openapi/examples/ against its schemas (check_examples.py).
# 2. Starts the built mockbackend on 127.0.0.1, port 0, with an API key and an admin token.
# 3. Proves that schemathesis validates the JSON inside an event's `data` against the
#    event schema's `contentSchema` (an annotation to JSON Schema; schemathesis checks it
#    through `contentMediaType`): a copy of the document with one payload schema broken
#    must fail on the stream it describes (sse_payloads.py broken-copy).
# 4. Runs schemathesis against every operation, stateless (examples, coverage and fuzzing
#    phases) with every check: no 5xx, every status, content type, header and body as
#    documented (event streams event by event, the JSON in their data included), invalid
#    input refused, valid input accepted, authentication enforced (the admin token
#    included). openapi/contract_hooks.py supplies credentials and existing ids, undoes
#    the global side effects of fault rules and stubs, and tallies the events it saw.
# 5. Fails unless every stream operation whose events carry JSON yielded at least one
#    such event (sse_payloads.py coverage): a stream silent for the whole read checks nothing.
# 6. Stops the server (SIGTERM must end it with status 0) and fails on any finding, on a
#    crash, or on a fatal error in the server's log.
# 7. Starts a second server WITHOUT an admin token, validates the document it serves (whose
#    admin operations declare `security: []`), and runs schemathesis' authentication check
#    (`ignored_auth`) on the admin operations of that document against that server: a
#    document that still declared the token there would fail (the server lets requests
#    without it through). Stopped and checked as in 6.
#
# Run from the repository root after `swift build`. Installs what it uses into
# .build/contract-venv. CONTRACT_MAX_EXAMPLES (default 25) bounds the fuzzing phase;
# CONTRACT_SEED changes the generated inputs; CONTRACT_EXTRA_ARGS is added to the
# schemathesis command line (e.g. "--include-path-regex ^/api/v2/imports" to focus; step 5
# is then skipped);
# CONTRACT_HOOKS names another hooks file (one that loads contract_hooks.py and adds
# its own, to debug); CONTRACT_TIME_LIMIT (default 1200 s) stops a run that hangs.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
VENV=.build/contract-venv
REQUIREMENTS=openapi/contract-requirements.txt
WORK=$(mktemp -d)
SERVER_PID=""

cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill -KILL "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

log() { printf 'contract: %s\n' "$*"; }

# start_server LOG ARGS...: starts the built server with ARGS on port 0, logging to LOG;
# sets SERVER_PID and BASE_URL, or exits when it does not come up.
start_server() {
    local server_log=$1 port=""
    shift
    "$BIN" --port 0 "$@" >"$server_log" 2>&1 &
    SERVER_PID=$!
    for _ in $(seq 1 100); do
        port=$(sed -n 's|^mockbackend listening on http://127\.0\.0\.1:\([0-9]*\)$|\1|p' "$server_log" | tail -1)
        [ -n "$port" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        echo "contract: the server did not start" >&2
        cat "$server_log" >&2
        exit 1
    fi
    BASE_URL="http://127.0.0.1:$port"
    log "server on $BASE_URL"
}

# stop_server LOG: fails (status=1) unless the server is still up, ends on SIGTERM with
# status 0, and left no fatal error in LOG.
stop_server() {
    local server_log=$1 server_status=0
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
        echo "contract: the server died during the run" >&2
        tail -50 "$server_log" >&2
        status=1
    else
        kill -TERM "$SERVER_PID"
        wait "$SERVER_PID" || server_status=$?
        if [ "$server_status" -ne 0 ]; then
            echo "contract: the server exited with $server_status on SIGTERM" >&2
            status=1
        fi
    fi
    SERVER_PID=""
    if grep -q "Fatal error" "$server_log"; then
        echo "contract: fatal error in the server log" >&2
        grep -A5 "Fatal error" "$server_log" >&2
        status=1
    fi
}

# --- tools -------------------------------------------------------------------------------
if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
    if ! dpkg -s python3-venv >/dev/null 2>&1; then
        log "installing python3-venv"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    fi
fi
if [ ! -x "$VENV/bin/schemathesis" ] || ! cmp -s "$REQUIREMENTS" "$VENV/requirements.txt"; then
    log "creating $VENV"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQUIREMENTS"
    cp "$REQUIREMENTS" "$VENV/requirements.txt"
fi

# --- the document ------------------------------------------------------------------------
log "validating openapi/openapi.yaml"
"$VENV/bin/openapi-spec-validator" openapi/openapi.yaml
log "validating the golden examples against it"
"$VENV/bin/python" openapi/check_examples.py

# --- the server --------------------------------------------------------------------------
BIN="$(swift build --show-bin-path)/mockbackend"
if [ ! -x "$BIN" ]; then
    echo "contract: $BIN not found; run swift build first" >&2
    exit 1
fi
API_KEY="contract-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
ADMIN_TOKEN="contract-admin-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
SPEED=20
SERVER_LOG="$WORK/server.log"
# --speed 20: a generation takes 1 s and small imports finish at once, so their streams
# end; the user-info stream closes after 0.5 s without an event, as the SPEC has it
# close after --userinfo-idle-timeout. Channels and the admin feed never end: schemathesis
# reads a stream until it has 20 events or the request timeout passes.
# An HTTPS listener with a throwaway certificate, so that GET /__admin/tls/cert.pem answers.
# --admin-token: the admin operations declare it, and `ignored_auth` checks that each one
# refuses a request without it or with a wrong one.
# --mappings: an empty directory, whose WireMock root has the __files/contract.json the
# hooks point a generated bodyFileName at.
mkdir -p "$WORK/stubs/mappings" "$WORK/stubs/__files"
printf '{"from":"a body file"}' >"$WORK/stubs/__files/contract.json"
start_server "$SERVER_LOG" --api-key "$API_KEY" --admin-token "$ADMIN_TOKEN" --speed "$SPEED" --proxy-allow 127.0.0.1 \
    --userinfo-idle-timeout 10 --seed 7 --tls-port 0 --tls-self-signed --log-level warning \
    --mappings "$WORK/stubs/mappings"

# --- event payloads are validated ---------------------------------------------------------
# The broken copy asks the one event of GET /conformance/sse/headers for a header no request
# sends; schemathesis must report that payload, or the contentSchemas below check nothing.
status=0
"$VENV/bin/python" openapi/sse_payloads.py broken-copy openapi/openapi.yaml "$WORK/broken.json"
canary_status=0
HYPOTHESIS_STORAGE_DIRECTORY="$ROOT/.build/contract-hypothesis" timeout --signal=INT --kill-after=30 120 \
    "$VENV/bin/schemathesis" --config-file openapi/schemathesis.toml run "$WORK/broken.json" \
    --url "$BASE_URL" --include-operation-id conformanceHeaders --checks response_schema_conformance \
    --phases fuzzing --max-examples 3 --workers 1 --seed 1 --generation-database none --no-color \
    >"$WORK/canary.log" 2>&1 || canary_status=$?
if [ "$canary_status" -eq 1 ] && grep -q "SSE event payload violates content schema" "$WORK/canary.log" &&
    grep -qF 'x-contract-canary" is a required property' "$WORK/canary.log"; then
    log "event payloads are validated (a broken contentSchema was caught)"
else
    echo "contract: schemathesis did not catch an event payload that breaks its contentSchema" \
        "(status $canary_status), so event payloads would go unchecked:" >&2
    cat "$WORK/canary.log" >&2
    status=1
fi

# --- schemathesis ------------------------------------------------------------------------
# Hypothesis keeps its caches under .build, not in the repository root.
SSE_TALLY="$WORK/sse-tally.jsonl"
CONTRACT_BASE_URL=$BASE_URL CONTRACT_API_KEY=$API_KEY CONTRACT_ADMIN_TOKEN=$ADMIN_TOKEN \
    CONTRACT_SPEED=$SPEED CONTRACT_SSE_TALLY=$SSE_TALLY \
    HYPOTHESIS_STORAGE_DIRECTORY="$ROOT/.build/contract-hypothesis" \
    SCHEMATHESIS_HOOKS="${CONTRACT_HOOKS:-$ROOT/openapi/contract_hooks.py}" \
    timeout --signal=INT --kill-after=30 "${CONTRACT_TIME_LIMIT:-1200}" \
    "$VENV/bin/schemathesis" --config-file openapi/schemathesis.toml run openapi/openapi.yaml \
    --url "$BASE_URL" \
    --checks all \
    --phases examples,coverage,fuzzing \
    --max-examples "${CONTRACT_MAX_EXAMPLES:-25}" \
    --request-timeout 2 \
    --workers 1 \
    --seed "${CONTRACT_SEED:-20261122}" \
    --generation-database none \
    --no-color ${CONTRACT_EXTRA_ARGS:-} || status=$?

if [ -z "${CONTRACT_EXTRA_ARGS:-}" ]; then
    log "event payloads validated, by stream operation:"
    "$VENV/bin/python" openapi/sse_payloads.py coverage openapi/openapi.yaml "$SSE_TALLY" || status=1
else
    log "CONTRACT_EXTRA_ARGS is set: not requiring every stream operation's payloads"
fi

# --- the server again --------------------------------------------------------------------
stop_server "$SERVER_LOG"

# --- the admin API of a server without a token ---------------------------------------------
# Such a server serves the document with every admin operation open (`security: []`); the
# document must still be valid, and `ignored_auth` (which fails an operation that declares
# authentication yet answers 2xx without it) must pass on every admin operation of the
# document it serves. Short: a few cases an operation, fixtures from the hooks.
OPEN_LOG="$WORK/server-open.log"
start_server "$OPEN_LOG" --api-key "$API_KEY" --speed "$SPEED" --seed 7 --tls-port 0 --tls-self-signed \
    --log-level warning
"$VENV/bin/python" -c 'import sys, urllib.request; sys.stdout.buffer.write(urllib.request.urlopen(sys.argv[1]).read())' \
    "$BASE_URL/openapi.yaml" >"$WORK/served-open.yaml"
log "validating the document a server without an admin token serves"
"$VENV/bin/openapi-spec-validator" "$WORK/served-open.yaml" || status=1
CONTRACT_BASE_URL=$BASE_URL CONTRACT_API_KEY=$API_KEY CONTRACT_SPEED=$SPEED \
    HYPOTHESIS_STORAGE_DIRECTORY="$ROOT/.build/contract-hypothesis" \
    SCHEMATHESIS_HOOKS="${CONTRACT_HOOKS:-$ROOT/openapi/contract_hooks.py}" \
    timeout --signal=INT --kill-after=30 "${CONTRACT_TIME_LIMIT:-1200}" \
    "$VENV/bin/schemathesis" --config-file openapi/schemathesis.toml run "$BASE_URL/openapi.yaml" \
    --url "$BASE_URL" \
    --include-path-regex '^/__admin' \
    --checks ignored_auth \
    --phases examples,fuzzing \
    --max-examples 5 \
    --request-timeout 2 \
    --workers 1 \
    --seed "${CONTRACT_SEED:-20261122}" \
    --generation-database none \
    --no-color || status=$?
stop_server "$OPEN_LOG"

if [ "$status" -eq 0 ]; then
    log "the server conforms to openapi/openapi.yaml"
else
    log "FAILED (status $status)"
fi
exit "$status"
