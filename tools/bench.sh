#!/usr/bin/env bash
# Translation speed and output size on the bench shaders, against vkd3d-shader measured in the
# same run and dxbc-spirv's published sizes; then the same speed comparison on the D3D9
# corpus once our translator accepts D3D9.
#
#   tools/bench.sh [-t SECONDS] [--plain] [STAGES...]      (default stages: vs ps cs)
#
# Builds: our translator is timed as two builds in the same run, cargo's plain release build
# (`cargo build --release`, what a crate user compiles) and the profile-guided build of
# tools/pgo.sh (what `translator/capi/install.sh --pgo` installs); --plain times the plain
# build only. vkd3d-shader is Debian's build of it.
# Speed: `dxbc bench -v` of each build and `../shared/tools/vkd3d-bench -v` alternate over the
# same files, three rounds each. The total ratio vkd3d/ours is taken from each side's best
# round (> 1 = we are faster); the per-shader table takes each file's best of the three rounds
# on each side, and the line "slowest shader (BUILD): NAME RATIOx" names the file with the
# lowest ratio.
# Size: our SPIR-V for the same files, counted by `../shared/tools/spirv-metrics` (debug names
# stripped), beside dxbc-spirv's instruction counts from ../shared/bench/peer-metrics.csv; the
# profile-guided build's output is compared byte for byte with the plain build's.
# D3D9: when `dxbc translate` accepts one of ../shared/corpus/d3dbc's files, the files both
# translators translate are timed the same way (total ratio only), once with our default
# render-state code and once with `--d3d9-no-state` (none, as vkd3d-shader's default compiles);
# otherwise the section says "D3D9: not translated yet".
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
secs=2 pgo=1
while [ $# -gt 0 ]; do
  case $1 in
    -t) secs=$2; shift 2 ;;
    --plain) pgo=0; shift ;;
    *) break ;;
  esac
done
stages=("$@"); [ ${#stages[@]} -gt 0 ] || stages=(vs ps cs)
[ -d "$shared/bench/dxbc" ] || { echo "bench.sh: $shared/bench is absent" >&2; exit 1; }

files=()
for s in "${stages[@]}"; do files+=("$shared"/bench/dxbc/"$s"[0-9]*.dxbc); done
cargo build -q --release -p dxbc-tools
dxbc=${CARGO_TARGET_DIR:-target}/release/dxbc
builds=(plain) bins=("$dxbc")
if [ "$pgo" = 1 ]; then
  builds+=(pgo) bins+=("$(tools/pgo.sh --print-dir | tail -n1)/dxbc")
fi
echo "builds timed: ${builds[*]} (plain: cargo build --release; pgo: tools/pgo.sh)"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

ours_args=()
# compare LABEL FILES...: three alternating rounds of the benchmarks over FILES (with -v, into
# $out/LABEL.{vkd3d,BUILD}.N), the best-round totals and the ratios.
compare() {
  local label=$1; shift
  for round in 1 2 3; do
    "$shared"/tools/vkd3d-bench -v -t "$secs" "$@" > "$out/$label.vkd3d.$round"
    for i in "${!builds[@]}"; do
      "${bins[$i]}" bench -v -t "$secs" "${ours_args[@]}" "$@" > "$out/$label.${builds[$i]}.$round"
    done
  done
  python3 - "$out" "$label" "$secs" "$#" "${builds[@]}" <<'PY'
import re, sys
out, label, secs, n, *builds = sys.argv[1:]
def read(side):
    means, per = [], {}
    for r in (1, 2, 3):
        for line in open(f"{out}/{label}.{side}.{r}"):
            m = re.search(r"mean=([0-9.]+)", line)
            if m:
                means.append(float(m.group(1)))
                continue
            m = re.match(r"\s+(\S+)\s+([0-9.]+) us$", line)
            if m:
                per[m.group(1)] = min(per.get(m.group(1), float("inf")), float(m.group(2)))
    return min(means), per
t, pt = read("vkd3d")
ours = {b: read(b) for b in builds}
print(f"{label} speed: {n} shaders; vkd3d-shader {t:.2f} us/shader; " +
      "; ".join(f"ours ({b}) {ours[b][0]:.2f} us/shader" for b in builds) +
      f" (best of 3 rounds of {secs}s)")
for b in builds:
    print(f"{label} speed ratio (vkd3d / ours, {b} build): {t / ours[b][0]:.2f}x")
if label == "bench":
    print(f"{'shader':<22}{'vkd3d us':>10}" + "".join(f"{b + ' us':>10}{'ratio':>7}" for b in builds))
    for f in sorted(pt):
        name = f.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        print(f"{name:<22}{pt[f]:>10.2f}" +
              "".join(f"{ours[b][1][f]:>10.2f}{pt[f] / ours[b][1][f]:>7.2f}" for b in builds))
    st = sum(pt.values())
    print(f"{'sum of best':<22}{st:>10.2f}" +
          "".join(f"{sum(ours[b][1].values()):>10.2f}{st / sum(ours[b][1].values()):>7.2f}" for b in builds) +
          "  (ratio > 1: we are faster)")
    for b in builds:
        po = ours[b][1]
        slow = min(po, key=lambda f: pt[f] / po[f])
        print(f"slowest shader ({b} build): {slow.rsplit('/', 1)[-1].rsplit('.', 1)[0]} {pt[slow] / po[slow]:.2f}x")
PY
}
compare bench "${files[@]}"

mkdir "$out/spv"
for f in "${files[@]}"; do
  "$dxbc" translate -o "$out/spv/$(basename "${f%.dxbc}").spv" "$f" || echo "size: $(basename "$f") does not translate"
  if [ "$pgo" = 1 ]; then
    "${bins[1]}" translate -o "$out/pgo.spv" "$f" && cmp -s "$out/pgo.spv" "$out/spv/$(basename "${f%.dxbc}").spv" ||
      echo "output: the pgo build's SPIR-V for $(basename "$f") differs from the plain build's"
  fi
done
python3 "$shared/tools/spirv-metrics" --csv "$out/ours.csv" "$out/spv" > "$out/metrics.txt" || true
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

# D3D9: the corpus files both translators take, once ours takes any.
d3d9=()
while IFS= read -r -d '' f; do d3d9+=("$f"); done < <(find "$shared/corpus/d3dbc" -name '*.d3dbc' -print0 2>/dev/null | sort -z)
accepts=""
for f in "${d3d9[@]}"; do
  if "$dxbc" translate -o "$out/probe.spv" "$f" 2>/dev/null; then accepts=yes; break; fi
done
if [ ${#d3d9[@]} -eq 0 ]; then
  echo "D3D9: $shared/corpus/d3dbc is absent"
elif [ -z "$accepts" ]; then
  echo "D3D9: not translated yet"
else
  both=()
  for f in "${d3d9[@]}"; do
    "$dxbc" translate -o "$out/d.spv" "$f" 2>/dev/null &&
      tools/vkd3d-compiler.sh -x d3dbc -b spirv-binary -o "$out/d.spv" "$f" 2>/dev/null &&
      both+=("$f")
  done
  echo "D3D9: ${#both[@]} of ${#d3d9[@]} corpus files translate with both"
  if [ ${#both[@]} -gt 0 ]; then
    # Our default compiles D3D9's fixed-function state in (specialization constants: alpha
    # test, fog, point size, clip planes, ...); vkd3d-shader's default compiles none. Both.
    compare D3D9 "${both[@]}"
    ours_args=(--d3d9-no-state)
    compare D3D9-no-state "${both[@]}"
    ours_args=()
  fi
fi
