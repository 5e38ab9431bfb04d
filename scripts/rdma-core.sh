#!/bin/bash
# Fetch the libibverbs of another Debian rdma-core, once, into $ORCA_CACHE
# (default /var/cache/orca), and print the directory that holds it:
#
#   <dir>/version   the Debian package version (e.g. 56.1-1)
#   <dir>/pabi      its private provider ABI (IBVERBS_PABI_VERSION)
#   <dir>/root/     libibverbs1, libibverbs-dev and ibverbs-providers, unpacked
#                   with dpkg -x (not installed: they need a newer glibc than
#                   bookworm's, so nothing here can be run on this host)
#   <dir>/src/      the upstream rdma-core source (the .orig.tar.gz of the
#                   source package), for RDMA_CORE_SRC= (intree_check.sh);
#                   RDMA_CORE_GIT=<a clone's git dir> is the fallback when
#                   the mirror does not have the tarball (git archive vX.Y)
#
# usage: scripts/rdma-core.sh 44|56|65
#
# 44  Debian 12 bookworm: the host's own, installed by scripts/deps.sh; only
#     its source is needed here (the in-tree check), the .debs come along.
# 56  Debian 13 trixie.
# 65  Debian sid.
# Everything goes through a private apt state in the cache (the host's apt
# state is not touched) and stays out of the repository.  Fetched once: a
# later run prints the directory without asking the network (remove it to
# fetch the suite's current upload).  The layouts of
# providers/compat/infiniband/driver.h are checked against these files by
# "make -C providers RDMA_CORE=56|65 test"; no rdma-core text is copied into
# the repository.
set -euo pipefail

name=${1:-}
cache=${ORCA_CACHE:-/var/cache/orca}
say() { printf 'rdma-core: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

case $name in
44) suite=bookworm ;;
56) suite=trixie ;;
65) suite=sid ;;
*) die "usage: $0 44|56|65" ;;
esac

mkdir -p "$cache"
exec 9> "$cache/.rdma-core.lock"
flock 9

# Once fetched, a release is used as it is, without the network (the suite
# may move on to another upload, or release, later): the newest one there.
done_dir=$(find "$cache" -mindepth 2 -maxdepth 2 -path "$cache/rdma-core-$name.*/.orca-done" \
    -printf '%h\n' 2> /dev/null | sort -V | tail -1)
if [[ -n $done_dir ]]; then
    echo "$done_dir"
    exit 0
fi

# A private apt state for $suite (binary and source indexes).
# shellcheck source=scripts/lib/apt-private.sh
. "$(dirname "$0")/lib/apt-private.sh"
apt_dir=$cache/apt-rdma-core-$suite
mkdir -p "$apt_dir/src"
apt_private "$apt_dir" \
    "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main" \
    "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $suite main"
ver=$(apt-cache "${apt_opts[@]}" show libibverbs1 2> /dev/null |
    sed -n 's/^Version: //p' | sort -V | tail -1)
[[ -n $ver ]] || die "no libibverbs1 in $suite"
[[ ${ver%%.*} == "$name" ]] || die "$suite has rdma-core $ver, not $name.x"

out=$cache/rdma-core-$ver

pkgs=(libibverbs1="$ver" libibverbs-dev="$ver" ibverbs-providers="$ver")
(cd "$apt_dir/debs" && rm -f ./*.deb &&
    apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}") ||
    die "apt-get download ${pkgs[*]} failed"
# The upstream tarball is enough (the layouts come from upstream's headers);
# apt checks it against the Sources index.  --download-only: the mirror may
# lack the .dsc, and a missing .dsc only means no Debian patches.
upver=${ver%-*}
upver=${upver#*:}
(cd "$apt_dir/src" && rm -rf ./* &&
    { apt-get "${apt_opts[@]}" -qq source --download-only --only-source \
        rdma-core="$ver" > /dev/null 2>&1 || true; })
orig=$apt_dir/src/rdma-core_$upver.orig.tar.gz
if [[ ! -f $orig ]] && [[ -n ${RDMA_CORE_GIT:-} ]]; then
    # Fallback: the upstream tag from a local clone of linux-rdma/rdma-core
    say "no $(basename "$orig") from the mirror; git archive v$upver of $RDMA_CORE_GIT"
    git --git-dir="$RDMA_CORE_GIT" archive --format=tar.gz --prefix="rdma-core-$upver/" \
        -o "$orig" "v$upver" || die "git archive v$upver failed"
fi
[[ -f $orig ]] || die "apt-get source rdma-core=$ver did not fetch $(basename "$orig") (set RDMA_CORE_GIT=<rdma-core .git> to use a clone)"

rm -rf "$out"
mkdir -p "$out/root"
for deb in "$apt_dir"/debs/*.deb; do
    dpkg -x "$deb" "$out/root"
done
mkdir -p "$out/src"
tar -C "$out/src" --strip-components=1 -xzf "$orig"
[[ -f $out/src/libibverbs/driver.h ]] || die "$orig has no libibverbs/driver.h"
pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")/\1/p' "$out/src/CMakeLists.txt")
[[ $pabi =~ ^[0-9]+$ ]] || die "no IBVERBS_PABI_VERSION in $out/src/CMakeLists.txt"
echo "$ver" > "$out/version"
echo "$pabi" > "$out/pabi"
touch "$out/.orca-done"
say "rdma-core $ver (private ABI $pabi) in $out"
echo "$out"
