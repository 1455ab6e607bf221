#!/usr/bin/env bash
# install.sh -- builds libdxbc_spirv (release) and installs it under a prefix, as docs/capi.md
# ("Install") describes:
#
#   LIBDIR/libdxbc_spirv.so.VERSION    the shared library (SONAME libdxbc_spirv.so.MAJOR)
#   LIBDIR/libdxbc_spirv.so.MAJOR      -> libdxbc_spirv.so.VERSION (what programs load)
#   LIBDIR/libdxbc_spirv.so            -> libdxbc_spirv.so.MAJOR   (what -ldxbc_spirv finds)
#   LIBDIR/libdxbc_spirv.a             the static library
#   LIBDIR/pkgconfig/dxbc_spirv.pc     pkg-config file
#   PREFIX/include/dxbc_spirv.h        the header
#
# usage: translator/capi/install.sh --prefix PREFIX [--libdir LIBDIR] [--pgo | --no-build]
#   --prefix PREFIX  where to install, e.g. /usr/local (as root) or $HOME/.local
#   --libdir LIBDIR  where the libraries and pkgconfig/ go (default PREFIX/lib)
#   --pgo            build with tools/pgo.sh (profile-guided, ~10 % faster translation; three
#                    times the build time; adds rustup's llvm-tools component if missing)
#   --no-build       install what `cargo build --release -p dxbc-spirv-capi` built before
# Environment: DESTDIR stages the install (files go under DESTDIR, the .pc names PREFIX);
# CARGO_TARGET_DIR as for cargo.
set -euo pipefail
usage() {
  sed -n '/^# usage:/,/^set -euo/{/^set/d; s/^# \{0,1\}//; p}' "${BASH_SOURCE[0]}" >&2
  exit 2
}
prefix="" libdir="" build=1 pgo=0
while [ $# -gt 0 ]; do
  case $1 in
    --prefix) [ $# -ge 2 ] || usage; prefix=$2; shift 2 ;;
    --prefix=*) prefix=${1#*=}; shift ;;
    --libdir) [ $# -ge 2 ] || usage; libdir=$2; shift 2 ;;
    --libdir=*) libdir=${1#*=}; shift ;;
    --no-build) build=0; shift ;;
    --pgo) pgo=1; shift ;;
    -h|--help) usage ;;
    *) echo "install.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[ -n "$prefix" ] || { echo "install.sh: --prefix is required" >&2; usage; }
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
libdir=${libdir:-$prefix/lib}
case $libdir in /*) ;; *) libdir=$(pwd)/$libdir ;; esac

capi=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$capi/../.." && pwd)
cd "$root"
[ "$build" = 1 ] || [ "$pgo" = 0 ] || { echo "install.sh: --pgo builds; it cannot go with --no-build" >&2; usage; }
if [ "$pgo" = 1 ]; then
  release=$("$root/tools/pgo.sh" --print-dir | tail -n1)
elif [ "$build" = 1 ]; then
  cargo build --release -p dxbc-spirv-capi
fi
target=${CARGO_TARGET_DIR:-}
if [ -z "$target" ] && command -v cargo >/dev/null; then
  target=$(cargo metadata --no-deps --format-version 1 |
    sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
fi
target=${target:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac
release=${release:-$target/release}
so=$release/libdxbc_spirv.so
a=$release/libdxbc_spirv.a
for f in "$so" "$a"; do
  [ -f "$f" ] || { echo "install.sh: $f is missing (build: cargo build --release -p dxbc-spirv-capi)" >&2; exit 1; }
done

version=$(sed -n '/^\[workspace\.package\]/,/^\[/ s/^version = "\(.*\)"/\1/p' Cargo.toml)
[ -n "$version" ] || { echo "install.sh: no version in $root/Cargo.toml" >&2; exit 1; }
if command -v readelf >/dev/null; then
  soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
else
  soname=$(objdump -p "$so" | awk '$1 == "SONAME" { print $2 }')
fi
case $soname in
  libdxbc_spirv.so.*) ;;
  *) echo "install.sh: $so has no SONAME libdxbc_spirv.so.N (got '$soname')" >&2; exit 1 ;;
esac

dest=${DESTDIR:-}
install -d "$dest$libdir/pkgconfig" "$dest$prefix/include"
install -m 0755 "$so" "$dest$libdir/libdxbc_spirv.so.$version"
ln -sfn "libdxbc_spirv.so.$version" "$dest$libdir/$soname"
ln -sfn "$soname" "$dest$libdir/libdxbc_spirv.so"
install -m 0644 "$a" "$dest$libdir/libdxbc_spirv.a"
install -m 0644 "$capi/include/dxbc_spirv.h" "$dest$prefix/include/dxbc_spirv.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@LIBDIR@|$libdir|" -e "s|@VERSION@|$version|" \
  "$capi/dxbc_spirv.pc.in" >"$dest$libdir/pkgconfig/dxbc_spirv.pc"
chmod 0644 "$dest$libdir/pkgconfig/dxbc_spirv.pc"

echo "installed libdxbc_spirv $version ($soname) under $dest$prefix:"
echo "  $libdir/libdxbc_spirv.so.$version, $soname, libdxbc_spirv.so, libdxbc_spirv.a"
echo "  $prefix/include/dxbc_spirv.h, $libdir/pkgconfig/dxbc_spirv.pc"
