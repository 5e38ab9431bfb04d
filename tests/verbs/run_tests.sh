#!/bin/sh
# Run every orca verb test and summarise: pass / fail / skip counted from
# their TAP output.  -d DEV goes to every test; other options (--max-qp N,
# --max-pd N, --max-cq N) go to verbs_limits only.
#   usage: run_tests.sh <bindir> [-d DEV] [verbs_limits options]
# Exit status: number of failed checks plus crashed tests (capped at 125).
set -u
BIN=$1
shift
DEV=orca0
LIMITS=""
while [ $# -gt 0 ]; do
	case "$1" in
	-d) DEV=$2; shift 2 ;;
	*) LIMITS="$LIMITS $1"; shift ;;
	esac
done
pass=0
fail=0
skip=0
for t in verbs_basic verbs_ece verbs_dio verbs_limits verbs_device \
	verbs_query_qp verbs_qp_mirror; do
	args="-d $DEV"
	[ "$t" = verbs_limits ] && args="$args$LIMITS"
	echo "# === $t $args"
	# shellcheck disable=SC2086
	out=$("$BIN/$t" $args)
	rc=$?
	printf '%s\n' "$out"
	s=$(printf '%s\n' "$out" | grep -c '^ok [0-9]* - .*# SKIP')
	p=$(printf '%s\n' "$out" | grep '^ok ' | grep -vc '# SKIP')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	if ! printf '%s\n' "$out" | grep -q '^1\.\.[0-9]'; then
		echo "# $t: no plan line (crashed? exit $rc)"
		f=$((f + 1))
	elif [ "$rc" -ne "$f" ] && [ "$f" -lt 125 ]; then
		echo "# $t: exit status $rc does not match $f failures"
		f=$((f + 1))
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skip=$((skip + s))
done
echo "# total: pass $pass fail $fail skip $skip"
[ "$fail" -gt 125 ] && fail=125
exit "$fail"
