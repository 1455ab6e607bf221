#!/usr/bin/env bash
# How much machine code one translation runs through: the distinct 64-byte lines of code
# executed, for our translator and for vkd3d-shader on the same files, and where ours are.
#
#   tools/footprint.sh [-v] FILE...        (DXBC or D3D9 bytecode; -v: ours per function)
#
# Why it matters (docs/architecture.md, "Code footprint"): `tools/bench.sh` times each shader
# between the others, and there a translation starts with the code of the previous ones in the
# caches and branch predictors. A translation that runs through more distinct code pays more
# for that than its instruction count says.
#
# Method: callgrind with per-instruction dumps. Ours: `dxbc bench -n 2 -t 0`, collected only
# inside the timed translations (`dxbc::bench::timed_translation`; the warm-up pass, which
# makes the reused tables, is left out). vkd3d-shader: `../shared/tools/vkd3d-bench -n 1 -t 0`,
# collected inside `vkd3d_shader_compile` (its warm-up pass included: it keeps nothing between
# compilations). Lines are counted per object (our binary; vkd3d-shader's library; libc), as a
# union over every translation collected: for one file that is one translation's footprint,
# for many the footprint of the whole set. The instruction counts are per translation; the
# peer's are not comparable with ours (valgrind counts each iteration of a `rep` string
# instruction, which its memory clearing uses), so only its lines are printed.
# DXBC=PATH measures that `dxbc` binary instead of cargo's release build (for example the
# profile-guided build of tools/pgo.sh, target/pgo/use/release/dxbc).
# Needs valgrind; the vkd3d-shader column needs ../shared/tools/vkd3d-bench.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=../shared
verbose=0
if [ "${1:-}" = "-v" ]; then verbose=1; shift; fi
[ $# -gt 0 ] || { echo "usage: tools/footprint.sh [-v] FILE..." >&2; exit 2; }
command -v valgrind >/dev/null || { echo "footprint.sh: needs valgrind (apt install valgrind)" >&2; exit 1; }
files=()
for f in "$@"; do files+=("$(realpath "$f")"); done
if [ -n "${DXBC:-}" ]; then
  dxbc=$(realpath "$DXBC")
else
  cargo build -q --release -p dxbc-tools
  dxbc=$(realpath "${CARGO_TARGET_DIR:-target}/release/dxbc")
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cg=(valgrind --tool=callgrind --dump-instr=yes --compress-pos=no --compress-strings=no)
"${cg[@]}" --toggle-collect='dxbc::bench::timed_translation' --callgrind-out-file="$out/ours" \
  "$dxbc" bench -t 0 -n 2 "${files[@]}" > /dev/null 2> "$out/ours.log" ||
  { cat "$out/ours.log" >&2; exit 1; }
if [ -x "$shared/tools/vkd3d-bench" ]; then
  # The script execs the driver in the same process: the largest dump is the driver's.
  "${cg[@]}" --trace-children=yes --toggle-collect='vkd3d_shader_compile' \
    --callgrind-out-file="$out/peer.%p" "$shared/tools/vkd3d-bench" -t 0 -n 1 "${files[@]}" \
    > /dev/null 2> "$out/peer.log" || { cat "$out/peer.log" >&2; exit 1; }
  mv "$(ls -S "$out"/peer.* | grep -v '\.log$' | head -1)" "$out/peer"
else
  echo "footprint.sh: $shared/tools/vkd3d-bench is absent: vkd3d-shader not measured" >&2
fi
python3 - "$out" "${#files[@]}" "$verbose" <<'PY'
import collections, os, re, sys
out, nfiles, verbose = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"

def read(path):
    """Distinct code lines per object, per function of each object, and the Ir total."""
    lines = collections.defaultdict(set)
    per_fn = collections.defaultdict(set)
    obj = fn = None
    total = 0
    for l in open(path, errors="replace"):
        if l.startswith("ob="):
            obj = os.path.basename(l.strip()[3:])
        elif l.startswith("fn="):
            fn = l.strip()[3:]
        elif l.startswith(("summary:", "totals:")):
            total = max(total, int(l.split()[1]))
        else:
            m = re.match(r"(0x[0-9a-f]+) ", l)
            if m and obj:
                line = int(m.group(1), 16) >> 6
                lines[obj].add(line)
                per_fn[(obj, fn)].add(line)
    return lines, per_fn, total

def show(label, lines):
    for obj, s in sorted(lines.items(), key=lambda kv: -len(kv[1])):
        if len(s) >= 8:
            print(f"  {label:<14}{obj:<36}{len(s):>7} lines {len(s) * 64 // 1024:>6} KiB")

ours, ours_fn, ours_ir = read(f"{out}/ours")
n = 2 * nfiles  # two timed passes over the files
print(f"{nfiles} file(s); distinct 64-byte code lines executed (union over the translations):")
show("ours", ours)
if os.path.exists(f"{out}/peer"):
    peer, _, _ = read(f"{out}/peer")
    show("vkd3d-shader", peer)
print(f"ours: {ours_ir // n} instructions per translation")
if verbose:
    main = max(ours, key=lambda o: len(ours[o]))
    print(f"ours per function ({main}), most lines first:")
    fns = sorted(((len(s), f) for (o, f), s in ours_fn.items() if o == main), reverse=True)
    for k, f in fns[:40]:
        print(f"  {k:>5}  {f[:120]}")
PY
