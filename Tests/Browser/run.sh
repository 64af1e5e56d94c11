#!/usr/bin/env bash
# Real-browser tests of the dashboard (Public/) and of Chromium's EventSource and WebSocket against
# mockbackend: installs chromium and chromium-driver when missing, selenium into a venv
# under .build/, then runs Tests/Browser/dashboard_test.py against the built server.
#
#   swift build && bash Tests/Browser/run.sh
#   SCREENSHOT_DIR=docs bash Tests/Browser/run.sh    # refresh the committed screenshots
#
# Every server the tests start listens on 127.0.0.1:0 and is stopped by them.
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1
cd "$(dirname "$0")/../.."

missing=()
for package in chromium chromium-driver python3-venv; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "browser tests: installing ${missing[*]}"
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi

venv=.build/browser-venv
if ! "$venv/bin/python" -c 'import selenium' >/dev/null 2>&1; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check selenium
fi

binary="$(swift build --show-bin-path)/mockbackend"
if [[ ! -x "$binary" ]]; then
  echo "browser tests: $binary is missing; run swift build first" >&2
  exit 1
fi

test_pid=
stop_tests() {
  # The test stops its servers in its own cleanup; SIGTERM lets that run.
  if [[ -n "$test_pid" ]] && kill -0 "$test_pid" 2>/dev/null; then
    kill -TERM "$test_pid" 2>/dev/null || true
    wait "$test_pid" 2>/dev/null || true
  fi
}
trap stop_tests EXIT
trap 'exit 130' INT TERM

"$venv/bin/python" -u Tests/Browser/dashboard_test.py --binary "$binary" \
  --screenshots "${SCREENSHOT_DIR:-.build/browser-screenshots}" &
test_pid=$!
status=0
wait "$test_pid" || status=$?
test_pid=
exit "$status"
