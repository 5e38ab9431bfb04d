#!/bin/bash
# make check's upstream-rdma-core stage (TAP): the rdma-core patch series,
# against rdma-core v65 (RDMA_CORE_SRC, default the upstream source of
# Debian's rdma-core 65, scripts/rdma-core.sh 65, fetched once into the cache):
#   - scripts/upstream.sh writes the series from the committed HEAD;
#   - it applies with git am to a copy of that tree;
#   - one source: the provider files it adds are the project's
#     providers/orca files byte for byte, nothing missing and nothing
#     more; kernel-headers/rdma/orca-abi.h is include/uapi/rdma/orca-abi.h
#     and providers/orca/orca_hw_io.h the driver's orca_hw_io.h;
#   - providers/orca/CMakeLists.txt names exactly the .c files there;
#   - no compat code: nothing the series adds names an rdma-core release,
#     a PABI or the project's providers/compat (the provider is written
#     for v65; what 44 and 56 need stays out of the series);
#   - cmake configures the patched tree and ninja builds orca-rdmav65 with
#     -DENABLE_WERROR=1 (rdma-core's own warning flags): no warning;
#   - the module imports only IBVERBS_PRIVATE_65 and IBVERBS_1.* symbols
#     and exports none.
#
# usage: tests/upstream/rdma-core.sh   (BUILD, RDMA_CORE_SRC from the environment)
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$repo/build}
out=$BUILD/upstream
logs=$BUILD/upstream-test/rdma-core
rm -rf "$logs"
mkdir -p "$logs"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null

n=0 failed=0
ok() {	# status description [log]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		failed=$((failed + 1))
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && [ -s "$3" ] && sed 's/^/# /' "$3" | head -n 60
	fi
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
bail() { echo "Bail out! $*"; exit 1; }

rev=$(git -C "$repo" rev-parse HEAD) || bail "no HEAD"
if [ -z "${RDMA_CORE_SRC:-}" ]; then
	d=$("$repo/scripts/rdma-core.sh" 65 2> "$logs/fetch.log") || { cat "$logs/fetch.log"; bail "no rdma-core 65 source (scripts/rdma-core.sh 65)"; }
	export RDMA_CORE_SRC=$d/src
fi
rcver=$(sed -n 's/^set(PACKAGE_VERSION "\([0-9.]*\)")$/\1/p' "$RDMA_CORE_SRC/CMakeLists.txt")
"$repo/scripts/upstream.sh" --out "$out" --rev "$rev" rdma-core > "$logs/generate.log" 2>&1
rc=$?
ok $rc "scripts/upstream.sh rdma-core: series written from HEAD ${rev:0:12}, against rdma-core $rcver ($RDMA_CORE_SRC)" "$logs/generate.log"
((rc == 0)) || { echo "1..$n"; exit 1; }
patches=()
for p in "$out"/rdma-core-v65/[0-9]*.patch; do [[ $p == */0000-cover-letter.patch || ! -f $p ]] || patches+=("$p"); done

# HEAD's files, the reference
H=$logs/head
mkdir -p "$H"
git -C "$repo" archive "$rev" providers include/uapi/rdma/orca-abi.h \
	drivers/infiniband/hw/orca/orca_hw_io.h | tar -x -C "$H"

# apply to a copy of the tree
S=$logs/rdma-core
{
	cp -a "$RDMA_CORE_SRC" "$S" && rm -rf "$S/.git" "$S/build" &&
	git -C "$S" init -q && git -C "$S" add -f -A &&
	git -C "$S" config gc.auto 0 && git -C "$S" -c user.name=orca -c user.email=orca@localhost commit -q -m base &&
	git -C "$S" -c user.name=orca -c user.email=orca@localhost am -q "${patches[@]}"
} > "$logs/am.log" 2>&1
rc=$?
ok $rc "git am: the ${#patches[@]} patches apply to a copy of rdma-core $rcver" "$logs/am.log"
((rc == 0)) || { echo "1..$n"; exit 1; }

# one source
{
	diff -r -x orca_hw_io.h "$H/providers/orca" "$S/providers/orca" &&
	cmp "$H/drivers/infiniband/hw/orca/orca_hw_io.h" "$S/providers/orca/orca_hw_io.h" &&
	cmp "$H/include/uapi/rdma/orca-abi.h" "$S/kernel-headers/rdma/orca-abi.h"
} > "$logs/identical.log" 2>&1
ok $? "one source: providers/orca is the project's providers/orca byte for byte (+ the driver's orca_hw_io.h), kernel-headers/rdma/orca-abi.h is include/uapi/rdma/orca-abi.h" \
	"$logs/identical.log"

# CMakeLists.txt names every .c file
listed=$(tr -s ' \t\n()' '\n' < "$S/providers/orca/CMakeLists.txt" | grep '\.c$' | sort | tr '\n' ' ')
listed=${listed% }
present=$(cd "$S/providers/orca" && ls -- *.c | sort | tr '\n' ' ')
present=${present% }
[ "$listed" = "$present" ]
ok $? "providers/orca/CMakeLists.txt names exactly the .c files of providers/orca ($present)"

# no compat code: the lines the series adds
cat "${patches[@]}" | grep '^+' | grep -v '^+++ ' |
	grep -n -E 'IBVERBS_PABI_VERSION|ORCA_RDMA_CORE|orca_pabi34|ORCA_CMD_NO_|compat/' > "$logs/compat.log"
[ ! -s "$logs/compat.log" ]
ok $? "no compat code in the series (no IBVERBS_PABI_VERSION, ORCA_RDMA_CORE, orca_pabi34.h, compat/)" "$logs/compat.log"

# the build, with rdma-core's own flags
missing=$(for t in cmake ninja pkg-config; do command -v $t > /dev/null || echo $t; done)
so=$S/build/lib/liborca-rdmav65.so
if [ -n "$missing" ]; then
	ok 1 "cmake + ninja orca-rdmav65: missing $missing (scripts/deps.sh)"
else
	tb=$SECONDS
	mkdir -p "$S/build"
	{
		cd "$S/build" &&
		cmake -GNinja -DENABLE_WERROR=1 -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 .. &&
		ninja orca-rdmav65
	} > "$logs/cmake.log" 2>&1
	rc=$?
	{ grep -E 'warning:|error:' "$logs/cmake.log"; ((rc)) && tail -n 30 "$logs/cmake.log"; } > "$logs/cmake.warn"
	[ $rc = 0 ] && [ ! -s "$logs/cmake.warn" ] && [ -f "$so" ] &&
		grep -q -- '-Werror' "$S/build/build.ninja"
	ok $? "cmake -DENABLE_WERROR=1 + ninja orca-rdmav65 in the patched tree: built, 0 warnings ($((SECONDS - tb)) s)" \
		"$logs/cmake.warn"
fi

# what the module links to and offers
objdump -T "$so" > "$logs/dynsym.txt" 2>&1
imports=$(awk '$0 ~ /\*UND\*/ && $NF != "" { print $(NF-1) }' "$logs/dynsym.txt" | sort | uniq -c | tr -s ' \n' ' ')
# (weak "Base" references are the toolchain's: __gmon_start__ and the like)
bad=$(awk '$0 ~ /\*UND\*/ { print $(NF-1) }' "$logs/dynsym.txt" | tr -d '()' |
	grep -v -E '^(IBVERBS_PRIVATE_65|IBVERBS_1\.[0-9]+|GLIBC_[0-9.]+|Base)$' | sort -u)
exports=$(awk '$0 !~ /\*UND\*/ && $2 == "g" { print $NF }' "$logs/dynsym.txt")
[ -f "$so" ] && grep -q 'IBVERBS_PRIVATE_65' "$logs/dynsym.txt" && [ -z "$bad" ] && [ -z "$exports" ]
ok $? "liborca-rdmav65.so imports from IBVERBS_PRIVATE_65, IBVERBS_1.* and glibc only, exports nothing (imports by version:$imports)" \
	"$logs/dynsym.txt"

echo "# logs in $logs"
echo "1..$n"
exit $((failed > 0))
