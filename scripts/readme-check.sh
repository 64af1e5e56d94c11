#!/usr/bin/env bash
# README.md's examples, run: its Swift blocks compiled against this package, its shell
# blocks run in order against the server (127.0.0.1, a free port), then drifted copies of
# the README, which must fail. Details in scripts/readme_check.py.
#
#   bash scripts/readme-check.sh               all three
#   bash scripts/readme-check.sh --self-test   only the drifted copies
set -euo pipefail
cd "$(dirname "$0")/.."

swift build
bin_path=$(swift build --show-bin-path)
if [ "${1-}" != --self-test ]; then
    python3 scripts/readme_check.py swift --bin-path "$bin_path"
    python3 scripts/readme_check.py shell --binary "$bin_path/mockbackend"
    # Again over HTTP/2 (h2c, prior knowledge): every curl of the README as a client that
    # speaks h2 from its first byte.
    python3 scripts/readme_check.py shell --binary "$bin_path/mockbackend" --curl-option=--http2-prior-knowledge
fi
python3 scripts/readme_check.py self-test --binary "$bin_path/mockbackend" --bin-path "$bin_path"
