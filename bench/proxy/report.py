"""Markdown summary of bench/proxy/driver.py's JSON: medians of the runs, every run's
figure after them, and each target of the proxy's benchmark met or missed."""

import argparse
import json
import statistics


def median(values):
    return round(statistics.median(values), 3)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("--revision", default="unknown")
    parser.add_argument("--streams", type=int)
    parser.add_argument("--rate", type=float)
    args = parser.parse_args()
    data = json.load(open(args.path))
    runs = data["runs"]

    def column(path):
        values = []
        for run in runs:
            value = run
            for key in path:
                value = value[key]
            values.append(value)
        return values

    added50 = [r["proxied"]["p50_ms"] - r["direct"]["p50_ms"] for r in runs]
    added99 = [r["proxied"]["p99_ms"] - r["direct"]["p99_ms"] for r in runs]
    relayed = column(["fanout", "proxy_cpu_us_per_relayed_delivery"])
    local = column(["fanout", "upstream_cpu_us_per_local_delivery"])
    ratios = [a / b for a, b in zip(relayed, local)]
    per_stream = column(["fanout", "kib_per_proxied_stream"])
    download = data["download"]
    quiet = data["quiet"]
    fmt = lambda values: " ".join(str(round(v, 3)) for v in values)
    verdict = lambda ok: "met" if ok else "**missed**"
    lines = [
        f"## Proxy mode beside a direct connection — mockbackend {args.revision}",
        "",
        f"{args.streams} streams, {args.rate:g} events/s in total (each event to one stream); "
        f"{len(runs)} runs, direct and proxied taking turns; medians, then every run's figure.",
        "",
        "| measure | median | per run | target |",
        "|---|---:|---|---|",
        f"| direct p50 / p99, ms | {median(column(['direct', 'p50_ms']))} / {median(column(['direct', 'p99_ms']))} "
        f"| {fmt(column(['direct', 'p99_ms']))} (p99) | |",
        f"| proxied p50 / p99, ms | {median(column(['proxied', 'p50_ms']))} / {median(column(['proxied', 'p99_ms']))} "
        f"| {fmt(column(['proxied', 'p99_ms']))} (p99) | |",
        f"| added delay p50, ms | {median(added50)} | {fmt(added50)} | |",
        f"| added delay p99, ms | {median(added99)} | {fmt(added99)} | ≤ 1 ms: {verdict(median(added99) <= 1)} |",
        f"| proxy CPU per relayed delivery, µs | {median(relayed)} | {fmt(relayed)} | |",
        f"| upstream CPU per local broadcast delivery, µs | {median(local)} | {fmt(local)} | |",
        f"| relayed / local | {median(ratios)} | {fmt(ratios)} | ≤ 2: {verdict(median(ratios) <= 2)} |",
        f"| RSS per open proxied stream, KiB | {median(per_stream)} | {fmt(per_stream)} "
        f"| ≤ 16 KiB: {verdict(median(per_stream) <= 16)} |",
        f"| 100 MB download: RSS growth over idle, KiB | {download['rss_growth_kib']} | "
        f"{download['bytes']} bytes in {download['seconds']} s | flat (< 4 MiB): "
        f"{verdict(download['rss_growth_kib'] < 4096 and download['bytes'] > 100 * 1024 * 1024)} |",
        f"| quiet proxied stream, open after {quiet['seconds']} s | {quiet['open']} | {quiet['heartbeats']} heartbeats "
        f"| stays open: {verdict(quiet['open'])} |",
        "",
        "One day's figures on one machine: compare the ratios, measured in one run, not the absolute times.",
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
