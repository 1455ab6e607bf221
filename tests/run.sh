#!/usr/bin/env bash
# The whole test suite, ending with a summary of what passed, failed and was skipped.
#
#   bash tests/run.sh --install [CARGO TEST ARGS...]   first install what the tests need
#   bash tests/run.sh [CARGO TEST ARGS...]             use what is there
#
# --install (as root, or through sudo) installs the Debian packages the tests run (spirv-tools,
# a C and C++ compiler, pkg-config, binutils, valgrind, and what tools/debian-root.sh needs),
# then fetches into the cache, once, Mesa 25's lavapipe with the Khronos validation layer
# (tools/lavapipe.sh) and vkd3d-compiler 2.x (tools/vkd3d-compiler.sh, the HLSL compiler of the
# runtime tests), and adds rustup's llvm-tools component (tools/pgo.sh's llvm-profdata); a
# failure there stops the run. Without --install these happen on first use, and where they
# fail the tests that need them record themselves skipped.
#
# 1. Release: `cargo test --workspace --release --no-fail-fast`, through tools/lavapipe.sh, so
#    that every test binary (and the vk-runner it starts) runs on Mesa 25's lavapipe.
# 2. Debug: the sweeps over real, mutated and random programs again, in a debug build, where
#    debug assertions hold and the IR validator checks the module after every pass (the release
#    build skips both for speed; the `translate` fuzz target found a bug only they caught).
# 3. Summary: tests passed, failed and skipped per build, the runtime suite's checks (the line
#    `runtime: N passed, M failed, K skipped`), then every skipped group with its reason. Tests
#    record what they could not run (tests/src/skip.rs) in the file DXBC_SPIRV_SKIP_LOG names;
#    a test that skipped whole is counted skipped, not passed.
#
# Exits non-zero when a build or a test failed.
set -euo pipefail
cd "$(dirname "$0")/.."

install=0
if [ "${1:-}" = --install ]; then install=1; shift; fi

# What the tests run: spirv-val, cc/c++, pkg-config and readelf (the C API), valgrind (the C
# example), and apt, dpkg-deb, the archive keyring and flock (tools/debian-root.sh).
packages=(spirv-tools gcc g++ libc6-dev pkg-config binutils valgrind
          apt dpkg ca-certificates debian-archive-keyring util-linux)

say() { echo "tests/run.sh: $*" >&2; }

if [ "$install" = 1 ]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    sudo=()
    if [ "$(id -u)" != 0 ]; then
      command -v sudo >/dev/null || { say "installing ${missing[*]} needs root or sudo"; exit 1; }
      sudo=(sudo)
    fi
    say "installing ${missing[*]}"
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends "${missing[@]}" >/dev/null
  fi
  tools/lavapipe.sh true || { say "tools/lavapipe.sh failed"; exit 1; }
  # (vulkaninfo's complaints about a missing display go with its output.)
  vulkan=$(tools/lavapipe.sh vulkaninfo --summary 2>&1) ||
    { echo "$vulkan" >&2; say "tools/lavapipe.sh failed"; exit 1; }
  say "Vulkan: $(grep -m1 'driverInfo' <<<"$vulkan" | sed 's/.*= *//')"
  compiler=$(tools/vkd3d-compiler.sh --version) || { say "tools/vkd3d-compiler.sh failed"; exit 1; }
  say "HLSL compiler: $compiler"
  # llvm-profdata for the profile-guided build (tools/pgo.sh, tested by install.rs).
  if command -v rustup >/dev/null; then
    rustup component add llvm-tools >/dev/null 2>&1 || { say "rustup component add llvm-tools failed"; exit 1; }
  else
    say "no rustup: the profile-guided build's test will record itself skipped"
  fi
fi

# Mesa 25's lavapipe when it can be had; else the machine's own Vulkan driver, if any (the
# runtime tests then record what they could not run).
lavapipe=(tools/lavapipe.sh)
if ! tools/lavapipe.sh true; then
  say "**************************************************************************"
  say "tools/lavapipe.sh cannot run here: the tests use this machine's Vulkan driver"
  say "**************************************************************************"
  lavapipe=()
fi

logs=${CARGO_TARGET_DIR:-target}/test-run
mkdir -p "$logs"
logs=$(cd "$logs" && pwd)
rm -f "$logs"/*.skips "$logs"/*.out

# run NAME CMD...: runs a cargo test command with its skip log, keeping its output.
status=0
run() {
  local name=$1; shift
  : >"$logs/$name.skips"
  DXBC_SPIRV_SKIP_LOG="$logs/$name.skips" "$@" 2>&1 | tee "$logs/$name.out" || status=1
}
run release "${lavapipe[@]}" cargo test --workspace --release --no-fail-fast "$@"
run debug cargo test -p integration-tests --no-fail-fast --test corpus_translate \
  --test stages_translate --test translate_mutations --test random_flow --test d3dbc_translate \
  --test translator_reuse "$@"
# The stage timing behind `dxbc bench --stages` exists only with its feature: its tests with it.
run stage-times cargo test --release -p translator --features stage-times --lib stage_times

# The summary.
summary() {
  local name=$1 what=$2
  awk -F'\t' -v name="$name" -v what="$what" -v out="$logs/$name.out" '
    $1 == "whole" && !seen[$2]++ { skipped++ }
    END {
      while ((getline line < out) > 0) {
        if (line ~ /^test result: /) {
          nw = split(line, w, /[ ;.]+/)
          for (i = 1; i < nw; i++) {
            if (w[i + 1] == "passed") passed += w[i]
            if (w[i + 1] == "failed") failed += w[i]
            if (w[i + 1] == "ignored") ignored += w[i]
          }
          results++
        }
        if (line ~ /^---- .* stdout ----$/) {
          sub(/^---- /, "", line); sub(/ stdout ----$/, "", line); failures = failures "\n  failed: " line
        }
        if (line ~ /^error(\[E[0-9]+\])?: / && line !~ /test failed|targets? failed/) build_error = 1
      }
      if (!results) { printf "%s: no test ran%s (%s)\n", name, build_error ? ": the build failed" : "", what; exit }
      printf "%s: %d passed, %d failed, %d skipped, %d ignored (%s)%s\n",
        name, passed - skipped, failed, skipped, ignored, what, failures
    }' "$logs/$name.skips"
}
{
  echo
  echo "=================================== summary ==================================="
  summary release "cargo test --workspace --release"
  summary debug "the sweeps again in a debug build"
  summary stage-times "the stage timing, built with its feature"
  awk -F'\t' '$1 == "runtime" { line = sprintf("runtime: %d passed, %d failed, %d skipped", $2, $3, $4) }
    END { print line ? line : "runtime: no count (the runtime suite did not run, or failed before counting: see above)" }' \
    "$logs/release.skips"
  # Every skipped group, with its reason: the tests that skipped whole, then what ran in part.
  cat "$logs/release.skips" "$logs/debug.skips" | awk -F'\t' '
    $1 != "whole" && $1 != "part" { next }
    {
      key = $3 ": " $4
      if (!(key in order)) { order[key] = ++n; keys[n] = key }
      entry = ($1 == "whole") ? "    " $2 : ($3 == "runtime checks") ? "    " $5 : "    " $2 " (in part: " $5 ")"
      if (!seen[key, entry]++) lines[key] = lines[key] "\n" entry
    }
    END {
      if (!n) { print "skipped: nothing"; exit }
      print "skipped (none of it counts as passed):"
      for (i = 1; i <= n; i++) print "  " keys[i] lines[keys[i]]
    }'
} | tee "$logs/summary.txt"
exit $status
