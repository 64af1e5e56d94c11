#!/usr/bin/env bash
# How the way a harness runs the servers moves the Hummingbird comparison of bench/run.sh:
# GET /health with keep-alive, mockbackend and the Hummingbird peer taking turns, under
# each condition in turn.
#
#   bash bench/conditions.sh
#
#   pinned          servers on CPU 0, wrk on CPU 1, a warm-up run first, niceness 0 (bench/run.sh)
#   nice-10         the same with every measured process at niceness -10 (needs root)
#   one-nio-loop    the same, Hummingbird with one NIO event loop (NIO_SINGLETON_GROUP_LOOP_COUNT=1)
#   unpinned        no taskset at all: servers and wrk share both CPUs as the scheduler likes
#   no-warm-up      pinned, measured from the first request after start
#   dynamic-stdlib  pinned, both servers built with the Swift runtime as shared libraries
#
# Environment: RUNS=3 (per server and condition), DURATION=5s, CONNECTIONS=50, SKIP_BUILD=1,
# CONDITIONS="pinned nice-10 one-nio-loop unpinned no-warm-up dynamic-stdlib".
# Writes bench/results/conditions.md; uses only 127.0.0.1; stops everything it started.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
PEER_DIR="$BENCH/peers/hummingbird-peer"
RESULTS="$BENCH/results"
RAW="$RESULTS/raw-conditions"
RUNS="${RUNS:-3}"
DURATION="${DURATION:-5s}"
CONNECTIONS="${CONNECTIONS:-50}"
SKIP_BUILD="${SKIP_BUILD:-0}"
CONDITIONS="${CONDITIONS:-pinned nice-10 one-nio-loop unpinned no-warm-up dynamic-stdlib}"
SERVER_CPU=0
CLIENT_CPU=1

log() { printf '[conditions] %s\n' "$*" >&2; }
die() { printf '[conditions] error: %s\n' "$*" >&2; exit 1; }

# shellcheck source=lib/processes.sh
source "$BENCH/lib/processes.sh"
cleanup() { stop_all; }
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for tool in wrk taskset curl swift awk; do command -v "$tool" >/dev/null 2>&1 || die "$tool is required (bench/run.sh installs wrk)"; done

# shellcheck source=lib/release_flags.sh
source "$BENCH/lib/release_flags.sh"
MB_STATIC=(swift build "${MB_RELEASE_FLAGS[@]}" --scratch-path "$ROOT/.build-bench")
MB_DYNAMIC=(swift build -c release)
HB_STATIC=(swift build -c release --static-swift-stdlib --package-path "$PEER_DIR")
HB_DYNAMIC=(swift build -c release --package-path "$PEER_DIR" --scratch-path "$PEER_DIR/.build-dynamic")
if [ "$SKIP_BUILD" != 1 ]; then
    (cd "$ROOT" && "${MB_STATIC[@]}" --product mockbackend && "${HB_STATIC[@]}") >&2
    if [[ " $CONDITIONS " == *" dynamic-stdlib "* ]]; then
        (cd "$ROOT" && "${MB_DYNAMIC[@]}" --product mockbackend && "${HB_DYNAMIC[@]}") >&2
    fi
fi
bin() { (cd "$ROOT" && "$@" --show-bin-path); }

rm -rf "$RAW"
mkdir -p "$RAW"
field() { sed -n 's/.* '"$2"'=\([0-9.]*\).*/\1/p' "$1"; }
median() { tr ' ' '\n' | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
    if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
CLK_TCK="$(getconf CLK_TCK)"

# on CPU COMMAND...: runs COMMAND pinned to CPU, or unpinned when CPU is "any", at $NICE.
on() { local cpu="$1"; shift; if [ "$cpu" = any ]; then nice -n "$NICE" "$@"; else nice -n "$NICE" taskset -c "$cpu" "$@"; fi; }

# start NAME CPU COMMAND...: starts a server, waits for its listening line and /health.
start() {
    local name="$1" cpu="$2" logfile="$RAW/$1.log" line
    shift 2
    # Started directly, not through `on`: $! must be the server's own pid (nice and
    # taskset exec it), whose CPU time is read.
    if [ "$cpu" = any ]; then
        nice -n "$NICE" "$@" >"$logfile" 2>&1 &
    else
        nice -n "$NICE" taskset -c "$cpu" "$@" >"$logfile" 2>&1 &
    fi
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    SERVER_PORT=""
    for _ in $(seq 1 300); do
        line="$(grep -E 'listening on http://127\.0\.0\.1:[0-9]+' "$logfile" | tail -n 1 || true)"
        if [ -n "$line" ]; then SERVER_PORT="${line##*:}"; SERVER_PORT="${SERVER_PORT//[^0-9]/}"; break; fi
        sleep 0.05
    done
    [ -n "$SERVER_PORT" ] || die "$name printed no listening line"
    for _ in $(seq 1 200); do
        [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SERVER_PORT/health")" = 200 ] && return 0
        sleep 0.05
    done
    die "$name did not answer 200"
}

SUMMARY="| condition | mockbackend req/s (median; per run) | Hummingbird req/s (median; per run) | ratio | mockbackend µs CPU/request | Hummingbird µs CPU/request |
|---|---|---|---:|---:|---:|"
for condition in $CONDITIONS; do
    NICE=0 server_cpu=$SERVER_CPU client_cpu=$CLIENT_CPU warm=1 hb_env=() mb_bin="$(bin "${MB_STATIC[@]}")/mockbackend" hb_bin="$(bin "${HB_STATIC[@]}")/HummingbirdPeer"
    case "$condition" in
    pinned) ;;
    nice-10) NICE=-10 ;;
    one-nio-loop) hb_env=(NIO_SINGLETON_GROUP_LOOP_COUNT=1) ;;
    unpinned) server_cpu=any client_cpu=any ;;
    no-warm-up) warm=0 ;;
    dynamic-stdlib) mb_bin="$(bin "${MB_DYNAMIC[@]}")/mockbackend" hb_bin="$(bin "${HB_DYNAMIC[@]}")/HummingbirdPeer" ;;
    *) die "unknown condition $condition" ;;
    esac
    start mockbackend "$server_cpu" "$mb_bin" --port 0 --log-level warning
    mb_pid=$SERVER_PID mb_port=$SERVER_PORT
    start hummingbird "$server_cpu" env "${hb_env[@]}" "$hb_bin" 0
    hb_pid=$SERVER_PID hb_port=$SERVER_PORT
    if [ "$warm" = 1 ]; then
        for port in "$mb_port" "$hb_port"; do on "$client_cpu" wrk -t1 -c"$CONNECTIONS" -d3s "http://127.0.0.1:$port/health" >/dev/null; done
    fi
    declare -A rps=() cpu=()
    for run in $(seq 1 "$RUNS"); do
        if [ $((run % 2)) -eq 1 ]; then order="mockbackend hummingbird"; else order="hummingbird mockbackend"; fi
        for name in $order; do
            if [ "$name" = mockbackend ]; then pid=$mb_pid port=$mb_port; else pid=$hb_pid port=$hb_port; fi
            out="$RAW/$condition-$run-$name.txt"
            t0="$(cpu_ticks "$pid")"
            on "$client_cpu" wrk -t1 -c"$CONNECTIONS" -d"$DURATION" -s "$BENCH/lib/report.lua" "http://127.0.0.1:$port/health" >"$out" 2>&1
            t1="$(cpu_ticks "$pid")"
            rps[$name]+="$(printf '%.0f' "$(field "$out" rps)") "
            cpu[$name]+="$(awk -v a="$t0" -v b="$t1" -v hz="$CLK_TCK" -v n="$(field "$out" requests)" 'BEGIN { printf "%.1f", (b - a) / hz * 1e6 / n }') "
        done
    done
    cleanup
    mb="$(echo "${rps[mockbackend]}" | median)" hb="$(echo "${rps[hummingbird]}" | median)"
    row="| $condition | $mb (${rps[mockbackend]% }) | $hb (${rps[hummingbird]% }) | $(awk -v a="$mb" -v b="$hb" 'BEGIN { printf "%.2f", a / b }') | $(echo "${cpu[mockbackend]}" | median) | $(echo "${cpu[hummingbird]}" | median) |"
    log "$row"
    SUMMARY+=$'\n'"$row"
done

REVISION="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$ROOT" status --porcelain -- Sources Package.swift 2>/dev/null)" ]; then
    REVISION="$REVISION + uncommitted changes in Sources/"
fi
SUMMARY="## Conditions — $(date -u '+%Y-%m-%d %H:%M UTC'), mockbackend $REVISION

\`wrk -t1 -c$CONNECTIONS -d$DURATION\`, $RUNS runs per server and condition, servers taking turns.

$SUMMARY"
printf '%s\n' "$SUMMARY" >"$RESULTS/conditions.md"
printf '\n%s\n\n' "$SUMMARY"
