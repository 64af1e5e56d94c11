#!/usr/bin/env bash
# Throughput benchmark: GET /health with keep-alive, mockbackend vs a Hummingbird peer.
#
#   bash bench/run.sh
#
# Environment (all optional):
#   RUNS=5          measured wrk runs per server (alternated run by run)
#   DURATION=10s    length of each measured wrk run
#   CONNECTIONS=50  wrk connections (one wrk thread)
#   WARMUP=3s       one unmeasured wrk run per server before the measured ones
#   STARTS=9        mockbackend starts for the startup-time median
#   SERVER_CPU=0    CPU the servers are pinned to
#   CLIENT_CPU=1    CPU wrk (and the startup poller) is pinned to
#   SKIP_BUILD=1    use the existing release binaries
#   WAIT_FOR_IDLE=1 before measuring, wait (up to ~10 min) until the CPUs are >= 85% idle
#   NICE=-10        scheduling niceness of servers, wrk and the startup poller (default -10
#                   as root, 0 otherwise) so background jobs disturb the numbers less
#
# Writes bench/results/latest.md (markdown summary) and bench/results/raw/ (every wrk
# output); prints the same summary. Uses only 127.0.0.1; stops everything it started.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BENCH="$ROOT/bench"
PEER_DIR="$BENCH/peers/hummingbird-peer"
RESULTS="$BENCH/results"
RAW="$RESULTS/raw"

RUNS="${RUNS:-5}"
DURATION="${DURATION:-10s}"
CONNECTIONS="${CONNECTIONS:-50}"
WARMUP="${WARMUP:-3s}"
STARTS="${STARTS:-9}"
SERVER_CPU="${SERVER_CPU:-0}"
CLIENT_CPU="${CLIENT_CPU:-1}"
SKIP_BUILD="${SKIP_BUILD:-0}"
WAIT_FOR_IDLE="${WAIT_FOR_IDLE:-0}"
NICE="${NICE:-auto}"

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }

# --- cleanup: every process this script starts is recorded here -----------------------
PIDS=()
cleanup() {
    local pid
    for pid in "${PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${PIDS[@]}"; do
        for _ in $(seq 1 30); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    PIDS=()
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- tools -----------------------------------------------------------------------------
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v wrk >/dev/null 2>&1; then
    log "installing wrk"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y wrk
fi
for tool in wrk taskset curl python3 swift awk; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done
if [ "$NICE" = auto ]; then
    if [ "$(id -u)" -eq 0 ]; then NICE=-10; else NICE=0; fi
fi
# Every measured process runs through this: pinned and at the chosen niceness.
pinned() { local cpu="$1"; shift; nice -n "$NICE" taskset -c "$cpu" "$@"; }
NCPU="$(nproc --all)"
[ "$SERVER_CPU" -lt "$NCPU" ] && [ "$CLIENT_CPU" -lt "$NCPU" ] || die "need CPUs $SERVER_CPU and $CLIENT_CPU"

# --- build -----------------------------------------------------------------------------
# Both servers are built as the Docker image builds mockbackend: release, with the Swift
# standard library linked statically (fewer shared libraries to map: less RSS, faster start).
MB_BUILD=(swift build -c release --static-swift-stdlib --scratch-path "$ROOT/.build-bench")
HB_BUILD=(swift build -c release --static-swift-stdlib --package-path "$PEER_DIR")
if [ "$SKIP_BUILD" != 1 ]; then
    log "building mockbackend (release, static stdlib)"
    (cd "$ROOT" && "${MB_BUILD[@]}" --product mockbackend) >&2
    log "building the Hummingbird peer (release, static stdlib; the first build takes several minutes)"
    (cd "$ROOT" && "${HB_BUILD[@]}") >&2
fi
# Which code the mockbackend binary was built from (the tree may have moved since).
MB_REVISION="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$ROOT" status --porcelain -- Sources Package.swift 2>/dev/null)" ]; then
    MB_REVISION="$MB_REVISION + uncommitted changes in Sources/"
fi
MB_BIN="$(cd "$ROOT" && "${MB_BUILD[@]}" --show-bin-path)/mockbackend"
HB_BIN="$(cd "$ROOT" && "${HB_BUILD[@]}" --show-bin-path)/HummingbirdPeer"
[ -x "$MB_BIN" ] || die "missing $MB_BIN"
[ -x "$HB_BIN" ] || die "missing $HB_BIN"

rm -rf "$RAW"
mkdir -p "$RAW"

# Other work on this machine (compilers, tests, fuzzers) shares the CPUs with the servers.
# Percentage of all CPUs busy over 3 seconds, from /proc/stat.
cpu_busy_percent() {
    local a b
    a="$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)"
    sleep 3
    b="$(awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9, $5 + $6 }' /proc/stat)"
    echo "$a $b" | awk '{ busy = $3 - $1; idle = $4 - $2; printf "%.0f", 100 * busy / (busy + idle) }'
}
if [ "$WAIT_FOR_IDLE" = 1 ]; then
    for _ in $(seq 1 200); do
        busy="$(cpu_busy_percent)"
        [ "$busy" -le 15 ] && break
        log "machine is ${busy}% busy; waiting for it to go quiet (WAIT_FOR_IDLE=1)"
    done
fi
BUSY_BEFORE="$(cpu_busy_percent)"
if [ "$BUSY_BEFORE" -gt 15 ]; then
    log "warning: the machine is ${BUSY_BEFORE}% busy with other work; numbers will be noisy"
fi

# --- helpers ---------------------------------------------------------------------------
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# "anon X MiB + file-backed Y MiB": private memory vs mapped pages of the binary and libraries.
rss_split() { awk '/^RssAnon:/ { a = $2 } /^RssFile:/ { f = $2 } END {
    printf "anon %.1f MiB + file-backed %.1f MiB", a / 1024, f / 1024 }' "/proc/$1/status"; }
# CPU time (user+system, in clock ticks) a process has used; its comm has no spaces.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
CLK_TCK="$(getconf CLK_TCK)"
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
median() { tr ' ' '\n' | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "nan"; exit }
    if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# start_server NAME LOGFILE CMD...: starts CMD pinned to SERVER_CPU, waits for its
# "... listening on http://127.0.0.1:PORT" line, then polls /health until 200.
# Sets SERVER_PID and SERVER_PORT.
# shellcheck source=lib/server.sh
source "$(dirname "$0")/lib/server.sh"

# --- startup time (mockbackend) --------------------------------------------------------
log "startup time: $STARTS starts of mockbackend"
(cd "$ROOT" && pinned "$CLIENT_CPU" python3 "$BENCH/lib/startup.py" "$STARTS" "$SERVER_CPU" -- \
    "$MB_BIN" --log-level warning) | tee "$RAW/startup.txt" >&2
STARTUP_MS="$(awk '$1 == "MEDIAN" { print $2 }' "$RAW/startup.txt")"
STARTUP_MIN="$(awk '$1 == "MIN" { print $2 }' "$RAW/startup.txt")"
STARTUP_MAX="$(awk '$1 == "MAX" { print $2 }' "$RAW/startup.txt")"

# --- servers ---------------------------------------------------------------------------
cd "$ROOT"
start_server mockbackend "$RAW/mockbackend.log" "$MB_BIN" --port 0 --log-level warning
MB_PID=$SERVER_PID
MB_PORT=$SERVER_PORT
start_server hummingbird "$RAW/hummingbird.log" "$HB_BIN" 0
HB_PID=$SERVER_PID
HB_PORT=$SERVER_PORT
log "mockbackend pid $MB_PID port $MB_PORT; hummingbird pid $HB_PID port $HB_PORT"

for target in "mockbackend:$MB_PORT" "hummingbird:$HB_PORT"; do
    curl -s -i "http://127.0.0.1:${target#*:}/health" >"$RAW/${target%%:*}-response.txt"
done
MB_RESP_BYTES="$(curl -s -o /dev/null -w '%{size_header}+%{size_download}' "http://127.0.0.1:$MB_PORT/health")"
HB_RESP_BYTES="$(curl -s -o /dev/null -w '%{size_header}+%{size_download}' "http://127.0.0.1:$HB_PORT/health")"

sleep 0.5
MB_RSS_IDLE="$(rss_kib "$MB_PID")"
MB_RSS_IDLE_SPLIT="$(rss_split "$MB_PID")"
HB_RSS_IDLE="$(rss_kib "$HB_PID")"

run_wrk() { # NAME PORT DURATION OUTFILE
    echo "loadavg before: $(cat /proc/loadavg)" >"$4.meta"
    pinned "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d"$3" --latency \
        -s "$BENCH/lib/report.lua" "http://127.0.0.1:$2/health" >"$4" 2>&1 \
        || { cat "$4" >&2; die "wrk against $1 failed"; }
    grep -q '^BENCH ' "$4" || { cat "$4" >&2; die "wrk printed no summary for $1"; }
}
field() { sed -n 's/.* '"$2"'=\([0-9.]*\).*/\1/p' "$1"; }

log "warm-up: $WARMUP per server"
run_wrk mockbackend "$MB_PORT" "$WARMUP" "$RAW/warmup-mockbackend.txt"
run_wrk hummingbird "$HB_PORT" "$WARMUP" "$RAW/warmup-hummingbird.txt"
MB_RSS_WARM="$(rss_kib "$MB_PID")"

MB_RPS=() HB_RPS=() MB_P99=() HB_P99=() MB_RSS_RUN=()
MB_RPC=() HB_RPC=() MB_SHARE=() HB_SHARE=() MB_THREADS=() HB_THREADS=()
ERRORS=0
for run in $(seq 1 "$RUNS"); do
    # Alternate which server goes first so drift over the session hits both.
    if [ $((run % 2)) -eq 1 ]; then order="mockbackend hummingbird"; else order="hummingbird mockbackend"; fi
    for name in $order; do
        if [ "$name" = mockbackend ]; then port=$MB_PORT; else port=$HB_PORT; fi
        if [ "$name" = mockbackend ]; then pid=$MB_PID; else pid=$HB_PID; fi
        out="$RAW/run$run-$name.txt"
        ticks0="$(cpu_ticks "$pid")"
        # Sample the server's thread count every 0.2 s while wrk runs; keep the peak.
        touch "$out.sampling"
        ( peak=0
          while [ -e "$out.sampling" ]; do
              n="$(ls "/proc/$pid/task" 2>/dev/null | wc -l)"
              [ "$n" -gt "$peak" ] && peak=$n
              sleep 0.2
          done
          echo "$peak" >"$out.threads" ) &
        sampler=$!
        run_wrk "$name" "$port" "$DURATION" "$out"
        ticks1="$(cpu_ticks "$pid")"
        rm -f "$out.sampling"
        wait "$sampler"
        threads="$(cat "$out.threads")"
        rps="$(field "$out" rps)"
        # Requests per CPU-second the server used, and the share of one CPU it got:
        # robust to other work on the machine stealing CPU time from the server.
        cpu_s="$(awk -v a="$ticks0" -v b="$ticks1" -v hz="$CLK_TCK" 'BEGIN { printf "%.3f", (b - a) / hz }')"
        rpc="$(awk -v n="$(field "$out" requests)" -v c="$cpu_s" 'BEGIN { printf "%.0f", (c > 0) ? n / c : 0 }')"
        share="$(awk -v c="$cpu_s" -v s="$(field "$out" seconds)" 'BEGIN { printf "%.0f", 100 * c / s }')"
        echo "server cpu seconds: $cpu_s; requests per cpu-second: $rpc; cpu share: $share%; loadavg after: $(cat /proc/loadavg)" >>"$out.meta"
        p99="$(awk -v us="$(field "$out" p99_us)" 'BEGIN { printf "%.3f", us / 1000 }')"
        errs="$(sed -n 's/.*err_connect=\([0-9]*\) err_read=\([0-9]*\) err_write=\([0-9]*\) err_status=\([0-9]*\) err_timeout=\([0-9]*\).*/\1 \2 \3 \4 \5/p' "$out" | awk '{ print $1 + $2 + $3 + $4 + $5 }')"
        [ "$errs" -eq 0 ] || { ERRORS=$((ERRORS + errs)); log "warning: $errs errors against $name in run $run"; }
        if [ "$name" = mockbackend ]; then
            MB_RPS+=("$rps"); MB_P99+=("$p99"); MB_RSS_RUN+=("$(rss_kib "$MB_PID")")
            MB_RPC+=("$rpc"); MB_SHARE+=("$share"); MB_THREADS+=("$threads")
        else
            HB_RPS+=("$rps"); HB_P99+=("$p99"); HB_RPC+=("$rpc"); HB_SHARE+=("$share"); HB_THREADS+=("$threads")
        fi
        log "run $run/$RUNS $name: $rps req/s, p99 $p99 ms, $rpc req per server CPU-second, server got $share% of a CPU, peak $threads threads"
    done
done

sleep 1
MB_RSS_AFTER="$(rss_kib "$MB_PID")"
MB_RSS_AFTER_SPLIT="$(rss_split "$MB_PID")"
HB_RSS_AFTER="$(rss_kib "$HB_PID")"
MB_RSS_FIRST_RUN="${MB_RSS_RUN[0]}"

MB_RPS_MED="$(echo "${MB_RPS[*]}" | median)"
HB_RPS_MED="$(echo "${HB_RPS[*]}" | median)"
MB_P99_MED="$(printf '%.3f' "$(echo "${MB_P99[*]}" | median)")"
HB_P99_MED="$(printf '%.3f' "$(echo "${HB_P99[*]}" | median)")"
MB_RPC_MED="$(echo "${MB_RPC[*]}" | median)"
HB_RPC_MED="$(echo "${HB_RPC[*]}" | median)"
RPC_RATIO="$(awk -v a="$MB_RPC_MED" -v b="$HB_RPC_MED" 'BEGIN { printf "%.2f", a / b }')"
RATIO="$(awk -v a="$MB_RPS_MED" -v b="$HB_RPS_MED" 'BEGIN { printf "%.2f", a / b }')"
P99_RATIO="$(awk -v a="$MB_P99_MED" -v b="$HB_P99_MED" 'BEGIN { printf "%.2f", a / b }')"

verdict() { if [ "$1" = 1 ]; then echo met; else echo MISSED; fi; }
T_RATIO="$(awk -v r="$RATIO" 'BEGIN { print (r >= 1.5) ? 1 : 0 }')"
T_P99="$(awk -v a="$MB_P99_MED" -v b="$HB_P99_MED" 'BEGIN { print (a <= b) ? 1 : 0 }')"
T_START="$(awk -v s="$STARTUP_MS" 'BEGIN { print (s < 20) ? 1 : 0 }')"
T_RSS="$(awk -v k="$MB_RSS_IDLE" 'BEGIN { print (k < 15 * 1024) ? 1 : 0 }')"
# "No growth": RSS after the last load run within 1 MiB of RSS after the first one.
T_GROWTH="$(awk -v a="$MB_RSS_AFTER" -v f="$MB_RSS_FIRST_RUN" 'BEGIN { print (a - f <= 1024) ? 1 : 0 }')"

CONTENDED=0
for v in "${MB_SHARE[@]}" "${HB_SHARE[@]}"; do [ "$v" -ge 90 ] || CONTENDED=$((CONTENDED + 1)); done

fmt() { printf '%.0f' "$1"; }
SUMMARY="$(cat <<EOF
## GET /health, keep-alive — $(date -u '+%Y-%m-%d %H:%M UTC')

Machine: $(nproc --all) CPUs, $(uname -m), CPUs ${BUSY_BEFORE}% busy with other work just before the run.
Niceness $NICE. Servers pinned to CPU $SERVER_CPU, \`wrk -t1 -c$CONNECTIONS -d$DURATION --latency\` pinned to CPU $CLIENT_CPU;
$RUNS measured runs per server, alternated run by run, after a $WARMUP warm-up each; medians shown.
mockbackend built from $MB_REVISION (binary $(date -u -r "$MB_BIN" '+%Y-%m-%d %H:%M UTC')).
Response size (head+body bytes): mockbackend $MB_RESP_BYTES, hummingbird $HB_RESP_BYTES.

| server | requests/s (median) | p99 ms (median) | requests per server CPU-second (median) | requests/s per run | p99 ms per run | server's CPU share per run (%) | peak threads per run |
|---|---:|---:|---:|---|---|---|---|
| mockbackend | $(fmt "$MB_RPS_MED") | $MB_P99_MED | $(fmt "$MB_RPC_MED") | $(for v in "${MB_RPS[@]}"; do printf '%s ' "$(fmt "$v")"; done) | ${MB_P99[*]} | ${MB_SHARE[*]} | ${MB_THREADS[*]} |
| hummingbird 2.28.1 | $(fmt "$HB_RPS_MED") | $HB_P99_MED | $(fmt "$HB_RPC_MED") | $(for v in "${HB_RPS[@]}"; do printf '%s ' "$(fmt "$v")"; done) | ${HB_P99[*]} | ${HB_SHARE[*]} | ${HB_THREADS[*]} |

- requests/s ratio mockbackend / hummingbird: **$RATIO** (target ≥ 1.5: $(verdict "$T_RATIO"))
- requests per server CPU-second, mockbackend / hummingbird: **$RPC_RATIO** (efficiency; less sensitive to other load on the machine)
- p99 mockbackend / hummingbird: **$P99_RATIO** ($MB_P99_MED ms vs $HB_P99_MED ms; target ≤ 1: $(verdict "$T_P99"))
- mockbackend startup to first 200 on /health: **$STARTUP_MS ms** median of $STARTS (min $STARTUP_MIN, max $STARTUP_MAX; target < 20 ms: $(verdict "$T_START"))
- mockbackend RSS idle after start: **$(mib "$MB_RSS_IDLE") MiB** = $MB_RSS_IDLE_SPLIT (target < 15 MiB: $(verdict "$T_RSS"))
- mockbackend RSS after warm-up $(mib "$MB_RSS_WARM") MiB, after run 1 $(mib "$MB_RSS_FIRST_RUN") MiB, after all $RUNS runs **$(mib "$MB_RSS_AFTER") MiB**, $(awk -v a="$MB_RSS_AFTER" -v i="$MB_RSS_IDLE" 'BEGIN { printf "%+.1f", (a - i) / 1024 }') MiB over idle; after load = $MB_RSS_AFTER_SPLIT (no growth run 1 → last, ±1 MiB: $(verdict "$T_GROWTH"))
- per-run RSS (MiB): $(for v in "${MB_RSS_RUN[@]}"; do printf '%s ' "$(mib "$v")"; done)
- hummingbird RSS idle $(mib "$HB_RSS_IDLE") MiB, after load $(mib "$HB_RSS_AFTER") MiB
- wrk socket errors / non-2xx over all measured runs: $ERRORS
- contended runs (server got < 90% of its CPU, i.e. other work shared CPU $SERVER_CPU): $CONTENDED of $((2 * RUNS))$(if [ "$CONTENDED" -gt 0 ]; then printf ' — **this result is disturbed by other load; rerun on a quiet machine**'; fi)
EOF
)"

printf '%s\n' "$SUMMARY" >"$RESULTS/latest.md"
printf '\n%s\n\n' "$SUMMARY"
log "written $RESULTS/latest.md (raw wrk output in $RAW)"
