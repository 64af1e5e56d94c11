#!/usr/bin/env bash
# Builds the libFuzzer target for HTTPRequestParser and runs it.
#
#   fuzz/run.sh [SECONDS]      replay fuzz/regressions/, then fuzz for SECONDS (default 60)
#   fuzz/run.sh --build        build only
#   fuzz/run.sh --replay FILE  run one input (a reproducer) and show what it triggers
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
BIN=$BUILD/request-parser-fuzzer
CORPUS=$FUZZ/corpus-work
ARTIFACTS=$FUZZ/artifacts

SWIFTC=${SWIFTC:-$(command -v swiftc || echo /opt/swift/usr/bin/swiftc)}
OPT=${FUZZ_OPT:--O}
MAX_LEN=${FUZZ_MAX_LEN:-8192}

# The parser and only the message types it uses. ProblemDetails comes from a stub in
# fuzz/support/ (the real one drags in HTTPResponse and the connection layer).
SOURCES=(
    "$SRC"/Parsing/*.swift
    "$SRC"/Message/HTTPRequest.swift
    "$SRC"/Message/HTTPHeaders.swift
    "$SRC"/Message/HTTPVersion.swift
    "$FUZZ"/support/*.swift
    "$FUZZ"/RequestParserFuzzer.swift
)

build() {
    mkdir -p "$BUILD"
    # Rebuild only when a source or the flags changed.
    local stamp
    stamp=$( { echo "$SWIFTC $OPT"; cat "${SOURCES[@]}"; } | sha256sum | cut -d' ' -f1)
    if [[ -x $BIN && -f $BUILD/stamp && $(cat "$BUILD/stamp") == "$stamp" ]]; then
        echo "fuzz: $BIN is up to date"
        return 0
    fi
    local opt
    for opt in "$OPT" -Onone; do
        echo "fuzz: building $BIN with $opt"
        local flags=(-sanitize=fuzzer,address -parse-as-library -module-name MockBackendHTTP
            -swift-version 6 -g -use-ld=lld "$opt")
        [[ $opt != -Onone ]] && flags+=(-wmo)
        if "$SWIFTC" "${flags[@]}" "${SOURCES[@]}" -o "$BIN"; then
            echo "$stamp" >"$BUILD/stamp"
            return 0
        fi
        [[ $opt == -Onone ]] && break
        echo "fuzz: build with $opt failed; retrying with -Onone" >&2
    done
    echo "fuzz: build failed" >&2
    return 2
}

# Swift's runtime keeps caches that LeakSanitizer would report; the parser cannot leak
# outside Swift's ownership rules anyway.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:symbolize=1}
# Swift's own crash backtracer would race libFuzzer's handler (and hang on ASan); off.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

report_new_artifacts() {
    local since=$1 found=0 file
    for file in "$ARTIFACTS"/crash-* "$ARTIFACTS"/oom-* "$ARTIFACTS"/timeout-* "$ARTIFACTS"/leak-*; do
        [[ -f $file && $file -nt $since ]] || continue
        found=1
        echo "fuzz: REPRODUCER: $ROOT/$file"
        echo "fuzz:   replay:    fuzz/run.sh --replay $file"
        echo "fuzz:   minimize:  SWIFT_BACKTRACE=enable=no $BIN -minimize_crash=1 -runs=20000" \
            "-exact_artifact_path=$file.min $file"
    done
    return $found
}

case "${1:-}" in
--build)
    build
    exit $?
    ;;
--replay)
    [[ $# -ge 2 ]] || { echo "usage: fuzz/run.sh --replay FILE" >&2; exit 2; }
    build || exit 2
    "$BIN" "$2"
    exit $?
    ;;
-h | --help)
    sed -n '2,15p' "$0"
    exit 0
    ;;
esac

DURATION=${1:-60}
[[ $DURATION =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a number, got '$DURATION'" >&2; exit 2; }

build || exit 2
mkdir -p "$CORPUS" "$ARTIFACTS"

# 1. Inputs that once found a bug must stay fixed.
shopt -s nullglob
regressions=()
for input in "$FUZZ"/regressions/*; do
    [[ -f $input && $input != *.md ]] && regressions+=("$input")
done
regression_failed=0
for input in "${regressions[@]}"; do
    if ! "$BIN" "$input" >"$BUILD/replay.log" 2>&1; then
        regression_failed=1
        echo "fuzz: REGRESSION FAILS: $input"
        grep -A12 "invariant violated\|ERROR: AddressSanitizer\|Fatal error" "$BUILD/replay.log" | head -40
    fi
done
echo "fuzz: replayed ${#regressions[@]} regression input(s)"

# 2. Fuzz, starting from the committed seeds plus whatever earlier runs kept.
cp -n "$FUZZ"/seeds/* "$CORPUS"/ 2>/dev/null || true
marker=$BUILD/run-start
touch "$marker"
echo "fuzz: running for ${DURATION}s (corpus $CORPUS, artifacts $ARTIFACTS)"
# shellcheck disable=SC2086
"$BIN" "$CORPUS" \
    -dict="$FUZZ/http.dict" \
    -max_total_time="$DURATION" \
    -max_len="$MAX_LEN" \
    -timeout=10 \
    -artifact_prefix="$ARTIFACTS/" \
    -print_final_stats=1 \
    ${FUZZ_ARGS:-} 2>&1 | tee "$BUILD/fuzz.log"
status=${PIPESTATUS[0]}

if ! report_new_artifacts "$marker" || [[ $status -ne 0 ]]; then
    echo "fuzz: FAILED (libFuzzer exit status $status); see $BUILD/fuzz.log"
    exit 1
fi
if [[ $regression_failed -ne 0 ]]; then
    echo "fuzz: FAILED: a regression input in fuzz/regressions/ still fails"
    exit 1
fi
echo "fuzz: no crash in ${DURATION}s"
