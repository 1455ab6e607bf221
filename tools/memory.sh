#!/usr/bin/env bash
# Memory of the translator in a long-running process: peak RSS of `dxbc bench` over the bench
# set (GNU time's "Maximum resident set size"), and RSS sampled while it translates the set
# N times over, so that growth across many translations (a leak, a cache without bound) shows.
#
#   tools/memory.sh [-n TRANSLATIONS] [FILES...]   (default: 10000 over ../shared/bench/dxbc/*)
#
# Prints the peak RSS of one pass (plus the warm-up) and of the long run, RSS samples of the long
# run (every 0.05 s), and the growth over its last three quarters (the first samples include
# start-up). Needs /usr/bin/time.
set -euo pipefail
cd "$(dirname "$0")/.."
n=10000
if [ "${1:-}" = "-n" ]; then n=$2; shift 2; fi
files=("$@"); [ ${#files[@]} -gt 0 ] || files=(../shared/bench/dxbc/*.dxbc)
[ -f "${files[0]}" ] || { echo "memory.sh: ${files[0]} is absent" >&2; exit 1; }
cargo build -q --release -p dxbc-tools
dxbc=${CARGO_TARGET_DIR:-target}/release/dxbc
passes=$(( (n + ${#files[@]} - 1) / ${#files[@]} ))
peak() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F': ' '/Maximum resident/ { print $2 }'; }
echo "files: ${#files[@]}"
echo "peak RSS, 1 pass (${#files[@]} translations + warm-up): $(peak "$dxbc" bench -t 0 -n 1 "${files[@]}") KiB"
echo "peak RSS, $passes passes ($(( passes * ${#files[@]} )) translations + warm-up): $(peak "$dxbc" bench -t 0 -n "$passes" "${files[@]}") KiB"
"$dxbc" bench -t 0 -n "$passes" "${files[@]}" >/dev/null &
pid=$!
samples=()
while kill -0 "$pid" 2>/dev/null; do
  r=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
  [ -z "$r" ] || samples+=("$r")
  sleep 0.05
done
wait "$pid"
[ ${#samples[@]} -gt 0 ] || { echo "memory.sh: the run ended before RSS could be sampled"; exit 1; }
echo "RSS samples (KiB): ${samples[*]}"
q=$(( ${#samples[@]} / 4 ))
echo "RSS first sample ${samples[0]} KiB (start-up), at a quarter of the run ${samples[$q]} KiB, last ${samples[-1]} KiB:" \
  "growth $(( samples[-1] - samples[q] )) KiB over the last three quarters"
