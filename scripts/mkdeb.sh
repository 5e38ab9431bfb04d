#!/bin/bash
# Build the Debian packages orca-dkms and orca-ibverbs-provider (`make deb`).
# The provider is built for the installed rdma-core (libibverbs-dev: 44 on
# Debian 12) and its package says so (Depends on that libibverbs1 only,
# description names the private ABI); see providers/RDMA-CORE.md.
#
# Nothing is written into the source tree: the files the packages are made
# from (debian/, dkms.conf, Kbuild, the driver directory, the UAPI header,
# compat/, providers/) are copied to $BUILD/deb/src, debian/changelog is written there
# with the version of MODULE_VERSION() in drivers/infiniband/hw/orca/orca_main.c
# (the one place the version is kept), and dpkg-buildpackage -us -uc -b runs
# in that copy.  The .deb, .buildinfo and .changes files land in $BUILD/deb/.
#
# usage: scripts/mkdeb.sh [--root ROOT] [--out DIR]
#        scripts/mkdeb.sh --version   print the package version and exit
#   --root ROOT  build in ROOT (e.g. Debian 13's, scripts/debian-root.sh 13)
#                instead of on the host: dpkg-buildpackage runs chrooted in
#                a throw-away overlay of it (scripts/lib/in-root.sh), with
#                its compiler and its libibverbs-dev, as on such a system
#   --out DIR    where the packages land (default $BUILD/deb)
# BUILD defaults to <repo>/build.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD=${BUILD:-$REPO/build}
MAIN=$REPO/drivers/infiniband/hw/orca/orca_main.c

say() { printf 'mkdeb: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

VERSION=$(sed -n 's/^MODULE_VERSION("\([^"]*\)");.*/\1/p' "$MAIN")
[[ $VERSION =~ ^[0-9]+(\.[0-9]+)*$ ]] ||
    die "no MODULE_VERSION(\"x.y.z\") line in $MAIN (got '$VERSION')"
ROOT=
OUT=
while (($#)); do
    case $1 in
    --version) echo "$VERSION"; exit 0 ;;
    --root) [[ $# -ge 2 && -x $2/usr/bin/dpkg-buildpackage ]] || die "--root needs a root with dpkg-dev"
        ROOT=$(cd "$2" && pwd -P); shift 2 ;;
    --out) [[ $# -ge 2 ]] || die "--out needs DIR"; OUT=$2; shift 2 ;;
    *) die "usage: $0 [--root ROOT] [--out DIR] | --version" ;;
    esac
done
if [[ -z $ROOT ]]; then
    for t in dpkg-buildpackage dh dh_dkms; do
        command -v "$t" > /dev/null || die "$t not found (run: make deps)"
    done
fi

mkdir -p "$BUILD"
OUT=${OUT:-$BUILD/deb}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd -P)
SRC=$OUT/src
case $OUT/ in
"$REPO"/build/*) ;;                 # the default build dir (ignored by git)
"$REPO"/*) die "BUILD=$BUILD would put $OUT into the source tree" ;;
esac
# it is emptied first: only a directory of packages
[[ ${OUT##*/} == deb* ]] || die "--out $OUT: the directory's name must start with deb (it is emptied)"
rm -rf "$OUT"
mkdir -p "$SRC"

# Only the files the packages are made of, as they are in the work tree.
files=(debian dkms.conf Kbuild drivers/infiniband/hw/orca include/uapi/rdma/orca-abi.h compat
       providers/Makefile providers/orca.driver providers/provider.map
       providers/orca providers/compat providers/tests)
(cd "$REPO" && tar -cf - --exclude='*.o' --exclude='*.ko' --exclude='.*' "${files[@]}") |
    tar -C "$SRC" -xf -

# Date of the last commit (reproducible), or now outside a git checkout.
epoch=$(git -C "$REPO" log -1 --format=%ct 2> /dev/null) || epoch=$(date +%s)
export SOURCE_DATE_EPOCH=$epoch
{
    printf 'orca (%s) unstable; urgency=medium\n\n' "$VERSION"
    printf '  * Package version %s, from MODULE_VERSION() in orca_main.c.\n\n' "$VERSION"
    printf ' -- orca developers <orca-dev@lists.orca.invalid>  %s\n' "$(date -u -R -d "@$epoch")"
} > "$SRC/debian/changelog"

say "building orca $VERSION in $SRC"
t0=$EPOCHREALTIME
if [[ -n $ROOT ]]; then
    # shellcheck source=scripts/lib/in-root.sh
    . "$REPO/scripts/lib/in-root.sh"
    IN_ROOT_ENV=(SOURCE_DATE_EPOCH="$epoch")
    # shellcheck disable=SC2016  # $1 is the inner shell's
    in_root "$ROOT" "$OUT" '' sh -c 'cd "$1" && dpkg-buildpackage -us -uc -b' sh "$SRC" ||
        die "dpkg-buildpackage in $ROOT failed"
else
    (cd "$SRC" && dpkg-buildpackage -us -uc -b)
fi
t=$(((${EPOCHREALTIME/./} - ${t0/./}) / 1000))

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
for p in "orca-dkms_${VERSION}_all.deb" "orca-ibverbs-provider_${VERSION}_${arch}.deb"; do
    [[ -f $OUT/$p ]] || die "dpkg-buildpackage did not produce $OUT/$p"
done
say "packages in $OUT ($((t / 1000)).$((t % 1000 / 100)) s):"
(cd "$OUT" && ls -l ./*.deb) >&2
# which libibverbs the provider is for (debian/rules: the installed one)
prov=$OUT/orca-ibverbs-provider_${VERSION}_${arch}.deb
for_rc=$(dpkg-deb -f "$prov" Description | sed -n 's/^ *Built for \(rdma-core [0-9]*\).*/\1/p')
plugin=$(dpkg-deb -c "$prov" | grep -o 'liborca-rdmav[0-9]*\.so')
say "orca-ibverbs-provider: $for_rc, $plugin, Depends: $(dpkg-deb -f "$prov" Depends)"
