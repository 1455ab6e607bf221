#!/usr/bin/env bash
# debian-root.sh -- a private root of Debian packages from a newer suite, for running programs
# that need newer libraries than the host has (Mesa 25's lavapipe, vkd3d 2.x, vkd3d-compiler),
# without installing anything system-wide.
#
#   tools/debian-root.sh SUITE PACKAGE...     prints the root's directory, making it first
#                                             when it does not exist yet
#   tools/debian-root.sh --run SUITE "PACKAGE..." CMD [ARGS...]
#                                             runs CMD (a dynamic executable) with the root's
#                                             loader and libraries
#
# How: a throw-away apt configuration (its own sources list for SUITE, its own lists, cache and
# an empty dpkg status, so that every dependency -- that suite's glibc included -- comes from
# SUITE) downloads the packages' whole dependency closure, and `dpkg-deb -x` unpacks each into
# $DXBC_SPIRV_CACHE/roots/SUITE-KEY/root (KEY: a checksum of the package set, so another set
# makes another root). Programs then run through that root's own ld.so with its library
# directories, so they and everything they load (the Vulkan loader, the lavapipe ICD, vkd3d)
# use the suite's glibc. Needs apt-get and dpkg-deb (any Debian host) and the network once.
#
# Environment:
#   DXBC_SPIRV_CACHE   cache directory (default ${XDG_CACHE_HOME:-$HOME/.cache}/dxbc-spirv)
#   DEBIAN_MIRROR      mirror URI (default: the host's, read from apt's configuration)
#   DEBIAN_KEYRING     archive keyring (default /usr/share/keyrings/debian-archive-keyring.gpg)
# Delete the root's directory to fetch it afresh.
set -euo pipefail

say() { echo "debian-root: $*" >&2; }
die() { say "$*"; exit 1; }

case "$(uname -m)" in
  x86_64) triplet=x86_64-linux-gnu; arch=amd64; ldso=ld-linux-x86-64.so.2 ;;
  aarch64) triplet=aarch64-linux-gnu; arch=arm64; ldso=ld-linux-aarch64.so.1 ;;
  *) die "unsupported machine $(uname -m)" ;;
esac
cache=${DXBC_SPIRV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dxbc-spirv}
keyring=${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

# The host's Debian mirror (deb822 .sources files first, then one-line lists).
mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then echo "${DEBIAN_MIRROR%/}"; return; fi
  local m
  m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
      awk 'tolower($1) == "uris:" && $2 !~ /security/ { print $2; exit }')
  if [ -z "$m" ]; then
    m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        sed -E 's/\[[^]]*\]//' | awk '$1 == "deb" && $2 !~ /security/ { print $2; exit }')
  fi
  [ -n "$m" ] || die "no Debian mirror in /etc/apt; set DEBIAN_MIRROR"
  echo "${m%/}"
}

# The loader and the library path of a finished root.
root_ldso() { echo "$1/usr/lib/$triplet/$ldso"; }
root_libs() {
  local out="$1/usr/lib/$triplet" d
  for d in "$1/lib/$triplet" "$1/usr/lib/$triplet/vkd3d"; do [ -d "$d" ] && out+=":$d"; done
  echo "$out"
}

# make_root SUITE DIR PACKAGE...: fetch and unpack into DIR/root; DIR/.complete when done.
make_root() {
  local suite=$1 dir=$2; shift 2
  local apt="$dir/apt" root="$dir/root" m t0=$SECONDS
  rm -rf "$dir"
  mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/parts" "$root"
  : >"$apt/status"
  m=$(mirror)
  [ -f "$keyring" ] || die "no keyring at $keyring; set DEBIAN_KEYRING"
  echo "deb [signed-by=$keyring] $m $suite main" >"$apt/sources.list"
  # Only the host's proxy and release-date settings carry over (a mirror snapshot may serve
  # expired Release files); its apt.conf.d may hold hooks that must not run.
  local http_proxy_ https_proxy_ valid_ date_
  eval "$(apt-config shell http_proxy_ Acquire::http::Proxy https_proxy_ Acquire::https::Proxy \
    valid_ Acquire::Check-Valid-Until date_ Acquire::Check-Date 2>/dev/null)" || true
  cat >"$apt/apt.conf" <<EOF
Dir::Etc::main "/dev/null";
Dir::Etc::Parts "$apt/parts";
Dir::Etc::SourceList "$apt/sources.list";
Dir::Etc::SourceParts "/dev/null";
Dir::Etc::Preferences "/dev/null";
Dir::Etc::PreferencesParts "/dev/null";
Dir::State "$apt";
Dir::State::Lists "$apt/lists";
Dir::State::status "$apt/status";
Dir::Cache "$apt";
Dir::Cache::archives "$apt/archives";
Dir::Log "$apt";
APT::Sandbox::User "$(id -un)";
APT::Architecture "$arch";
APT::Architectures { "$arch"; };
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
${http_proxy_:+Acquire::http::Proxy "$http_proxy_";}
${https_proxy_:+Acquire::https::Proxy "$https_proxy_";}
${valid_:+Acquire::Check-Valid-Until "$valid_";}
${date_:+Acquire::Check-Date "$date_";}
EOF
  say "fetching $* from $m $suite into $dir (once)"
  APT_CONFIG="$apt/apt.conf" apt-get -q=2 update >&2 || return 1
  APT_CONFIG="$apt/apt.conf" apt-get -q=2 -y --download-only install "$@" >&2 || return 1
  local deb
  for deb in "$apt"/archives/*.deb; do
    dpkg-deb -x "$deb" "$root" || return 1
    dpkg-deb -W --showformat='${Package} ${Version}\n' "$deb" >>"$dir/packages.txt" || return 1
  done
  # Of Mesa's Vulkan drivers only lavapipe is wanted; documentation is not.
  find "$root" -name 'libvulkan_*.so' ! -name 'libvulkan_lvp.so' -delete
  find "$root/usr/share/vulkan/icd.d" -name '*.json' ! -name 'lvp_icd*' -delete 2>/dev/null || true
  rm -rf "$apt/lists" "$apt/archives" "$root"/usr/share/{doc,man,locale,lintian,bug}
  [ -x "$(root_ldso "$root")" ] || { say "the $suite root has no $ldso"; return 1; }
  touch "$dir/.complete" || return 1
  say "$suite root ready in $((SECONDS - t0)) s"
}

# ensure_root SUITE PACKAGE...: prints DIR (the root is DIR/root), making it when missing.
ensure_root() {
  local suite=$1; shift
  command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null ||
    { [ -n "$(ls -d "$cache"/roots/"$suite"-* 2>/dev/null)" ] || die "needs apt-get and dpkg-deb (a Debian host)"; }
  local key dir
  key=$(printf '%s\n' "$@" | sort -u | cksum | cut -d' ' -f1)
  dir="$cache/roots/$suite-$key"
  if [ ! -f "$dir/.complete" ]; then
    mkdir -p "$cache/roots"
    exec 8>"$cache/roots/.lock"
    flock 8                    # parallel first uses (tests) fetch once
    if [ ! -f "$dir/.complete" ] && ! make_root "$suite" "$dir" "$@"; then
      rm -rf "$dir"
      die "could not make the $suite root of $*"
    fi
    exec 8>&-
  fi
  echo "$dir"
}

if [ "${1:-}" = "--run" ]; then
  [ $# -ge 4 ] || die "usage: debian-root.sh --run SUITE \"PACKAGE...\" CMD [ARGS...]"
  suite=$2
  read -r -a pkgs <<<"$3"
  shift 3
  dir=$(ensure_root "$suite" "${pkgs[@]}")
  cmd=$1; shift
  if [[ $cmd != */* ]]; then
    if [ -x "$dir/root/usr/bin/$cmd" ]; then cmd=$dir/root/usr/bin/$cmd
    else cmd=$(type -P "$cmd") || die "$1: command not found"; fi
  fi
  exec "$(root_ldso "$dir/root")" --library-path "$(root_libs "$dir/root")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    --argv0 "$cmd" "$cmd" "$@"
fi
[ $# -ge 2 ] || die "usage: debian-root.sh SUITE PACKAGE... | --run SUITE \"PACKAGE...\" CMD [ARGS...]"
ensure_root "$@"
