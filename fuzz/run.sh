#!/usr/bin/env bash
# Builds the libFuzzer targets and runs them: HTTPRequestParser (request-parser),
# WebSocketFrameDecoder (frame-decoder) and the HTTP/2 input path over nghttp2 (h2-session).
#
#   fuzz/run.sh [SECONDS]      for each target: replay its regressions, then fuzz for SECONDS (default 60)
#   fuzz/run.sh --build        build only
#   fuzz/run.sh --replay FILE  run one input (a reproducer) and show what it triggers; the
#                              target is frame-decoder for a file under fuzz/websocket/,
#                              h2-session under fuzz/http2/, else request-parser
#
# FUZZ_TARGETS (default "request-parser frame-decoder h2-session") picks the targets.
#
# Exit status: 0 when nothing was found, 1 when a regression input or a new input
# crashed (the reproducer's path is printed), 2 when the build failed.
#
# Environment: SWIFTC (default: swiftc on PATH, else /opt/swift/usr/bin/swiftc),
# FUZZ_OPT (default -O; falls back to -Onone if -O does not build), FUZZ_MAX_LEN (8192),
# FUZZ_ARGS (extra libFuzzer flags), FUZZ_IGNORE (comma-separated finding signatures to
# skip while exploring past a known finding; never in CI).
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
FUZZ=fuzz
SRC=Sources/MockBackendHTTP
BUILD=$FUZZ/.build-fuzz
ARTIFACTS=$FUZZ/artifacts

SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
OPT=${FUZZ_OPT:--O}
MAX_LEN=${FUZZ_MAX_LEN:-8192}
TARGETS=${FUZZ_TARGETS:-request-parser frame-decoder h2-session}

# Per target: its sources, dictionary, seeds, regressions and working corpus.
# request-parser: the parser and only the message types it uses. ProblemDetails comes from
# a stub in fuzz/support/ (the real one drags in HTTPResponse and the connection layer).
# frame-decoder: the WebSocket codec, which depends on nothing else.
configure() {
    EXTRA_FLAGS=()
    case $1 in
    request-parser)
        SOURCES=(
            "$SRC"/Parsing/*.swift
            "$SRC"/Message/HTTPRequest.swift
            "$SRC"/Message/HTTPHeaders.swift
            "$SRC"/Message/HTTPVersion.swift
            "$SRC"/Message/RequestBodyStream.swift
            "$ROOT"/Sources/MockBackendSupport/LockedValue.swift
            "$FUZZ"/support/*.swift
            "$FUZZ"/common/*.swift
            "$FUZZ"/RequestParserFuzzer.swift
        )
        DICT=$FUZZ/http.dict
        SEEDS=$FUZZ/seeds
        REGRESSIONS=$FUZZ/regressions
        CORPUS=$FUZZ/corpus-work
        ;;
    frame-decoder)
        SOURCES=(
            "$SRC"/WebSocket/UTF8Validator.swift
            "$SRC"/WebSocket/WebSocketCloseCode.swift
            "$SRC"/WebSocket/WebSocketClosePayload.swift
            "$SRC"/WebSocket/WebSocketFrame.swift
            "$SRC"/WebSocket/WebSocketFrameHeader.swift
            "$SRC"/WebSocket/WebSocketFrameDecoder.swift
            "$SRC"/WebSocket/WebSocketMessageAssembler.swift
            "$FUZZ"/common/*.swift
            "$FUZZ"/FrameDecoderFuzzer.swift
        )
        DICT=$FUZZ/websocket/websocket.dict
        SEEDS=$FUZZ/websocket/seeds
        REGRESSIONS=$FUZZ/websocket/regressions
        CORPUS=$FUZZ/corpus-work-websocket
        ;;
    h2-session)
        SOURCES=(
            "$SRC"/HTTP2/HTTP2Session.swift
            "$SRC"/HTTP2/HTTP2HeaderVector.swift
            "$SRC"/HTTP2/HTTP2Support.swift
            "$SRC"/HTTP2/HTTP2Preface.swift
            "$FUZZ"/common/*.swift
            "$FUZZ"/HTTP2SessionFuzzer.swift
        )
        EXTRA_FLAGS=(-Xcc -fmodule-map-file="$ROOT"/Sources/CNghttp2/module.modulemap -lnghttp2)
        DICT=$FUZZ/http2/h2.dict
        SEEDS=$FUZZ/http2/seeds
        REGRESSIONS=$FUZZ/http2/regressions
        CORPUS=$FUZZ/corpus-work-http2
        ;;
    *)
        echo "fuzz: unknown target '$1'" >&2
        return 2
        ;;
    esac
    BIN=$BUILD/$1-fuzzer
}

build() {
    mkdir -p "$BUILD"
    # Rebuild only when a source or the flags changed.
    local stamp
    stamp=$( { echo "$SWIFTC $OPT"; cat "${SOURCES[@]}"; } | sha256sum | cut -d' ' -f1)
    if [[ -x $BIN && -f $BIN.stamp && $(cat "$BIN.stamp") == "$stamp" ]]; then
        echo "fuzz: $BIN is up to date"
        return 0
    fi
    local opt
    for opt in "$OPT" -Onone; do
        echo "fuzz: building $BIN with $opt"
        local flags=(-sanitize=fuzzer,address -parse-as-library -module-name MockBackendHTTP -package-name mockbackend
            -swift-version 6 -g -use-ld=lld "$opt" "${EXTRA_FLAGS[@]}")
        [[ $opt != -Onone ]] && flags+=(-wmo)
        if "$SWIFTC" "${flags[@]}" "${SOURCES[@]}" -o "$BIN"; then
            echo "$stamp" >"$BIN.stamp"
            return 0
        fi
        [[ $opt == -Onone ]] && break
        echo "fuzz: build with $opt failed; retrying with -Onone" >&2
    done
    echo "fuzz: build failed" >&2
    return 2
}

# Swift's runtime keeps caches that LeakSanitizer would report; the code under test cannot
# leak outside Swift's ownership rules anyway.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:symbolize=1}
# Swift's own crash backtracer would race libFuzzer's handler (and hang on ASan); off.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

report_new_artifacts() {
    local since=$1 prefix=$2 found=0 file
    for file in "$prefix"crash-* "$prefix"oom-* "$prefix"timeout-* "$prefix"leak-*; do
        [[ -f $file && $file -nt $since ]] || continue
        found=1
        echo "fuzz: REPRODUCER: $ROOT/$file"
        echo "fuzz:   replay:    fuzz/run.sh --replay $file"
        echo "fuzz:   minimize:  SWIFT_BACKTRACE=enable=no $BIN -minimize_crash=1 -runs=20000" \
            "-exact_artifact_path=$file.min $file"
    done
    return $found
}

# Replays the target's regressions, then fuzzes it for DURATION seconds.
fuzz_target() {
    local target=$1
    configure "$target" || return 2
    build || return 2
    mkdir -p "$CORPUS" "$ARTIFACTS"

    # 1. Inputs that once found a bug must stay fixed.
    shopt -s nullglob
    local regressions=() input regression_failed=0
    for input in "$REGRESSIONS"/*; do
        [[ -f $input && $input != *.md ]] && regressions+=("$input")
    done
    for input in "${regressions[@]}"; do
        if ! "$BIN" "$input" >"$BIN.replay.log" 2>&1; then
            regression_failed=1
            echo "fuzz: REGRESSION FAILS: $input"
            grep -A12 "invariant violated\|ERROR: AddressSanitizer\|Fatal error" "$BIN.replay.log" | head -40
        fi
    done
    echo "fuzz: $target: replayed ${#regressions[@]} regression input(s)"

    # 2. Fuzz, starting from the committed seeds plus whatever earlier runs kept.
    cp -n "$SEEDS"/* "$CORPUS"/ 2>/dev/null || true
    local marker=$BIN.run-start prefix=$ARTIFACTS/$target-
    touch "$marker"
    echo "fuzz: $target: running for ${DURATION}s (corpus $CORPUS, artifacts $prefix*)"
    # shellcheck disable=SC2086
    "$BIN" "$CORPUS" \
        -dict="$DICT" \
        -max_total_time="$DURATION" \
        -max_len="$MAX_LEN" \
        -timeout=10 \
        -artifact_prefix="$prefix" \
        -print_final_stats=1 \
        ${FUZZ_ARGS:-} 2>&1 | tee "$BIN.log"
    local status=${PIPESTATUS[0]}

    if ! report_new_artifacts "$marker" "$prefix" || [[ $status -ne 0 ]]; then
        echo "fuzz: $target: FAILED (libFuzzer exit status $status); see $BIN.log"
        return 1
    fi
    if [[ $regression_failed -ne 0 ]]; then
        echo "fuzz: $target: FAILED: a regression input in $REGRESSIONS/ still fails"
        return 1
    fi
    echo "fuzz: $target: no crash in ${DURATION}s"
}

case "${1:-}" in
--build)
    for target in $TARGETS; do
        configure "$target" && build || exit 2
    done
    exit 0
    ;;
--replay)
    [[ $# -ge 2 ]] || { echo "usage: fuzz/run.sh --replay FILE" >&2; exit 2; }
    case $2 in
    *websocket/* | *frame-decoder-*) configure frame-decoder ;;
    *http2/* | *h2-session-*) configure h2-session ;;
    *) configure request-parser ;;
    esac
    build || exit 2
    "$BIN" "$2"
    exit $?
    ;;
-h | --help)
    sed -n '2,20p' "$0"
    exit 0
    ;;
esac

DURATION=${1:-60}
[[ $DURATION =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a number, got '$DURATION'" >&2; exit 2; }

overall=0
for target in $TARGETS; do
    fuzz_target "$target"
    result=$?
    [[ $result -eq 2 ]] && exit 2
    [[ $result -ne 0 ]] && overall=1
done
exit $overall
