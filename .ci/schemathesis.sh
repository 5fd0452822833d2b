#!/usr/bin/env bash
# The API does what its OpenAPI document says: schemathesis (PyPI) with every check
# (`--checks all`) against a running demo, once without the referee's token (reads answer,
# actions are 401) and once with it (actions run: new games, rulings, clocks, results).
# The exceptions, each with its reason, are in .ci/schemathesis.toml.
#
# Usage: .ci/schemathesis.sh [PYTHON_VENV]   (default target/ci-python; made if missing)
# Env: SCHEMATHESIS_EXAMPLES (default 40 per operation and phase).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${1:-target/ci-python}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check 'schemathesis==4.32.5'

cargo build --profile test --bin smartgoban
work=$(mktemp -d)
port=$("$venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
# A real game at real time: it is still being played while the checks run.
target/debug/smartgoban demo --speed 1 --http "127.0.0.1:$port" --data-dir "$work/data" -q \
    > "$work/demo.log" 2>&1 &
demo=$!
cleanup() {
    kill "$demo" 2>/dev/null || true
    wait "$demo" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
for _ in $(seq 1 300); do
    "$venv/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
        "$base/api/v1/state" 2>/dev/null && break
    kill -0 "$demo" 2>/dev/null || { cat "$work/demo.log"; echo "the demo stopped" >&2; exit 1; }
    sleep 0.1
done
token=$(target/debug/smartgoban token --data-dir "$work/data")

run() {
    echo "+ schemathesis run $base/api/v1/openapi.json --checks all $*"
    "$venv/bin/schemathesis" --config-file .ci/schemathesis.toml run "$base/api/v1/openapi.json" \
        --checks all --max-examples "${SCHEMATHESIS_EXAMPLES:-40}" --seed 1 \
        --request-timeout 10 "$@"
}
echo "== schemathesis without the token"
run
echo "== schemathesis with the referee's token"
run -H "Authorization: Bearer $token"
kill -0 "$demo" || { cat "$work/demo.log"; echo "the demo died under the checks" >&2; exit 1; }
