#!/bin/bash
# Print the path of Debian's linux-source-6.1 tree, extracting it once into
# $ORCA_CACHE (default /var/cache/orca) and again only when the package
# version changes.  Used by the KUnit runner, the debug kernel's build and
# the lint checks (checkpatch.pl and kernel-doc are not in the headers
# package).  One extraction at a time: make check builds the debug kernel
# in the background while lint runs.
set -euo pipefail

cache=${ORCA_CACHE:-/var/cache/orca}
tarball=/usr/src/linux-source-6.1.tar.xz
src=$cache/linux-source-6.1

[ -f "$tarball" ] || { echo "linux-src: $tarball missing (run: make deps)" >&2; exit 2; }
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
mkdir -p "$cache"
exec 8> "$cache/.linux-src.lock"
flock 8
if [ ! -f "$src/.orca-srcver" ] || [ "$(cat "$src/.orca-srcver")" != "$srcver" ]; then
	echo "linux-src: extracting linux-source-6.1 $srcver into $cache" >&2
	rm -rf "$src"
	tar -xf "$tarball" -C "$cache"
	echo "$srcver" > "$src/.orca-srcver"
fi
echo "$src"
