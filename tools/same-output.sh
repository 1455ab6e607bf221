#!/usr/bin/env bash
# Dumps what a `dxbc` binary makes of every corpus and bench shader (DXBC and D3D9), so that
# a refactor can be shown to change no output: run it with the binary before and after, then
# `diff -r` the two folders.
#
#   tools/same-output.sh DXBC_BINARY OUT_DIR
#
# Per input file it writes the SPIR-V binary for the default options, with --debug-names, and
# for Vulkan 1.1, or the error message (`.err`) when translation fails.
set -uo pipefail
cd "$(dirname "$0")/.."
bin=$(realpath "$1"); out=$2
shared=../shared
[ -d "$shared/corpus/dxbc" ] || { echo "same-output.sh: $shared/corpus is absent" >&2; exit 1; }
mkdir -p "$out"
n=0
while IFS= read -r f; do
  name=$(echo "${f#"$shared"/}" | tr '/' '_')
  for variant in default names vk11; do
    case $variant in
      default) args=() ;;
      names) args=(--debug-names) ;;
      vk11) args=(--target-env vulkan1.1) ;;
    esac
    if ! "$bin" translate "${args[@]}" -o "$out/$name.$variant.spv" "$f" 2>"$out/$name.$variant.err"; then
      rm -f "$out/$name.$variant.spv"
    else
      rm -f "$out/$name.$variant.err"
    fi
  done
  n=$((n + 1))
done < <(find "$shared/corpus/dxbc" "$shared/bench/dxbc" "$shared/corpus/d3dbc" -type f \
  \( -name '*.dxbc' -o -name '*.d3dbc' \) | sort)
echo "same-output.sh: $n files into $out"
