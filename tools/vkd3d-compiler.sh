#!/usr/bin/env bash
# vkd3d-compiler.sh -- runs Debian unstable's vkd3d-compiler (vkd3d-shader 2.x): the HLSL
# compiler the runtime tests use (HLSL -> DXBC with `-b dxbc-tpf`, -> Direct3D 9 bytecode with
# `-b d3dbc`), and the peer translator the differential and benchmark tools compare against
# (`-x dxbc-tpf -b spirv-binary`). Debian 12's vkd3d is too old; this fetches unstable's
# packages into a private root once (tools/debian-root.sh) and runs the compiler there.
#
#   tools/vkd3d-compiler.sh -x hlsl -p ps_5_0 -b dxbc-tpf -o out.dxbc in.hlsl
set -euo pipefail
here=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
exec "$here/debian-root.sh" --run sid "vkd3d-compiler libvkd3d-shader1 libvkd3d-headers" vkd3d-compiler "$@"
