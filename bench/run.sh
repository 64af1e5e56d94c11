#!/usr/bin/env bash
# Throughput benchmark: GET /health with keep-alive, mockbackend vs Hummingbird and nginx,
# and mockbackend over h2c beside its HTTP/1.1 figure.
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
#   NICE=0          scheduling niceness of servers, wrk and the startup poller; -10 (as
#                   root) lets background jobs disturb the numbers less, but slows the
#                   Hummingbird peer (see bench/conditions.sh)
#   PEERS="hummingbird hummingbird-1loop nginx"
#                   the peers measured beside mockbackend, taking turns run by run:
#                   Hummingbird as its README runs it (NIO's default loop count), the same
#                   binary with one NIO event loop per CPU it may use, and nginx (one worker)
#   H2C=1           also measure the same mockbackend process over h2c (prior knowledge on the
#                   plain port) with h2load (lib/h2load.sh), and with h2load --h1 as the same
#                   client's HTTP/1.1 reference, in the same turns as wrk; 0 skips it. h2load
#                   is in the Debian package nghttp2-client (apt-get install -y nghttp2-client);
#                   without it this part is skipped
#   H2_STREAMS=1    h2load's requests in flight per connection (-m); 1 is what wrk does
#
# Writes bench/results/latest.md (markdown summary) and bench/results/raw/ (every wrk and
# h2load output); prints the same summary. Uses only 127.0.0.1; stops everything it started.
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
PEERS="${PEERS:-hummingbird hummingbird-1loop nginx}"
H2C="${H2C:-1}"
H2_STREAMS="${H2_STREAMS:-1}"

log() { printf '[bench] %s\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }

# --- cleanup: every process this script starts is recorded in PIDS -------------------------
# shellcheck source=lib/processes.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/processes.sh"
# shellcheck source=lib/nginx.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/nginx.sh"
# shellcheck source=lib/h2load.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/h2load.sh"
cleanup() { stop_all; }
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
if [[ " ${PEERS:-hummingbird hummingbird-1loop nginx} " == *" nginx "* ]] && ! command -v nginx >/dev/null 2>&1; then
    log "installing nginx"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y nginx-light
fi
for tool in wrk taskset curl python3 swift awk; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done
if [ "$H2C" = 1 ] && ! command -v h2load >/dev/null 2>&1; then
    log "h2load is missing: install it with 'apt-get install -y nghttp2-client'; skipping the h2c figures"
    H2C=0
fi
# Niceness moves the peers differently (bench/conditions.sh: Hummingbird loses a third of
# its throughput at -10, its threads hand work to each other on one CPU), so the default
# is the niceness every process starts with.
if [ "$NICE" = auto ]; then NICE=0; fi
# Every measured process runs through this: pinned and at the chosen niceness.
pinned() { local cpu="$1"; shift; nice -n "$NICE" taskset -c "$cpu" "$@"; }
NCPU="$(nproc --all)"
[ "$SERVER_CPU" -lt "$NCPU" ] && [ "$CLIENT_CPU" -lt "$NCPU" ] || die "need CPUs $SERVER_CPU and $CLIENT_CPU"

# --- build -----------------------------------------------------------------------------
# Both servers are built as the Docker image builds mockbackend: release, with the Swift
# standard library linked statically (fewer shared libraries to map: less RSS, faster start).
# shellcheck source=lib/release_flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/release_flags.sh"
MB_BUILD=(swift build "${MB_RELEASE_FLAGS[@]}" --scratch-path "$ROOT/.build-bench")
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
# Busy ticks of one CPU (user, nice, system, irq, softirq, steal) from /proc/stat.
cpu_busy_ticks() { awk -v cpu="cpu$1" '$1 == cpu { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
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
START_RSS_MEDIAN="$(awk '$1 == "RSS_MEDIAN" { print $2 }' "$RAW/startup.txt")"
START_RSS_MIN="$(awk '$1 == "RSS_MIN" { print $2 }' "$RAW/startup.txt")"
START_RSS_MAX="$(awk '$1 == "RSS_MAX" { print $2 }' "$RAW/startup.txt")"

# --- servers ---------------------------------------------------------------------------
cd "$ROOT"
WORK="$(mktemp -d)"
trap 'cleanup; rm -rf "$WORK"' EXIT
# The CPUs the servers may use: NIO's loop count for the tuned Hummingbird peer.
SERVER_CPUS="$(taskset -c "$SERVER_CPU" nproc)"
SERVERS=(mockbackend $PEERS)
declare -A PID PORT LABEL
for name in "${SERVERS[@]}"; do
    case "$name" in
    mockbackend)
        start_server mockbackend "$RAW/mockbackend.log" "$MB_BIN" --port 0 --log-level warning
        LABEL[$name]="mockbackend"
        ;;
    hummingbird)
        # NIO sizes its loop group by the machine's CPUs, not by the affinity mask: on
        # a 2-CPU machine two loops share the one CPU the server is pinned to.
        start_server hummingbird "$RAW/hummingbird.log" "$HB_BIN" 0
        LABEL[$name]="Hummingbird 2.28.1, NIO's default loops"
        ;;
    hummingbird-1loop)
        start_server hummingbird-1loop "$RAW/hummingbird-1loop.log" \
            env NIO_SINGLETON_GROUP_LOOP_COUNT="$SERVER_CPUS" "$HB_BIN" 0
        LABEL[$name]="Hummingbird 2.28.1, $SERVER_CPUS NIO loop(s)"
        ;;
    nginx)
        command -v nginx >/dev/null 2>&1 || die "nginx is required for the nginx peer"
        NGINX_PORT="$(free_port)"
        write_nginx_conf "$WORK/nginx" "$NGINX_PORT"
        # nginx prints no listening line: the wrapper prints one once the port answers.
        start_server nginx "$RAW/nginx.log" bash -c \
            'nginx -p "$1" -c "$1/nginx.conf" & n=$!; for _ in $(seq 200); do curl -s -o /dev/null "http://127.0.0.1:$2/health" && break; sleep 0.05; done; echo "nginx listening on http://127.0.0.1:$2"; wait $n' \
            _ "$WORK/nginx" "$NGINX_PORT"
        # Measure the nginx process itself, not the wrapper shell.
        SERVER_PID="$(pgrep -P "$SERVER_PID" -x nginx)"
        PIDS+=("$SERVER_PID")
        LABEL[$name]="nginx $(nginx -v 2>&1 | sed 's|.*nginx/||'), 1 worker"
        ;;
    *) die "unknown peer $name (PEERS: hummingbird hummingbird-1loop nginx)" ;;
    esac
    PID[$name]=$SERVER_PID
    PORT[$name]=$SERVER_PORT
    log "$name pid $SERVER_PID port $SERVER_PORT"
done
MB_PID=${PID[mockbackend]}
# What is measured, each in its turn: the servers with wrk, and (H2C=1) the mockbackend
# process again with h2load over h2c and over HTTP/1.1. TOOL names the client of each.
MEASURED=(mockbackend)
declare -A TOOL
for name in "${SERVERS[@]}"; do TOOL[$name]=wrk; done
if [ "$H2C" = 1 ]; then
    MEASURED+=(mockbackend-h2c mockbackend-h2load-h1)
    TOOL[mockbackend-h2c]=h2c
    TOOL[mockbackend-h2load-h1]=h1
    LABEL[mockbackend-h2c]="mockbackend, h2c (h2load -m$H2_STREAMS)"
    LABEL[mockbackend-h2load-h1]="mockbackend, HTTP/1.1 (h2load --h1)"
    for name in mockbackend-h2c mockbackend-h2load-h1; do
        PID[$name]=$MB_PID
        PORT[$name]=${PORT[mockbackend]}
    done
    h2load --version | head -n 1 >"$RAW/h2load-version.txt"
    # The same answer over h2c, through curl, to show the server speaks it before measuring.
    [ "$(curl -s --http2-prior-knowledge -o /dev/null -w '%{http_version} %{http_code}' \
        "http://127.0.0.1:${PORT[mockbackend]}/health")" = "2 200" ] || die "mockbackend does not answer /health over h2c"
fi
for name in $PEERS; do MEASURED+=("$name"); done

declare -A RESP_BYTES RSS_IDLE RSS_AFTER
for name in "${SERVERS[@]}"; do
    curl -s -i "http://127.0.0.1:${PORT[$name]}/health" >"$RAW/$name-response.txt"
    RESP_BYTES[$name]="$(curl -s -o /dev/null -w '%{size_header}+%{size_download}' "http://127.0.0.1:${PORT[$name]}/health")"
done

sleep 0.5
MB_RSS_IDLE="$(rss_kib "$MB_PID")"
MB_RSS_IDLE_SPLIT="$(rss_split "$MB_PID")"
for name in "${SERVERS[@]}"; do RSS_IDLE[$name]="$(rss_kib "${PID[$name]}")"; done

run_wrk() { # NAME PORT DURATION OUTFILE
    echo "loadavg before: $(cat /proc/loadavg)" >"$4.meta"
    pinned "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d"$3" --latency \
        -s "$BENCH/lib/report.lua" "http://127.0.0.1:$2/health" >"$4" 2>&1 \
        || { cat "$4" >&2; die "wrk against $1 failed"; }
    grep -q '^BENCH ' "$4" || { cat "$4" >&2; die "wrk printed no summary for $1"; }
}
field() { sed -n 's/.* '"$2"'=\([0-9.]*\).*/\1/p' "$1"; }
# run_client NAME PORT DURATION OUTFILE: wrk, or h2load for the h2load entries.
run_client() {
    case "${TOOL[$1]}" in
    wrk) run_wrk "$@" ;;
    *) run_h2load "${TOOL[$1]}" "$2" "$3" "$4" || { cat "$4" >&2; die "h2load against $1 failed"; } ;;
    esac
}

log "warm-up: $WARMUP per server and client"
for name in "${MEASURED[@]}"; do run_client "$name" "${PORT[$name]}" "$WARMUP" "$RAW/warmup-$name.txt"; done
MB_RSS_WARM="$(rss_kib "$MB_PID")"

declare -A RPS P99 CPU_US SHARE OTHER THREADS
MB_RSS_RUN=()
ERRORS=0
COUNT=${#MEASURED[@]}
for run in $(seq 1 "$RUNS"); do
    # Rotate which server goes first so drift over the session hits all of them alike.
    order=()
    for i in $(seq 0 $((COUNT - 1))); do order+=("${MEASURED[$(((i + run - 1) % COUNT))]}"); done
    for name in "${order[@]}"; do
        port=${PORT[$name]}
        pid=${PID[$name]}
        out="$RAW/run$run-$name.txt"
        ticks0="$(cpu_ticks "$pid")"
        busy0="$(cpu_busy_ticks "$SERVER_CPU")"
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
        run_client "$name" "$port" "$DURATION" "$out"
        ticks1="$(cpu_ticks "$pid")"
        busy1="$(cpu_busy_ticks "$SERVER_CPU")"
        rm -f "$out.sampling"
        wait "$sampler"
        threads="$(cat "$out.threads")"
        rps="$(field "$out" rps)"
        # Server CPU per request, and the share of one CPU the server got: robust to
        # other work on the machine stealing CPU time from the server.
        cpu_s="$(awk -v a="$ticks0" -v b="$ticks1" -v hz="$CLK_TCK" 'BEGIN { printf "%.3f", (b - a) / hz }')"
        cpu_us="$(awk -v n="$(field "$out" requests)" -v c="$cpu_s" 'BEGIN { printf "%.2f", (n > 0) ? c * 1e6 / n : 0 }')"
        share="$(awk -v c="$cpu_s" -v s="$(field "$out" seconds)" 'BEGIN { printf "%.0f", 100 * c / s }')"
        # Other work on the server's CPU: its busy time that was not the server's, in % of
        # the run. A server faster than wrk idles part of the time (nginx here), so a low
        # share alone does not mean another process took the CPU; this does.
        other="$(awk -v b="$((busy1 - busy0))" -v t="$((ticks1 - ticks0))" -v hz="$CLK_TCK" -v s="$(field "$out" seconds)" \
            'BEGIN { v = 100 * (b - t) / hz / s; printf "%.1f", (v < 0) ? 0 : v }')"
        echo "server cpu seconds: $cpu_s; cpu per request: $cpu_us us; cpu share: $share%; loadavg after: $(cat /proc/loadavg)" >>"$out.meta"
        p99="$(awk -v us="$(field "$out" p99_us)" 'BEGIN { printf "%.3f", us / 1000 }')"
        errs="$(sed -n 's/.*err_connect=\([0-9]*\) err_read=\([0-9]*\) err_write=\([0-9]*\) err_status=\([0-9]*\) err_timeout=\([0-9]*\).*/\1 \2 \3 \4 \5/p' "$out" | awk '{ print $1 + $2 + $3 + $4 + $5 }')"
        [ "$errs" -eq 0 ] || { ERRORS=$((ERRORS + errs)); log "warning: $errs errors against $name in run $run"; }
        RPS[$name]+="$rps "; P99[$name]+="$p99 "; CPU_US[$name]+="$cpu_us "; SHARE[$name]+="$share "
        OTHER[$name]+="$other "
        THREADS[$name]+="$threads "
        [ "$name" = mockbackend ] && MB_RSS_RUN+=("$(rss_kib "$MB_PID")")
        log "run $run/$RUNS $name: $rps req/s, p99 $p99 ms, $cpu_us µs server CPU per request, server got $share% of a CPU, other work $other% of it, peak $threads threads"
    done
done

sleep 1
MB_RSS_AFTER="$(rss_kib "$MB_PID")"
MB_RSS_AFTER_SPLIT="$(rss_split "$MB_PID")"
for name in "${SERVERS[@]}"; do RSS_AFTER[$name]="$(rss_kib "${PID[$name]}")"; done
MB_RSS_FIRST_RUN="${MB_RSS_RUN[0]}"

declare -A RPS_MED P99_MED CPU_MED
for name in "${MEASURED[@]}"; do
    RPS_MED[$name]="$(echo "${RPS[$name]}" | median)"
    P99_MED[$name]="$(printf '%.3f' "$(echo "${P99[$name]}" | median)")"
    CPU_MED[$name]="$(printf '%.2f' "$(echo "${CPU_US[$name]}" | median)")"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { if [ "$1" = 1 ]; then echo met; else echo MISSED; fi; }

# Hummingbird at its best in this run: the variant with the higher median requests/s.
HB_BEST=""
for name in hummingbird hummingbird-1loop; do
    [ -n "${PID[$name]:-}" ] || continue
    if [ -z "$HB_BEST" ] || awk -v a="${RPS_MED[$name]}" -v b="${RPS_MED[$HB_BEST]}" 'BEGIN { exit !(a > b) }'; then
        HB_BEST=$name
    fi
done

CONTENDED=0
for name in "${MEASURED[@]}"; do
    # Quiet runs show 1-6% here: the kernel's own work for the loopback traffic is partly
    # accounted outside the server process (softirq time). More than 10% is someone else.
    for v in ${OTHER[$name]}; do awk -v v="$v" 'BEGIN { exit !(v > 10) }' && CONTENDED=$((CONTENDED + 1)); done
done

T_START="$(awk -v s="$STARTUP_MS" 'BEGIN { print (s < 20) ? 1 : 0 }')"
# Idle RSS varies by about a MiB from start to start (how much of the binary the kernel
# maps around each page the start touches), so the target is checked on the median of
# the STARTS starts; the long-running server's own idle figure is shown beside it.
T_RSS="$(awk -v k="$START_RSS_MEDIAN" 'BEGIN { print (k < 15 * 1024) ? 1 : 0 }')"
# "No growth": RSS after the last load run within 1 MiB of RSS after the first one.
T_GROWTH="$(awk -v a="$MB_RSS_AFTER" -v f="$MB_RSS_FIRST_RUN" 'BEGIN { print (a - f <= 1024) ? 1 : 0 }')"

fmt() { printf '%.0f' "$1"; }
per_run() { local v; for v in $1; do printf '%s ' "$(fmt "$v")"; done; }
TABLE="$(for name in "${MEASURED[@]}"; do
    printf '| %s | %s | %s | %s | %s| %s| %s| %s| %s| %s|\n' "${LABEL[$name]}" "$(fmt "${RPS_MED[$name]}")" \
        "${P99_MED[$name]}" "${CPU_MED[$name]}" "$(per_run "${RPS[$name]}")" "${P99[$name]}" "${CPU_US[$name]}" \
        "${SHARE[$name]}" "${OTHER[$name]}" "${THREADS[$name]}"
done)"
TARGETS=""
if [ "$H2C" = 1 ]; then
    TARGETS+="- h2c / HTTP/1.1 on the same mockbackend process: against wrk, requests/s ×$(ratio "${RPS_MED[mockbackend-h2c]}" "${RPS_MED[mockbackend]}"), server CPU per request **×$(ratio "${CPU_MED[mockbackend-h2c]}" "${CPU_MED[mockbackend]}")** (${CPU_MED[mockbackend-h2c]} µs vs ${CPU_MED[mockbackend]} µs); against h2load --h1 (the same client), requests/s ×$(ratio "${RPS_MED[mockbackend-h2c]}" "${RPS_MED[mockbackend-h2load-h1]}"), server CPU per request **×$(ratio "${CPU_MED[mockbackend-h2c]}" "${CPU_MED[mockbackend-h2load-h1]}")** ($(cat "$RAW/h2load-version.txt"), \`-t1 -c$CONNECTIONS -m$H2_STREAMS -D $DURATION\`)"$'\n'
fi
if [ -n "$HB_BEST" ]; then
    R_HB="$(ratio "${RPS_MED[mockbackend]}" "${RPS_MED[$HB_BEST]}")"
    T_HB="$(awk -v r="$R_HB" 'BEGIN { print (r >= 1.5) ? 1 : 0 }')"
    T_P99="$(awk -v a="${P99_MED[mockbackend]}" -v b="${P99_MED[$HB_BEST]}" 'BEGIN { print (a <= b) ? 1 : 0 }')"
    TARGETS+="- requests/s, mockbackend / Hummingbird at its best in this run (${LABEL[$HB_BEST]}): **$R_HB** (target ≥ 1.5: $(verdict "$T_HB"))"$'\n'
    TARGETS+="- p99, mockbackend / that Hummingbird: **$(ratio "${P99_MED[mockbackend]}" "${P99_MED[$HB_BEST]}")** (${P99_MED[mockbackend]} ms vs ${P99_MED[$HB_BEST]} ms; target ≤ 1: $(verdict "$T_P99"))"$'\n'
    for name in hummingbird hummingbird-1loop; do
        [ -n "${PID[$name]:-}" ] || continue
        TARGETS+="- against ${LABEL[$name]}: requests/s ×$(ratio "${RPS_MED[mockbackend]}" "${RPS_MED[$name]}"), p99 ×$(ratio "${P99_MED[mockbackend]}" "${P99_MED[$name]}"), server CPU per request ×$(ratio "${CPU_MED[mockbackend]}" "${CPU_MED[$name]}")"$'\n'
    done
fi
if [ -n "${PID[nginx]:-}" ]; then
    R_NG="$(ratio "${CPU_MED[mockbackend]}" "${CPU_MED[nginx]}")"
    T_NG="$(awk -v r="$R_NG" 'BEGIN { print (r <= 2) ? 1 : 0 }')"
    TARGETS+="- server CPU per request, mockbackend / nginx: **$R_NG** (${CPU_MED[mockbackend]} µs vs ${CPU_MED[nginx]} µs; target ≤ 2: $(verdict "$T_NG")); requests/s ×$(ratio "${RPS_MED[mockbackend]}" "${RPS_MED[nginx]}")"$'\n'
fi

SUMMARY="$(cat <<EOF
## GET /health, keep-alive — $(date -u '+%Y-%m-%d %H:%M UTC')

Machine: $(nproc --all) CPUs, $(uname -m), CPUs ${BUSY_BEFORE}% busy with other work just before the run.
Niceness $NICE. Servers pinned to CPU $SERVER_CPU, \`wrk -t1 -c$CONNECTIONS -d$DURATION --latency\` pinned to CPU $CLIENT_CPU;
$RUNS measured runs per server, in turns rotated run by run, after a $WARMUP warm-up each; medians shown.
mockbackend built from $MB_REVISION (binary $(date -u -r "$MB_BIN" '+%Y-%m-%d %H:%M UTC')).
Response size (head+body bytes): $(for name in "${SERVERS[@]}"; do printf '%s %s; ' "$name" "${RESP_BYTES[$name]}"; done)

| server | requests/s (median) | p99 ms (median) | server CPU µs per request (median) | requests/s per run | p99 ms per run | CPU µs per request per run | server's CPU share per run (%) | other work on its CPU per run (%) | peak threads per run |
|---|---:|---:|---:|---|---|---|---|---|---|
$TABLE

$TARGETS- mockbackend startup to first 200 on /health: **$STARTUP_MS ms** median of $STARTS (min $STARTUP_MIN, max $STARTUP_MAX; target < 20 ms: $(verdict "$T_START"))
- mockbackend RSS idle 0.5 s after its first 200: **$(mib "$START_RSS_MEDIAN") MiB** median of $STARTS starts (min $(mib "$START_RSS_MIN"), max $(mib "$START_RSS_MAX"); target < 15 MiB: $(verdict "$T_RSS")); the measured server idle after start: $(mib "$MB_RSS_IDLE") MiB = $MB_RSS_IDLE_SPLIT
- mockbackend RSS after warm-up $(mib "$MB_RSS_WARM") MiB, after run 1 $(mib "$MB_RSS_FIRST_RUN") MiB, after all $RUNS runs **$(mib "$MB_RSS_AFTER") MiB**, $(awk -v a="$MB_RSS_AFTER" -v i="$MB_RSS_IDLE" 'BEGIN { printf "%+.1f", (a - i) / 1024 }') MiB over idle; after load = $MB_RSS_AFTER_SPLIT (no growth run 1 → last, ±1 MiB: $(verdict "$T_GROWTH"))
- per-run RSS (MiB): $(for v in "${MB_RSS_RUN[@]}"; do printf '%s ' "$(mib "$v")"; done)
- RSS idle → after load (MiB): $(for name in "${SERVERS[@]}"; do printf '%s %s → %s; ' "$name" "$(mib "${RSS_IDLE[$name]}")" "$(mib "${RSS_AFTER[$name]}")"; done)
- socket errors / non-2xx over all measured runs (wrk$(if [ "$H2C" = 1 ]; then printf ' and h2load'; fi)): $ERRORS
- contended runs (other work took more than 10% of CPU $SERVER_CPU during the run): $CONTENDED of $((COUNT * RUNS))$(if [ "$CONTENDED" -gt 0 ]; then printf ' — **this result is disturbed by other load; rerun on a quiet machine**'; fi)
EOF
)"

printf '%s\n' "$SUMMARY" >"$RESULTS/latest.md"
printf '\n%s\n\n' "$SUMMARY"
log "written $RESULTS/latest.md (raw wrk output in $RAW)"
