#!/usr/bin/env bash
# The client library's EventSource over h2 on Linux: URLSession (FoundationNetworking, on
# libcurl) negotiates h2 by ALPN with the TLS listener once the system trusts the server's
# certificate; it never asks the app. This makes a throwaway CA and a localhost certificate,
# adds the CA to the system store for the run (root), runs the EventSource, user-info 403 and
# job tracker suites with both
# transports (`ClientTransport`), and takes the CA out again, whatever happens.
#
#   bash scripts/eventsource-over-h2.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
[ "$(id -u)" = 0 ] || { echo "needs root: it adds a CA to the system store for the run" >&2; exit 1; }
command -v update-ca-certificates >/dev/null || { echo "needs ca-certificates (update-ca-certificates)" >&2; exit 1; }

dir="$(mktemp -d)"
anchor=/usr/local/share/ca-certificates/mockbackend-eventsource-check.crt
cleanup() {
    rm -f "$anchor"
    update-ca-certificates --fresh >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
    -subj "/CN=mockbackend EventSource check CA" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign" -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=localhost" \
    -keyout "$dir/leaf.key" -out "$dir/leaf.csr" 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > "$dir/leaf.ext"
openssl x509 -req -days 1 -in "$dir/leaf.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
    -extfile "$dir/leaf.ext" -out "$dir/leaf.pem" 2>/dev/null
cp "$dir/ca.pem" "$anchor"
update-ca-certificates >/dev/null 2>&1

MOCKBACKEND_TRUSTED_TLS_CERT="$dir/leaf.pem" MOCKBACKEND_TRUSTED_TLS_KEY="$dir/leaf.key" \
    swift test --filter 'EventSourceTests|UserInfoStreamForbiddenTests|JobTrackerTests' 2>&1 | tee "$dir/test.log" | grep -E '✘|h2 \(TLS|Test run' || true
grep -q 'h2 (TLS, trusted certificate)' "$dir/test.log" || { echo "the h2 cases did not run" >&2; exit 1; }
grep -q '✘' "$dir/test.log" && exit 1
grep -q 'Test run with .* passed' "$dir/test.log"
