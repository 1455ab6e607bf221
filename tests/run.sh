#!/usr/bin/env bash
# Runs the whole test suite. When ../shared/tools/with-new-lavapipe is present (CI, the team's
# machines), every test binary runs against Mesa 25's lavapipe so that Vulkan 1.3+ features
# (descriptor indexing, non-uniform indexing, ...) are tested; otherwise against whatever Vulkan
# driver the machine has (runtime tests report themselves skipped when there is none).
#
# Then the sweeps over real, mutated and random programs run again in a debug build, where
# debug assertions hold and the IR validator checks the module after every pass (the release
# build skips both for speed; the `translate` fuzz target found a bug only they caught).
set -euo pipefail
cd "$(dirname "$0")/.."
lavapipe=../shared/tools/with-new-lavapipe
if [ -x "$lavapipe" ] && [ -z "${NO_NEW_LAVAPIPE:-}" ]; then
  "$lavapipe" cargo test --workspace --release "$@"
else
  cargo test --workspace --release "$@"
fi
cargo test -p integration-tests --test corpus_translate --test stages_translate \
  --test translate_mutations --test random_flow --test d3dbc_translate --test translator_reuse "$@"
