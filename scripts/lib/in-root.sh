# shellcheck shell=bash
# Run a command in a throw-away root on the host (sourced by mkdeb.sh and
# dkms-ccache.sh).
#
# in_root ROOT BINDS SETUP CMD...
#   ROOT   a root directory (/ for the host's own, or a Debian root of
#          scripts/debian-root.sh): the lower layer of an overlay whose
#          upper layer is thrown away afterwards, so ROOT is never written;
#   BINDS  host directories (colon-separated) bound read-write at the same
#          paths inside, e.g. the directory the command writes its output to;
#   SETUP  shell code run as root just before the chroot, with $r the new
#          root (e.g. extra links); may be empty;
#   CMD    run chrooted with a clean environment (PATH, HOME, LANG,
#          DEBIAN_FRONTEND=noninteractive) plus the variables of the
#          array IN_ROOT_ENV (NAME=VALUE words), if set.
# /proc, /sys and /dev are the host's, /run and /tmp fresh tmpfs.  All of it
# lives in a private mount namespace (unshare -m), so every mount goes with
# the command, on every path.  Exit status: the command's.
in_root() {
    local root=$1 binds=$2 setup=$3 tmp rc
    shift 3
    tmp=$(mktemp -d /tmp/orca-root.XXXXXX)
    # shellcheck disable=SC2016  # expanded by the inner bash
    tmp=$tmp root=$root binds=$binds setup=$setup unshare -m bash -c '
        set -euo pipefail
        r=$tmp/root
        mkdir -p "$tmp/up" "$tmp/work" "$r"
        mount --make-rprivate /
        mount -t overlay overlay -o "lowerdir=$root,upperdir=$tmp/up,workdir=$tmp/work" "$r"
        for d in proc sys dev; do mount --rbind "/$d" "$r/$d"; done
        mount -t tmpfs -o mode=755 tmpfs "$r/run"
        mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
        IFS=: read -ra bl <<< "$binds"
        for b in "${bl[@]}"; do
            [[ -n $b ]] || continue
            mkdir -p "$r$b"
            mount --bind "$b" "$r$b"
        done
        eval "$setup"
        exec chroot "$r" /usr/bin/env -i \
            PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
    ' in-root ${IN_ROOT_ENV[@]+"${IN_ROOT_ENV[@]}"} "$@"
    rc=$?
    rm -rf "$tmp"
    return "$rc"
}
