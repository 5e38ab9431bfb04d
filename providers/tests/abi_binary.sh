#!/bin/sh
# Measure the private provider ABI in an rdma-core's own binaries (the static
# libraries of its libibverbs-dev: libibverbs.a and librxe-rdmav<PABI>.a) and
# compare it with the layout the provider was compiled with (the layout
# program built for the same rdma-core).  Nothing is executed from that
# rdma-core, so this works for releases the host cannot run.
#
#   usage: abi_binary.sh <libdir> <layout program> <workdir>
#
# Prints one line per check, for run_tests.sh:
#   PASS <description> | FAIL <description> | SKIP <description> -- <reason>
# and diagnostics as "# ..." lines.
set -u
LIBDIR=$1
LAYOUT=$2
W=$3
rm -rf "$W"
mkdir -p "$W/ibverbs" "$W/rxe"

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; }
skip() { echo "SKIP $1 -- $2"; }
check() { # check <got> <want> <description>
	if [ -n "$1" ] && [ "$1" = "$2" ]; then pass "$3"; else
		fail "$3"; echo "# binary: '$1', provider build: '$2'"; fi
}
hex() { printf '%#x' "$1"; }
lsize() { hex "$("$LAYOUT" -s "$1")"; }

pabi=$("$LAYOUT" -s IBVERBS_PABI_VERSION)
A=$LIBDIR/libibverbs.a
R=$LIBDIR/librxe-rdmav$pabi.a

if [ ! -r "$A" ]; then
	for c in "verbs_context_ops size" "verbs_context_ops slot table" \
		 "verbs_sysfs_dev size" "verbs_qp.comp_mask offset"; do
		skip "$c vs libibverbs.a" "no $A (libibverbs-dev)"
	done
else
	(cd "$W/ibverbs" && ar x "$A" dummy_ops.c.o ibdev_nl.c.o cmd_qp.c.o) 2> "$W/ar.err"

	# verbs_context_ops: libibverbs' all-dummies table, one per op
	got=$(nm -S "$A" 2> /dev/null |
		awk '$3 == "D" && $4 ~ /verbs_dummy_ops$/ { print $2; exit }')
	[ -n "$got" ] && got=$(hex "0x$got")
	check "$got" "$(lsize verbs_context_ops)" \
		"verbs_context_ops size = nm -S libibverbs.a *_verbs_dummy_ops ($got)"

	# ... and its slot order: the relocation at each 8-byte slot names the
	# dummy function, which is called like the op
	O=$W/ibverbs/dummy_ops.c.o
	if [ -r "$O" ]; then
		nm "$O" | awk '$2 ~ /^[tT]$/ { a = $1; sub(/^0+/, "", a)
			print "x" a, $3 }' > "$W/dummy_syms.txt"
		objdump -r -j .data.rel.ro.local "$O" 2> /dev/null | awk '
			NR == FNR { fn[$1] = $2; next }
			$2 == "R_X86_64_64" && $3 ~ /^\.text/ {
				off = $1; sub(/^0+/, "", off); if (off == "") off = "0"
				t = $3; a = t; sub(/^[^+]*\+?/, "", a);
				sub(/^0x0*/, "", a)
				print "0x" off, ((("x" a) in fn) ? fn["x" a] : "?" t)
			}' "$W/dummy_syms.txt" - | sort > "$W/slots.bin"
		"$LAYOUT" -o | awk '$1 == "verbs_context_ops" { print $3, $2 }' |
			sort > "$W/slots.ours"
		n=$(wc -l < "$W/slots.bin")
		diff -u "$W/slots.bin" "$W/slots.ours" > "$W/slots.diff"
		if [ "$n" -gt 0 ] && [ ! -s "$W/slots.diff" ]; then
			pass "verbs_context_ops: all $n slots (name, offset) = libibverbs.a dummy_ops.c.o"
		else
			fail "verbs_context_ops slots vs libibverbs.a dummy_ops.c.o ($n found)"
			sed 's/^/# /' "$W/slots.diff"
		fi
	else
		skip "verbs_context_ops slot table" "no dummy_ops.c.o in $A"
	fi

	# verbs_sysfs_dev: libibverbs allocates one per netlink-found device
	O=$W/ibverbs/ibdev_nl.c.o
	got=
	[ -r "$O" ] && got=$(objdump -dr --no-show-raw-insn "$O" | awk '
		/^[0-9a-f]+ <.*>:$/ { fn = $2 }
		$2 == "mov" && $3 ~ /,%e?si$/ { v = $3; sub(/,.*/, "", v); sub(/^\$/, "", v) }
		/R_X86_64_PLT32[ \t]+calloc/ && fn ~ /find_sysfs_devs_nl_cb/ { print v; exit }')
	if [ -n "$got" ]; then
		check "$got" "$(lsize verbs_sysfs_dev)" \
			"verbs_sysfs_dev size = calloc() in libibverbs.a find_sysfs_devs_nl_cb ($got)"
	else
		skip "verbs_sysfs_dev size vs libibverbs.a" "calloc in find_sysfs_devs_nl_cb not found"
	fi

	# verbs_qp: libibverbs sets comp_mask to 0, then to VERBS_QP_XRCD (1)
	O=$W/ibverbs/cmd_qp.c.o
	got=
	[ -r "$O" ] && got=$(objdump -d --no-show-raw-insn "$O" | awk '
		$2 == "movl" { split($3, a, ",")
			o = a[2]; sub(/\(.*/, "", o)
			if (a[1] == "$0x0") z[o] = 1; if (a[1] == "$0x1") s[o] = 1 }
		END { for (o in z) if (o in s) print o }')
	if [ -n "$got" ] && [ "$(echo "$got" | wc -l)" = 1 ]; then
		check "$got" "$(lsize verbs_qp.comp_mask)" \
			"verbs_qp.comp_mask offset = libibverbs.a cmd_qp.c.o stores ($got)"
	else
		skip "verbs_qp.comp_mask vs libibverbs.a" "no single store pattern in cmd_qp.c.o ('$got')"
	fi
fi

if [ ! -r "$R" ]; then
	skip "verbs_device_ops and verbs_device vs librxe" "no $R (libibverbs-dev)"
else
	(cd "$W/rxe" && ar x "$R" rxe.c.o) 2>> "$W/ar.err"
	O=$W/rxe/rxe.c.o
	got=$(nm -S "$R" 2> /dev/null |
		awk '$3 == "D" && $4 == "verbs_provider_rxe" { print $2; exit }')
	[ -n "$got" ] && got=$(hex "0x$got")
	check "$got" "$(lsize verbs_device_ops)" \
		"verbs_device_ops size = nm -S $(basename "$R") verbs_provider_rxe ($got)"

	# rxe_dev_ops sets name, match_table, alloc_context, alloc_device and
	# uninit_device: the offsets of its relocations, with the functions
	base=$(nm "$O" | awk '$3 == "rxe_dev_ops" { print $1 }')
	if [ -n "$base" ]; then
		nm "$O" | awk '$2 ~ /^[tT]$/ { a = $1; sub(/^0+/, "", a); print "x" a, $3 }' \
			> "$W/rxe_syms.txt"
		objdump -r -j .data.rel.ro.local "$O" 2> /dev/null | awk -v base="$base" \
			-v size="$(lsize verbs_device_ops)" '
			function h(s,  i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
				for (i = 1; i <= length(s); i++) {
					c = index("0123456789abcdef", substr(s, i, 1)) - 1
					v = v * 16 + c }
				return v }
			NR == FNR { fn[$1] = $2; next }
			$2 == "R_X86_64_64" {
				off = h($1) - h(base)
				if (off < 0 || off >= h(size)) next
				t = $3; a = t; sub(/^[^+]*\+?/, "", a); sub(/^0x0*/, "", a)
				printf "0x%x %s\n", off, ($3 ~ /^\.text/ && ("x" a) in fn) ? fn["x" a] : "-"
			}' "$W/rxe_syms.txt" - | sort > "$W/devops.bin"
		"$LAYOUT" -o | awk '$1 == "verbs_device_ops" {
			m = $2; f = "-"
			if (m == "alloc_context") f = "rxe_alloc_context"
			if (m == "alloc_device") f = "rxe_device_alloc"
			if (m == "uninit_device") f = "rxe_uninit_device"
			if (m ~ /^(name|match_table|alloc_context|alloc_device|uninit_device)$/)
				print $3, f }' | sort > "$W/devops.ours"
		diff -u "$W/devops.bin" "$W/devops.ours" > "$W/devops.diff"
		if [ -s "$W/devops.bin" ] && [ ! -s "$W/devops.diff" ]; then
			pass "verbs_device_ops: name, match_table, alloc_context, alloc_device, uninit_device at rxe_dev_ops' relocations"
		else
			fail "verbs_device_ops members vs rxe_dev_ops relocations"
			sed 's/^/# /' "$W/devops.diff"
		fi
	else
		skip "verbs_device_ops members vs rxe_dev_ops" "no rxe_dev_ops in rxe.c.o"
	fi

	# struct rxe_device { struct verbs_device; int abi_version; }:
	# rxe_device_alloc() callocs it and stores abi_version right after
	objdump -dr --no-show-raw-insn "$O" | awk '
		/^[0-9a-f]+ <.*>:$/ { f = ($2 == "<rxe_device_alloc>:") }
		!f { next }
		$2 == "mov" && $3 ~ /,%e?si$/ && !c { v = $3; sub(/,.*/, "", v); sub(/^\$/, "", v) }
		/R_X86_64_PLT32[ \t]+calloc/ { c = v; next }
		c && $2 == "mov" && $3 ~ /^%e[a-z]+,0x[0-9a-f]+\(%rax\)$/ {
			o = $3; sub(/^[^,]*,/, "", o); sub(/\(.*/, "", o)
			print c, o; exit }' > "$W/rxe_alloc.txt"
	read -r csize soff < "$W/rxe_alloc.txt" 2> /dev/null || csize=
	want=$(lsize verbs_device)
	if [ -n "$csize" ] && [ -n "$soff" ]; then
		check "$soff" "$want" \
			"verbs_device size = rxe_device_alloc() store after it ($soff, calloc $csize)"
		check "$(hex $((csize)))" "$(hex $(((want + 4 + 7) / 8 * 8)))" \
			"rxe_device_alloc() calloc size = verbs_device + int, 8-aligned"
	else
		skip "verbs_device size vs rxe_device_alloc()" "calloc/store pattern not found"
	fi
fi
