#!/bin/sh
# Compile the orca provider and the layout test against rdma-core's own
# libibverbs headers (a v34..v56 source tree, e.g. "git archive v44.0"), the
# way an in-tree build would see them, and compare the layouts with the
# compat build.  usage: intree_check.sh <rdma-core-src> <workdir>
set -eu
SRC=$1
W=$2
P=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-gcc}
rm -rf "$W"
mkdir -p "$W/inc/infiniband" "$W/inc/rdma" "$W/inc/kernel-abi"
for h in driver.h kern-abi.h cmd_ioctl.h verbs.h verbs_api.h tm_types.h; do
	cp "$SRC/libibverbs/$h" "$W/inc/infiniband/"
done
cp "$SRC"/kernel-headers/rdma/*.h "$W/inc/rdma/"
cp "$P/../include/uapi/rdma/orca-abi.h" "$W/inc/rdma/"
python3 "$SRC/buildlib/make_abi_structs.py" "$W/inc/rdma/ib_user_verbs.h" \
	"$W/inc/kernel-abi/ib_user_verbs.h"
python3 "$SRC/buildlib/make_abi_structs.py" "$W/inc/rdma/orca-abi.h" \
	"$W/inc/kernel-abi/orca-abi.h"
pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")/\1/p' "$SRC/CMakeLists.txt")
[ "$pabi" = 34 ] || { echo "rdma-core tree has PABI '$pabi', not 34"; exit 1; }
printf '#define IBVERBS_PABI_VERSION %s\n#define VERBS_WRITE_ONLY 0\n#define VERBS_IOCTL_ONLY 0\n' \
	"$pabi" > "$W/inc/config.h"
# rdma-core's own warning flags
FLAGS="-std=gnu11 -O2 -Wall -Wextra -Wno-sign-compare -Wno-unused-parameter -Werror -I$W/inc -I$SRC"
$CC $FLAGS -fPIC -shared -Wl,--no-undefined -Wl,-z,defs \
	-Wl,--version-script="$P/provider.map" -o "$W/liborca-rdmav34.so" \
	-I"$P/../drivers/infiniband/hw/orca" "$P"/orca/*.c -libverbs
$CC $FLAGS -I"$P/orca" -o "$W/layout" "$P/tests/layout.c" -libverbs
"$W/layout" > "$W/layout.out"
echo "in-tree headers: $(tail -1 "$W/layout.out") checks pass"
objdump -T "$W/liborca-rdmav34.so" | awk '/\*UND\*/ && /IBVERBS/ { print $NF }' |
	sort > "$W/imports.txt"
echo "imports: $(wc -l < "$W/imports.txt") IBVERBS_PRIVATE_34 symbols"
