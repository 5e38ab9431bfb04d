#!/bin/bash
# Fetch one of the other kernels orca supports, once, into $ORCA_CACHE
# (default /var/cache/orca), and print the directory that holds it:
#
#   <dir>/release          its kernel release (uname -r)
#   <dir>/vmlinuz          the image scripts/vm.sh --kernel NAME boots
#   <dir>/lib/modules/R/   its modules (the guest sees them at /lib/modules/R)
#   <dir>/build            kbuild directory for out-of-tree modules (KDIR)
#
# usage: scripts/guest-kernel.sh 6.12|7.3
#
# 6.12  Debian 12's linux-image-6.12.117+deb12-amd64 and its headers, from
#       bookworm-security (the host's own suite, through the private state
#       below all the same): unpacked, not installed, since the headers
#       package depends on the image and an installed image would become
#       the host's default kernel.
# 7.3   Debian's 7.3 from trixie-backports, through a private apt state in
#       the cache (the host's apt state is not touched): the prebuilt image
#       and modules, and a kbuild tree prepared from linux-source-7.3 with the
#       image's config and Module.symvers, with the host's gcc (trixie's
#       kbuild tools need trixie's glibc).
#
# Everything is keyed by the package versions; one preparation at a time.
set -euo pipefail

name=${1:-}
cache=${ORCA_CACHE:-/var/cache/orca}
say() { printf 'guest-kernel: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

case $name in
6.12)
    rel=6.12.117+deb12-amd64
    suite=bookworm-security
    ;;
7.3)
    rel=7.3.4+deb13-amd64
    suite=trixie-backports
    ;;
*) die "usage: $0 6.12|7.3" ;;
esac

out=$cache/kernel-$rel
mkdir -p "$cache"
exec 9> "$cache/.guest-kernel.lock"
flock 9
# The 7.3 tree is prepared with the host's compiler and pahole, whose
# versions its config records (kbuild warns at a module built with
# others): prepared again when they change.
toolchain() { gcc --version | head -n 1; pahole --version 2> /dev/null || echo "no pahole"; }
if [[ -f $out/.orca-done ]]; then
    if [[ $name != 7.3 || $(toolchain) == "$(cat "$out/.orca-toolchain" 2> /dev/null)" ]]; then
        echo "$out"
        exit 0
    fi
    say "the host's gcc or pahole is not the one $rel was prepared with: preparing it again"
fi

# A private apt state for $suite: sources, lists and archives in the cache.
# shellcheck source=scripts/lib/apt-private.sh
. "$(dirname "$0")/lib/apt-private.sh"
apt_dir=$cache/apt-$suite
case $suite in
bookworm-security) uri=http://deb.debian.org/debian-security ;;
*) uri=http://deb.debian.org/debian ;;
esac
apt_private "$apt_dir" "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $suite main"

pkgs=()
case $name in
6.12) pkgs=("linux-image-$rel" "linux-headers-$rel" "linux-headers-${rel%-amd64}-common"
    "linux-kbuild-${rel%-amd64}") ;;
7.3) pkgs=("linux-binary-$rel" "linux-modules-$rel" "linux-base-$rel"
    "linux-headers-$rel" linux-source-7.3) ;;
esac
(cd "$apt_dir/debs" && rm -f ./*.deb &&
    apt-get "${apt_opts[@]}" -qq download "${pkgs[@]}") || die "apt-get download ${pkgs[*]} failed"

rm -rf "$out"
mkdir -p "$out/root"
for deb in "$apt_dir"/debs/*.deb; do
    [[ $deb == */linux-source-* ]] && continue
    dpkg -x "$deb" "$out/root"
done
# bookworm installs modules under /lib, trixie under /usr/lib
mods=$out/root/lib/modules/$rel
[[ -d $mods ]] || mods=$out/root/usr/lib/modules/$rel
[[ -d $mods ]] || die "no modules for $rel in ${pkgs[*]}"
mkdir -p "$out/lib/modules"
mv "$mods" "$out/lib/modules/$rel"
img=$out/root/boot/vmlinuz-$rel
[[ -f $img ]] || img=$out/lib/modules/$rel/vmlinuz
[[ -f $img ]] || die "no vmlinuz for $rel"
cp "$img" "$out/vmlinuz"
echo "$rel" > "$out/release"
# the package's own links point at the host's /usr/src: not wanted here
rm -f "$out/lib/modules/$rel/build" "$out/lib/modules/$rel/source"
depmod -b "$out" "$rel" || die "depmod for $rel failed"

case $name in
6.12)
    # the headers' links are relative; their Makefile names the common
    # part by its installed path
    mv "$out/root/usr/src" "$out/"
    mv "$out"/root/usr/lib/linux-kbuild-* "$out/lib/"
    sed -i "s|^include /usr/src/|include $out/src/|" "$out/src/linux-headers-$rel/Makefile"
    grep -q "^include $out/src/" "$out/src/linux-headers-$rel/Makefile" || die "unexpected headers Makefile"
    ln -sfn "src/linux-headers-$rel" "$out/build"
    ;;
7.3)
    say "preparing a kbuild tree from linux-source-7.3 (a few minutes, once)"
    dpkg -x "$apt_dir"/debs/linux-source-7.3_*.deb "$out/root"
    tar -xf "$out"/root/usr/src/linux-source-7.3.tar.xz -C "$out"
    rm -f "$out"/root/usr/src/linux-source-7.3.tar.xz
    mv "$out/linux-source-7.3" "$out/build"
    cfg=$out/lib/modules/$rel/config
    [[ -f $cfg ]] || cfg=$(ls "$out"/root/boot/config-"$rel" 2> /dev/null) || die "no config for $rel"
    cp "$cfg" "$out/build/.config"
    cp "$out/root/usr/src/linux-headers-$rel/Module.symvers" "$out/build/Module.symvers" ||
        die "no Module.symvers in linux-headers-$rel"
    # The release string must be the image's, so that the modules load.
    lv=${rel#7.3.4}
    {
        make -C "$out/build" LOCALVERSION="$lv" olddefconfig
        make -C "$out/build" LOCALVERSION="$lv" -j"$(nproc)" modules_prepare
    } > "$out/build.log" 2>&1 || { tail -20 "$out/build.log" >&2; die "modules_prepare failed (log $out/build.log)"; }
    got=$(< "$out/build/include/config/kernel.release")
    [[ $got == "$rel" ]] || die "prepared tree is $got, not $rel"
    ;;
esac
rm -rf "$out/root"
[[ $name == 7.3 ]] && toolchain > "$out/.orca-toolchain"
touch "$out/.orca-done"
say "$name ready in $out"
echo "$out"
