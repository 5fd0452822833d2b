#!/usr/bin/env bash
# Builds every fuzz target once (release, cargo-fuzz's default AddressSanitizer), then runs each
# for SECONDS (default 60) in one process, one after another, starting from its seeds, and
# prints a summary: runs, seconds, exec/s, coverage, features, corpus size. Exit 1 if any
# target crashed (its input lands in fuzz/artifacts/TARGET/).
#
#   fuzz/run.sh [SECONDS] [TARGET…]        # needs nightly and cargo-fuzz (see .ci/run)
#
# The corpus grows in fuzz/corpus/TARGET/ (kept between runs, not committed); each run first
# copies in fuzz/seeds/TARGET/, the committed seeds. Logs: fuzz/target/logs/TARGET.log.
set -euo pipefail
cd "$(dirname "$0")"

seconds=${1:-60}
shift || true
if [ "$#" -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

echo "+ cargo +nightly fuzz build -O"
cargo +nightly fuzz build -O

mkdir -p target/logs
rows=()
failed=0
for target in "${targets[@]}"; do
    mkdir -p "corpus/$target"
    cp -n "seeds/$target"/* "corpus/$target/" 2>/dev/null || true
    log="target/logs/$target.log"
    echo "+ cargo +nightly fuzz run -O $target -- -max_total_time=$seconds (log: fuzz/$log)"
    status=ok
    # One process (no -jobs/-workers); an input slower than 10 s counts as a failure too.
    if ! cargo +nightly fuzz run -O "$target" -- \
        -max_total_time="$seconds" -timeout=10 -print_final_stats=1 >"$log" 2>&1; then
        status=CRASH
        failed=1
        tail -n 40 "$log"
    fi
    # libFuzzer's last lines: "#N DONE cov: C ft: F corp: …" and "Done N runs in S second(s)".
    runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
    secs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$log" | tail -n 1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
    rate=-
    if [ -n "$runs" ] && [ -n "$secs" ] && [ "$secs" -gt 0 ]; then
        rate=$((runs / secs))
    fi
    rows+=("$(printf '%-14s %12s %8s %9s %7s %7s %7s  %s' "$target" "${runs:--}" "${secs:--}" \
        "$rate" "${cov:--}" "${ft:--}" "${corp:--}" "$status")")
done

echo
echo "== fuzzing summary (${seconds} s per target)"
printf '%-14s %12s %8s %9s %7s %7s %7s  %s\n' target runs seconds exec/s cov ft corpus result
printf '%s\n' "${rows[@]}"
if [ "$failed" -ne 0 ]; then
    echo "a fuzz target failed: see the log above and fuzz/artifacts/" >&2
    exit 1
fi
