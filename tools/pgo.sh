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
# translator/capi/install.sh --pgo).
#
# Training set: every program in shaders/ (shaders/asm/*.asm, shaders/d3d9/*.asm,
# shaders/examples/*.dxbc, and each assembly section of shaders/runtime/**/*.shader_test: what
# the snapshot test translates, integration_tests::programs), translated with the default
# options and with --d3d9-no-state. Nothing from ../shared and
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

# 2. The training set: the repository's programs, as the snapshot test collects them, written
# out as files by the integration tests' `repo-programs`.
train=$base/train
rm -rf "$train"
cargo run -q --release -p integration-tests --bin repo-programs -- "$train" >/dev/null
gen=$base/gen/release/dxbc
inputs=("$train"/*.bin)
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
