#!/usr/bin/env bash
# Translation speed and output size on the bench shaders, against vkd3d-shader measured in the
# same run and dxbc-spirv's published sizes.
#
#   tools/bench.sh [-t SECONDS] [STAGES...]      (default stages: vs ps cs)
#
# Speed: `dxbc bench` and `../shared/tools/vkd3d-bench` alternate over the same files, three
# rounds each, and the ratio vkd3d/ours of the best round is printed (> 1 = we are faster).
# Size: our SPIR-V for the same files, counted by `../shared/tools/spirv-metrics` (debug names
# stripped), beside dxbc-spirv's instruction counts from ../shared/bench/peer-metrics.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
secs=2
if [ "${1:-}" = "-t" ]; then secs=$2; shift 2; fi
stages=("$@"); [ ${#stages[@]} -gt 0 ] || stages=(vs ps cs)
[ -d "$shared/bench/dxbc" ] || { echo "bench.sh: $shared/bench is absent" >&2; exit 1; }

files=()
for s in "${stages[@]}"; do files+=("$shared"/bench/dxbc/"$s"[0-9]*.dxbc); done
cargo build -q --release -p dxbc-tools
dxbc=${CARGO_TARGET_DIR:-target}/release/dxbc

best() { grep -oE 'mean=[0-9.]+' | cut -d= -f2; }
ours=(); theirs=()
for round in 1 2 3; do
  theirs+=("$("$shared"/tools/vkd3d-bench -t "$secs" "${files[@]}" | best)")
  ours+=("$("$dxbc" bench -t "$secs" "${files[@]}" | best)")
done
min() { printf '%s\n' "$@" | sort -g | head -n1; }
o=$(min "${ours[@]}"); t=$(min "${theirs[@]}")
echo "speed: ${#files[@]} shaders; ours ${o} us/shader, vkd3d-shader ${t} us/shader (best of 3 rounds of ${secs}s)"
awk -v o="$o" -v t="$t" 'BEGIN { printf "speed ratio (vkd3d / ours): %.2fx\n", t / o }'

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for f in "${files[@]}"; do
  "$dxbc" translate -o "$out/$(basename "${f%.dxbc}").spv" "$f" || echo "size: $(basename "$f") does not translate"
done
python3 "$shared/tools/spirv-metrics" --csv "$out/ours.csv" "$out" > "$out/metrics.txt" || true
tail -n1 "$out/metrics.txt"
python3 - "$out/ours.csv" "$shared/bench/peer-metrics.csv" <<'PY'
import csv, os, sys
ours = {os.path.splitext(os.path.basename(r['file']))[0]: r for r in csv.DictReader(open(sys.argv[1]))}
peer = {r['shader']: r for r in csv.DictReader(open(sys.argv[2])) if r['peer'] == 'dxbc-spirv'}
tot_o = tot_p = 0
print(f"{'shader':<22}{'ours':>8}{'dxbc-spirv':>12}{'ratio':>8}")
for name in sorted(ours):
    if name not in peer:
        continue
    o, p = int(ours[name]['instrs']), int(peer[name]['instrs'])
    tot_o += o; tot_p += p
    print(f"{name:<22}{o:>8}{p:>12}{o / p:>8.2f}")
print(f"{'total':<22}{tot_o:>8}{tot_p:>12}{tot_o / max(tot_p, 1):>8.2f}  (instructions; < 1.25 is the goal)")
PY
