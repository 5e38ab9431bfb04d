#!/bin/bash
# sparse over the driver's build for other kernels: make driver-KERNEL with
# C=2 (every file checked, compiled or not) and CF=-Wsparse-error, with the
# sparse those kernels accept (scripts/sparse.sh).  One TAP line per
# kernel: passed if the build exits 0, prints no warning or error, and
# sparse checked each object of orca.ko (kbuild's own fallback when it
# refuses a checker is a warning and no check at all, which fails here).
#
# usage: scripts/sparse-check.sh KERNEL...   (6.12 7.3; make check runs it)
#   ORCA_SPARSE  another checker to run instead (e.g. sparse: Debian 12's)
set -uo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$repo/build}
mkdir -p "$build"
n=0 failed=0
ok() {
    n=$((n + 1))
    if (($1)); then failed=$((failed + 1)); printf 'not '; fi
    printf 'ok %d - %s\n' "$n" "$2"
}

echo "1..$#"
if ! sp=${ORCA_SPARSE:-$("$repo/scripts/sparse.sh")}; then
    echo "Bail out! no sparse for the newer kernels (scripts/sparse.sh)"
    exit 1
fi
echo "# $sp, $(cat "$(dirname "$sp")/version" 2> /dev/null || "$sp" --version)"
for k in "$@"; do
    log=$build/sparse-$k.log
    make -C "$repo" driver-"$k" C=2 CHECK="$sp" CF=-Wsparse-error > "$log" 2>&1
    rc=$?
    mod=$build/kmod-$k/drivers/infiniband/hw/orca/orca.mod
    objs=$( (tr ' ' '\n' < "$mod" | grep -c '\.o$') 2> /dev/null)
    checked=$(grep -cE '^[[:space:]]+CHECK[[:space:]]' "$log")
    msgs=$(grep -E 'warning:|error:|not available or not up to date' "$log")
    [[ $rc == 0 && -z $msgs && ${objs:-0} -gt 0 && $checked == "$objs" ]]
    ok $? "sparse C=2 on Linux $k: exit $rc, $checked files checked of ${objs:-?} objects, $(grep -c . <<< "$msgs") messages"
    [[ -n $msgs || $rc != 0 ]] && head -n 20 <<< "${msgs:-$(tail -n 20 "$log")}" | sed 's/^/# /'
done
exit "$failed"
