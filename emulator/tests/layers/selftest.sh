#!/bin/bash
# SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
# check-layers must catch what it is there for: on this fixture (low.c
# includes and calls the layer above it, high.c calls back down, so the
# two form a cycle; stray.c is in no layer) each of those is a "not ok",
# and what is right (high.c, the headers) is "ok".  TAP.
# usage: selftest.sh CC OBJDIR
set -uo pipefail
cc=$1 obj=$2/layers-selftest
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$obj" || exit 2
for f in low high stray; do
	"$cc" -c "$here/$f.c" -o "$obj/$f.o" || exit 2
done
out=$(python3 "$here/../../../scripts/check-layers.py" "$here" "$obj" \
	bottom=low top=high)
rc=$?
n=0 failed=0
expect() {	# name, grep -E pattern that must match the output
	n=$((n + 1))
	if grep -qE "$2" <<< "$out"; then
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1"
	fi
}
expect "a source in no layer is refused" '^not ok [0-9]+ - every source'
expect "an upward #include is refused" \
	'^# low\.c:3 includes high\.h: bottom -> top'
expect "an upward call is refused" \
	'^# low\.o uses high_fn \(high\.o\): bottom -> top'
expect "the low file fails" '^not ok [0-9]+ - low\.c \(bottom\)'
expect "a downward call passes" '^ok [0-9]+ - high\.c \(top\)'
expect "a cycle is refused" '^not ok [0-9]+ - no file-level include or call cycle'
expect "the cycle is named" '^# cycle: high\.c low\.c'
n=$((n + 1))
if [ "$rc" -eq 1 ]; then
	echo "ok $n - check-layers exits 1"
else
	failed=$((failed + 1))
	echo "not ok $n - check-layers exits 1 (exit $rc)"
fi
[ "$failed" -eq 0 ] || sed 's/^/# /' <<< "$out"
echo "1..$n"
exit $((failed > 0))
