#!/usr/bin/env bash
# GET /api/v1/state throughput against nginx serving a static file of the same JSON, in the
# same run, with wrk (issues 6 and 15: ratio at least 0.5).
#
#   benches/http.sh [seconds] [connections] [rounds]   (default 10 s, 64 connections, 3 rounds)
#
# The two servers are measured in turn, round after round (interleaved), and each run counts
# only if every response was a 2xx with at least the JSON's bytes (wrk's own status and byte
# counts, through a Lua `done` hook): a server answering 403 or an empty body fails the bench
# instead of flattering it. Reported: requests/s min/median/max per server and the ratio of
# the medians.
#
# The service runs the demo's built-in game to its end (`--speed max`) and keeps serving; the
# state it serves is saved to a file that nginx (one worker per core, access log off) serves.
# wrk runs with 2 threads on the same machine for both. Needs nginx and wrk
# (`apt-get install nginx wrk`).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
conns=${2:-64}
rounds=${3:-3}
command -v wrk >/dev/null && command -v nginx >/dev/null || {
    echo "needs wrk and nginx: apt-get install -y wrk nginx" >&2
    exit 1
}
cargo build --release --quiet
dir=$(mktemp -d)
chmod 755 "$dir"  # nginx's workers (www-data) read it
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
chmod 644 "$dir/www/state.json"
nginx -c "$dir/nginx.conf"
for _ in $(seq 50); do curl -fsS -o /dev/null "http://127.0.0.1:$nport/state.json" 2>/dev/null && break; sleep 0.1; done
# both serve the same bytes before anything is timed
curl -fsS "http://127.0.0.1:$nport/state.json" | cmp -s - "$dir/www/state.json" || {
    echo "nginx does not serve the state file (see $dir/nginx.err)" >&2
    exit 1
}
cat >"$dir/count.lua" <<'LUA'
done = function(summary, latency, requests)
  io.write(string.format("COUNTS %d %d %d %d\n", summary.requests, summary.bytes,
    summary.errors.status, summary.errors.connect + summary.errors.read +
    summary.errors.write + summary.errors.timeout))
end
LUA
# One wrk run against $1: prints its requests/s, or fails if any response was not a 2xx of
# at least $size bytes (headers included in wrk's byte count, so the body's size is a floor).
rate() {
    local out
    out=$(wrk -t2 -c"$conns" -d"${seconds}s" -s "$dir/count.lua" "$1")
    read -r _ requests bytes bad_status socket_errors < <(grep '^COUNTS' <<<"$out")
    if [ "$requests" -eq 0 ] || [ "$bad_status" -ne 0 ] || [ "$socket_errors" -ne 0 ] ||
        [ "$bytes" -lt $((requests * size)) ]; then
        echo "$1: $requests requests, $bad_status not 2xx, $socket_errors socket errors, $bytes bytes (want >= $size each)" >&2
        exit 1
    fi
    awk '/Requests\/sec/ {print $2}' <<<"$out"
}
stats() { sort -g | awk '{v[NR]=$1} END {printf "min %.0f  median %.0f  max %.0f", v[1], v[int((NR+1)/2)], v[NR]}'; }
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
: >"$dir/ours"
: >"$dir/theirs"
for r in $(seq "$rounds"); do
    # interleaved, the order alternating between rounds
    if [ $((r % 2)) -eq 1 ]; then
        rate "http://127.0.0.1:$port/api/v1/state" >>"$dir/ours"
        rate "http://127.0.0.1:$nport/state.json" >>"$dir/theirs"
    else
        rate "http://127.0.0.1:$nport/state.json" >>"$dir/theirs"
        rate "http://127.0.0.1:$port/api/v1/state" >>"$dir/ours"
    fi
done
echo "GET /api/v1/state ($size bytes of JSON), wrk -t2 -c$conns -d${seconds}s, $rounds rounds interleaved, on $(nproc) cores; every response a 2xx of the full body:"
echo "  smartgoban: $(stats <"$dir/ours") requests/s"
echo "  nginx, the same JSON as a static file: $(stats <"$dir/theirs") requests/s"
awk -v a="$(median <"$dir/ours")" -v b="$(median <"$dir/theirs")" 'BEGIN { printf "  ratio of the medians: %.2f (floor 0.5)\n", a / b }'
