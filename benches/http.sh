#!/usr/bin/env bash
# GET /api/v1/state throughput against nginx serving a static file of the same JSON, in the
# same run, with wrk (issue 6: ratio at least 0.5).
#
#   benches/http.sh [seconds] [connections]      (default 10 s, 64 connections)
#
# The service runs the demo's built-in game to its end (`--speed max`) and keeps serving; the
# state it serves is saved to a file that nginx (one worker per core, access log off) serves.
# wrk runs with 2 threads on the same machine for both. Needs nginx and wrk
# (`apt-get install nginx wrk`).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
conns=${2:-64}
command -v wrk >/dev/null && command -v nginx >/dev/null || {
    echo "needs wrk and nginx: apt-get install -y wrk nginx" >&2
    exit 1
}
cargo build --release --quiet
dir=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
nport=$((port + 1))
trap 'kill $demopid 2>/dev/null || true; [ -f "$dir/nginx.pid" ] && kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true; rm -rf "$dir"' EXIT
target/release/smartgoban demo --speed max --http "127.0.0.1:$port" >"$dir/demo.log" 2>&1 &
demopid=$!
for _ in $(seq 300); do grep -q "still serving" "$dir/demo.log" 2>/dev/null && break; sleep 0.1; done
mkdir -p "$dir/www"
curl -fsS "http://127.0.0.1:$port/api/v1/state" >"$dir/www/state.json"
size=$(stat -c %s "$dir/www/state.json")
cat >"$dir/nginx.conf" <<CONF
worker_processes auto;
pid $dir/nginx.pid;
error_log $dir/nginx.err;
events { worker_connections 1024; }
http {
    access_log off;
    default_type application/json;
    client_body_temp_path $dir/tmp; proxy_temp_path $dir/tmp; fastcgi_temp_path $dir/tmp;
    uwsgi_temp_path $dir/tmp; scgi_temp_path $dir/tmp;
    server { listen 127.0.0.1:$nport; root $dir/www; }
}
CONF
mkdir -p "$dir/tmp"
nginx -c "$dir/nginx.conf"
sleep 0.3
rate() { wrk -t2 -c"$conns" -d"${seconds}s" "$1" | awk '/Requests\/sec/ {print $2}'; }
ours=$(rate "http://127.0.0.1:$port/api/v1/state")
theirs=$(rate "http://127.0.0.1:$nport/state.json")
echo "GET /api/v1/state ($size bytes of JSON), wrk -t2 -c$conns -d${seconds}s on $(nproc) cores:"
echo "  smartgoban: $ours requests/s"
echo "  nginx, the same JSON as a static file: $theirs requests/s"
awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "  ratio: %.2f (floor 0.5)\n", a / b }'
