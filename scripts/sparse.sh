#!/bin/bash
# Build a sparse that the newer kernels accept, once, into $ORCA_CACHE
# (default /var/cache/orca), and print the path of its binary.
#
# Since 6.14 the kernel runs its checker only if it parses
# __typeof_unqual__ (scripts/checker-valid.sh); Debian 12's sparse 0.6.4
# does not, and kbuild then warns "sparse is not available or not up to
# date" and checks nothing, with exit status 0.  Debian sid's source
# package (0.6.5~rc1) does.  Its upstream tarball is fetched through a
# private apt state in the cache (deb-src of sid only: the host's apt
# state is not touched) and built with the host's gcc, without the
# optional tools (no libxml, gtk or llvm).  Nothing of it enters the
# repository.
#
# usage: scripts/sparse.sh
set -euo pipefail

cache=${ORCA_CACHE:-/var/cache/orca}
say() { printf 'sparse: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

mkdir -p "$cache"
exec 9> "$cache/.sparse.lock"
flock 9

# Once built, a version is used as it is, without the network.
done_dir=$(find "$cache" -mindepth 2 -maxdepth 2 -path "$cache/sparse-*/.orca-done" \
    -printf '%h\n' 2> /dev/null | sort -V | tail -1)
if [[ -n $done_dir ]]; then
    echo "$done_dir/sparse"
    exit 0
fi

# shellcheck source=scripts/lib/apt-private.sh
. "$(dirname "$0")/lib/apt-private.sh"
apt_dir=$cache/apt-sparse-sid
apt_private "$apt_dir" \
    "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main"
ver=$(apt-cache "${apt_opts[@]}" showsrc sparse 2> /dev/null |
    sed -n 's/^Version: //p' | sort -V | tail -1)
[[ -n $ver ]] || die "no sparse source in sid"
upver=${ver%-*}
upver=${upver#*:}
out=$cache/sparse-$ver

# apt checks the tarball against the Sources index
mkdir -p "$apt_dir/src"
(cd "$apt_dir/src" && rm -rf ./* &&
    apt-get "${apt_opts[@]}" -qq source --download-only --only-source "sparse=$ver") ||
    die "apt-get source sparse=$ver failed"
tarball=$(find "$apt_dir/src" -maxdepth 1 -name "sparse_${upver}.orig.tar.*" | head -n 1)
[[ -n $tarball ]] || die "no upstream tarball of sparse $ver"

rm -rf "$out"
mkdir -p "$out/src"
tar -xf "$tarball" -C "$out/src" --strip-components=1
say "building sparse $ver in $out"
make -s -C "$out/src" -j"$(nproc)" HAVE_LIBXML=no HAVE_GTK=no HAVE_LLVM=no sparse \
    > "$out/build.log" 2>&1 || { tail -n 20 "$out/build.log" >&2; die "the build failed"; }
cp "$out/src/sparse" "$out/sparse"
printf '%s\n' "$ver" > "$out/version"
touch "$out/.orca-done"
echo "$out/sparse"
