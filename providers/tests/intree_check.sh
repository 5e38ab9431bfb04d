#!/bin/sh
# Compile the orca provider and the layout test against rdma-core's own
# libibverbs headers (the source of the release the build is for, e.g. from
# scripts/rdma-core.sh, or "git archive v44.0"), the way an in-tree build
# would see them, and compare the layouts with the compat build.
#
#   usage: [RDMA_CORE=44|56|65] [RDMA_ROOT=<unpacked packages>]
#          [LAYOUT_OURS=<layout program of the compat build>]
#          intree_check.sh <rdma-core-src> <workdir>
#
# RDMA_ROOT empty: link against the installed libibverbs and run the layout
# program's TAP checks as built; otherwise link against RDMA_ROOT's
# libibverbs.so (symbol versions only, nothing of it runs here).  With
# LAYOUT_OURS, "layout -o" and the sizes of both builds must be identical.
set -eu
SRC=$1
W=$2
RDMA_CORE=${RDMA_CORE:-44}
RDMA_ROOT=${RDMA_ROOT:-}
P=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-gcc}
case $RDMA_CORE in
44 | 56) want_pabi=34 ;;
65) want_pabi=65 ;;
*) echo "RDMA_CORE must be 44, 56 or 65"; exit 1 ;;
esac
rm -rf "$W"
mkdir -p "$W/inc/infiniband" "$W/inc/rdma" "$W/inc/kernel-abi"
for h in driver.h kern-abi.h cmd_ioctl.h verbs.h verbs_api.h tm_types.h; do
	cp "$SRC/libibverbs/$h" "$W/inc/infiniband/"
done
cp "$SRC"/kernel-headers/rdma/*.h "$W/inc/rdma/"
# rdma-core installs this one as <infiniband/ib_user_ioctl_verbs.h> too
cp "$SRC/kernel-headers/rdma/ib_user_ioctl_verbs.h" "$W/inc/infiniband/"
cp "$P/../include/uapi/rdma/orca-abi.h" "$W/inc/rdma/"
python3 "$SRC/buildlib/make_abi_structs.py" "$W/inc/rdma/ib_user_verbs.h" \
	"$W/inc/kernel-abi/ib_user_verbs.h"
python3 "$SRC/buildlib/make_abi_structs.py" "$W/inc/rdma/orca-abi.h" \
	"$W/inc/kernel-abi/orca-abi.h"
pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")/\1/p' "$SRC/CMakeLists.txt")
version=$(sed -n 's/^set(PACKAGE_VERSION "\([0-9.]*\)")/\1/p' "$SRC/CMakeLists.txt")
[ "${version%%.*}" = "$RDMA_CORE" ] ||
	{ echo "rdma-core tree is version '$version', not $RDMA_CORE.x"; exit 1; }
[ "$pabi" = "$want_pabi" ] ||
	{ echo "rdma-core tree has PABI '$pabi', not $want_pabi"; exit 1; }
printf '#define IBVERBS_PABI_VERSION %s\n#define VERBS_WRITE_ONLY 0\n#define VERBS_IOCTL_ONLY 0\n' \
	"$pabi" > "$W/inc/config.h"
if [ -n "$RDMA_ROOT" ]; then
	LINK="-L$RDMA_ROOT/usr/lib/$($CC -print-multiarch) -Wl,--allow-shlib-undefined"
	LAYOUT_LINK=-DORCA_LAYOUT_NO_LIBIBVERBS
else
	LINK=
	LAYOUT_LINK=-libverbs
fi
# rdma-core's own warning flags
FLAGS="-std=gnu11 -O2 -Wall -Wextra -Wno-sign-compare -Wno-unused-parameter -Werror -I$W/inc -I$SRC"
# the provider is in PABI 65's form: PABI 34's three older calls adapted
[ "$pabi" = 34 ] && FLAGS="$FLAGS -DORCA_RDMA_CORE=$RDMA_CORE -include $P/compat/orca_pabi34.h"
# shellcheck disable=SC2086
$CC $FLAGS -fPIC -shared -Wl,--no-undefined -Wl,-z,defs \
	-Wl,--version-script="$P/provider.map" -o "$W/liborca-rdmav$pabi.so" \
	-I"$P/../drivers/infiniband/hw/orca" "$P"/orca/*.c $LINK -libverbs
# shellcheck disable=SC2086
$CC $FLAGS -DORCA_RDMA_CORE="$RDMA_CORE" -I"$P/orca" \
	-I"$P/../drivers/infiniband/hw/orca" -o "$W/layout" "$P/tests/layout.c" \
	$LAYOUT_LINK
"$W/layout" > "$W/layout.out"
echo "rdma-core $version (PABI $pabi) headers: $(tail -1 "$W/layout.out") layout checks pass"
if [ -n "${LAYOUT_OURS:-}" ]; then
	"$W/layout" -o > "$W/members.real"
	"$LAYOUT_OURS" -o > "$W/members.ours"
	for s in verbs_context_ops verbs_device_ops verbs_sysfs_dev verbs_device \
		 verbs_qp verbs_qp.comp_mask verbs_context IBVERBS_PABI_VERSION; do
		echo "size $s $("$W/layout" -s $s)" >> "$W/members.real"
		echo "size $s $("$LAYOUT_OURS" -s $s)" >> "$W/members.ours"
	done
	diff -u "$W/members.real" "$W/members.ours"
	echo "compat headers: the same $(wc -l < "$W/members.ours") offsets and sizes"
fi
objdump -T "$W/liborca-rdmav$pabi.so" | awk '/\*UND\*/ && /IBVERBS/ { print $(NF-1), $NF }' |
	sort > "$W/imports.txt"
echo "imports: $(wc -l < "$W/imports.txt") libibverbs symbols, $(grep -c "IBVERBS_PRIVATE_$pabi" "$W/imports.txt") of them IBVERBS_PRIVATE_$pabi"
