#!/usr/bin/env bash
# Proxy benchmark: mockbackend in proxy mode beside a direct connection to the same
# upstream (another mockbackend), in one run, the two taking turns run by run.
#
#   bash bench/proxy/run.sh
#
# Measured (bench/proxy/driver.py; medians of RUNS with every run's figure):
#   - STREAMS streams at RATE events/s in total (each event to one stream): the delay from
#     the push to the client's read, directly and through the proxy; the proxy's added
#     delay is the difference in the same run;
#   - STREAMS proxied streams on one channel: the proxy's CPU per relayed delivery beside
#     the upstream's CPU per local broadcast delivery of the same events;
#   - RSS per open proxied stream;
#   - once: a 100 MB download through the proxy (in front of Python's http.server), the
#     proxy's RSS sampled all along; and one proxied stream left quiet (heartbeats only)
#     for QUIET_SECONDS, which must still be open at the end.
#
# Environment (all optional):
#   STREAMS=1000 RATE=100 EVENTS=500 FANOUT_EVENTS=20 RUNS=5 QUIET_SECONDS=600
#   SERVER_CPU=0           the proxy's CPU; the upstream, the clients and the driver on CLIENT_CPU=1
#   SKIP_BUILD=1           use the release binary already built
#   NICE=-10               niceness (default -10 as root, else 0)
#
# Writes bench/results/proxy/latest.md (also printed) and latest.json. Uses only
# 127.0.0.1; stops everything it started.
set -euo pipefail

PROXY_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
BENCH="$(cd "$PROXY_DIR/.." && pwd)"
ROOT="$(cd "$BENCH/.." && pwd)"
RESULTS="$BENCH/results/proxy"
RAW="$RESULTS/raw"
STREAMS="${STREAMS:-1000}"
RATE="${RATE:-100}"
EVENTS="${EVENTS:-500}"
FANOUT_EVENTS="${FANOUT_EVENTS:-20}"
RUNS="${RUNS:-5}"
QUIET_SECONDS="${QUIET_SECONDS:-600}"
SERVER_CPU="${SERVER_CPU:-0}"
CLIENT_CPU="${CLIENT_CPU:-1}"
SKIP_BUILD="${SKIP_BUILD:-0}"
if [ "$(id -u)" = 0 ]; then NICE="${NICE:--10}"; else NICE="${NICE:-0}"; fi

log() { echo "[proxy-bench] $*" >&2; }
die() { log "error: $*"; exit 1; }
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# shellcheck source=../lib/release_flags.sh
source "$BENCH/lib/release_flags.sh"
MB_BUILD=(swift build "${MB_RELEASE_FLAGS[@]}" --scratch-path "$ROOT/.build-bench")
mkdir -p "$RAW"
if [ "$SKIP_BUILD" != 1 ]; then
    log "building mockbackend (release, static stdlib)"
    (cd "$ROOT" && "${MB_BUILD[@]}" --product mockbackend >&2)
fi
MB_BIN="$(cd "$ROOT" && "${MB_BUILD[@]}" --show-bin-path)/mockbackend"
[ -x "$MB_BIN" ] || die "missing $MB_BIN"
MB_REVISION="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
ulimit -n 20000 2>/dev/null || true

# start NAME CPU ARGS...: a mockbackend pinned to CPU; sets PID and PORT once it answers
# /__admin/health (every other path may be an upstream's).
start() {
    local name="$1" cpu="$2"
    shift 2
    nice -n "$NICE" taskset -c "$cpu" "$MB_BIN" --port 0 --log-level warning --max-connections 12000 "$@" \
        >"$RAW/$name.log" 2>&1 &
    PID=$!
    PIDS+=("$PID")
    PORT=""
    for _ in $(seq 1 300); do
        kill -0 "$PID" 2>/dev/null || { cat "$RAW/$name.log" >&2; die "$name exited during start"; }
        PORT="$(sed -n 's/^mockbackend listening on http:\/\/127\.0\.0\.1:\([0-9]*\).*/\1/p' "$RAW/$name.log")"
        [ -n "$PORT" ] && break
        sleep 0.05
    done
    [ -n "$PORT" ] || die "$name printed no listening line"
    for _ in $(seq 1 200); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/__admin/health")" = 200 ] && return 0
        sleep 0.05
    done
    die "$name did not answer /__admin/health"
}

# The download's upstream: 100 MB of random bytes served by Python's http.server.
FILES="$RAW/files"
mkdir -p "$FILES"
[ -s "$FILES/big.bin" ] || head -c $((100 * 1024 * 1024)) /dev/urandom >"$FILES/big.bin"
FILE_PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
taskset -c "$CLIENT_CPU" python3 -m http.server "$FILE_PORT" --bind 127.0.0.1 --directory "$FILES" \
    >"$RAW/http-server.log" 2>&1 &
PIDS+=($!)

start upstream "$CLIENT_CPU"
UPSTREAM_PID=$PID UPSTREAM_PORT=$PORT
start proxy "$SERVER_CPU" --proxy "http://127.0.0.1:$UPSTREAM_PORT"
PROXY_PID=$PID PROXY_PORT=$PORT
start download "$SERVER_CPU" --proxy "http://127.0.0.1:$FILE_PORT"
DOWNLOAD_PID=$PID DOWNLOAD_PORT=$PORT
log "upstream :$UPSTREAM_PORT, proxy :$PROXY_PORT, download proxy :$DOWNLOAD_PORT; mockbackend $MB_REVISION"

nice -n "$NICE" taskset -c "$CLIENT_CPU" python3 "$PROXY_DIR/driver.py" \
    --upstream-port "$UPSTREAM_PORT" --upstream-pid "$UPSTREAM_PID" --proxy-port "$PROXY_PORT" \
    --proxy-pid "$PROXY_PID" --download-port "$DOWNLOAD_PORT" --download-pid "$DOWNLOAD_PID" \
    --streams "$STREAMS" --rate "$RATE" --events "$EVENTS" --fanout-events "$FANOUT_EVENTS" --runs "$RUNS" \
    --quiet-seconds "$QUIET_SECONDS" --out "$RESULTS/latest.json"

python3 "$PROXY_DIR/report.py" "$RESULTS/latest.json" --revision "$MB_REVISION" --streams "$STREAMS" \
    --rate "$RATE" | tee "$RESULTS/latest.md"
