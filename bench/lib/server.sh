# Shared by the benchmark scripts: start a server pinned to $SERVER_CPU at niceness $NICE,
# wait for its "listening on http://127.0.0.1:PORT" line and its /health, and record it in
# PIDS for the caller's cleanup trap. Sets SERVER_PID and SERVER_PORT. Needs `die`.
start_server() {
    local name="$1" logfile="$2"
    shift 2
    nice -n "$NICE" taskset -c "$SERVER_CPU" "$@" >"$logfile" 2>&1 &
    SERVER_PID=$!
    PIDS+=("$SERVER_PID")
    SERVER_PORT=""
    local line
    for _ in $(seq 1 300); do
        kill -0 "$SERVER_PID" 2>/dev/null || { cat "$logfile" >&2; die "$name exited during start"; }
        line="$(grep -E 'listening on http://127\.0\.0\.1:[0-9]+' "$logfile" | tail -n 1 || true)"
        if [ -n "$line" ]; then
            SERVER_PORT="${line##*:}"
            SERVER_PORT="${SERVER_PORT//[^0-9]/}"
            break
        fi
        sleep 0.05
    done
    [ -n "$SERVER_PORT" ] || die "$name printed no listening line"
    for _ in $(seq 1 200); do
        if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$SERVER_PORT/health")" = 200 ]; then
            return 0
        fi
        sleep 0.05
    done
    die "$name did not answer 200 on /health"
}
