#!/bin/bash
# Print the path of a pristine Debian linux-source tree, extracting it once
# into $ORCA_CACHE (default /var/cache/orca) and again only when the
# package version changes.
#
# usage: scripts/linux-src.sh [6.1|7.3]   (default 6.1)
#
# 6.1  linux-source-6.1, installed by make deps: the debug kernel's build
#      (scripts/debug-kernel.sh).
# 7.3  linux-source-7.3 as scripts/guest-kernel.sh 7.3 fetched it (into its
#      private apt state): the KUnit runner (kunit/run.sh), which hooks the
#      driver into this tree and builds out of it (O=), so it must stay
#      unconfigured; the guest kernel's kbuild tree is configured.
# One extraction at a time: make check builds the debug kernel in the
# background while other stages run.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${ORCA_CACHE:-/var/cache/orca}
ver=${1:-6.1}
mkdir -p "$cache"

case $ver in
6.1)
    tarball=/usr/src/linux-source-6.1.tar.xz
    [ -f "$tarball" ] || { echo "linux-src: $tarball missing (run: make deps)" >&2; exit 2; }
    srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
    extract() { tar -xf "$tarball" -C "$cache"; }
    ;;
7.3)
    "$repo/scripts/guest-kernel.sh" 7.3 > /dev/null || exit 2
    deb=$(ls "$cache"/apt-trixie-backports/debs/linux-source-7.3_*.deb 2> /dev/null | tail -n 1)
    [ -f "$deb" ] || { echo "linux-src: no linux-source-7.3 package in the cache" >&2; exit 2; }
    srcver=$(dpkg-deb -f "$deb" Version)
    extract() {
        dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/src/linux-source-7.3.tar.xz |
            tar -xJf - -C "$cache"
    }
    ;;
*) echo "usage: $0 [6.1|7.3]" >&2; exit 2 ;;
esac
src=$cache/linux-source-$ver

exec 8> "$cache/.linux-src.lock"
flock 8
if [ ! -f "$src/.orca-srcver" ] || [ "$(cat "$src/.orca-srcver")" != "$srcver" ]; then
    echo "linux-src: extracting linux-source-$ver $srcver into $cache" >&2
    rm -rf "$src"
    extract
    echo "$srcver" > "$src/.orca-srcver"
fi
echo "$src"
