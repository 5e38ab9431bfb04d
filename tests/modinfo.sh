#!/bin/bash
# What `modinfo orca` shows an admin: description, author, license, version,
# the PCI alias udev loads the module by, and every module parameter with a
# description.  Prints TAP; exit status = number of failures.
#
# usage: tests/modinfo.sh [MODULE]
#   MODULE        a .ko path or a module name (default: the build tree's
#                 $BUILD/kmod/drivers/infiniband/hw/orca/orca.ko)
# Environment:
#   BUILD                 build dir (default <repo>/build)
#   MODINFO               modinfo command (default "modinfo"; the VM test
#                         uses "chroot ROOT modinfo")
#   ORCA_SRC_DIR          driver sources the expectations are read from:
#                         parameters (module_param*), PCI IDs (orca_hw.h),
#                         MODULE_VERSION (default <repo>/drivers/infiniband/hw/orca)
#   ORCA_EXPECT_VERSION   expected version (default: MODULE_VERSION in the sources)
set -u
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=tests/lib/tap.sh
. "$REPO/tests/lib/tap.sh"

BUILD=${BUILD:-$REPO/build}
mod=${1:-$BUILD/kmod/drivers/infiniband/hw/orca/orca.ko}
src=${ORCA_SRC_DIR:-$REPO/drivers/infiniband/hw/orca}
read -r -a modinfo <<< "${MODINFO:-modinfo}"

# ---------------------------------------------------------------- expectations
# Parameter names: the first argument of every module_param*() in the driver.
declare -A want_parm=()
while IFS= read -r line; do
    [[ $line =~ ^[[:space:]]*module_param[a-z_]*\([[:space:]]*([A-Za-z0-9_]+) ]] &&
        want_parm[${BASH_REMATCH[1]}]=1
done < <(cat "$src"/*.c 2> /dev/null)
want_ver=${ORCA_EXPECT_VERSION:-$(sed -n 's/^MODULE_VERSION("\([^"]*\)");.*/\1/p' "$src"/*.c 2> /dev/null)}
vid=$(sed -n 's/^#define[[:space:]]*ORCA_PCI_VENDOR_ID[[:space:]]*0x\([0-9a-fA-F]*\).*/\1/p' "$src/orca_hw.h" 2> /dev/null)
did=$(sed -n 's/^#define[[:space:]]*ORCA_PCI_DEVICE_ID[[:space:]]*0x\([0-9a-fA-F]*\).*/\1/p' "$src/orca_hw.h" 2> /dev/null)
want_alias=$(printf 'pci:v%08Xd%08Xsv*sd*bc*sc*i*' "0x${vid:-0}" "0x${did:-0}")

plan $((7 + ${#want_parm[@]}))

# ---------------------------------------------------------------- modinfo
out=$("${modinfo[@]}" "$mod" 2>&1)
rc=$?
ok "$rc" "modinfo $mod succeeds"
diag "$out"
declare -A f=() parm=()
while IFS= read -r line; do
    [[ $line =~ ^([a-z_]+):[[:space:]]*(.*)$ ]] || continue
    k=${BASH_REMATCH[1]} v=${BASH_REMATCH[2]}
    [[ $k == parm ]] || f[$k]+=${f[$k]:+$'\n'}$v
done <<< "$out"
# -F parm: "name:description (type)", "name:description" or, without a
# description, "name: (type)" (the full listing would show "name:type")
while IFS= read -r v; do
    [[ $v == *:* ]] || continue
    p=${v%%:*}
    d=${v#"$p":}
    [[ $d =~ ^(.*)\ \(([a-z0-9_]+|array\ of\ [a-z0-9_]+)\)$ ]] && d=${BASH_REMATCH[1]}
    parm[$p]=$d
done < <("${modinfo[@]}" -F parm "$mod" 2> /dev/null)

[[ -n ${f[description]:-} ]]
ok $? "description: '${f[description]:-}'"
[[ ${f[author]:-} =~ [^[:space:]] && ${f[author]} == *@* ]]
ok $? "author with a contact address: '${f[author]:-}'"
case ${f[license]:-} in
"GPL" | "GPL v2" | "GPL and additional rights" | "Dual BSD/GPL" | "Dual MIT/GPL" | "Dual MPL/GPL") r=0 ;;
*) r=1 ;;
esac
ok $r "license is GPL-compatible: '${f[license]:-}'"
if [[ -n $want_ver ]]; then
    is "${f[version]:-}" "$want_ver" "version is $want_ver (MODULE_VERSION)"
else
    fail "version: no MODULE_VERSION in $src"
fi
found=0
while IFS= read -r a; do
    [[ $a == "$want_alias" ]] && found=1
done <<< "${f[alias]:-}"
((found && ${#vid} && ${#did}))
ok $? "alias $want_alias (MODULE_DEVICE_TABLE, what udev's modalias matches)"
[[ $found == 1 ]] || diag "aliases: ${f[alias]:-none}"

got=$(printf '%s\n' "${!parm[@]}" | sort | tr '\n' ' ')
want=$(printf '%s\n' "${!want_parm[@]}" | sort | tr '\n' ' ')
is "$got" "$want" "parameters are exactly those the source declares"
for p in $(printf '%s\n' "${!want_parm[@]}" | sort); do
    d=${parm[$p]-}
    [[ -n ${parm[$p]+x} && $d =~ [^[:space:]] ]]
    ok $? "parameter $p has a description: '$d'"
done

done_testing
