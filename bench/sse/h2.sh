# Sourced by bench/sse/run.sh: mockbackend's fan-out over HTTP/1.1 and over h2c, the
# protocols taking turns. Uses run.sh's start, stop_server, measure, log and die, and its
# PROTOCOLS, H2_SIZES, H2_RUNS, STREAMS_PER_CONNECTION, RESULTS, CLIENT and H2_CLIENT.
#
# h2_comparison: for each size of H2_SIZES, H2_RUNS rounds; in each round a fresh
# mockbackend per protocol of PROTOCOLS, one after the other (the order reversed every other
# round), measured by driver.py as the main fan-out is: http1 with sse_client (one connection
# per stream), h2c with h2_client (STREAMS_PER_CONNECTION streams per connection, prior
# knowledge on the plain listener). The JSON of each: $RESULTS/h2/SIZE-PROTOCOL-runN.json.
h2_comparison() {
    local dir="$RESULTS/h2" size run proto client
    local -a protocols order
    rm -rf "$dir"
    mkdir -p "$dir"
    IFS=, read -r -a protocols <<<"$PROTOCOLS"
    for proto in "${protocols[@]}"; do
        case "$proto" in http1|h2c) ;; *) die "unknown protocol '$proto' in PROTOCOLS (http1, h2c)" ;; esac
    done
    for size in ${H2_SIZES//,/ }; do
        for run in $(seq 1 "$H2_RUNS"); do
            order=("${protocols[@]}")
            if [ $((run % 2)) = 0 ] && [ "${#protocols[@]}" = 2 ]; then order=("${protocols[1]}" "${protocols[0]}"); fi
            for proto in "${order[@]}"; do
                client="$CLIENT"
                [ "$proto" = h2c ] && client="$H2_CLIENT"
                log "HTTP/2 comparison: $size streams over $proto, round $run of $H2_RUNS"
                start mockbackend
                CLIENT_BIN="$client" STREAMS_PER_CONNECTION="$STREAMS_PER_CONNECTION" \
                    measure "mockbackend-$proto" mockbackend "$dir/$size-$proto-run$run.json" \
                    --sizes "$size" --cycles 1 --tp-rounds 0
                stop_server
            done
        done
    done
}
