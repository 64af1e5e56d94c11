# Shared by the stream benchmarks (bench/sse/run.sh, bench/ws/run.sh): the cleanup of every
# process they start, the tools they need, niceness, CPUs and the open-file limit. Needs
# `log` and `die`, and ROOT, SERVER_CPU, CLIENT_CPU and NICE set.

# --- cleanup: every process the script starts is recorded in PIDS (lib/processes.sh) -------
# shellcheck source=processes.sh
source "$(dirname "${BASH_SOURCE[0]}")/processes.sh"
cleanup() { stop_all; }
# The driver's client processes are its children; it tells them to quit, and they quit
# on their own when its pipes close or after 900 s. Their pids are killed here as well.
kill_clients() {
    local pid
    for pid in $(pgrep -P "${DRIVER_PID:-0}" 2>/dev/null || true); do kill -KILL "$pid" 2>/dev/null || true; done
}
trap 'kill_clients; cleanup' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for tool in taskset curl python3 swift gcc awk; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is required"
done
if [ "$NICE" = auto ]; then
    if [ "$(id -u)" -eq 0 ]; then NICE=-10; else NICE=0; fi
fi
NCPU="$(nproc --all)"
[ "$SERVER_CPU" -lt "$NCPU" ] && [ "$CLIENT_CPU" -lt "$NCPU" ] || die "need CPUs $SERVER_CPU and $CLIENT_CPU"

# Each stream is a descriptor on both sides: raise the soft limit to the hard one.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
log "open-file limit: $(ulimit -n)"

# --- build -----------------------------------------------------------------------------
# mockbackend as every benchmark measures it: release, static stdlib, its own scratch path.
# shellcheck source=release_flags.sh
source "$(dirname "${BASH_SOURCE[0]}")/release_flags.sh"
MB_BUILD=(swift build "${MB_RELEASE_FLAGS[@]}" --scratch-path "$ROOT/.build-bench")
# Others edit Sources/ while this runs; swift build then stops with "modified during the
# build": try again a few times.
build() {
    local attempt
    for attempt in 1 2 3 4; do
        (cd "$ROOT" && "$@") >&2 && return 0
        log "build failed (attempt $attempt); retrying in 20 s"
        sleep 20
    done
    die "build failed: $*"
}
