#!/usr/bin/env bash
# TLS benchmark: full handshakes per second and GET /health over TLS with keep-alive,
# mockbackend vs nginx, both on the same P-256 certificate and pinned to the same CPU.
#
#   bash bench/tls/run.sh
#
# Environment (all optional):
#   RUNS=3          measured runs per server and measure (alternated run by run)
#   DURATION=10     seconds per measured run
#   CONNECTIONS=50  wrk connections for the keep-alive measure (one wrk thread)
#   SERVER_CPU=0    CPU both servers are pinned to
#   CLIENT_CPU=1    CPU the load clients are pinned to
#   SKIP_BUILD=1    use the existing release binary
#   NICE=-10        niceness of servers and clients (default -10 as root, 0 otherwise)
#
# Handshakes: `openssl s_time -new` (a new TLS 1.3 session per connection, no resumption,
# one HTTP/1.0 GET each). Keep-alive: `wrk --latency https://.../health`. For both, the
# server's CPU time per handshake or request comes from /proc, so a figure stays
# meaningful when the load client is the bottleneck. Writes bench/results/tls.md.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RESULTS="$ROOT/bench/results"
RAW="$RESULTS/raw-tls"
RUNS="${RUNS:-3}"
DURATION="${DURATION:-10}"
CONNECTIONS="${CONNECTIONS:-50}"
SERVER_CPU="${SERVER_CPU:-0}"
CLIENT_CPU="${CLIENT_CPU:-1}"
SKIP_BUILD="${SKIP_BUILD:-0}"
NICE="${NICE:-auto}"

log() { printf '[bench-tls] %s\n' "$*" >&2; }
die() { printf '[bench-tls] error: %s\n' "$*" >&2; exit 1; }

# shellcheck source=../lib/processes.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/processes.sh"
# shellcheck source=../lib/nginx.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/nginx.sh"
WORK="$(mktemp -d)"
cleanup() {
    stop_all
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
for tool in wrk:wrk nginx:nginx-light openssl:openssl curl:curl; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool#*:}")
done
if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    as_root apt-get update
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
if [ "$NICE" = auto ]; then
    if [ "$(id -u)" -eq 0 ]; then NICE=-10; else NICE=0; fi
fi
pinned() { local cpu="$1"; shift; nice -n "$NICE" taskset -c "$cpu" "$@"; }

# shellcheck source=../lib/release_flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/release_flags.sh"
MB_BUILD=(swift build "${MB_RELEASE_FLAGS[@]}" --scratch-path "$ROOT/.build-bench")
if [ "$SKIP_BUILD" != 1 ]; then
    log "building mockbackend (release, static stdlib)"
    (cd "$ROOT" && "${MB_BUILD[@]}" --product mockbackend) >&2
fi
MB_BIN="$(cd "$ROOT" && "${MB_BUILD[@]}" --show-bin-path)/mockbackend"
[ -x "$MB_BIN" ] || die "missing $MB_BIN"
MB_REVISION="$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"

rm -rf "$RAW"
mkdir -p "$RAW"

# --- one certificate for both servers ------------------------------------------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/key.pem" \
    -out "$WORK/cert.pem" -days 30 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -addext "extendedKeyUsage=serverAuth" 2>/dev/null

# --- mockbackend -------------------------------------------------------------------------------
cd "$ROOT"
# Started directly (not through the `pinned` function, which would run in a subshell): $!
# must be the server itself, whose CPU time is read from /proc.
nice -n "$NICE" taskset -c "$SERVER_CPU" "$MB_BIN" --port 0 --tls-port 0 --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" \
    --log-level warning >"$RAW/mockbackend.log" 2>&1 &
MB_PID=$!
PIDS+=("$MB_PID")
MB_PORT=""
for _ in $(seq 1 200); do
    kill -0 "$MB_PID" 2>/dev/null || { cat "$RAW/mockbackend.log" >&2; die "mockbackend exited"; }
    MB_PORT="$(sed -n 's|^  https *https://127\.0\.0\.1:\([0-9]*\)/$|\1|p' "$RAW/mockbackend.log")"
    grep -q 'mockbackend listening on' "$RAW/mockbackend.log" && [ -n "$MB_PORT" ] && break
    sleep 0.05
done
[ -n "$MB_PORT" ] || die "mockbackend printed no https line"

# --- nginx (bench/lib/nginx.sh), with TLS on the same certificate -------------------------------
NGINX_PORT="$(free_port)"
write_nginx_conf "$WORK/nginx" "$NGINX_PORT" "        ssl_certificate $WORK/cert.pem;
        ssl_certificate_key $WORK/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;"
nice -n "$NICE" taskset -c "$SERVER_CPU" nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" >"$RAW/nginx.log" 2>&1 &
NGINX_PID=$!
PIDS+=("$NGINX_PID")

for target in "mockbackend:$MB_PORT" "nginx:$NGINX_PORT"; do
    ok=""
    for _ in $(seq 1 100); do
        if [ "$(curl -s --cacert "$WORK/cert.pem" -o /dev/null -w '%{http_code}' "https://localhost:${target#*:}/health")" = 200 ]; then
            ok=1
            break
        fi
        sleep 0.05
    done
    [ -n "$ok" ] || die "${target%%:*} does not answer 200 on https://localhost:${target#*:}/health"
done
log "mockbackend pid $MB_PID tls port $MB_PORT; nginx pid $NGINX_PID port $NGINX_PORT"

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
CLK_TCK="$(getconf CLK_TCK)"
median() { tr ' ' '\n' | awk 'NF' | sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "nan"; exit }
    if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A HS HS_CPU RPS P99 REQ_CPU
for run in $(seq 1 "$RUNS"); do
    if [ $((run % 2)) -eq 1 ]; then order="mockbackend nginx"; else order="nginx mockbackend"; fi
    for name in $order; do
        if [ "$name" = mockbackend ]; then port=$MB_PORT pid=$MB_PID; else port=$NGINX_PORT pid=$NGINX_PID; fi

        out="$RAW/run$run-$name-handshakes.txt"
        ticks0="$(cpu_ticks "$pid")"
        pinned "$CLIENT_CPU" openssl s_time -connect "127.0.0.1:$port" -new -time "$DURATION" -www /health \
            >"$out" 2>&1 </dev/null || true
        ticks1="$(cpu_ticks "$pid")"
        line="$(grep -E '^[0-9]+ connections in [0-9.]+ real seconds' "$out" | head -1)"
        [ -n "$line" ] || { cat "$out" >&2; die "s_time against $name printed no summary"; }
        rate="$(echo "$line" | awk '{ printf "%.0f", $1 / $4 }')"
        per="$(echo "$line" | awk -v t=$((ticks1 - ticks0)) -v hz="$CLK_TCK" '{ printf "%.1f", 1e6 * t / hz / $1 }')"
        HS[$name]+="$rate "
        HS_CPU[$name]+="$per "

        out="$RAW/run$run-$name-keepalive.txt"
        ticks0="$(cpu_ticks "$pid")"
        pinned "$CLIENT_CPU" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" --latency "https://127.0.0.1:$port/health" \
            >"$out" 2>&1 || { cat "$out" >&2; die "wrk against $name failed"; }
        ticks1="$(cpu_ticks "$pid")"
        requests="$(awk '/requests in/ { print $1 }' "$out")"
        RPS[$name]+="$(awk '/^Requests\/sec:/ { printf "%.0f", $2 }' "$out") "
        P99[$name]+="$(awk '$1 == "99%" { v = $2; if (v ~ /us$/) { sub(/us/, "", v); v /= 1000 }
            else if (v ~ /ms$/) sub(/ms/, "", v); else if (v ~ /s$/) { sub(/s/, "", v); v *= 1000 }; printf "%.2f", v }' "$out") "
        REQ_CPU[$name]+="$(awk -v t=$((ticks1 - ticks0)) -v hz="$CLK_TCK" -v n="$requests" 'BEGIN { printf "%.1f", 1e6 * t / hz / n }') "
        grep -q "Non-2xx\|Socket errors" "$out" && log "warning: $name run $run had errors: $(grep -E 'Non-2xx|Socket errors' "$out")"
        log "run $run $name: ${rate} handshakes/s (${per} µs server CPU each); $(awk '/^Requests\/sec:/ { print $2 }' "$out") requests/s"
    done
done

row() { # NAME
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$1" \
        "$(echo "${HS[$1]}" | median)" "$(echo "${HS_CPU[$1]}" | median)" \
        "$(echo "${RPS[$1]}" | median)" "$(echo "${P99[$1]}" | median)" "$(echo "${REQ_CPU[$1]}" | median)" \
        "${HS[$1]}/ ${RPS[$1]}"
}
ratio() { awk -v a="$(echo "$1" | median)" -v b="$(echo "$2" | median)" 'BEGIN { printf "%.2f", a / b }'; }
{
    echo "# TLS: mockbackend vs nginx $(nginx -v 2>&1 | sed 's|.*nginx/||')"
    echo
    echo "$(date -u '+%Y-%m-%d %H:%M UTC'), mockbackend $MB_REVISION, $(openssl version | cut -d' ' -f1-2)," \
        "servers on CPU $SERVER_CPU, clients on CPU $CLIENT_CPU, medians of $RUNS runs of ${DURATION} s."
    echo
    echo "| server | handshakes/s | server µs per handshake | keep-alive requests/s | p99 ms | server µs per request | per run (handshakes / requests) |"
    echo "|---|---:|---:|---:|---:|---:|---|"
    row mockbackend
    row nginx
    echo
    echo "Ratios mockbackend / nginx: handshakes/s $(ratio "${HS[mockbackend]}" "${HS[nginx]}")," \
        "server CPU per handshake $(ratio "${HS_CPU[mockbackend]}" "${HS_CPU[nginx]}")," \
        "keep-alive requests/s $(ratio "${RPS[mockbackend]}" "${RPS[nginx]}")," \
        "server CPU per request $(ratio "${REQ_CPU[mockbackend]}" "${REQ_CPU[nginx]}")."
} | tee "$RESULTS/tls.md"
