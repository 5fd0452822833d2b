#!/usr/bin/env bash
# The real service on one core replaying a full game at --speed max: scans processed per CPU
# second and peak resident memory (issue floors: 5,000 scans/s, under 30 MiB RSS).
#
#   benches/service.sh [GAME.sgf] [noise]   (default: the built-in game, realistic noise)
#
# The virtual board (`smartgoban sim`) runs pinned to CPU 1, the service (`smartgoban run`)
# to CPU 0; the figures are read from /proc for the service process alone.
set -euo pipefail
cd "$(dirname "$0")/.."
game=${1:-assets/games/danghu03.sgf}
noise=${2:-realistic}
cargo build --release --quiet
bin=target/release/smartgoban
dir=$(mktemp -d)
trap 'kill $simpid $runpid 2>/dev/null || true; rm -rf "$dir"' EXIT
link=$dir/board
port=$((20000 + RANDOM % 20000))

taskset -c 1 "$bin" sim "$game" --link "$link" --speed max --noise "$noise" --exit-when-done >"$dir/sim.log" 2>&1 &
simpid=$!
for _ in $(seq 500); do [ -e "$link" ] && break; sleep 0.01; done
start=$(date +%s.%N)
taskset -c 0 "$bin" run --serial "$link" --game "$game" --http "127.0.0.1:$port" --data-dir "$dir/data" >"$dir/run.log" 2>&1 &
runpid=$!
wait "$simpid" # the board exits once the game is played out
end=$(date +%s.%N)
sleep 0.3 # let the service take in the last bytes

state=$(curl -fsS "http://127.0.0.1:$port/api/v1/state")
read -r utime stime < <(awk '{print $14, $15}' "/proc/$runpid/stat")
hwm_kb=$(awk '/VmHWM/ {print $2}' "/proc/$runpid/status")
kill -TERM "$runpid"
wait "$runpid" || true
tck=$(getconf CLK_TCK)
python3 - "$state" "$utime" "$stime" "$tck" "$hwm_kb" "$start" "$end" "$game" "$noise" <<'PY'
import json, sys
state, utime, stime, tck, hwm, start, end, game, noise = sys.argv[1:]
s = json.loads(state)
scans = s["link"]["scans"]
cpu = (int(utime) + int(stime)) / int(tck)
wall = float(end) - float(start)
print(f"game {game}, {noise} noise: {s['move_number']} moves recorded, phase {s['phase']}")
print(f"service: {scans} scans, {cpu:.2f} s CPU -> {scans / max(cpu, 0.01):,.0f} scans per CPU second")
print(f"         {wall:.2f} s wall for the whole game -> {scans / wall:,.0f} scans/s end to end")
print(f"         peak RSS {int(hwm) / 1024:.1f} MiB")
PY
