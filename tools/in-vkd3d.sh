#!/usr/bin/env bash
# in-vkd3d.sh -- runs a command with Debian unstable's vkd3d 2.x (libvkd3d, libvkd3d-utils,
# libvkd3d-shader) on Debian 13's lavapipe (Mesa 25.0), with this project's translator inside
# vkd3d: the stand-in libvkd3d-shader.so.1 (translator/vkd3d-shader-shim) is preloaded, so vkd3d's
# DXBC and Direct3D 9 compiles run the translator and the rest (HLSL, DXIL, root signatures)
# goes to the real library.
#
#   tools/in-vkd3d.sh [--stock] CMD [ARGS...]
#
#   --stock   the real vkd3d-shader compiles everything (no stand-in), for comparison
#
# The packages come from a private root that tools/lavapipe.sh (tools/debian-root.sh) fetches
# once; the stand-in is built (cargo build --release) when it is stale. See docs/vkd3d.md.
#
# Environment:
#   DXBC_SPIRV_VKD3D_STATS=1            the stand-in prints at exit, on stderr,
#                                       "dxbc-spirv in vkd3d: N compiled, M forwarded, K refused"
#   DXBC_SPIRV_VKD3D_FORWARD_REFUSED=1  shaders the translator refuses go to the real compiler
#                                       (each is still logged and counted as refused)
#   DXBC_SPIRV_VKD3D_SHIM               a prebuilt stand-in to use instead of building one
#   VKD3D_CONFIG, VKD3D_DEBUG, ...      vkd3d's own, passed through
# and tools/lavapipe.sh's and tools/debian-root.sh's.
set -euo pipefail
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
repo=$(dirname "$here")
stock=0
if [ "${1:-}" = "--stock" ]; then stock=1; shift; fi
[ $# -ge 1 ] || { echo "usage: tools/in-vkd3d.sh [--stock] CMD [ARGS...]" >&2; exit 2; }

export LAVAPIPE_SUITE=sid
# Lavapipe from Debian 13 (Mesa 25.0) under sid's C library: Mesa 26.2's lavapipe crashes
# running any fragment shader that indexes an array of uniform buffers non-uniformly
# (docs/vkd3d.md). LAVAPIPE_DRIVER_SUITE=sid takes sid's instead.
export LAVAPIPE_DRIVER_SUITE=${LAVAPIPE_DRIVER_SUITE:-trixie}
# The same package set as the lead's examples, so that the root is shared.
export LAVAPIPE_EXTRA_PACKAGES="libvkd3d1 libvkd3d-utils1 libvkd3d-shader1 libvkd3d-dev"
pkgs=(mesa-vulkan-drivers libvulkan1 vulkan-tools vulkan-validationlayers $LAVAPIPE_EXTRA_PACKAGES)
dir=$("$here/debian-root.sh" sid "${pkgs[@]}")
case "$(uname -m)" in
  x86_64) triplet=x86_64-linux-gnu ;;
  aarch64) triplet=aarch64-linux-gnu ;;
  *) echo "in-vkd3d.sh: unsupported machine $(uname -m)" >&2; exit 1 ;;
esac
real=$dir/root/usr/lib/$triplet/libvkd3d-shader.so.1
[ -e "$real" ] || { echo "in-vkd3d.sh: no $real; delete $dir to fetch it again" >&2; exit 1; }

if [ "$stock" = 0 ]; then
  shim=${DXBC_SPIRV_VKD3D_SHIM:-}
  if [ -z "$shim" ]; then
    # Quiet when up to date; the build's own output when it is not.
    (cd "$repo" && cargo build --release -q -p vkd3d-shader-shim) >&2
    shim=$repo/target/release/libvkd3d_shader_shim.so
    if [ -n "${CARGO_TARGET_DIR:-}" ]; then shim=$CARGO_TARGET_DIR/release/libvkd3d_shader_shim.so; fi
  fi
  [ -f "$shim" ] || { echo "in-vkd3d.sh: no stand-in at $shim" >&2; exit 1; }
  export DXBC_SPIRV_VKD3D_SHADER_LIB=$real
  export LD_PRELOAD="$(readlink -f "$shim")${LD_PRELOAD:+:$LD_PRELOAD}"
fi
exec "$here/lavapipe.sh" "$@"
