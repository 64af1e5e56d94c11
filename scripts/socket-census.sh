#!/usr/bin/env bash
# Counts the test files that open sockets (start a server and connect to it, or spawn the
# binary) against all test files: the share of the suite that depends on loopback timing.
# A file counts when it names one of the socket helpers below; the rest test parsers,
# state machines, the stream engine on recording sinks, or the app in memory.
# Usage: bash scripts/socket-census.sh [--list]
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='withRunningServer|withHTTPServer|withTLSServer|RawHTTPClient|RawWebSocketClient|LoopbackWebSocket|acceptedConnection|ChildProcess|HTTPServer\(|TestRoutes\.responder|WebSocketTestRoutes|socket\('
total=0
sockets=0
while IFS= read -r file; do
    total=$((total + 1))
    if grep -qE "$pattern" "$file"; then
        sockets=$((sockets + 1))
        [ "${1:-}" = "--list" ] && echo "socket  $file"
    elif [ "${1:-}" = "--list" ]; then
        echo "memory  $file"
    fi
done < <(find Tests -name '*Tests.swift' | sort)
echo "test files that open sockets: $sockets of $total ($((100 * sockets / total))%)"
