#!/bin/bash
# Guest test (vm-packages): install orca from its Debian packages the way an
# admin would, let DKMS build the module and udev load it, then remove it all.
# Prints TAP; exit status = number of failures.
#
# Run by `make vm-packages` in a VM booted with
#   vm.sh --no-orca --no-provider --plain-ivshmem
# so that nothing of the build tree is loaded or installed, and a second
# ivshmem function without orca firmware sits next to the orca one.
#
# The guest's / is the host's, read-only over 9p.  The admin's machine is an
# overlayfs over it with a tmpfs upper layer (thrown away with the VM), entered
# with chroot; udevd runs in there (SYSTEMD_IGNORE_CHROOT=1 lets udevadm work
# in a chroot).  ib_core and ib_uverbs are already loaded by stage 2, as
# rdma-core's rdma-load-modules@rdma.service would on a systemd machine.
#
#  1. apt-get install ./orca-dkms_*.deb ./orca-ibverbs-provider_*.deb: DKMS
#     builds orca.ko for the running kernel; nothing is loaded yet.
#  2. modinfo orca (tests/modinfo.sh against the installed source).
#  3. udev coldplug (udevadm trigger, as systemd-udev-trigger.service does):
#     modalias -> modprobe loads orca; it binds the orca function and refuses
#     the plain ivshmem function (-ENODEV, no orca magic); the ib device gets
#     rdma-core's persistent name (ibp0s2); ibv_devices and ibv_devinfo see
#     it through the packaged provider.
#  4. modprobe -r orca; with the admin's NAME_KERNEL naming rule, another
#     coldplug gives orca0; modprobe -r orca again.
#  5. apt-get purge: dkms remove (prerm) and dpkg leave nothing behind.
#
# DKMS compiles through ccache when ORCA_DKMS_CCACHE names a cache that
# scripts/dkms-ccache.sh filled on the host with the same package's native
# build (make vm-packages does): the guest's compiles are then answered from
# a copy of it (in the admin's /tmp), the rest of DKMS runs as it would.
# Without one, DKMS compiles under TCG (minutes).
#
# Environment: ORCA_DEB_DIR (default $ORCA_BUILD/deb), ORCA_BUILD, ORCA_JOB
# (logs of apt and dkms land there), ORCA_DKMS_CCACHE.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd "$HERE/../.." && pwd -P)
# shellcheck source=tests/lib/tap.sh
. "$REPO/tests/lib/tap.sh"

debdir=${ORCA_DEB_DIR:-${ORCA_BUILD:-$REPO/build}/deb}
logdir=${ORCA_JOB:-/tmp}
kver=$(uname -r)
arch=$(dpkg --print-architecture)
R=/run/orca-admin/root            # the admin's root (overlay)
UP=/run/orca-admin/upper          # its upper layer: everything written
provdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || echo x86_64-linux-gnu)/libibverbs
pkgs=(orca-dkms orca-ibverbs-provider)
plan 27

inroot() {   # inroot CMD...: run CMD in the admin's root, clean environment
    chroot "$R" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive SYSTEMD_IGNORE_CHROOT=1 "$@"
}
tail_of() { tail -n "${2:-30}" "$1" 2> /dev/null; }
wait_for() {   # wait_for SECONDS TEST...: poll TEST every 0.1 s
    local n=$(($1 * 10)) i
    shift
    for ((i = 0; i < n; i++)); do
        "$@" && return 0
        sleep_s 0.1
    done
    "$@"
}
ib_devs() { local d; for d in /sys/class/infiniband/*; do [[ -e $d ]] && printf '%s\n' "${d##*/}"; done; }
no_ib_devs() { [[ -z $(ib_devs) ]]; }
# shellcheck disable=SC2317  # called through wait_for
have_ib_dev() { [[ -n $(ib_devs) ]]; }
orca_loaded() { [[ -e /sys/module/orca ]]; }
driver_of() { local l; l=$(readlink "/sys/bus/pci/devices/$1/driver" 2> /dev/null) && printf '%s' "${l##*/}"; }
bar_size() {   # bar_size BDF N: size of BAR N (0 if absent)
    local i=0 s e _
    while read -r s e _; do
        if ((i == $2)); then
            printf '%d' $((e > s ? e - s + 1 : 0))
            return
        fi
        i=$((i + 1))
    done < "/sys/bus/pci/devices/$1/resource"
    printf 0
}
no_orca_left() {   # no_orca_left: nothing of a bound orca in the kernel
    local line bad=''
    orca_loaded && bad+="/sys/module/orca exists"$'\n'
    [[ -z $(ib_devs) ]] || bad+="ib devices: $(ib_devs)"$'\n'
    [[ -z $(driver_of "$bdf") ]] || bad+="$bdf still bound to $(driver_of "$bdf")"$'\n'
    while IFS= read -r line; do [[ ${line,,} == *orca* ]] && bad+="interrupts: $line"$'\n'; done < /proc/interrupts
    while IFS= read -r line; do [[ ${line,,} == *orca* ]] && bad+="iomem: $line"$'\n'; done < /proc/iomem
    [[ -z $bad ]] || { diag "$bad"; return 1; }
}
coldplug() {   # what systemd-udev-trigger.service does at boot, then settle
    inroot udevadm trigger --type=subsystems --action=add &&
        inroot udevadm trigger --type=devices --action=add &&
        inroot udevadm settle --timeout=120
}

# ---------------------------------------------------------------- the packages
shopt -s nullglob
dkms_deb=("$debdir"/orca-dkms_*_all.deb)
prov_deb=("$debdir"/orca-ibverbs-provider_*_"$arch".deb)
shopt -u nullglob
if ((${#dkms_deb[@]} != 1 || ${#prov_deb[@]} != 1)); then
    echo "Bail out! need exactly one orca-dkms_*_all.deb and one orca-ibverbs-provider_*_$arch.deb in $debdir (make deb)"
    exit 1
fi
ver=$(dpkg-deb -f "${dkms_deb[0]}" Version)
pver=$(dpkg-deb -f "${prov_deb[0]}" Version)
[[ -n $ver && $ver == "$pver" ]]
ok $? "packages orca-dkms $ver and orca-ibverbs-provider $pver (same version) in $debdir"

# ---------------------------------------------------------------- the admin's root
mkdir -p "$UP" /run/orca-admin/work "$R"
if mount -t overlay overlay -o "lowerdir=/,upperdir=$UP,workdir=/run/orca-admin/work" "$R" &&
    mount --bind /proc "$R/proc" && mount --bind /sys "$R/sys" && mount --bind /dev "$R/dev" &&
    mount --bind /dev/pts "$R/dev/pts" && mount -t tmpfs -o mode=755 tmpfs "$R/run" &&
    mount -t tmpfs -o mode=1777 tmpfs "$R/tmp" &&
    touch "$R/etc/.orca-write-test" && rm "$R/etc/.orca-write-test"; then
    pass "throw-away root: overlayfs over / (tmpfs upper layer) is writable"
else
    fail "throw-away root: overlayfs over / (tmpfs upper layer) is writable"
    echo "Bail out! cannot set up the admin's root"
    exit 1
fi
cp "${dkms_deb[0]}" "${prov_deb[0]}" "$R/tmp/"

# Both ivshmem functions: orca's (ivshmem-doorbell: BAR1 = MSI-X) and the
# plain one (no BAR1, 1 MiB of zeroes).
bdf='' plain=''
for d in /sys/bus/pci/devices/*; do
    [[ $(< "$d/vendor") == 0x1af4 && $(< "$d/device") == 0x1110 ]] || continue
    if (($(bar_size "${d##*/}" 1) > 0)); then bdf=${d##*/}; else plain=${d##*/}; fi
done
bad=''
orca_loaded && bad+="orca is loaded; "
[[ -n $(ib_devs) ]] && bad+="ib devices: $(ib_devs); "
inroot modinfo -n orca > /dev/null 2>&1 && bad+="modinfo orca finds $(inroot modinfo -n orca); "
[[ -e $R/etc/libibverbs.d/orca.driver ]] && bad+="orca.driver exists; "
[[ -e $R$provdir/liborca-rdmav34.so ]] && bad+="liborca-rdmav34.so exists; "
[[ -n $bdf ]] || bad+="no ivshmem-doorbell function; "
[[ -z $bad ]]
ok $? "before install: orca function $bdf, no orca module, provider or ib device anywhere"
[[ -z $bad ]] || diag "$bad"

# ---------------------------------------------------------------- 1. install
# the compiler cache, if any: the compiler dkms calls (the first word of
# each kernel's CONFIG_CC_VERSION_TEXT, gcc-12 on Debian 12) is ccache for
# this step only (apt runs dpkg with its own PATH, DPkg::Path)
ccenv=() ccapt=()
cc=${ORCA_DKMS_CCACHE:-}
kccs=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ "]*\).*/\1/p' "$R"/lib/modules/*/build/.config 2> /dev/null | sort -u)
ccbin_links() {
    local c
    [[ -n $kccs ]] || return 1
    for c in $kccs; do ln -s /usr/bin/ccache "$R/run/ccbin/$c" || return 1; done
}
if [[ -n $cc && -d $cc ]] && command -v ccache > /dev/null &&
    cp -a "$cc" "$R/tmp/dkms-ccache" && mkdir -p "$R/run/ccbin" &&
    ccbin_links; then
    ccenv=(PATH=/run/ccbin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
        CCACHE_DIR=/tmp/dkms-ccache)
    ccapt=(-o DPkg::Path=/run/ccbin:/usr/sbin:/usr/bin:/sbin:/bin)
    inroot "${ccenv[@]}" ccache -z > /dev/null 2>&1   # count the guest's compiles only
fi
t0=$(now_us)
inroot "${ccenv[@]}" apt-get "${ccapt[@]}" install -y -q --no-install-recommends "/tmp/${dkms_deb[0]##*/}" \
    "/tmp/${prov_deb[0]##*/}" > "$logdir/apt-install.log" 2>&1
rc=$?
secs=$(secs_since "$t0")
ok "$rc" "apt-get install ./orca-dkms ./orca-ibverbs-provider ($secs s, DKMS build included)"
if ((${#ccenv[@]})); then
    diag "DKMS compiled through a copy of $cc:" \
        "$(inroot "${ccenv[@]}" ccache -s 2> /dev/null | grep -E '^ +(Hits|Misses):' | tr -s ' ')"
else
    diag "no compiler cache (ORCA_DKMS_CCACHE '${cc}'): DKMS compiled everything in the guest"
fi
if ((rc)); then
    diag "$(tail_of "$logdir/apt-install.log" 40)"
    diag "$(tail_of "$R/var/lib/dkms/orca/$ver/build/make.log" 40)"
fi
# dkms' own timing: "Building initial module" to "depmod" in the log
diag "apt and dkms output: $logdir/apt-install.log"

out=$(inroot dkms status orca 2>&1)
[[ $out == "orca/$ver, $kver, $(uname -m): installed"* ]]
ok $? "dkms status: orca/$ver, $kver, $(uname -m): installed"
diag "$out"
cp -f "$R/var/lib/dkms/orca/$ver/$kver/$(uname -m)/log/make.log" "$logdir/dkms-make.log" 2> /dev/null

file=$(inroot modinfo -n orca 2>&1)
[[ $file == "/lib/modules/$kver/updates/dkms/orca.ko" && -f $R$file && -f $R/usr/src/orca-$ver/dkms.conf &&
    -f $R$provdir/liborca-rdmav34.so ]] && grep -qx 'driver orca' "$R/etc/libibverbs.d/orca.driver"
ok $? "installed: $file (modprobe finds it), /usr/src/orca-$ver, $provdir/liborca-rdmav34.so, /etc/libibverbs.d/orca.driver"
[[ $file == "/lib/modules/$kver/updates/dkms/orca.ko" ]] || diag "modinfo -n orca: $file"

# ---------------------------------------------------------------- 2. modinfo
out=$(MODINFO="chroot $R modinfo" ORCA_SRC_DIR=$R/usr/src/orca-$ver/drivers/infiniband/hw/orca \
    ORCA_EXPECT_VERSION=$ver "$REPO/tests/modinfo.sh" orca 2>&1)
rc=$?
n_ok=0 n_not=0 bad=''
while IFS= read -r line; do
    case $line in
    "ok "*) n_ok=$((n_ok + 1)) ;;
    "not ok"*) n_not=$((n_not + 1)) bad+="$line"$'\n' ;;
    esac
done <<< "$out"
((rc == 0 && n_not == 0 && n_ok > 0))
ok $? "modinfo orca: description, author, license, version $ver, alias, parameters ($n_ok checks of tests/modinfo.sh)"
((rc == 0 && n_not == 0 && n_ok > 0)) || diag "$out"
[[ -n $bad ]] || diag "$(grep -E '^# (version|alias|parm|description|author|license):' <<< "$out")"

! orca_loaded && no_ib_devs
ok $? "installing the packages loaded nothing (no orca module, no ib device)"

# ---------------------------------------------------------------- 3. udev coldplug
alias_of_fn=$(< "/sys/bus/pci/devices/$bdf/modalias")
out=$(inroot modprobe -R "$alias_of_fn" 2>&1)
grep -qx orca <<< "$out"
ok $? "the orca function's modalias resolves to orca (modprobe -R $alias_of_fn)"
diag "modprobe -R: ${out//$'\n'/ }"

t0=$(now_us)
# (the daemon must not hold our stdout: run-tests.sh reads it to EOF)
inroot /lib/systemd/systemd-udevd --daemon > "$logdir/udevd.log" 2>&1 < /dev/null &&
    out=$(coldplug 2>&1)
rc=$?
ok "$rc" "udevd started, coldplug (udevadm trigger --type=subsystems/devices --action=add; settle) ($(secs_since "$t0") s)"
((rc)) && diag "$out"

wait_for "$ORCA_WAIT" orca_loaded
orca_loaded && [[ $(< /sys/module/orca/version) == "$ver" ]] &&
    [[ $(< /sys/module/orca/srcversion) == "$(inroot modinfo -F srcversion orca)" ]]
ok $? "udev loaded orca: the DKMS module, version $ver (no insmod or modprobe by hand)"

wait_for "$ORCA_WAIT" have_ib_dev
is "$(driver_of "$bdf")" orca "orca function $bdf is bound to orca"

if [[ -n $plain ]]; then
    klog=$(dmesg)
    [[ -z $(driver_of "$plain") && $klog == *"orca $plain: no orca firmware behind this ivshmem function"* ]]
    ok $? "plain ivshmem function $plain: probe refused (-ENODEV, no orca magic), left unbound"
    [[ -z $(driver_of "$plain") ]] || diag "bound to $(driver_of "$plain")"
else
    skip "plain ivshmem function refused by the probe" "no second ivshmem function (vm.sh --plain-ivshmem)"
fi

# rdma-core's 60-rdma-persistent-naming.rules (NAME_FALLBACK): by PCI path
mapfile -t devs < <(ib_devs)
IFS=':.' read -r dom bus slot fn <<< "$bdf"
want=ib
((16#$dom)) && want+=P$((16#$dom))
want+=p$((16#$bus))s$((16#$slot))
((16#$fn)) && want+=f$((16#$fn))
[[ -e $R/lib/udev/rules.d/60-rdma-persistent-naming.rules ]] || want=orca0
parent=$(readlink -f "/sys/class/infiniband/${devs[0]:-none}/device" 2> /dev/null)
[[ ${#devs[@]} == 1 && ${devs[0]} == "$want" && ${parent##*/} == "$bdf" ]]
ok $? "one ib device, on $bdf, named $want by udev (rdma-core's persistent naming)"
diag "ib devices: ${devs[*]:-none}"
dev=${devs[0]:-$want}

out=$(inroot env LD_DEBUG=files ibv_devices 2>&1)
rc=$?
[[ $rc == 0 && $out =~ (^|$'\n')[[:space:]]+${dev}[[:space:]]+[0-9a-f]{16} &&
    $out == *"calling init: $provdir/liborca-rdmav34.so"* && $out != *"${ORCA_BUILD:-/nonexistent}"* ]]
ok $? "ibv_devices lists $dev through the packaged provider ($provdir/liborca-rdmav34.so)"
diag "$(grep -v '^ *[0-9]*:' <<< "$out")"
[[ $out == *"liborca"* ]] || diag "$out"

out=$(inroot ibv_devinfo -d "$dev" 2>&1)
[[ $out =~ state:[[:space:]]+PORT_ACTIVE ]]
ok $? "ibv_devinfo -d $dev: port 1 PORT_ACTIVE"
[[ $out =~ state:[[:space:]]+PORT_ACTIVE ]] || diag "$out"

# ---------------------------------------------------------------- 4. unload, kernel names
out=$(inroot timeout -k 5 60 modprobe -r orca 2>&1)
ok $? "modprobe -r orca"
diag "$out"
no_orca_left
ok $? "after modprobe -r: no orca module, ib device, binding, interrupt or iomem region"

# The admin keeps the kernel's names (rdma-core's documented override).
printf 'ACTION=="add", SUBSYSTEM=="infiniband", PROGRAM="rdma_rename %%k NAME_KERNEL"\n' \
    > "$R/etc/udev/rules.d/60-rdma-persistent-naming.rules"
out=$(inroot udevadm control --reload 2>&1 && coldplug 2>&1)
rc=$?
ok "$rc" "NAME_KERNEL rule in /etc/udev/rules.d, udevadm control --reload, coldplug again"
((rc)) && diag "$out"
wait_for "$ORCA_WAIT" test -e /sys/class/infiniband/orca0
out=$(inroot ibv_devices 2>&1)
orca_loaded && [[ $(ib_devs) == orca0 && $out =~ (^|$'\n')[[:space:]]+orca0[[:space:]]+[0-9a-f]{16} ]]
ok $? "udev loaded orca again; ibv_devices lists orca0"
diag "ib devices: $(ib_devs)" "$out"

out=$(inroot timeout -k 5 60 modprobe -r orca 2>&1)
rc=$?
no_orca_left && ((rc == 0))
ok $? "modprobe -r orca again: nothing left"
((rc)) && diag "$out"
rm -f "$R/etc/udev/rules.d/60-rdma-persistent-naming.rules"
inroot udevadm control --exit > /dev/null 2>&1

# ---------------------------------------------------------------- 5. removal
t0=$(now_us)
inroot apt-get purge -y -q "${pkgs[@]}" > "$logdir/apt-purge.log" 2>&1
rc=$?
ok "$rc" "apt-get purge orca-dkms orca-ibverbs-provider ($(secs_since "$t0") s)"
((rc)) && diag "$(tail_of "$logdir/apt-purge.log" 40)"
grep -q "Deleting module orca-$ver completely from the DKMS tree" "$logdir/apt-purge.log"
ok $? "the package's prerm ran dkms remove (\"Deleting module orca-$ver completely\")"

out=$(inroot dkms status 2>&1)
bad=''
[[ $out == *orca* ]] && bad+="dkms status: $out"$'\n'
for p in "/var/lib/dkms/orca" "/usr/src/orca-$ver" "/lib/modules/$kver/updates/dkms/orca.ko" \
    "/etc/libibverbs.d/orca.driver" "$provdir/liborca-rdmav34.so"; do
    [[ -e $R$p || -L $R$p ]] && bad+="$p exists"$'\n'
done
inroot modinfo -n orca > /dev/null 2>&1 && bad+="modinfo orca still finds a module"$'\n'
for p in "${pkgs[@]}"; do
    # shellcheck disable=SC2016  # a dpkg-query format, not a shell expansion
    st=$(inroot dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2> /dev/null)
    [[ -z $st || $st == un* ]] || bad+="dpkg: $p is '$st'"$'\n'
done
[[ -z $bad ]]
ok $? "after purge: no dkms entry, module, source, provider, orca.driver or package record"
[[ -z $bad ]] || diag "$bad"

# depmod ran again: its indexes must equal the host's (order aside)
bad=''
for f in modules.dep modules.alias modules.symbols modules.softdep modules.devname; do
    [[ -e /lib/modules/$kver/$f ]] || continue
    cmp -s <(sort "/lib/modules/$kver/$f") <(sort "$R/lib/modules/$kver/$f") || bad+="$f differs"$'\n'
done
grep -qi orca "$R/lib/modules/$kver/modules.alias" && bad+="modules.alias mentions orca"$'\n'
[[ -z $bad ]]
ok $? "after purge: modules.dep, modules.alias, modules.symbols are the host's again"
[[ -z $bad ]] || diag "$bad"

# Every file still in the upper layer is bookkeeping of apt, dpkg, debconf
# and dkms (its signing key), or an index depmod rewrote; nothing has "orca"
# in its path and no directory was left behind.
left=''
while IFS= read -r -d '' p; do
    rel=${p#"$UP"}
    if [[ ${rel,,} == *orca* ]]; then
        left+="$rel"$'\n'
        continue
    fi
    if [[ -d $p && ! -L $p ]]; then
        [[ -d $rel ]] || left+="$rel/ (new directory)"$'\n'
        continue
    fi
    case $rel in
    /var/lib/dpkg/* | /var/log/* | /var/cache/apt/* | /var/cache/debconf/* | /var/lib/apt/* | \
        /var/lib/dkms/mok.key | /var/lib/dkms/mok.pub | "/usr/lib/modules/$kver/modules."*) ;;
    *) left+="$rel"$'\n' ;;
    esac
done < <(find "$UP" -mindepth 1 -print0)
[[ -z $left ]]
ok $? "after purge: nothing left in the throw-away root but apt/dpkg/dkms bookkeeping and depmod's indexes"
[[ -z $left ]] || diag "left behind:" "$left"

# The whole boot's log: nothing here is expected to warn.
hits=''
while IFS= read -r line; do
    case $line in
    *WARNING:* | *BUG:* | *"kernel BUG"* | *Oops* | *"general protection fault"* | *"Call Trace"* | \
        *[Ll]eak* | *UBSAN* | *"refcount_t:"* | *"list_add corruption"* | *"list_del corruption"*)
        hits+="$line"$'\n' ;;
    esac
done < <(dmesg 2>&1)
[[ -z $hits ]]
ok $? "dmesg has no WARN/BUG/Oops/leak lines"
[[ -z $hits ]] || diag "$hits"

done_testing
