#!/bin/bash
# A real Debian 13 (trixie) system for a guest of its own, made once with
# debootstrap from Debian's packages and kept in $ORCA_CACHE (default
# /var/cache/orca); prints the directory of its root:
#
#   scripts/debian-root.sh 13      ->  /var/cache/orca/debian13-<key>/root
#
# The root has what a Debian 13 server that takes orca's packages has: its
# own kernel (linux-image-amd64, 6.12 in trixie) with its headers, dkms and
# the compiler, rdma-core 56 (libibverbs1, ibverbs-providers, ibverbs-utils,
# rdmacm-utils), OpenSM and infiniband-diags, udev, python3 (also what the
# test harness's peer tool needs); and what building the packages in it
# takes (debhelper, dh-dkms, libibverbs-dev), so that `scripts/mkdeb.sh
# --root` builds them there as a user of Debian 13 would.
# scripts/vm.sh --root debian13 boots its kernel with it as the guest's /
# (an overlay with a throw-away upper layer: the cache is never written).
#
# The key is the suite, the package list and the recipe's number (bump it
# when what is done after debootstrap changes): a new key makes a new root
# and removes the old one.
# Nothing is installed on the host but debootstrap (scripts/deps.sh).  One
# preparation at a time (a lock in the cache).
set -euo pipefail

name=${1:-}
cache=${ORCA_CACHE:-/var/cache/orca}
mirror=${ORCA_DEBIAN_MIRROR:-http://deb.debian.org/debian}
say() { printf 'debian-root: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

case $name in
13) suite=trixie ;;
*) die "usage: $0 13" ;;
esac
pkgs=(linux-image-amd64 linux-headers-amd64 dkms build-essential fakeroot
    debhelper dh-dkms libibverbs-dev ibverbs-utils ibverbs-providers
    rdmacm-utils rdma-core opensm infiniband-diags udev kmod iproute2
    pciutils procps ccache python3)
recipe=1
key=$(echo "recipe $recipe: $suite ${pkgs[*]}" | sha256sum | cut -c1-12)
dir=$cache/debian$name-$key
root=$dir/root

valid() {   # a finished root: the stamp, one kernel with its modules index
    local k
    [[ -f $dir/done ]] || return 1
    k=$(cd "$root/lib/modules" 2> /dev/null && printf '%s\n' */modules.dep | head -n 2)
    [[ $(wc -l <<< "$k") == 1 && -f $root/lib/modules/$k ]]
}
if valid; then
    printf '%s\n' "$root"
    exit 0
fi

command -v debootstrap > /dev/null || die "debootstrap not found (run: make deps)"
((EUID == 0)) || die "making the root needs root (debootstrap)"
mkdir -p "$cache"
exec {lock}> "$cache/.debian$name.lock"
flock "$lock"
if valid; then   # made meanwhile
    printf '%s\n' "$root"
    exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
tmp=$dir/root.tmp
t0=$SECONDS
say "debootstrap $suite into $dir (${#pkgs[@]} packages and their dependencies; a few minutes)"
if ! debootstrap --variant=minbase --components=main --include="$(IFS=,; echo "${pkgs[*]}")" \
    "$suite" "$tmp" "$mirror" > "$dir/debootstrap.log" 2>&1; then
    tail -n 30 "$dir/debootstrap.log" >&2
    die "debootstrap failed (log: $dir/debootstrap.log)"
fi
# what a server's root has and debootstrap leaves out
cat > "$tmp/etc/apt/sources.list.d/debian.sources" << EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
rm -f "$tmp/etc/apt/sources.list"
echo "debian$name" > "$tmp/etc/hostname"
chroot "$tmp" apt-get clean
# the guest boots its kernel; the initrd debootstrap made is not used
rm -f "$tmp"/boot/initrd.img-*
mv "$tmp" "$root"
kver=$(cd "$root/lib/modules" && printf '%s\n' *)
printf '%s\n' "$kver" > "$dir/release"
printf '%s\n' "${pkgs[@]}" > "$dir/packages"
: > "$dir/done"
valid || die "the new root in $dir has no single kernel with a modules index"
# an older root (another package list) is of no more use
for old in "$cache"/debian"$name"-*; do
    [[ $old == "$dir" || ! -d $old/root ]] || rm -rf "$old"
done
say "Debian $name root ready in $((SECONDS - t0)) s: kernel $kver, $(du -sh "$root" | cut -f1)"
printf '%s\n' "$root"
