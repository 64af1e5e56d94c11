#!/usr/bin/env python3
"""The summary of bench/sse/run.sh's HTTP/2 comparison: mockbackend's fan-out over HTTP/1.1
(one connection per stream) and over h2c (many streams per connection), markdown on stdout.

    report_h2.py DIRECTORY [--meta META.json]

Reads DIRECTORY/SIZE-PROTOCOL-runN.json (one driver.py run each, against a fresh server) and
pairs the protocols by round for the per-run ratios. Standard library only.
"""

import argparse
import glob
import json
import os
import re
import statistics
import time

TARGET = 1.5  # server CPU per delivery, h2c / HTTP/1.1, at most


def load(directory):
    """{size: {protocol: {run: the size's result}}}"""
    runs = {}
    for path in glob.glob(os.path.join(directory, "*.json")):
        match = re.fullmatch(r"(\d+)-(http1|h2c)-run(\d+)\.json", os.path.basename(path))
        if not match:
            continue
        size, protocol, run = int(match[1]), match[2], int(match[3])
        result = json.load(open(path))["sizes"][0]
        runs.setdefault(size, {}).setdefault(protocol, {})[run] = result
    return runs


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(value, digits=2):
    return "n/a" if value is None else f"{value:,.{digits}f}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("--meta")
    args = parser.parse_args()
    meta = json.load(open(args.meta)) if args.meta else {}
    per_connection = meta.get("streams_per_connection", 100)
    runs = load(args.directory)
    lines = []
    w = lines.append
    w(f"## SSE fan-out, HTTP/1.1 and h2c — {meta.get('date', time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()))}")
    w("")
    if meta:
        w(f"Machine: {meta.get('machine', '')}. {meta.get('notes', '')}")
        w("")
    busy = meta.get("busy_before_percent")
    if busy is not None and busy > 15:
        w(f"**The machine was busy** ({busy}% of its CPU time went to other work just before the run): "
          "compare the protocols within this run only.")
        w("")
    w(f"mockbackend alone, a fresh server per protocol and round, the protocols taking turns (the first "
      f"alternating). HTTP/1.1: one connection per stream (`sse_client`). h2c: {per_connection} streams per "
      f"connection with prior knowledge on the plain listener (`h2_client`, nghttp2's client; windows of "
      f"6 MiB per stream and 15 MiB per connection). {meta.get('events', '?')} measured events one at a time, "
      f"at least {meta.get('spacing_ms', '?')} ms apart, after {meta.get('warmup_events', '?')} unmeasured "
      f"ones; CPU is the server's utime+stime over the measured events ÷ (events × streams). Medians over "
      f"the rounds, each round's figure after them.")
    w("")
    w("| streams | protocol | connections | server CPU µs per delivery: median (per run) | "
      "of which user + system µs (medians) | p50 to last ms: median (per run) | p99 to last ms: median (per run) | "
      "p50 to first ms | server CPU to open the streams, ms (median) | KiB per idle stream | "
      "RSS idle → with streams → after disconnect, MiB (run 1) | "
      "other work on the server's CPU, s (per run) | closed by the server |")
    w("|---:|---|---:|---|---|---|---|---:|---:|---:|---|---|---:|")
    mib = lambda k: f"{k / 1024:.1f}"
    for size in sorted(runs):
        for protocol, label in (("http1", "HTTP/1.1"), ("h2c", "h2c")):
            rows = [r for _, r in sorted(runs[size].get(protocol, {}).items())]
            if not rows:
                continue
            cpu = [r["cpu_us_per_delivery"] for r in rows]
            p50 = [r["p50_last_ms"] for r in rows]
            p99 = [r["p99_last_ms"] for r in rows]
            closed = sum(int(b.split()[2]) for r in rows for b in r.get("client_byes", []) if len(b.split()) > 2)
            connections = size if protocol == "http1" else -(-size // per_connection)
            per_delivery = lambda key: median([r[key] * 1e6 / (r["events"] * size) if key in r else None for r in rows])
            connect = median([r["connect_server_cpu_seconds"] * 1e3 if "connect_server_cpu_seconds" in r else None
                              for r in rows])
            r1 = rows[0]
            w(f"| {size:,} | {label} | {connections:,} | **{fmt(median(cpu))}** ({' '.join(f'{v:g}' for v in cpu)}) | "
              f"{fmt(per_delivery('server_user_seconds'))} + {fmt(per_delivery('server_system_seconds'))} | "
              f"{fmt(median(p50), 1)} ({' '.join(f'{v:.1f}' for v in p50)}) | "
              f"{fmt(median(p99), 1)} ({' '.join(f'{v:.1f}' for v in p99)}) | "
              f"{fmt(median([r['p50_first_ms'] for r in rows]))} | {fmt(connect, 0)} | "
              f"{fmt(median([r['rss_per_stream_kib'] for r in rows]))} | "
              f"{mib(r1['rss_idle_kib'])} → {mib(r1['rss_streams_kib'])} → {mib(r1['rss_after_disconnect_kib'])} | "
              f"{' '.join(str(r.get('other_work_on_server_cpu_seconds', '?')) for r in rows)} | {closed} |")
    w("")
    w(f"| streams | h2c / HTTP/1.1, server CPU per delivery: ratio of the medians (per-run ratios) | "
      f"h2c / HTTP/1.1, p50 to the last subscriber | target: at most {TARGET}× |")
    w("|---:|---|---:|---|")
    for size in sorted(runs):
        h1, h2 = runs[size].get("http1", {}), runs[size].get("h2c", {})
        if not h1 or not h2:
            continue
        cpu = lambda rows: median([r["cpu_us_per_delivery"] for r in rows.values()])
        ratio = cpu(h2) / cpu(h1) if cpu(h1) else None
        per_run = [h2[n]["cpu_us_per_delivery"] / h1[n]["cpu_us_per_delivery"]
                   for n in sorted(set(h1) & set(h2)) if h1[n]["cpu_us_per_delivery"]]
        p50 = lambda rows: median([r["p50_last_ms"] for r in rows.values()])
        if ratio is None or not per_run:
            verdict = "n/a"
        else:
            above = sum(1 for r in per_run if r > TARGET)
            spread = f"{above} of {len(per_run)} runs above {TARGET}, {min(per_run):.2f}–{max(per_run):.2f}"
            verdict = f"met ({spread})" if ratio <= TARGET else f"**missed** ({spread})"
        w(f"| {size:,} | **{fmt(ratio)}** ({' '.join(f'{r:.2f}' for r in per_run)}) | "
          f"{fmt(p50(h2) / p50(h1) if p50(h1) else None)} | {verdict} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
