#!/bin/bash
# Build the debug guest kernel once and print its build directory (O=).
#
# Debian's linux-source-6.1 (scripts/linux-src.sh), allnoconfig plus
# scripts/debug-kernel/debug.config (KASAN, UBSAN, lockdep, atomic-sleep
# checks, kmemleak, debug objects, list debugging, fault injection, hung
# task detection; everything the VM needs built in), olddefconfig.  The
# build lives in $ORCA_CACHE (default /var/cache/orca), keyed by the source
# package version, the fragment and this script, and is rebuilt only when
# one of them changes.  Builds run one at a time (a lock in the cache);
# another key's build is removed only when nothing has used it for 12
# hours, so that two checkouts with different fragments (a branch, a
# clean clone) do not delete each other's kernel in use.  A requested
# option that Kconfig dropped is an error.
#
# Output: the build directory; its arch/x86/boot/bzImage boots with
# `scripts/vm.sh --kernel debug`, and out-of-tree modules build with
# make -C <dir> M=...  Log: <dir>.log.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd -P)
cache=${ORCA_CACHE:-/var/cache/orca}
frag=$repo/scripts/debug-kernel/debug.config
src=$("$repo/scripts/linux-src.sh")
srcver=$(cat "$src/.orca-srcver")
key=$( { echo "$srcver"; cat "$frag" "$0"; } | sha256sum | cut -c1-16)
out=$cache/debug-kernel-$key
log=$out.log

mkdir -p "$cache"
exec 9> "$cache/.debug-kernel.lock"
flock 9
if [[ -f $out/.orca-done && -f $out/arch/x86/boot/bzImage ]]; then
    touch "$out/.orca-used"
    echo "$out"
    exit 0
fi
for old in "$cache"/debug-kernel-*; do
    [[ -d $old && $old != "$out" ]] || continue
    if [[ -z $(find "$old/.orca-used" -mmin -720 2> /dev/null) ]]; then
        rm -rf "$old" "$old.log"
    fi
done
rm -rf "$out"
mkdir -p "$out"
echo "debug-kernel: building $srcver with $frag in $out (log $log)" >&2
t0=$SECONDS
{
    make -C "$src" O="$out" allnoconfig
    "$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$frag"
    make -C "$src" O="$out" olddefconfig
} > "$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }

# Every option the fragment asks for must have survived Kconfig.
missing=
while IFS= read -r line; do
    case $line in
    CONFIG_*=*) grep -qxF "$line" "$out/.config" || missing+=" $line" ;;
    "# CONFIG_"*" is not set") grep -qxF "$line" "$out/.config" || missing+=" [$line]" ;;
    esac
done < "$frag"
if [[ -n $missing ]]; then
    echo "debug-kernel: Kconfig dropped:$missing" >&2
    exit 1
fi

if ! make -C "$src" O="$out" -j"$(nproc)" all >> "$log" 2>&1; then
    grep -E 'error|Error' "$log" | tail -20 >&2
    exit 1
fi
touch "$out/.orca-done" "$out/.orca-used"
echo "debug-kernel: built in $((SECONDS - t0)) s" >&2
echo "$out"
