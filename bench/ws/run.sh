#!/usr/bin/env bash
# The V1 progress WebSocket against SSE on the same import job stream, in one run.
#
#   bash bench/ws/run.sh
#
# Every stream is a fresh import job (a CSV uploaded with POST /api/v2/imports and paused
# at once with POST /__admin/imports/<jobId>/pause, so it never ends); events are admin
# pushes (POST /__admin/streams/imports/<jobId>/events, {"data":{"seq":N}}). SSE reads
# GET /api/v2/imports/<jobId>/stream (sse/sse_client.c), the WebSocket GET
# /ws/progress?jobId=<jobId> (ws/ws_client.c); bench/sse/driver.py measures both the same
# way. Measured, the two protocols taking turns size by size and run by run:
#   - fan-out: N connections (1,000, 5,000), one event at a time: time to the last
#     subscriber, server CPU per delivery, RSS per idle connection (a fresh server each);
#   - one connection: a flood of TP_EVENTS events in one push (`count`), events/s first to
#     last received; and PUSH_EVENTS single-event pushes pipelined on one connection,
#     events/s and server CPU per event (one server; the protocols alternate round by round).
#
# Environment (all optional):
#   SIZES=1000,5000        connection counts
#   RUNS=3                 fan-out runs (each: every size, both protocols)
#   EVENTS=50              measured events per size (after WARMUP_EVENTS unmeasured ones)
#   WARMUP_EVENTS=3
#   SPACING=0.1            seconds from one push to the next (at least)
#   TP_EVENTS=500000       events in the single-connection flood
#   TP_ROUNDS=5            single-connection rounds per protocol (median shown)
#   TP_STALL=5             a round gives up once its connection has taken nothing for this long
#   PUSH_EVENTS=50000      single-event pushes per round (0: none)
#   PER_PROCESS=5000       connections per client process
#   SERVER_CPU=0 CLIENT_CPU=1
#   SKIP_BUILD=1           use the release binary already built
#   WAIT_FOR_IDLE=1        before measuring, wait (up to ~10 min) until the CPUs are >= 85% idle
#   NICE=-10               niceness of server and clients (default -10 as root, else 0)
#   ONLY=sse|ws            measure one protocol only (no comparison report)
#
# The server runs with --ws-ping-interval 0 (no pings to answer during a measurement; the
# client answers any ping anyway) and --heartbeat 0 (no SSE comments). Without pings the
# server drops a WebSocket it hears nothing from for 60 s, so the client sends an empty
# unsolicited pong on every connection before the measured events and every 25 s.
#
# Writes bench/results/ws/latest.md (markdown summary, also printed) and the raw JSON of
# every driver run under bench/results/ws/. Uses only 127.0.0.1; stops everything it started.
set -euo pipefail

WS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BENCH="$(cd "$WS_DIR/.." && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
SSE_DIR="$BENCH/sse"
RESULTS="$BENCH/results/ws"
RAW="$RESULTS/raw"

SIZES="${SIZES:-1000,5000}"
RUNS="${RUNS:-3}"
EVENTS="${EVENTS:-50}"
WARMUP_EVENTS="${WARMUP_EVENTS:-3}"
SPACING="${SPACING:-0.1}"
TP_EVENTS="${TP_EVENTS:-500000}"
TP_ROUNDS="${TP_ROUNDS:-5}"
TP_STALL="${TP_STALL:-5}"
PUSH_EVENTS="${PUSH_EVENTS:-50000}"
PER_PROCESS="${PER_PROCESS:-5000}"
SERVER_CPU="${SERVER_CPU:-0}"
CLIENT_CPU="${CLIENT_CPU:-1}"
SKIP_BUILD="${SKIP_BUILD:-0}"
WAIT_FOR_IDLE="${WAIT_FOR_IDLE:-0}"
NICE="${NICE:-auto}"
ONLY="${ONLY:-}"

log() { printf '[ws-bench] %s\n' "$*" >&2; }
die() { printf '[ws-bench] error: %s\n' "$*" >&2; exit 1; }

# shellcheck source=../lib/stream_bench.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/stream_bench.sh"
case "$ONLY" in ""|sse|ws) ;; *) die "ONLY must be sse or ws" ;; esac

# The other benchmarks and this one would disturb each other.
for _ in $(seq 1 40); do
    pgrep -f "bench/(run|sse/run|tls/run)\.sh" >/dev/null || break
    log "another benchmark (bench/run.sh, bench/sse/run.sh or bench/tls/run.sh) is running; waiting 30 s"
    sleep 30
done
pgrep -f "bench/(run|sse/run|tls/run)\.sh" >/dev/null && die "another benchmark is still running"

# --- build -----------------------------------------------------------------------------
mkdir -p "$RESULTS/bin" "$RAW"
SSE_CLIENT="$RESULTS/bin/sse_client"
WS_CLIENT="$RESULTS/bin/ws_client"
if [ "$SKIP_BUILD" != 1 ]; then
    log "building mockbackend (release, static stdlib)"
    build "${MB_BUILD[@]}" --product mockbackend
fi
gcc -O2 -Wall -o "$SSE_CLIENT" "$SSE_DIR/sse_client.c"
gcc -O2 -Wall -o "$WS_CLIENT" "$WS_DIR/ws_client.c"
MB_BIN="$(cd "$ROOT" && "${MB_BUILD[@]}" --show-bin-path)/mockbackend"
[ -x "$MB_BIN" ] || die "missing $MB_BIN"
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
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
[ "$BUSY_BEFORE" -le 15 ] || log "warning: the machine is ${BUSY_BEFORE}% busy with other work; numbers will be noisy"

# start_server NAME LOGFILE CMD...: pinned to SERVER_CPU; waits for "listening on
# http://127.0.0.1:PORT" and a 200 on /health. Sets SERVER_PID and SERVER_PORT.
# shellcheck source=../lib/server.sh
source "$BENCH/lib/server.sh"

stop_server() {
    kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
}

start() {
    start_server mockbackend "$RAW/mockbackend.log" "$MB_BIN" --port 0 --log-level warning \
        --heartbeat 0 --ws-ping-interval 0 --max-connections 12000
    log "mockbackend pid $SERVER_PID port $SERVER_PORT"
}

# measure PROTOCOL OUT [driver options...]: runs the driver (pinned to CLIENT_CPU) against
# the running server, reading the import stream with PROTOCOL (sse or ws).
measure() {
    local protocol="$1" out="$2" client="$SSE_CLIENT"
    shift 2
    [ "$protocol" = ws ] && client="$WS_CLIENT"
    nice -n "$NICE" taskset -c "$CLIENT_CPU" python3 "$SSE_DIR/driver.py" measure \
        --name "import-$protocol" --kind "import-$protocol" --pid "$SERVER_PID" --port "$SERVER_PORT" \
        --client "$client" --out "$out" --raw "$RAW" --events "$EVENTS" --warmup-events "$WARMUP_EVENTS" \
        --spacing "$SPACING" --per-process "$PER_PROCESS" --tp-events "$TP_EVENTS" --tp-stall "$TP_STALL" "$@" &
    DRIVER_PID=$!
    PIDS+=("$DRIVER_PID")
    wait "$DRIVER_PID" || die "the driver failed on $protocol (see above)"
}

# The two protocols in turn; which goes first alternates from one turn to the next.
order() {
    local turn="$1"
    if [ -n "$ONLY" ]; then echo "$ONLY"
    elif [ $((turn % 2)) -eq 0 ]; then echo "sse ws"
    else echo "ws sse"
    fi
}

cd "$ROOT"
rm -f "$RESULTS"/*.json
START="$(date +%s)"
turn=0
# Fan-out: one fresh server per size and protocol, so RSS per connection and "back to
# idle" start from a clean process.
for run in $(seq 1 "$RUNS"); do
    for size in ${SIZES//,/ }; do
        for protocol in $(order "$turn"); do
            log "fan-out run $run/$RUNS: $size connections, $protocol"
            start
            measure "$protocol" "$RESULTS/import-$protocol-size-$size-run-$run.json" \
                --sizes "$size" --cycles 1 --tp-rounds 0
            stop_server
        done
        turn=$((turn + 1))
    done
done
# One connection: one server, the protocols alternating round by round.
if [ "$TP_ROUNDS" -gt 0 ]; then
    start
    for round in $(seq 1 "$TP_ROUNDS"); do
        for protocol in $(order "$turn"); do
            log "one connection, round $round/$TP_ROUNDS: $protocol"
            measure "$protocol" "$RESULTS/import-$protocol-throughput-round-$round.json" \
                --sizes "" --tp-rounds 1 --push-events "$PUSH_EVENTS" --push-rounds 1
        done
        turn=$((turn + 1))
    done
    stop_server
fi
ELAPSED=$(( $(date +%s) - START ))
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"

if [ -z "$ONLY" ]; then
    python3 - "$RESULTS/meta.json" <<EOF
import json, sys
json.dump({
    "date": "$(date -u '+%Y-%m-%d %H:%M UTC')",
    "machine": "$NCPU CPUs, $(uname -m), ${BUSY_BEFORE}% busy with other work just before the run (load average $LOAD_BEFORE before, $LOAD_AFTER after); server pinned to CPU $SERVER_CPU, driver and clients to CPU $CLIENT_CPU, niceness $NICE",
    "busy_before_percent": $BUSY_BEFORE,
    "notes": "mockbackend built from $MB_REVISION, run with --heartbeat 0 --ws-ping-interval 0; measuring took ${ELAPSED} s.",
    "spacing_ms": round(float("$SPACING") * 1000),
    "warmup_events": $WARMUP_EVENTS,
    "runs": $RUNS,
    "tp_events": $TP_EVENTS,
    "push_events": $PUSH_EVENTS,
}, open(sys.argv[1], "w"))
EOF
    python3 "$SSE_DIR/driver.py" report-ws "$RESULTS" --meta "$RESULTS/meta.json" >"$RESULTS/latest.md"
    printf '\n'; cat "$RESULTS/latest.md"; printf '\n'
    log "written $RESULTS/latest.md (raw JSON in $RESULTS/)"
fi
