#!/bin/bash
# Print the path of a pristine, configured linux-source-7.3 tree in which
# the orca kernel series is applied and built in-tree, preparing it once
# into $ORCA_CACHE (default /var/cache/orca):
#
#   - Debian's linux-source-7.3 (the package scripts/guest-kernel.sh 7.3
#     fetched into its private apt state) extracted into a tree of its own
#     (the guest kernel's kbuild tree must keep Debian's config), committed
#     as tag "base" of a git repository of its own;
#   - the config of Debian's 7.3 image with every other driver of
#     drivers/infiniband/hw off, KUNIT=m (so that the driver's KUnit tests
#     compile too) and no debug info (faster; warnings do not depend on
#     it); the image's Module.symvers, so that modpost resolves the module
#     against the real kernel;
#   - make modules_prepare and a first W=1 build of drivers/infiniband/hw/
#     (nothing in it yet), so that the kernel's own tools are built here,
#     with the W=1 command lines the checked builds use, and not in the
#     first checked build.
#
# Every call resets the tree to "base" (git reset --hard, the driver's
# directory removed) and leaves the build products of the kernel itself.
# The cache is keyed by the source package, the config and Module.symvers
# and this file; stale ones are removed.  The caller serialises users
# (flock on $ORCA_CACHE/upstream-linux.lock).
#
# usage: scripts/upstream/linux-tree.sh
set -euo pipefail

cache=${ORCA_CACHE:-/var/cache/orca}
repo=$(cd "$(dirname "$0")/../.." && pwd -P)
j=$(nproc)

die() { echo "linux-tree: $*" >&2; exit 2; }
gk=$("$repo/scripts/guest-kernel.sh" 7.3) || die "no 7.3 kernel (scripts/guest-kernel.sh 7.3 failed)"
rel=$(< "$gk/release")
config=$gk/lib/modules/$rel/config
symvers=$gk/build/Module.symvers
deb=$(ls "$cache"/apt-trixie-backports/debs/linux-source-7.3_*.deb 2> /dev/null | tail -n 1)
[ -f "$deb" ] || die "no linux-source-7.3 package in $cache/apt-trixie-backports/debs"
[ -f "$config" ] && [ -f "$symvers" ] || die "no config or Module.symvers for $rel in $gk"
srcver=$(dpkg-deb -f "$deb" Version)

key=$(cat "$config" "$symvers" "$0" <(echo "$srcver") | sha256sum | cut -c1-12)
tree=$cache/upstream-linux-$srcver-$key

if [ ! -f "$tree/.orca-prepared" ]; then
	t0=$SECONDS
	echo "linux-tree: preparing $tree (cold: extract, git, config, modules_prepare)" >&2
	# in place (objtool's build records absolute paths): the marker file
	# says it is complete
	rm -rf "$cache"/upstream-linux-* 2>/dev/null || true
	mkdir -p "$tree"
	dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/src/linux-source-7.3.tar.xz |
		tar -xJf - -C "$tree" --strip-components=1
	(
		cd "$tree"
		export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
		git init -q
		git config gc.auto 0	# no repack of 78000 loose objects, ever
		# Debian's tree ignores everything at the top level ("/*"):
		# add by force, build products stay ignored below.
		git -c core.compression=1 add -f -A
		git -c user.name=orca -c user.email=orca@localhost commit -q \
			-m "linux-source-7.3 $srcver"
		git tag base
		cp "$config" .config
		args=()
		for s in $(sed -n 's/^config //p' drivers/infiniband/hw/*/Kconfig | sort -u); do
			args+=(--disable "$s")
		done
		scripts/config "${args[@]}" --module KUNIT \
			--disable DEBUG_INFO_BTF --enable DEBUG_INFO_NONE \
			--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
			--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5
		make -s olddefconfig
		cp "$symvers" Module.symvers
		make -s -j"$j" modules_prepare
		make -s -j"$j" W=1 drivers/infiniband/hw/
	) > "$tree.log" 2>&1 || { cat "$tree.log" >&2; die "preparing the tree failed"; }
	touch "$tree/.orca-prepared"
	echo "linux-tree: prepared in $((SECONDS - t0)) s" >&2
fi

cd "$tree"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
[ -d .git/rebase-apply ] && git am --abort > /dev/null 2>&1 || true
git reset -q --hard base
rm -rf drivers/infiniband/hw/orca
[ -z "$(git status --porcelain)" ] || die "$tree is not pristine after the reset"
echo "$tree"
