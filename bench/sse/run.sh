#!/usr/bin/env bash
# SSE fan-out benchmark: mockbackend's channel streams vs the Hummingbird peer's /sse.
#
#   bash bench/sse/run.sh
#
# For each server in turn (never both at once): N concurrent streams (1,000, 5,000, 10,000),
# one event published at a time, time to the last subscriber, server CPU per delivery and
# RSS per idle stream; then one stream taking one publish request of 500,000 events.
# A minimal C epoll server (sse/floor_server.c: one send() per delivery, nothing else)
# runs the fan-out sizes too, as the floor this machine's loopback sets for CPU per
# delivery in the same run.
# Then mockbackend alone over HTTP/2 beside HTTP/1.1 (PROTOCOLS): at H2_SIZES streams, once
# as that many HTTP/1.1 connections (sse/sse_client.c) and once as h2c connections with
# prior knowledge carrying STREAMS_PER_CONNECTION streams each (sse/h2_client.c, nghttp2's
# client), a fresh server for each, the two taking turns for H2_RUNS rounds; the summary
# gives server CPU per delivery over each and the ratio h2c / HTTP/1.1, medians and per run.
#
# Environment (all optional):
#   SIZES=1000,5000,10000  stream counts
#   EVENTS=50              measured events per size (after WARMUP_EVENTS unmeasured ones)
#   WARMUP_EVENTS=3
#   SPACING=0.1            seconds from one publish request to the next (at least)
#   TP_EVENTS=500000       events in the single-stream publish request
#   TP_ROUNDS=5            single-stream rounds (median shown)
#   PER_PROCESS=5000       streams per client process (ulimit -n is 20000 here)
#   SERVER_CPU=0 CLIENT_CPU=1
#   SKIP_BUILD=1           use the release binaries already built
#   WAIT_FOR_IDLE=1        before measuring, wait (up to ~10 min) until the CPUs are >= 85% idle
#   NICE=-10               niceness of servers and clients (default -10 as root, else 0)
#   ONLY=mockbackend|hummingbird|floor   measure one server only (no comparison report)
#   ONLY=h2                the HTTP/2 comparison only (it runs when ONLY is empty or h2)
#   PROTOCOLS=http1,h2c    protocols of the HTTP/2 comparison (empty: none); with both, the
#                          summary has the ratio. h2c needs libnghttp2-dev (pkg-config
#                          libnghttp2); without it the h2c part is skipped
#   H2_SIZES=1000          stream counts of the HTTP/2 comparison
#   H2_RUNS=5              its rounds (each: both protocols, the first alternating)
#   STREAMS_PER_CONNECTION=100   h2c streams per connection (mockbackend announces
#                          SETTINGS_MAX_CONCURRENT_STREAMS 100: more would wait)
#
# Writes bench/results/sse/latest.md (markdown summary, also printed) and the raw JSON of
# each server under bench/results/sse/; the HTTP/2 comparison's JSON goes to
# bench/results/sse/h2/ and its summary to bench/results/sse/h2.md (also printed, and part
# of latest.md). Uses only 127.0.0.1; stops everything it started.
set -euo pipefail

SSE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BENCH="$(cd "$SSE_DIR/.." && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
PEER_DIR="$BENCH/peers/hummingbird-peer"
RESULTS="$BENCH/results/sse"
RAW="$RESULTS/raw"

SIZES="${SIZES:-1000,5000,10000}"
EVENTS="${EVENTS:-50}"
WARMUP_EVENTS="${WARMUP_EVENTS:-3}"
SPACING="${SPACING:-0.1}"
TP_EVENTS="${TP_EVENTS:-500000}"
TP_ROUNDS="${TP_ROUNDS:-5}"
PER_PROCESS="${PER_PROCESS:-5000}"
SERVER_CPU="${SERVER_CPU:-0}"
CLIENT_CPU="${CLIENT_CPU:-1}"
SKIP_BUILD="${SKIP_BUILD:-0}"
WAIT_FOR_IDLE="${WAIT_FOR_IDLE:-0}"
NICE="${NICE:-auto}"
ONLY="${ONLY:-}"
PROTOCOLS="${PROTOCOLS-http1,h2c}"
H2_SIZES="${H2_SIZES:-1000}"
H2_RUNS="${H2_RUNS:-5}"
STREAMS_PER_CONNECTION="${STREAMS_PER_CONNECTION:-100}"

log() { printf '[sse-bench] %s\n' "$*" >&2; }
die() { printf '[sse-bench] error: %s\n' "$*" >&2; exit 1; }

# shellcheck source=../lib/stream_bench.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/stream_bench.sh"

# The /health benchmark and this one would disturb each other.
for _ in $(seq 1 40); do
    pgrep -f "bench/run.sh" >/dev/null || break
    log "bench/run.sh is running; waiting 30 s"
    sleep 30
done
pgrep -f "bench/run.sh" >/dev/null && die "bench/run.sh is still running"

# --- build -----------------------------------------------------------------------------
HB_BUILD=(swift build -c release --static-swift-stdlib --package-path "$PEER_DIR")
mkdir -p "$RESULTS/bin" "$RAW"
CLIENT="$RESULTS/bin/sse_client"
H2_CLIENT="$RESULTS/bin/h2_client"
FLOOR_BIN="$RESULTS/bin/floor_server"
# The Hummingbird peer is needed unless one mockbackend-only part is measured.
NEED_HB=1
case "$ONLY" in mockbackend|floor|h2) NEED_HB=0 ;; ""|hummingbird) ;; *) die "unknown ONLY=$ONLY" ;; esac
if [ "$SKIP_BUILD" != 1 ]; then
    log "building mockbackend (release, static stdlib)"
    build "${MB_BUILD[@]}" --product mockbackend
    if [ "$NEED_HB" = 1 ]; then
        log "building the Hummingbird peer (release, static stdlib)"
        build "${HB_BUILD[@]}"
    fi
fi
gcc -O2 -Wall -o "$CLIENT" "$SSE_DIR/sse_client.c"
gcc -O2 -Wall -o "$FLOOR_BIN" "$SSE_DIR/floor_server.c"
if [[ ",$PROTOCOLS," == *",h2c,"* ]]; then
    if pkg-config --exists libnghttp2 2>/dev/null; then
        # shellcheck disable=SC2046
        gcc -O2 -Wall -o "$H2_CLIENT" "$SSE_DIR/h2_client.c" $(pkg-config --cflags --libs libnghttp2)
    else
        log "libnghttp2-dev is missing (install it with: apt-get install -y libnghttp2-dev pkg-config); skipping h2c"
        PROTOCOLS="$(echo ",$PROTOCOLS," | sed 's/,h2c,/,/g; s/^,//; s/,$//')"
    fi
fi
MB_BIN="$(cd "$ROOT" && "${MB_BUILD[@]}" --show-bin-path)/mockbackend"
HB_BIN="$(cd "$ROOT" && "${HB_BUILD[@]}" --show-bin-path)/HummingbirdPeer"
[ -x "$MB_BIN" ] || die "missing $MB_BIN"
[ "$NEED_HB" = 0 ] || [ -x "$HB_BIN" ] || die "missing $HB_BIN"
MB_REVISION="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$ROOT" status --porcelain -- Sources Package.swift 2>/dev/null)" ]; then
    MB_REVISION="$MB_REVISION + uncommitted changes in Sources/"
fi

cpu_busy_percent() {
    local a b
    a="$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)"
    sleep 3
    b="$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)"
    echo "$a $b" | awk '{ busy = $3 - $1; idle = $4 - $2; printf "%.0f", 100 * busy / (busy + idle) }'
}
sleep 2  # let the swift commands above finish winding down before sampling the load
if [ "$WAIT_FOR_IDLE" = 1 ]; then
    for _ in $(seq 1 200); do
        busy="$(cpu_busy_percent)"
        [ "$busy" -le 15 ] && break
        log "machine is ${busy}% busy; waiting for it to go quiet (WAIT_FOR_IDLE=1)"
    done
fi
BUSY_BEFORE="$(cpu_busy_percent)"
[ "$BUSY_BEFORE" -le 15 ] || log "warning: the machine is ${BUSY_BEFORE}% busy with other work; numbers will be noisy"

# start_server NAME LOGFILE CMD...: pinned to SERVER_CPU; waits for "listening on
# http://127.0.0.1:PORT" and a 200 on /health. Sets SERVER_PID and SERVER_PORT.
# shellcheck source=../lib/server.sh
source "$(dirname "$0")/../lib/server.sh"

stop_server() {
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
}

# measure NAME KIND OUT [driver options...]: runs the driver (pinned to CLIENT_CPU)
# against the running server, with the load client $CLIENT (CLIENT_BIN=... for another).
measure() {
    local name="$1" kind="$2" out="$3"
    shift 3
    nice -n "$NICE" taskset -c "$CLIENT_CPU" python3 "$SSE_DIR/driver.py" measure \
        --name "$name" --kind "$kind" --pid "$SERVER_PID" --port "$SERVER_PORT" --client "${CLIENT_BIN:-$CLIENT}" \
        --out "$out" --raw "$RAW" --events "$EVENTS" --warmup-events "$WARMUP_EVENTS" \
        --spacing "$SPACING" --per-process "$PER_PROCESS" --tp-events "$TP_EVENTS" "$@" &
    DRIVER_PID=$!
    PIDS+=("$DRIVER_PID")
    wait "$DRIVER_PID" || die "the driver failed against $name (see above)"
}

# start NAME: a fresh server process of that kind.
start() {
    if [ "$1" = mockbackend ]; then
        start_server mockbackend "$RAW/mockbackend.log" "$MB_BIN" --port 0 --log-level warning \
            --heartbeat 0 --max-connections 12000
    elif [ "$1" = floor ]; then
        start_server floor "$RAW/floor.log" "$FLOOR_BIN" 0
    else
        start_server hummingbird "$RAW/hummingbird.log" "$HB_BIN" 0
    fi
    log "$1 pid $SERVER_PID port $SERVER_PORT"
}

cd "$ROOT"
if [ "$ONLY" = h2 ]; then
    [ -n "$PROTOCOLS" ] || die "ONLY=h2 needs PROTOCOLS (http1, h2c or both)"
else
    rm -f "$RESULTS"/*.json
fi
LARGEST="${SIZES##*,}"
START="$(date +%s)"
SERVERS=(mockbackend hummingbird floor)
# One fresh server per size, so RSS per stream and "back to idle" start from a clean
# process; the largest size runs two connect/publish/disconnect cycles. The servers take
# turns size by size, so that the machine's state (other tenants, the kernel's loopback
# cost) is close to the same for the three figures of one size.
for size in ${SIZES//,/ }; do
    for name in "${SERVERS[@]}"; do
        [ -z "$ONLY" ] || [ "$ONLY" = "$name" ] || continue
        start "$name"
        cycles=1
        [ "$size" = "$LARGEST" ] && cycles=2
        measure "$name" "$name" "$RESULTS/$name-size-$size.json" --sizes "$size" --cycles "$cycles" --tp-rounds 0
        stop_server
    done
done
# mockbackend over HTTP/1.1 and h2c, turn by turn (sse/h2.sh).
H2_RAN=0
if { [ -z "$ONLY" ] || [ "$ONLY" = h2 ]; } && [ -n "$PROTOCOLS" ]; then
    # shellcheck source=h2.sh
    source "$SSE_DIR/h2.sh"
    h2_comparison
    H2_RAN=1
fi
# One stream: the floor does not buffer, and 500,000 events at once would overflow it.
for name in mockbackend hummingbird; do
    [ -z "$ONLY" ] || [ "$ONLY" = "$name" ] || continue
    start "$name"
    measure "$name" "$name" "$RESULTS/$name-throughput.json" --sizes "" --tp-rounds "$TP_ROUNDS"
    stop_server
done
ELAPSED=$(( $(date +%s) - START ))

if [ -z "$ONLY" ] || [ "$H2_RAN" = 1 ]; then
    python3 - "$RESULTS/meta.json" <<EOF
import json, sys
json.dump({
    "date": "$(date -u '+%Y-%m-%d %H:%M UTC')",
    "machine": "$NCPU CPUs, $(uname -m), ${BUSY_BEFORE}% busy with other work just before the run; servers pinned to CPU $SERVER_CPU, driver and clients to CPU $CLIENT_CPU, niceness $NICE",
    "notes": "mockbackend built from $MB_REVISION; measuring took ${ELAPSED} s.",
    "spacing_ms": round(float("$SPACING") * 1000),
    "warmup_events": $WARMUP_EVENTS,
    "events": $EVENTS,
    "streams_per_connection": $STREAMS_PER_CONNECTION,
    "busy_before_percent": $BUSY_BEFORE,
}, open(sys.argv[1], "w"))
EOF
fi
if [ -z "$ONLY" ]; then
    python3 "$SSE_DIR/driver.py" report "$RESULTS" --meta "$RESULTS/meta.json" >"$RESULTS/latest.md"
fi
if [ "$H2_RAN" = 1 ]; then
    python3 "$SSE_DIR/report_h2.py" "$RESULTS/h2" --meta "$RESULTS/meta.json" >"$RESULTS/h2.md"
    if [ -z "$ONLY" ]; then
        { printf '\n'; cat "$RESULTS/h2.md"; } >>"$RESULTS/latest.md"
    else
        printf '\n'; cat "$RESULTS/h2.md"; printf '\n'
        log "written $RESULTS/h2.md (raw JSON in $RESULTS/h2/)"
    fi
fi
if [ -z "$ONLY" ]; then
    printf '\n'; cat "$RESULTS/latest.md"; printf '\n'
    log "written $RESULTS/latest.md (raw JSON in $RESULTS/)"
fi
