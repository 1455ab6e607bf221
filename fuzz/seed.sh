#!/usr/bin/env bash
# Seeds the fuzz corpus from ../shared (corpus and bench shaders) and the bundled examples.
# The corpus folder is not committed: the shared blobs stay in ../shared.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/dxbc
n=0
for f in ../../shared/corpus/dxbc/*/*.dxbc ../../shared/bench/dxbc/*.dxbc ../shaders/examples/*.dxbc; do
  [ -f "$f" ] || continue
  cp "$f" "corpus/dxbc/$(basename "$(dirname "$f")")-$(basename "$f")"
  n=$((n + 1))
done
echo "seeded corpus/dxbc with $n blobs"
