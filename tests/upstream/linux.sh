#!/bin/bash
# make check's upstream-linux stage (TAP): the kernel patch series as a
# linux-rdma maintainer would try it.
#
#   - scripts/upstream.sh writes the series from the committed HEAD;
#   - scripts/checkpatch.pl --strict on every patch: nothing reported.  The
#     one exception is checkpatch's "added, moved or deleted file(s), does
#     MAINTAINERS need updating?", which it prints for any patch that adds
#     files without touching MAINTAINERS; for such a patch the test instead
#     asks scripts/get_maintainer.pl, in the tree with the patch applied,
#     whether every added file belongs to the orca entry;
#   - git am, one patch at a time, onto a pristine linux-source-7.3 tree
#     (scripts/upstream/linux-tree.sh, cached in $ORCA_CACHE);
#   - the tree then holds the driver, its UAPI header and its documentation
#     byte for byte as HEAD has them;
#   - Kconfig offers CONFIG_INFINIBAND_ORCA=m (and the KUnit option);
#   - an in-tree build of drivers/infiniband/hw/ (through the series'
#     Makefile and Kconfig hooks) with W=1, KUnit tests included: no
#     warning at all (7.3 wants a newer sparse than Debian 12's 0.6.4:
#     sparse runs on the driver's out-of-tree 6.1 build, make lint);
#   - orca.ko linked and checked by modpost against Debian's 7.3 image's
#     Module.symvers (KUnit tests off, as shipped): no warning;
#   - the UAPI header passes make headers and compiles on its own.
#
# usage: tests/upstream/linux.sh   (BUILD, ORCA_CACHE from the environment)
set -uo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$repo/build}
cache=${ORCA_CACHE:-/var/cache/orca}
out=$BUILD/upstream
logs=$BUILD/upstream-test/linux
j=$(nproc)
rm -rf "$logs"
mkdir -p "$logs" "$cache"

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
bail() { echo "Bail out! $*"; exit 1; }
# Diagnostics of kbuild, gcc, sparse, modpost and headers_install.
warnings() { grep -E '(^|[ :])(warning|error|WARNING|ERROR)[: ]|Error [0-9]' "$1"; }

t0=$SECONDS
# 1. the series, from HEAD (once: someone may commit meanwhile)
scripts=$repo/scripts
rev=$(git -C "$repo" rev-parse HEAD) || bail "no HEAD"
"$scripts/upstream.sh" --out "$out" --rev "$rev" linux > "$logs/generate.log" 2>&1
ok $? "scripts/upstream.sh linux: series written from HEAD ${rev:0:12}" "$logs/generate.log"
patches=()
for p in "$out"/linux-7.3/[0-9]*.patch; do [[ $p == */0000-cover-letter.patch || ! -f $p ]] || patches+=("$p"); done
((${#patches[@]})) || bail "no patches in $out/linux-7.3"
maint=$(sed -n 's/^M:\t.*<\(.*\)>$/\1/p' "$repo/MAINTAINERS" | head -n 1)

# The series is the driver in the newest kernel's form: nothing of the
# out-of-tree compatibility layer (compat/: its HAVE_* probes, its header,
# its wrappers) may be in it.
grep -nE 'HAVE_[A-Z0-9_]+|orca_compat|compat/' "${patches[@]}" > "$logs/compat.log" 2>&1
[ $? = 1 ]
ok $? "no compat code in the series: no HAVE_*, orca_compat or compat/ in ${#patches[@]} patches" "$logs/compat.log"

# 2. a pristine tree, one user at a time
exec 9> "$cache/.upstream-linux.lock"
flock -w 3600 9 || bail "could not lock $cache/.upstream-linux.lock"
ts=$SECONDS
tree=$("$scripts/upstream/linux-tree.sh" 2> "$logs/tree.log") ||
	{ cat "$logs/tree.log"; bail "no pristine linux-source-7.3 tree (see above)"; }
echo "# pristine tree: $tree ($((SECONDS - ts)) s)"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
cd "$tree" || bail "cd $tree"

# 3. checkpatch and git am, patch by patch.  checkpatch validates SPDX
# expressions with scripts/spdxcheck.py, through "python3" on PATH, and
# silently accepts any expression when that cannot run: Debian's python3
# first, and make sure it can.
export PATH=/usr/bin:$PATH
echo '// SPDX-License-Identifier: GPL-2.0 OR Not-A-License' | scripts/spdxcheck.py - > "$logs/spdxcheck.log" 2>&1
grep -q 'Invalid License ID: Not-A-License' "$logs/spdxcheck.log" ||
	echo "scripts/spdxcheck.py does not work: install python3-ply and python3-git" >> "$logs/spdxcheck.log"
! grep -q '^scripts/spdxcheck.py does not work' "$logs/spdxcheck.log"
ok $? "checkpatch can validate SPDX license expressions (scripts/spdxcheck.py runs)" "$logs/spdxcheck.log"
applied=1
for p in "${patches[@]}"; do
	name=${p##*/}
	log=$logs/${name%.patch}.checkpatch
	scripts/checkpatch.pl --strict --show-types --no-summary --color=never "$p" > "$log" 2>&1
	cp_rc=$?
	if ((applied)); then
		git -c user.name=orca -c user.email=orca@localhost am -q "$p" > "$logs/am.log" 2>&1 || {
			applied=0
			ok 1 "git am $name onto linux-source-7.3" "$logs/am.log"
			git am --abort > /dev/null 2>&1
		}
	fi
	msgs=$(grep -cE '^(ERROR|WARNING|CHECK):' "$log")
	others=$(grep -E '^(ERROR|WARNING|CHECK):' "$log" | grep -vc '^WARNING:FILE_PATH_CHANGES:')
	# (checkpatch prints FILE_PATH_CHANGES at most once per patch)
	if ((cp_rc == 0 && msgs == 0)); then
		ok 0 "checkpatch --strict $name: nothing reported"
	elif ((others == 0 && msgs == 1 && applied)); then
		# added files only: does the MAINTAINERS entry cover them?
		: > "$log.cover"
		for f in $(sed -n 's|^diff --git a/\(.*\) b/.*|\1|p' "$p"); do
			git cat-file -e "HEAD~1:$f" 2>/dev/null && continue
			scripts/get_maintainer.pl --nogit --nogit-fallback --norolestats -f "$f" 2>&1 |
				grep -q "<$maint>" || echo "$f: not covered by the orca MAINTAINERS entry" >> "$log.cover"
		done
		if [ -s "$log.cover" ]; then
			cat "$log.cover" >> "$log"
			ok 1 "checkpatch --strict $name: FILE_PATH_CHANGES, and added files outside the MAINTAINERS entry" "$log"
		else
			ok 0 "checkpatch --strict $name: only FILE_PATH_CHANGES, every added file is in the orca MAINTAINERS entry (get_maintainer.pl)"
		fi
	else
		ok 1 "checkpatch --strict $name: $msgs messages" "$log"
	fi
done
((applied)) && ok 0 "git am: all ${#patches[@]} patches apply to pristine linux-source-7.3 ($(git log -1 --format=%s base))"
((applied)) || { echo "1..$n"; exit 1; }

# 4. the end state is HEAD's
mkdir -p "$logs/head"
git -C "$repo" archive "$rev" drivers/infiniband/hw/orca include/uapi/rdma/orca-abi.h \
	Documentation/infiniband/orca.rst | tar -x -C "$logs/head"
{
	diff -r "$logs/head/drivers/infiniband/hw/orca" drivers/infiniband/hw/orca &&
	cmp include/uapi/rdma/orca-abi.h "$logs/head/include/uapi/rdma/orca-abi.h" &&
	cmp Documentation/infiniband/orca.rst "$logs/head/Documentation/infiniband/orca.rst"
} > "$logs/identical.log" 2>&1
ok $? "after the series the tree's driver, UAPI header and documentation are ${rev:0:12}'s, byte for byte" "$logs/identical.log"

# 5. Kconfig
scripts/config --module INFINIBAND_ORCA --module INFINIBAND_ORCA_KUNIT_TEST > "$logs/config.log" 2>&1
make -s olddefconfig >> "$logs/config.log" 2>&1
grep -qx 'CONFIG_INFINIBAND_ORCA=m' .config && grep -qx 'CONFIG_INFINIBAND_ORCA_KUNIT_TEST=m' .config
ok $? "Kconfig: CONFIG_INFINIBAND_ORCA=m, CONFIG_INFINIBAND_ORCA_KUNIT_TEST=m" "$logs/config.log"

# 6. in-tree build, W=1, KUnit tests included
tb=$SECONDS
make -j"$j" W=1 drivers/infiniband/hw/ > "$logs/build-w1.log" 2>&1
rc=$?
warnings "$logs/build-w1.log" > "$logs/build-w1.warn"
[ $rc = 0 ] && [ -f drivers/infiniband/hw/orca/orca.o ] && [ -f drivers/infiniband/hw/orca/orca_attr_test.o ] &&
	[ ! -s "$logs/build-w1.warn" ]
ok $? "make W=1 drivers/infiniband/hw/: orca and its KUnit tests built in-tree, 0 compiler warnings (exit $rc, $((SECONDS - tb)) s)" \
	"$logs/build-w1.warn"

# 7. the module as shipped (no KUnit), modpost against the real kernel's symbols
tb=$SECONDS
{
	scripts/config --disable INFINIBAND_ORCA_KUNIT_TEST && make -s olddefconfig &&
	make -j"$j" W=1 drivers/infiniband/hw/ &&
	make -j"$j" W=1 M=drivers/infiniband/hw/orca modules
} > "$logs/modpost.log" 2>&1
rc=$?
warnings "$logs/modpost.log" > "$logs/modpost.warn"
deps=$(modinfo -F depends drivers/infiniband/hw/orca/orca.ko 2>/dev/null)
[ $rc = 0 ] && [ ! -s "$logs/modpost.warn" ] && [ -n "$deps" ]
ok $? "orca.ko: linked, modpost against Module.symvers of Debian's 7.3 image: 0 warnings (depends: ${deps:-?}, $((SECONDS - tb)) s)" \
	"$logs/modpost.warn"

# 8. the UAPI header: headers_install's checks, then on its own with -std=c90
{
	make -s -j"$j" headers &&
	gcc -std=c90 -Wall -Werror -fsyntax-only -Iusr/include -x c \
		-include rdma/orca-abi.h /dev/null
} > "$logs/uapi.log" 2>&1
rc=$?
warnings "$logs/uapi.log" > "$logs/uapi.warn"
[ $rc = 0 ] && [ ! -s "$logs/uapi.warn" ] && [ -f usr/include/rdma/orca-abi.h ]
ok $? "UAPI: make headers installs rdma/orca-abi.h, which compiles on its own (-std=c90 -Wall -Werror)" "$logs/uapi.log"

echo "# $((SECONDS - t0)) s in all; logs in $logs"
echo "1..$n"
exit $((failed > 0))
