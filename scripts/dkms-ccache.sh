#!/bin/bash
# Fill a compiler cache with orca-dkms' DKMS build, natively, for vm-packages.
#
#   scripts/dkms-ccache.sh DEB_DIR CACHE_DIR
#
# In vm-packages the guest installs the packages as an admin would, and
# DKMS compiles orca.ko there, under TCG: about 70 % of the stage (110 s
# idle, five minutes on a busy host).  This script installs the same
# orca-dkms package on the host first, natively, with dpkg in a throw-away
# root (overlayfs over / in a private mount namespace, as the guest's admin
# root is), so that its postinst runs the same dkms with the same dkms.conf
# in the same paths for the same kernels, with the compiler dkms takes
# from each kernel's CONFIG_CC_VERSION_TEXT (gcc-12 on Debian 12) going
# through ccache into
# CACHE_DIR.  The guest's DKMS build then goes through a copy of that cache:
# the same compiles, answered from it.  Nothing changes on the host but
# CACHE_DIR.  Prints what it did; exit status 1 if the native build failed
# (the guest then compiles everything itself, and packages.sh says so).
set -euo pipefail
debdir=$1
cache=$2
deb=$(find "$debdir" -maxdepth 1 -name 'orca-dkms_*_all.deb' | head -n 1)
[[ -n $deb ]] || { echo "dkms-ccache: no orca-dkms_*_all.deb in $debdir" >&2; exit 1; }
command -v ccache > /dev/null || { echo "dkms-ccache: no ccache (scripts/deps.sh)" >&2; exit 1; }
# the compilers dkms will call: the first word of each kernel's
# CONFIG_CC_VERSION_TEXT
ccs=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ "]*\).*/\1/p' /lib/modules/*/build/.config 2> /dev/null | sort -u | tr '\n' ' ')
[[ -n $ccs ]] || { echo "dkms-ccache: no kernel build config says its compiler" >&2; exit 1; }
mkdir -p "$cache"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$SECONDS

# (runs in the new mount namespace; its mounts go with it)
# shellcheck disable=SC2016
inner='
set -euo pipefail
r=$tmp/root
mkdir -p "$tmp/up" "$tmp/work" "$r"
mount --make-rprivate /
mount -t overlay overlay -o "lowerdir=/,upperdir=$tmp/up,workdir=$tmp/work" "$r"
for d in proc sys dev; do mount --rbind "/$d" "$r/$d"; done
mount -t tmpfs -o mode=755 tmpfs "$r/run"
mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
mkdir -p "$r/run/ccbin" "$r$cache"
mount --bind "$cache" "$r$cache"
for c in $ccs; do ln -s /usr/bin/ccache "$r/run/ccbin/$c"; done
cp "$deb" "$r/tmp/"
chroot "$r" /usr/bin/env -i PATH=/run/ccbin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive CCACHE_DIR="$cache" \
    CCACHE_MAXSIZE=256M dpkg -i "/tmp/${deb##*/}"
'
if tmp=$tmp cache=$cache deb=$deb ccs=$ccs unshare -m bash -c "$inner" > "$tmp/log" 2>&1; then
    echo "dkms-ccache: orca-dkms built natively in $((SECONDS - t0)) s into $cache" \
        "($(CCACHE_DIR=$cache ccache -s 2> /dev/null | grep -E 'Hits:|Misses:' | head -2 | tr -s ' ' | tr '\n' ';'))"
else
    echo "dkms-ccache: the native DKMS build failed ($((SECONDS - t0)) s):" >&2
    tail -n 30 "$tmp/log" >&2
    exit 1
fi
