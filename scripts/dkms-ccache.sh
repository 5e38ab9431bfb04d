#!/bin/bash
# Fill a compiler cache with orca-dkms' DKMS build, natively, for vm-packages.
#
#   scripts/dkms-ccache.sh DEB_DIR CACHE_DIR [ROOT]
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
# (the guest then compiles everything itself, and packages.sh sayset -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
debdir=$(cd "$1" && pwd -P)
cache=$2
root=${3:-/}
deb=$(find "$debdir" -maxdepth 1 -name 'orca-dkms_*_all.deb' | head -n 1)
[[ -n $deb ]] || { echo "dkms-ccache: no orca-dkms_*_all.deb in $debdir" >&2; exit 1; }
[[ -x $root/usr/bin/ccache ]] || { echo "dkms-ccache: no ccache in $root (scripts/deps.sh)" >&2; exit 1; }
# the compilers dkms will call: the first word of each kernel's
# CONFIG_CC_VERSION_TEXT
ccs=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ "]*\).*/\1/p' "$root"/lib/modules/*/build/.config 2> /dev/null | sort -u | tr '\n' ' ')
[[ -n $ccs ]] || { echo "dkms-ccache: no kernel build config in $root says its compiler" >&2; exit 1; }
mkdir -p "$cache"
cache=$(cd "$cache" && pwd -P)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
t0=$SECONDS

# shellcheck source=scripts/lib/in-root.sh
. "$here/lib/in-root.sh"
# shellcheck disable=SC2016  # expanded in in_root
setup='mkdir -p "$r/run/ccbin"; for c in '"$ccs"'; do ln -s /usr/bin/ccache "$r/run/ccbin/$c"; done'
IN_ROOT_ENV=(PATH=/run/ccbin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    CCACHE_DIR="$cache" CCACHE_MAXSIZE=256M)
if in_root "$root" "$cache:$debdir" "$setup" dpkg -i "$deb" > "$log" 2>&1; then
    echo "dkms-ccache: orca-dkms built natively in $((SECONDS - t0)) s into $cache" \
        "($(CCACHE_DIR=$cache ccache -s 2> /dev/null | grep -E 'Hits:|Misses:' | head -2 | tr -s ' ' | tr '\n' ';'))"
else
    echo "dkms-ccache: the native DKMS build failed ($((SECONDS - t0)) s):" >&2
    tail -n 30 "$log" >&2
    exit 1
fi
