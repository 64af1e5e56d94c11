#!/usr/bin/env bash
# Replay timing: a replayed `sse` stub of EVENTS events with uneven gaps (2–40 ms, seeded)
# on the real clock, each event's arrival against its recorded offset from the response
# head, beside an aiohttp (PyPI) server writing the same schedule by absolute deadlines;
# the two take turns run by run.
#
#   bash bench/replay/run.sh
#
# Environment (all optional): RUNS=5 EVENTS=200 SKIP_BUILD=1 (use the release binary built)
#
# Writes bench/results/replay/latest.md (also printed) and latest.json. Uses only
# 127.0.0.1; stops everything it started.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
RESULTS="$ROOT/bench/results/replay"
RUNS="${RUNS:-5}"
EVENTS="${EVENTS:-200}"
mkdir -p "$RESULTS"

cd "$ROOT"
# Built as every benchmark builds it (bench/lib/release_flags.sh), in their scratch path.
# shellcheck source=../lib/release_flags.sh
source "$ROOT/bench/lib/release_flags.sh"
MB_BUILD=(swift build "${MB_RELEASE_FLAGS[@]}" --scratch-path "$ROOT/.build-bench")
if [ "${SKIP_BUILD:-0}" != 1 ]; then "${MB_BUILD[@]}" --product mockbackend >&2; fi
BINARY="$("${MB_BUILD[@]}" --show-bin-path)/mockbackend"
python3 -m venv "$ROOT/.build/bench-venv"
"$ROOT/.build/bench-venv/bin/pip" install --quiet aiohttp
"$ROOT/.build/bench-venv/bin/python" "$HERE/driver.py" "$BINARY" "$RUNS" "$EVENTS" > "$RESULTS/latest.json"
"$ROOT/.build/bench-venv/bin/python" - "$RESULTS/latest.json" > "$RESULTS/latest.md" <<'PY'
import json, statistics, sys
data = json.load(open(sys.argv[1]))
runs = data["runs"]
lines = [f"# Replay timing: {data['events']} events, {len(runs)} runs (error of each arrival against its offset, ms)", "",
         "| server | p50 (median) | p99 (median) | max (median) | p99 per run |", "|---|---:|---:|---:|---|"]
for name in ("mockbackend", "aiohttp"):
    p50 = statistics.median(run[name]["p50"] for run in runs)
    p99 = statistics.median(run[name]["p99"] for run in runs)
    top = statistics.median(run[name]["max"] for run in runs)
    per = " ".join(f"{run[name]['p99']:.2f}" for run in runs)
    lines.append(f"| {name} | {p50:.2f} | {p99:.2f} | {top:.2f} | {per} |")
ratio = statistics.median(run["mockbackend"]["p99"] / max(run["aiohttp"]["p99"], 1e-6) for run in runs)
lines += ["", f"p99 ratio mockbackend / aiohttp, median of per-run ratios: {ratio:.2f}",
          "target: mockbackend p99 within ±5 ms"]
print("\n".join(lines))
PY
cat "$RESULTS/latest.md"
