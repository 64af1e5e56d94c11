#!/bin/sh
# What an app's test run might check against the mock, in POSIX sh with curl only: wait
# until the mock is healthy, log in, expire the session through the admin API, and see the
# player API answer 403 "Session expired" for it.
#
#   sh docker/example-check.sh [BASE_URL]
#
# BASE_URL: the first argument, else MOCKBACKEND_URL, else http://127.0.0.1:8080.
# MOCKBACKEND_ADMIN_TOKEN, when the mock has one, is sent to the admin API.
# MOCKBACKEND_WAIT_SECONDS (default 30) bounds the wait for health.
set -eu

base=${1:-${MOCKBACKEND_URL:-http://127.0.0.1:8080}}
base=${base%/}
wait_seconds=${MOCKBACKEND_WAIT_SECONDS:-30}

fail() {
    echo "example-check: FAIL: $*" >&2
    exit 1
}

# An admin request: POST PATH BODY, with the admin token when there is one.
admin_post() {
    if [ -n "${MOCKBACKEND_ADMIN_TOKEN:-}" ]; then
        curl -fsS -X POST "$base$1" -H 'Content-Type: application/json' \
            -H "Authorization: Bearer $MOCKBACKEND_ADMIN_TOKEN" -d "$2"
    else
        curl -fsS -X POST "$base$1" -H 'Content-Type: application/json' -d "$2"
    fi
}

# The status of GET PATH with the session; the body goes to $body_file.
session_get() {
    curl -sS -o "$body_file" -w '%{http_code}' "$base$1" -H "X-SessionId: $session"
}

waited=0
until curl -fsS -o /dev/null "$base/health" 2>/dev/null; do
    [ "$waited" -lt "$wait_seconds" ] || fail "$base/health not healthy within $wait_seconds s"
    sleep 1
    waited=$((waited + 1))
done
echo "example-check: $base is healthy"

body_file=$(mktemp)
trap 'rm -f "$body_file"' EXIT

login=$(curl -fsS -X POST "$base/v1/player/legislation/login" -H 'Content-Type: application/json' \
    -d '{"username":"demo","password":"demo1234"}') || fail "login as demo failed"
session=$(printf '%s' "$login" | sed -n 's/.*"sessionId":"\([^"]*\)".*/\1/p')
user=$(printf '%s' "$login" | sed -n 's/.*"userId":\([0-9][0-9]*\).*/\1/p')
[ -n "$session" ] && [ -n "$user" ] || fail "no sessionId/userId in the login answer: $login"
echo "example-check: logged in as user $user, session $session"

status=$(session_get "/v2/player/$user/balance")
[ "$status" = 200 ] || fail "balance with a live session answered $status: $(cat "$body_file")"

admin_post "/__admin/sessions/$session/expire" '{"reason":"Expired","code":1}' >/dev/null \
    || fail "the admin API did not expire session $session"
echo "example-check: expired session $session through the admin API"

status=$(session_get "/v2/player/$user/balance")
[ "$status" = 403 ] || fail "balance with an expired session answered $status, not 403: $(cat "$body_file")"
grep -q '"Session expired"' "$body_file" || fail "the 403 does not say \"Session expired\": $(cat "$body_file")"
echo "example-check: OK: the expired session gets 403 \"Session expired\""
