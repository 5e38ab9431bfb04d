#!/bin/sh
# Checks for the standalone orca provider build; prints TAP and exits
# non-zero on failure.  Called by "make -C providers [RDMA_CORE=..] test"
# with BUILD (the build's own directory), SRCDIR, RDMA_CORE (44, 56, 65),
# PABI and RDMA_ROOT (empty: the host's installed rdma-core; else the
# unpacked packages of that release, see scripts/rdma-core.sh) set.
# RDMA_CORE_SRC=<rdma-core source of that release> adds the compile against
# rdma-core's own headers (the Makefile sets it for 56 and 65).
#
# What needs the host to *run* that libibverbs (dlopen, discovery) is only
# done for the installed one; every check not done is a "# SKIP" with the
# reason, and the summary line counts it as a skip, never as a pass.
set -u
: "${BUILD:?}" "${SRCDIR:?}"
RDMA_CORE=${RDMA_CORE:-44}
PABI=${PABI:-34}
RDMA_ROOT=${RDMA_ROOT:-}
SO=$BUILD/liborca-rdmav$PABI.so
LAYOUT=$BUILD/providers-tests/layout
T=$BUILD/providers-tests
LIBDIR=$RDMA_ROOT/usr/lib/$(gcc -print-multiarch 2> /dev/null || echo x86_64-linux-gnu)
mkdir -p "$T"
n=0
fail=0
skip=0

if [ -n "$RDMA_ROOT" ]; then
	ver=$(cat "$RDMA_ROOT/../version" 2> /dev/null || echo "?")
	where="unpacked in $RDMA_ROOT"
else
	ver=$(dpkg-query -W -f '${Version}' libibverbs1 2> /dev/null || echo "?")
	where="installed"
fi
echo "# rdma-core $RDMA_CORE (libibverbs1 $ver, $where), private ABI IBVERBS_PRIVATE_$PABI"
echo "# provider $SO"

ok() {	# ok <0|1> <description> [diagnostic file]
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=$((fail + 1))
		[ -n "${3:-}" ] && [ -s "$3" ] && sed 's/^/# /' "$3"
	fi
}
skipped() {
	n=$((n + 1))
	skip=$((skip + 1))
	echo "ok $n - $1 # SKIP $2"
}

# 1. layout checks (renumbered into this plan)
"$LAYOUT" > "$T/layout.out"
layout_rc=$?
while read -r status rest; do
	case "$status" in
	ok) ok 0 "layout: ${rest#* - }" ;;
	not) ok 1 "layout: ${rest#ok * - }" ;;
	esac
done < "$T/layout.out"
ok $layout_rc "layout program exit status"

# 2. the layout measured in that rdma-core's own binaries (its static libs)
sh "$SRCDIR/tests/abi_binary.sh" "$LIBDIR" "$LAYOUT" "$T/abi" > "$T/abi.out" 2>&1
while IFS= read -r line; do
	case "$line" in
	"PASS "*) ok 0 "binary: ${line#PASS }" ;;
	"FAIL "*) ok 1 "binary: ${line#FAIL }" ;;
	"SKIP "*) rest=${line#SKIP }
		skipped "binary: ${rest% -- *}" "${rest##* -- }" ;;
	*) echo "$line" ;;
	esac
done < "$T/abi.out"

# 3. symbols: imports only IBVERBS_PRIVATE_<PABI>/IBVERBS_1.x from
#    libibverbs, exports nothing (like rdma-core's provider.map)
objdump -T "$SO" > "$T/dynsym.txt" 2>&1
ok $? "objdump -T on the provider"
awk '/\*UND\*/ && /IBVERBS/ { v = $(NF-1); gsub(/[()]/, "", v); print v, $NF }' \
	"$T/dynsym.txt" | sort > "$T/ibverbs_imports.txt"
awk -v p="IBVERBS_PRIVATE_$PABI" '$1 != p && $1 !~ /^IBVERBS_1\.[0-9]+$/' \
	"$T/ibverbs_imports.txt" > "$T/bad_versions.txt"
[ -s "$T/ibverbs_imports.txt" ] && [ ! -s "$T/bad_versions.txt" ]
ok $? "libibverbs imports bound to IBVERBS_PRIVATE_$PABI / IBVERBS_1.x only" "$T/bad_versions.txt"
cat > "$T/expected_imports.txt" <<EOT
_verbs_init_and_alloc_context
execute_ioctl
ibv_cmd_alloc_dm
ibv_cmd_alloc_mw
ibv_cmd_alloc_pd
ibv_cmd_attach_mcast
ibv_cmd_create_ah
ibv_cmd_create_cq
ibv_cmd_create_cq_ex
ibv_cmd_create_qp_ex2
ibv_cmd_create_srq_ex
ibv_cmd_dealloc_mw
ibv_cmd_dealloc_pd
ibv_cmd_dereg_mr
ibv_cmd_destroy_ah
ibv_cmd_destroy_cq
ibv_cmd_destroy_qp
ibv_cmd_destroy_srq
ibv_cmd_detach_mcast
ibv_cmd_free_dm
ibv_cmd_get_context
ibv_cmd_modify_qp_ex
ibv_cmd_modify_srq
ibv_cmd_query_context
ibv_cmd_query_device_any
ibv_cmd_query_mr
ibv_cmd_query_port
ibv_cmd_query_qp
ibv_cmd_query_srq
ibv_cmd_reg_dm_mr
ibv_cmd_reg_dmabuf_mr
ibv_cmd_reg_mr
ibv_cmd_rereg_mr
ibv_cmd_resize_cq
ibv_dofork_range
ibv_dontfork_range
ibv_read_ibdev_sysfs_file
verbs_register_driver_$PABI
verbs_set_ops
verbs_uninit_context
EOT
awk '{ print $2 }' "$T/ibverbs_imports.txt" | sort > "$T/got_imports.txt"
diff -u "$T/expected_imports.txt" "$T/got_imports.txt" > "$T/imports.diff"
ok $? "libibverbs imports are exactly the expected set" "$T/imports.diff"
awk '/\*UND\*/ && !/IBVERBS/ && !/GLIBC_/ && !/ w / { print }' \
	"$T/dynsym.txt" > "$T/unversioned.txt"
[ ! -s "$T/unversioned.txt" ]
ok $? "no unversioned strong undefined symbols" "$T/unversioned.txt"
awk 'NF >= 6 && !/\*UND\*/ { print }' "$T/dynsym.txt" | \
	grep -v 'DYNAMIC SYMBOL TABLE' > "$T/exports.txt"
[ ! -s "$T/exports.txt" ]
ok $? "provider exports no dynamic symbols" "$T/exports.txt"
readelf -V "$SO" | awk '/File: libibverbs/ { f = 1; next } /File:/ { f = 0 }
	f && /Name:/ { print $3 }' > "$T/verneed.txt"
# the private ABI, and the public 1.1 of ibv_dontfork_range()
[ "$(sort "$T/verneed.txt" | tr '\n' ' ')" = "IBVERBS_1.1 IBVERBS_PRIVATE_$PABI " ]
ok $? "versions needed from libibverbs.so.1 are IBVERBS_PRIVATE_$PABI and IBVERBS_1.1" "$T/verneed.txt"
readelf -d "$SO" | grep -q 'BIND_NOW\|FLAGS_1.*NOW'
ok $? "linked with -z now"
# every versioned import is defined, with that version, by this rdma-core's
# libibverbs.so.1 (what dlopen checks at run time, checked without running)
LIB=$(readlink -f "$LIBDIR/libibverbs.so.1")
if [ -r "$LIB" ]; then
	objdump -T "$LIB" | awk '!/\*UND\*/ && / DF | DO / { v = $(NF-1);
		gsub(/[()]/, "", v); print v, $NF }' | sort > "$T/lib_defs.txt"
	comm -23 "$T/ibverbs_imports.txt" "$T/lib_defs.txt" > "$T/missing.txt"
	[ -s "$T/lib_defs.txt" ] && [ ! -s "$T/missing.txt" ]
	ok $? "all $(wc -l < "$T/ibverbs_imports.txt") libibverbs imports defined with their version by $(basename "$LIB")" "$T/missing.txt"
else
	skipped "imports vs libibverbs.so.1's definitions" "no $LIBDIR/libibverbs.so.1"
fi

# 4./5. need this libibverbs to run on this host: the installed one only
if [ -n "$RDMA_ROOT" ]; then
	need=$(readelf -V "$LIB" 2> /dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)
	why="rdma-core $RDMA_CORE's libibverbs is not installed here (needs ${need:-?}, host has glibc $(getconf GNU_LIBC_VERSION 2> /dev/null | awk '{ print $2 }'))"
	skipped "dlopen(RTLD_NOW) of the provider after libibverbs" "$why"
	skipped "libibverbs discovery with a fake sysfs" "$why"
else
# 4. dlopen(RTLD_NOW) after libibverbs
"$LAYOUT" -d "$SO" > "$T/dlopen.txt" 2>&1
ok $? "dlopen(RTLD_NOW) of the provider after libibverbs" "$T/dlopen.txt"

# 5. discovery through libibverbs with a fake sysfs (needs root + unshare)
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null &&
   command -v ibv_devices > /dev/null &&
   FAKE_DIR=$T/fake sh "$SRCDIR/tests/fake_sysfs.sh" true 2> /dev/null; then
	FAKE_DIR=$T/fake IBV_SHOW_WARNINGS=1 RDMAV_DRIVERS=$BUILD/liborca \
		sh "$SRCDIR/tests/fake_sysfs.sh" ibv_devices \
		> "$T/devices.txt" 2> "$T/devices.err"
	ok $? "ibv_devices runs with the fake sysfs" "$T/devices.err"
	cat "$T/devices.txt" "$T/devices.err" > "$T/devices.all"
	listed() { awk 'NR > 2 { print $1 }' "$T/devices.txt" | grep -qx "$1"; }
	! grep -q "couldn't load driver" "$T/devices.err"
	ok $? "libibverbs loads the provider through RDMAV_DRIVERS" "$T/devices.all"
	listed orca0
	ok $? "orca0 (DRIVER=orca) matched" "$T/devices.all"
	listed ibp0s4
	ok $? "renamed ibp0s4 matched by device/uevent DRIVER=orca" "$T/devices.all"
	listed orca5
	ok $? "orca5 without a parent driver matched by name fallback" "$T/devices.all"
	! listed orca7
	ok $? "orca7 bound to another kernel driver not matched" "$T/devices.all"
	! listed other0
	ok $? "other0 (other driver) not matched" "$T/devices.all"
	! listed orca9 && grep -q "Driver orca does not support the kernel ABI of 3" "$T/devices.err"
	ok $? "orca9 with uverbs ABI 3 rejected with a warning" "$T/devices.all"
else
	skipped "libibverbs discovery with a fake sysfs" "needs root and unshare -m"
fi
fi

# 6. same sources against rdma-core's own headers of this release
if [ -n "${RDMA_CORE_SRC:-}" ]; then
	RDMA_CORE=$RDMA_CORE RDMA_ROOT=$RDMA_ROOT LAYOUT_OURS=$LAYOUT \
		sh "$SRCDIR/tests/intree_check.sh" "$RDMA_CORE_SRC" "$T/intree" \
		> "$T/intree.txt" 2>&1
	ok $? "provider and layout test build against rdma-core $RDMA_CORE's own headers with identical layout" "$T/intree.txt"
	sed 's/^/# /' "$T/intree.txt"
else
	skipped "build against rdma-core's own headers" "RDMA_CORE_SRC not set"
fi

echo "1..$n"
echo "# pass $((n - fail - skip)) fail $fail skip $skip"
[ "$fail" = 0 ]
