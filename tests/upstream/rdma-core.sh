#!/bin/bash
# make check's upstream-rdma-core stage (TAP): the rdma-core patch series.
#
# Always:
#   - scripts/upstream.sh writes the series from the committed HEAD (new
#     files only, unless RDMA_CORE_SRC points at an rdma-core v44 tree);
#   - it applies with git am (to an empty repository, or to the files it
#     modifies taken from RDMA_CORE_SRC);
#   - one source: the provider files it adds are the project's
#     providers/orca files byte for byte, nothing missing and nothing
#     more; kernel-headers/rdma/orca-abi.h is include/uapi/rdma/orca-abi.h
#     and providers/orca/orca_hw_io.h the driver's orca_hw_io.h;
#   - providers/orca/CMakeLists.txt names exactly the .c files there;
#   - the provider, as the series adds it, compiles and links with the
#     warning flags of rdma-core v44's own build (below), -Werror, against
#     the project's PABI 34 compat headers.
# Only with RDMA_CORE_SRC=<rdma-core v44 tree> (SKIP otherwise):
#   - the series applies with git am to a copy of that tree;
#   - cmake configures it and ninja builds orca-rdmav34 with
#     -DENABLE_WERROR=1: no warning.
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

# rdma-core v44's C flags on x86_64 with gcc (CMakeLists.txt, buildlib/):
# RDMA_EnableCStd (CMAKE_C_STANDARD 11, GNU extensions), RDMA_BuildType
# (RelWithDebInfo, -DVERBS_DEBUG), the "Extra warnings" and "Final warning
# flags" blocks, ENABLE_WERROR; providers are MODULE libraries (-fPIC)
# linked with --as-needed --no-undefined and buildlib/provider.map.
# _GNU_SOURCE, _FILE_OFFSET_BITS and -Wno-missing-field-initializers are
# only added for libcs or compilers that need them, not here.  Checked
# against ninja's command line for providers/orca/verbs.c in a v44 tree
# configured with -DENABLE_WERROR=1 here (cmake 3.25, gcc 12): the same
# flags, -DNDEBUG included.
RC_CFLAGS=(-std=gnu11 -O2 -g -DNDEBUG -DVERBS_DEBUG -fPIC
	   -Wall -Wextra -Wno-sign-compare -Wno-unused-parameter
	   -Wmissing-prototypes -Wmissing-declarations -Wwrite-strings -Wformat=2
	   -Wcast-function-type -Wformat-nonliteral -Wdate-time -Wnested-externs
	   -Wshadow -Wstrict-prototypes -Wold-style-definition -Wredundant-decls
	   -Werror)
# shellcheck disable=SC2054
RC_LDFLAGS=(-shared -Wl,--as-needed -Wl,--no-undefined)

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
"$repo/scripts/upstream.sh" --out "$out" --rev "$rev" rdma-core > "$logs/generate.log" 2>&1
rc=$?
mode="new files only (RDMA_CORE_SRC not set)"
[ -n "${RDMA_CORE_SRC:-}" ] && mode="complete, against $RDMA_CORE_SRC"
ok $rc "scripts/upstream.sh rdma-core: series written from HEAD ${rev:0:12}, $mode" "$logs/generate.log"
((rc == 0)) || { echo "1..$n"; exit 1; }
patches=()
for p in "$out"/rdma-core-v44/[0-9]*.patch; do [[ $p == */0000-cover-letter.patch || ! -f $p ]] || patches+=("$p"); done

# HEAD's files, the reference
H=$logs/head
mkdir -p "$H"
git -C "$repo" archive "$rev" providers include/uapi/rdma/orca-abi.h \
	drivers/infiniband/hw/orca/orca_hw_io.h | tar -x -C "$H"

# apply: to an empty repository, or to the files it modifies, from the tree
S=$logs/applied
mkdir -p "$S"
if [ -n "${RDMA_CORE_SRC:-}" ]; then
	for f in $(cat "${patches[@]}" | sed -n 's|^--- a/||p' | sort -u); do
		install -D -m 0644 "$RDMA_CORE_SRC/$f" "$S/$f"
	done
fi
{
	git -C "$S" init -q && git -C "$S" add -A &&
	git -C "$S" -c user.name=orca -c user.email=orca@localhost commit -q --allow-empty -m base &&
	git -C "$S" -c user.name=orca -c user.email=orca@localhost am -q "${patches[@]}"
} > "$logs/am.log" 2>&1
rc=$?
onto="an empty repository: new files only"
[ -n "${RDMA_CORE_SRC:-}" ] && onto="the files they modify, from RDMA_CORE_SRC"
ok $rc "git am: the ${#patches[@]} patches apply (to $onto)" "$logs/am.log"

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

# rdma-core's warning flags, compat headers
W=$logs/build
mkdir -p "$W/inc/rdma"
cp "$S/kernel-headers/rdma/orca-abi.h" "$W/inc/rdma/"
gcc "${RC_CFLAGS[@]}" -I"$H/providers/compat" -I"$W/inc" "${RC_LDFLAGS[@]}" \
	-Wl,--version-script="$H/providers/provider.map" -o "$W/liborca-rdmav34.so" \
	"$S"/providers/orca/*.c -libverbs > "$W/gcc.log" 2>&1
rc=$?
[ $rc = 0 ] && [ ! -s "$W/gcc.log" ]
ok $? "the series' provider compiles and links with rdma-core v44's warning flags and -Werror: 0 warnings (gcc $(gcc -dumpversion), compat PABI 34 headers)" \
	"$W/gcc.log"

# the real thing, given a tree
if [ -z "${RDMA_CORE_SRC:-}" ]; then
	skip "git am onto an rdma-core v44 tree" "RDMA_CORE_SRC not set"
	skip "cmake + ninja orca-rdmav34 in that tree with -DENABLE_WERROR=1" "RDMA_CORE_SRC not set"
else
	T=$logs/rdma-core
	missing=$(for t in cmake ninja pkg-config; do command -v $t > /dev/null || echo $t; done)
	{
		cp -a "$RDMA_CORE_SRC" "$T" && rm -rf "$T/.git" "$T/build" &&
		git -C "$T" init -q && git -C "$T" add -f -A &&
		git -C "$T" config gc.auto 0 && git -C "$T" -c user.name=orca -c user.email=orca@localhost commit -q -m base &&
		git -C "$T" -c user.name=orca -c user.email=orca@localhost am -q "${patches[@]}"
	} > "$logs/am-tree.log" 2>&1
	rc=$?
	ok $rc "git am: the series applies to a copy of $RDMA_CORE_SRC" "$logs/am-tree.log"
	if [ $rc != 0 ]; then
		skip "cmake + ninja orca-rdmav34" "the series did not apply"
	elif [ -n "$missing" ]; then
		skip "cmake + ninja orca-rdmav34" "missing: $missing"
	else
		tb=$SECONDS
		mkdir -p "$T/build"
		{
			cd "$T/build" &&
			cmake -GNinja -DENABLE_WERROR=1 -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 .. &&
			ninja orca-rdmav34
		} > "$logs/cmake.log" 2>&1
		rc=$?
		{ grep -E 'warning:|error:' "$logs/cmake.log"; ((rc)) && tail -n 30 "$logs/cmake.log"; } > "$logs/cmake.warn"
		[ $rc = 0 ] && [ ! -s "$logs/cmake.warn" ] && [ -f "$T/build/lib/liborca-rdmav34.so" ]
		ok $? "cmake -DENABLE_WERROR=1 + ninja orca-rdmav34 in the patched tree: built, 0 warnings ($((SECONDS - tb)) s)" \
			"$logs/cmake.warn"
	fi
fi

echo "# logs in $logs"
echo "1..$n"
exit $((failed > 0))
