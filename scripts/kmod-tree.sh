#!/bin/bash
# Make (or refresh) the shadow tree an out-of-tree orca build runs in, and
# fit it to the kernel it is built for.
#
# usage: scripts/kmod-tree.sh TREE KDIR
#
# TREE gets symlinks only: Kbuild, include/, every file of the driver
# directory and of compat/ (re-made each time, so that added and removed
# files are followed); no object lands in the source directory (kunit/run.sh
# links that directory into a kernel tree, where stray objects would be
# picked up through VPATH).  Then compat/configure.sh KDIR TREE runs the
# probes and, on an older kernel, rewrites a few files and adds
# orca_compat.o.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
tree=${1:?usage: $0 TREE KDIR}
kdir=${2:?usage: $0 TREE KDIR}
ksrc=drivers/infiniband/hw/orca

[[ -f $repo/Kbuild ]] || { echo "orca: Kbuild is missing: the top-level Kbuild builds $ksrc" >&2; exit 1; }
[[ -d $kdir ]] || { echo "orca: no kernel build dir '$kdir' (run: make deps)" >&2; exit 1; }
mkdir -p "$tree/$ksrc" "$tree/compat"
ln -sfn "$repo/Kbuild" "$tree/Kbuild"
ln -sfn "$repo/include" "$tree/include"
find "$tree/$ksrc" "$tree/compat" -maxdepth 1 -type l -delete
for f in "$repo/$ksrc"/*; do ln -s "$f" "$tree/$ksrc/"; done
for f in "$repo"/compat/*; do ln -s "$f" "$tree/compat/"; done
exec "$repo/compat/configure.sh" "$kdir" "$tree"
