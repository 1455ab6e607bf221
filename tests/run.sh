#!/usr/bin/env bash
# Runs the whole test suite. When ../shared/tools/with-new-lavapipe is present (CI, the team's
# machines), every test binary runs against Mesa 25's lavapipe so that Vulkan 1.3+ features
# (descriptor indexing, non-uniform indexing, ...) are tested; otherwise against whatever Vulkan
# driver the machine has (runtime tests report themselves skipped when there is none).
set -euo pipefail
cd "$(dirname "$0")/.."
lavapipe=../shared/tools/with-new-lavapipe
if [ -x "$lavapipe" ] && [ -z "${NO_NEW_LAVAPIPE:-}" ]; then
  exec "$lavapipe" cargo test --workspace --release "$@"
fi
exec cargo test --workspace --release "$@"
