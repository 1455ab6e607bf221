#!/usr/bin/env bash
# lavapipe.sh -- runs a command on Mesa 25's lavapipe (Vulkan 1.4 on the CPU: descriptor
# indexing, sparse residency, fragment shader interlock, ...), which Debian 12's Mesa 22 lacks.
#
#   tools/lavapipe.sh CMD [ARGS...]      e.g. tools/lavapipe.sh vulkaninfo --summary
#   tools/lavapipe.sh cargo test ...     every test binary cargo starts runs on it too
#
# The driver, the Vulkan loader, the Khronos validation layer and the C library they need come
# from a private root of Debian packages that tools/debian-root.sh fetches once (about 70 MB
# from the host's Debian mirror; later runs reuse it). CMD runs through that root's loader, with
# VK_DRIVER_FILES naming only its lavapipe and its validation layer on VK_ADD_LAYER_PATH.
# Processes CMD starts run on the host's C library and see no driver; for cargo, the test
# runner variable is set to this script, and DXBC_SPIRV_LAVAPIPE (this script's path) tells
# programs that start Vulkan programs themselves to start them through it. Scripts and static
# executables run as they are, with only those two variables set.
#
# Environment:
#   LAVAPIPE_SUITE           Debian suite (default trixie: Mesa 25.0); sid for vkd3d 2.x
#   LAVAPIPE_EXTRA_PACKAGES  more packages in the same root (e.g. "libvkd3d1 libvkd3d-utils1")
#   LAVAPIPE_DRIVER_SUITE    take lavapipe itself from this suite's root (the default set of
#                            packages) instead: its driver and the libraries only it needs
#                            (its LLVM) come after LAVAPIPE_SUITE's on the library path, so
#                            everything else, the C library included, is LAVAPIPE_SUITE's.
#                            tools/in-vkd3d.sh runs sid's vkd3d on trixie's lavapipe this way
# and tools/debian-root.sh's (DXBC_SPIRV_CACHE, DEBIAN_MIRROR, DEBIAN_KEYRING).
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: tools/lavapipe.sh CMD [ARGS...]" >&2; exit 2; }
self=$(readlink -f "${BASH_SOURCE[0]}")
here=$(dirname "$self")
suite=${LAVAPIPE_SUITE:-trixie}
# shellcheck disable=SC2206  # the package list is split on purpose
pkgs=(mesa-vulkan-drivers libvulkan1 vulkan-tools vulkan-validationlayers ${LAVAPIPE_EXTRA_PACKAGES:-})
dir=$("$here/debian-root.sh" "$suite" "${pkgs[@]}")
root=$dir/root
driver_suite=${LAVAPIPE_DRIVER_SUITE:-$suite}
if [ "$driver_suite" = "$suite" ]; then
  ddir=$dir
else
  ddir=$("$here/debian-root.sh" "$driver_suite" mesa-vulkan-drivers libvulkan1 vulkan-tools vulkan-validationlayers)
fi
droot=$ddir/root

# The ICD manifest, with an absolute library path (rewritten if the cache moved).
lvp=$(find "$droot" -name libvulkan_lvp.so -print -quit)
[ -n "$lvp" ] || { echo "lavapipe.sh: no libvulkan_lvp.so in $droot; delete $ddir" >&2; exit 1; }
icd=$ddir/lvp_icd.json
if ! grep -qF "\"$lvp\"" "$icd" 2>/dev/null; then
  src=$(find "$droot/usr/share/vulkan/icd.d" -name 'lvp_icd*.json' -print -quit)
  sed -E "s#(\"library_path\"[[:space:]]*:[[:space:]]*)\"[^\"]*\"#\1\"$lvp\"#" "$src" >"$icd.$$"
  mv -f "$icd.$$" "$icd"
fi

case "$(uname -m)" in
  x86_64) rust_triple=x86_64-unknown-linux-gnu; ldso=ld-linux-x86-64.so.2; triplet=x86_64-linux-gnu ;;
  aarch64) rust_triple=aarch64-unknown-linux-gnu; ldso=ld-linux-aarch64.so.1; triplet=aarch64-linux-gnu ;;
esac
runner_var="CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"$rust_triple")_RUNNER"
[ -n "${!runner_var:-}" ] || export "$runner_var=$self"
export DXBC_SPIRV_LAVAPIPE="$self"

cmd=$1; shift
if [[ $cmd != */* ]]; then
  if [ -x "$root/usr/bin/$cmd" ]; then path=$root/usr/bin/$cmd
  else path=$(type -P "$cmd") || { echo "lavapipe.sh: $cmd: command not found" >&2; exit 127; }; fi
else
  path=$cmd
fi
loader=$root/usr/lib/$triplet/$ldso
libs=$root/usr/lib/$triplet
[ -d "$root/lib/$triplet" ] && libs+=":$root/lib/$triplet"
if [ "$ddir" != "$dir" ]; then
  # The driver's own libraries, found only where the main root lacks them.
  libs+=":$droot/usr/lib/$triplet"
  [ -d "$droot/lib/$triplet" ] && libs+=":$droot/lib/$triplet"
fi
if "$loader" --verify "$path" >/dev/null 2>&1; then
  export VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd"
  if ls "$root"/usr/share/vulkan/explicit_layer.d/*khronos* >/dev/null 2>&1; then
    export VK_ADD_LAYER_PATH="$root/usr/share/vulkan/explicit_layer.d${VK_ADD_LAYER_PATH:+:$VK_ADD_LAYER_PATH}"
  fi
  export MESA_SHADER_CACHE_DIR="${MESA_SHADER_CACHE_DIR:-$ddir/mesa-shader-cache}"
  export NODEVICE_SELECT=1      # the host's device-select layer is pointless with one ICD
  exec "$loader" --library-path "$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" --argv0 "$cmd" "$path" "$@"
fi
exec "$path" "$@"
