#!/bin/bash
# Install every Debian 12 package that building and testing orca needs.
# Idempotent: a no-op (well under a second) when everything is present; runs
# apt-get update only when something is missing.  Needs root to install.
#
# usage: scripts/deps.sh [--dry-run]
#   --dry-run   print what would be installed, install nothing (exit 0)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

DRY=0
[[ ${1:-} == --dry-run ]] && DRY=1

PKGS=(
    build-essential make gcc bc flex bison libelf-dev libssl-dev kmod cpio xz-utils
    dwarves     # pahole: kbuild gives modules BTF where the headers ship vmlinux (Debian's 6.12)
    linux-image-amd64 linux-headers-amd64 linux-source-6.1 sparse
    qemu-system-x86 busybox-static
    libibverbs-dev librdmacm-dev ibverbs-utils ibverbs-providers rdma-core rdmacm-utils perftest python3-pyverbs
    ibsim-utils     # OpenSM's MAD simulator: make bench's fabric rows set orca beside it
    infiniband-diags opensm iputils-ping iperf3 nvme-cli fio ucx-utils openmpi-bin python3-mpi4py
    nfs-kernel-server
    iproute2 python3 strace pciutils python3-ply python3-git python3-docutils
    debhelper dh-dkms dkms udev ccache debootstrap
    cmake ninja-build pkg-config libnl-3-dev libnl-route-3-dev
    clang libclang-rt-14-dev
)

say() { printf 'deps: %s\n' "$*"; }

# Packages of "$@" that are not fully installed.
missing() {
    local -A ok=()
    local p st
    while read -r p st; do
        [[ $st == ii ]] && ok[$p]=1
    done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null || :)
    for p; do
        [[ -n ${ok[$p]:-} ]] || printf '%s\n' "$p"
    done
}

UPDATED=0
install() {   # install "$@" (package names)
    (($#)) || return 0
    if ((DRY)); then
        say "would install: $*"
        return 0
    fi
    if ((EUID != 0)); then
        say "missing packages: $*"
        say "error: installing them needs root (run: sudo scripts/deps.sh)"
        exit 1
    fi
    if ((!UPDATED)); then
        say "apt-get update"
        apt-get update -qq
        UPDATED=1
    fi
    say "installing: $*"
    apt-get install -y -qq --no-install-recommends "$@"
}

# Newest installed Debian 6.1 kernel image version, e.g. 6.1.0-56-amd64.
newest_61() {
    dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' 'linux-image-6.1.0-*-amd64' 2>/dev/null |
        awk '$2 == "ii" { sub(/^linux-image-/, "", $1); print $1 }' |
        grep -E '^6\.1\.0-[0-9]+-amd64$' | sort -V | tail -n 1 || :
}

mapfile -t need < <(missing "${PKGS[@]}")
install "${need[@]}"

# The guest boots /boot/vmlinuz-$KVER and orca.ko is built against
# /lib/modules/$KVER/build: the headers must match the newest 6.1 image.
KVER=$(newest_61)
if [[ -z $KVER ]]; then
    if ((DRY)); then
        say "would check linux-headers for the 6.1 image installed by linux-image-amd64"
        exit 0
    fi
    say "error: no linux-image-6.1.0-*-amd64 installed (is this Debian 12?)"
    exit 1
fi
mapfile -t need < <(missing "linux-headers-$KVER")
install "${need[@]}"
if ((!DRY)); then
    [[ -r /boot/vmlinuz-$KVER ]] || { say "error: /boot/vmlinuz-$KVER missing or unreadable"; exit 1; }
    [[ -d /lib/modules/$KVER/build ]] || { say "error: /lib/modules/$KVER/build missing"; exit 1; }
fi
if ((DRY)); then
    say "dry run: nothing installed (kernel $KVER)"
else
    say "ok (kernel $KVER, ${#PKGS[@]} packages + linux-headers-$KVER present)"
fi
