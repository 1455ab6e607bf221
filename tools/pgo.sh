#!/usr/bin/env bash
# Profile-guided release build of the CLI and the C libraries (docs/architecture.md,
# "Profile-guided build"): the translator is built instrumented, translates this repository's
# own shaders (the training set below), and is rebuilt with that profile, so that the optimizer
# lays out and inlines the code for the paths translations take.
#
#   tools/pgo.sh [--print-dir]
#
# Output: target/pgo/use/release/{dxbc, libdxbc_spirv.so, libdxbc_spirv.a,
# libvkd3d_shader_shim.so} (under $CARGO_TARGET_DIR/pgo when that is set). With --print-dir the
# script prints that release directory as its last line, for scripts (tools/bench.sh,
# translator/capi/install.sh --pgo). Needs python3 (to cut the training set out of the tests).
#
# Training set: every program in shaders/ (shaders/asm/*.asm, shaders/d3d9/*.asm,
# shaders/examples/*.dxbc, and each assembly or hex section of shaders/runtime/**/*.shader_test),
# translated with the default options and with --d3d9-no-state. Nothing from ../shared and
# nothing from the benchmark's files, so the profile is the same on every machine and the
# benchmark measures shaders the build never saw.
#
# Needs llvm-profdata of the Rust toolchain's LLVM: the script adds rustup's llvm-tools
# component when it is missing, and fails with a message naming it when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."
print_dir=0
case "${1:-}" in
  --print-dir) print_dir=1 ;;
  "") ;;
  *) echo "usage: tools/pgo.sh [--print-dir]" >&2; exit 2 ;;
esac
say() { echo "pgo.sh: $*" >&2; }

sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$sysroot/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  say "adding rustup's llvm-tools component (llvm-profdata)"
  rustup component add llvm-tools >&2 ||
    { say "cannot get llvm-profdata: 'rustup component add llvm-tools' failed"; exit 1; }
fi
[ -x "$profdata" ] || { say "no llvm-profdata at $profdata after adding llvm-tools"; exit 1; }

base=${CARGO_TARGET_DIR:-target}/pgo
mkdir -p "$base"
base=$(cd "$base" && pwd)
packages=(-p dxbc-tools -p dxbc-spirv-capi -p vkd3d-shader-shim)

# 1. The instrumented build. All packages in one build, so the translator crate is compiled
# once (one feature set): the profile's function names then match what the last step builds.
say "instrumented build"
rm -rf "$base/raw"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-generate=$base/raw" \
  cargo build -q --release "${packages[@]}" --target-dir "$base/gen"

# 2. The training set, written out as files.
train=$base/train
rm -rf "$train"
mkdir -p "$train/asm" "$train/bin"
cp shaders/examples/*.dxbc "$train/bin/"
for f in shaders/asm/*.asm; do cp "$f" "$train/asm/sm4-$(basename "$f")"; done
for f in shaders/d3d9/*.asm; do cp "$f" "$train/asm/d3d9-$(basename "$f")"; done
python3 - "$train" <<'PY'
# Each `[<stage> shader asm]` / `dxbc-asm` section becomes a .asm file, each `dxbc-tpf-hex` /
# `d3dbc-hex` section (little-endian 32-bit words in hex) a binary file.
import pathlib, re, struct, sys
train = pathlib.Path(sys.argv[1])
head = re.compile(r"^\[(\w+) shader (asm|dxbc-asm|dxbc-tpf-hex|d3dbc-hex)\]\s*$")
for n, path in enumerate(sorted(pathlib.Path("shaders/runtime").rglob("*.shader_test"))):
    kind, body, k = None, [], 0
    def flush():
        global k
        if kind is None:
            return
        name = f"{path.stem}-{n}-{k}"
        k += 1
        if kind.endswith("hex"):
            words = [int(w, 16) for line in body for w in line.split("%")[0].split()]
            (train / "bin" / f"{name}.bin").write_bytes(struct.pack(f"<{len(words)}I", *words))
        else:
            (train / "asm" / f"{name}.asm").write_text("".join(body))
    for line in path.read_text().splitlines(keepends=True):
        if line.startswith("["):
            flush()
            m = head.match(line)
            kind, body = (m.group(2) if m else None), []
        elif kind is not None and not line.lstrip().startswith("%"):
            body.append(line)
    flush()
PY
gen=$base/gen/release/dxbc
shopt -s nullglob
for f in "$train"/asm/*.asm; do
  # A section a test means to be refused does not assemble; it trains nothing and is left out.
  "$gen" asm -o "$train/bin/$(basename "${f%.asm}").bin" "$f" 2>/dev/null || true
done
inputs=("$train"/bin/*)
[ ${#inputs[@]} -ge 100 ] || { say "only ${#inputs[@]} training inputs (expected over 100)"; exit 1; }
say "training on ${#inputs[@]} programs"
"$gen" bench -t 0 -n 3 "${inputs[@]}" >&2
"$gen" bench --d3d9-no-state -t 0 -n 3 "${inputs[@]}" >&2
"$profdata" merge -o "$base/merged.profdata" "$base"/raw/*.profraw

# 3. The optimized build, with the profile.
say "optimized build"
RUSTFLAGS="${RUSTFLAGS:-} -Cprofile-use=$base/merged.profdata" \
  cargo build -q --release "${packages[@]}" --target-dir "$base/use"
say "built $base/use/release/{dxbc,libdxbc_spirv.so,libdxbc_spirv.a,libvkd3d_shader_shim.so}"
if [ "$print_dir" = 1 ]; then echo "$base/use/release"; fi
