# Shared by bench/run.sh: GET /health with h2load (Debian package nghttp2-client), ending its
# output with the same "BENCH ..." line bench/lib/report.lua adds to wrk's, so that the
# script reads the two clients alike. Needs `pinned`, CLIENT_CPU and CONNECTIONS.
#
# run_h2load MODE PORT DURATION OUTFILE: MODE h2c (prior knowledge on the plain port) or h1
# (h2load --h1: the same client over HTTP/1.1); CONNECTIONS connections of one thread,
# H2_STREAMS requests in flight per connection (h2load -m; 1 is what wrk does), for
# DURATION (h2load -D, no warm-up inside the run). Latency percentiles come from h2load's
# per-request log (--log-file: start time, status, µs to the end of the response), read
# into the BENCH line and removed (hundreds of thousands of lines a run). Errors: err_read counts h2load's failed requests,
# err_status the non-2xx answers, err_timeout its timeouts.
run_h2load() {
    local mode="$1" port="$2" duration="$3" out="$4" flags=()
    [ "$mode" = h1 ] && flags=(--h1)
    pinned "$CLIENT_CPU" h2load "${flags[@]}" -t1 -c"$CONNECTIONS" -m"${H2_STREAMS:-1}" -D "$duration" \
        --log-file="$out.requests" "http://127.0.0.1:$port/health" >"$out" 2>&1 || return 1
    local summary
    summary="$(awk '
        /^finished in/ { sub(/s,$/, "", $3); seconds = $3; rps = $4 }
        /^requests:/ { done = $6; failed = $10; timeout = $14 }
        /^status codes:/ { other = $5 + $7 + $9 }
        END { if (seconds == "") exit 1
              printf "%s %s %s %d %d %d", done, seconds, rps, failed, other, timeout }' "$out")" || return 1
    sort -n -k3,3 "$out.requests" | awk -v s="$summary" '
        { v[NR] = $3 }
        function pct(p,  r) { r = int((p * NR + 99) / 100); if (r < 1) r = 1; return v[r] }
        END {
            split(s, f, " ")
            if (NR == 0) exit 1
            printf "BENCH requests=%d seconds=%.3f rps=%.2f p50_us=%d p90_us=%d p99_us=%d max_us=%d " \
                "err_connect=0 err_read=%d err_write=0 err_status=%d err_timeout=%d\n",
                f[1], f[2], f[3], pct(50), pct(90), pct(99), v[NR], f[4], f[5], f[6]
        }' >>"$out" || return 1
    rm -f "$out.requests"
}
