# Shared by the benchmark scripts that start servers: every process started is recorded in
# PIDS, and `stop_all` (run on exit) stops them: SIGTERM, then SIGKILL after 3 s.
PIDS=()
stop_all() {
    local pid
    for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
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
