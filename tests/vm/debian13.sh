#!/bin/bash
# Guest test (vm-debian13): orca on a Debian 13 server, installed from its
# packages, managed by Debian 13's OpenSM, moving data to a second host.
# Prints TAP; exit status = number of failures.
#
# Run in the first guest of
#   scripts/vm2.sh --root-a debian13 --sm none --bind DKMS_CCACHE
# whose / is a real Debian 13 (trixie) system (scripts/debian-root.sh 13,
# through a throw-away overlay), booted with its own kernel (6.12), with
# rdma-core 56 and nothing of orca; the second guest is Debian 12 with the
# build tree's orca, its port on the same plain switch.  Here, as an admin
# of that server would:
#  1. apt-get install ./orca-dkms_*.deb ./orca-ibverbs-provider_*.deb, the
#     packages built in that root (scripts/mkdeb.sh --root: the provider
#     against rdma-core 56); DKMS builds orca.ko for the running kernel,
#     its compat/configure.sh fitting the source to 6.12's API;
#  2. udev (systemd-udevd, coldplug) loads orca by its PCI alias; rdma-core's
#     rules name the device; ibv_devinfo sees it through the packaged
#     provider (the only orca provider on this system);
#  3. OpenSM from Debian 13 on this port brings the subnet up;
#  4. ibv_rc_pingpong (buffers checked) and rping -V over IPoIB (rdma_cm)
#     between the hosts;
#  5. unload: no module or device left.  (apt-get purge is vm-packages'
#     check, on Debian 12 in make soak: dkms remove's depmod over trixie's
#     xz-compressed modules costs 1.5 min under TCG, and make check has no
#     room for it.)
#
# DKMS compiles through a copy of ORCA_DKMS_CCACHE when it is set, a cache
# scripts/dkms-ccache.sh filled natively with the same package in the same
# root (as in vm-packages).
# Environment: ORCA_DEB_DIR (default $ORCA_BUILD/deb-debian13), ORCA_JOB,
# ORCA_DKMS_CCACHE, and vm2.sh's ORCA_PEER*.
# shellcheck disable=SC2317  # conditions called through wait_until
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
# shellcheck source=tests/lib/tap.sh
. "$HERE/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$HERE/../lib/pair.sh"

debdir=${ORCA_DEB_DIR:-${ORCA_BUILD:-$HERE/../../build}/deb-debian13}
logdir=${ORCA_JOB:-/tmp}
kver=$(uname -r)
arch=$(dpkg --print-architecture)
provdir=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2> /dev/null || echo x86_64-linux-gnu)/libibverbs
ip_a=10.79.0.1 ip_b=10.79.0.2
port=19800
tmp=$(mktemp -d)
osm=$tmp/osm
mkdir -p "$osm"
trap 'pkill -x opensm 2> /dev/null; rm -rf "$tmp"' EXIT
plan 16
if ! pair_remote; then
    echo "Bail out! debian13.sh needs the second guest of scripts/vm2.sh"
    exit 1
fi
# the other guest may still be booting: its agent first, then the marks
peer --wait "$ORCA_WAIT" true > /dev/null 2>&1 || { echo "Bail out! the second guest does not answer"; exit 1; }
klog_mark_both "orca-test: debian13.sh start"

ib_devs() { local d; for d in /sys/class/infiniband/*; do [[ -e $d ]] && printf '%s\n' "${d##*/}"; done; }
orca_loaded() { [[ -e /sys/module/orca ]]; }
# shellcheck source=tests/lib/sm.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/sm.sh"

# ---------------------------------------------------------------- the system
shopt -s nullglob
dkms_deb=("$debdir"/orca-dkms_*_all.deb)
prov_deb=("$debdir"/orca-ibverbs-provider_*_"$arch".deb)
shopt -u nullglob
if ((${#dkms_deb[@]} != 1 || ${#prov_deb[@]} != 1)); then
    echo "Bail out! need one orca-dkms_*_all.deb and one orca-ibverbs-provider_*_$arch.deb in $debdir (scripts/mkdeb.sh --root)"
    exit 1
fi
ver=$(dpkg-deb -f "${dkms_deb[0]}" Version)
pdep=$(dpkg-deb -f "${prov_deb[0]}" Depends)
# shellcheck source=/dev/null
. /etc/os-release
libv=$(dpkg-query -W -f '${Version}' libibverbs1 2> /dev/null)
bad=''
[[ ${VERSION_ID:-} == 13 && ${VERSION_CODENAME:-} == trixie ]] || bad+="os-release: ${PRETTY_NAME:-?}; "
[[ -f /boot/vmlinuz-$kver && $(dpkg-query -W -f '${Status}' "linux-image-$kver" 2> /dev/null) == 'install ok installed' ]] ||
    bad+="kernel $kver is not this system's; "
[[ $libv == 56.* ]] || bad+="libibverbs1 $libv; "
[[ $pdep == *"libibverbs1 (>= 56)"* && $pdep == *"libibverbs1 (<< 57)"* ]] || bad+="the provider package depends on '$pdep'; "
orca_loaded && bad+="orca loaded; "
[[ -z $(ib_devs) ]] || bad+="ib devices: $(ib_devs); "
[[ -e /etc/libibverbs.d/orca.driver || -e $provdir/liborca-rdmav34.so ]] && bad+="an orca provider is installed; "
[[ -z $bad ]]
ok $? "Debian 13 (${PRETTY_NAME:-?}), its kernel $kver, libibverbs1 $libv; the provider package is for 56 only; no orca yet"
[[ -z $bad ]] || diag "$bad"

# ---------------------------------------------------------------- 1. install
cp "${dkms_deb[0]}" "${prov_deb[0]}" /tmp/
# the compiler dkms calls (the first word of the kernel's
# CONFIG_CC_VERSION_TEXT, gcc-14 here) is ccache for this step only
ccenv=() ccapt=()
cc=${ORCA_DKMS_CCACHE:-}
kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ "]*\).*/\1/p' "/lib/modules/$kver/build/.config" 2> /dev/null)
if [[ -n $cc && -d $cc && -n $kcc ]] && command -v ccache > /dev/null &&
    cp -a "$cc" /tmp/dkms-ccache && mkdir -p /run/ccbin && ln -s /usr/bin/ccache "/run/ccbin/$kcc"; then
    ccenv=("PATH=/run/ccbin:$PATH" CCACHE_DIR=/tmp/dkms-ccache)
    ccapt=(-o DPkg::Path=/run/ccbin:/usr/sbin:/usr/bin:/sbin:/bin)
    env "${ccenv[@]}" ccache -z > /dev/null 2>&1
fi
t0=$(now_us)
env "${ccenv[@]}" DEBIAN_FRONTEND=noninteractive apt-get "${ccapt[@]}" install -y -q --no-install-recommends \
    "/tmp/${dkms_deb[0]##*/}" "/tmp/${prov_deb[0]##*/}" > "$logdir/apt-install.log" 2>&1
rc=$?
ok "$rc" "apt-get install ./orca-dkms ./orca-ibverbs-provider $ver ($(secs_since "$t0") s, DKMS build included)"
if ((${#ccenv[@]})); then
    diag "DKMS compiled through a copy of $cc:" \
        "$(env "${ccenv[@]}" ccache -s 2> /dev/null | grep -E '^ +(Hits|Misses):' | tr -s ' ')"
else
    diag "no compiler cache (ORCA_DKMS_CCACHE '$cc'): DKMS compiled everything in the guest"
fi
((rc)) && diag "$(tail -n 40 "$logdir/apt-install.log")" "$(tail -n 40 "/var/lib/dkms/orca/$ver/build/make.log" 2> /dev/null)"

out=$(dkms status orca 2>&1)
file=$(modinfo -n orca 2> /dev/null)
vm=$(modinfo -F vermagic orca 2> /dev/null)
[[ $out == "orca/$ver, $kver, $(uname -m): installed"* && $file == "/lib/modules/$kver/updates/dkms/orca.ko"* &&
    $vm == "$kver "* ]]
ok $? "dkms status: $out; modinfo: $file, vermagic ${vm%% *}"
# Linux 6.12 lacks reg_user_mr's DMA handle (6.17) and resize_user_cq (7.1):
# the build DKMS ran must have linked the op wrappers in
mlog=/var/lib/dkms/orca/$ver/$kver/$(uname -m)/log/make.log
cp -f "$mlog" "$logdir/dkms-make.log" 2> /dev/null
cp -f /var/log/dpkg.log "$logdir/dpkg.log" 2> /dev/null
grep -q 'orca_compat\.o' "$mlog" 2> /dev/null && grep -q 'orca\.ko' "$mlog"
ok $? "the DKMS build ran compat/configure.sh for $kver: orca_compat.o (the 6.17 and 7.1 op wrappers) is in the module"
diag "$(grep -h -E 'compat|orca_compat' "$logdir/apt-install.log" "$mlog" 2> /dev/null | head -n 4)"
[[ -f $provdir/liborca-rdmav34.so ]] && grep -qx 'driver orca' /etc/libibverbs.d/orca.driver 2> /dev/null
ok $? "the provider: $provdir/liborca-rdmav34.so and /etc/libibverbs.d/orca.driver"

# ---------------------------------------------------------------- 2. udev
t0=$(now_us)
/usr/lib/systemd/systemd-udevd --daemon > "$logdir/udevd.log" 2>&1 &&
    udevadm trigger --type=subsystems --action=add && udevadm trigger --type=devices --action=add &&
    udevadm settle --timeout=120
ok $? "systemd-udevd started, coldplug and settle ($(secs_since "$t0") s)"
wait_until "$ORCA_WAIT" orca_loaded
mver=$(cat /sys/module/orca/version 2> /dev/null)
one_dev() { [[ $(ib_devs | wc -l) == 1 ]]; }
wait_until "$ORCA_WAIT" one_dev
dev=$(ib_devs | head -n 1)
[[ $mver == "$ver" && $(readlink -f "/sys/class/infiniband/$dev/device/driver") == */orca ]]
ok $? "udev loaded the DKMS-built orca $mver; it drives $dev"
ibv_devices > "$tmp/devices" 2>&1 && ibv_devinfo -d "$dev" > "$tmp/devinfo" 2>&1
rc=$?
guid=$(sed -n 's/^[[:space:]]*node_guid:[[:space:]]*//p' "$tmp/devinfo")
state=$(sed -n 's/^[[:space:]]*state:[[:space:]]*\([A-Z_]*\).*/\1/p' "$tmp/devinfo" | head -n 1)
((rc == 0)) && grep -q "^[[:space:]]*${dev}[[:space:]]" "$tmp/devices" && [[ $guid == 00ca:7aff:fe00:00a1 &&
    $state == PORT_INIT && $dev == ibp* ]]
ok $? "ibv_devinfo -d $dev (rdma-core's persistent name) through the packaged provider: node_guid $guid, port $state (no SM yet)"
((rc)) && diag "$(cat "$tmp/devices" "$tmp/devinfo")"

# ---------------------------------------------------------------- 3. OpenSM
modprobe ib_umad && modprobe ib_cm && peer "modprobe ib_umad && modprobe ib_cm"
ok $? "ib_umad and ib_cm on both hosts"
pguid=$(port_guid)
t0=$(now_us)
sm_start here "$pguid" "$osm/opensm.log"
subnet_up() { sm_up "$osm/opensm.log"; }
both_active() { [[ $(state_of "$(pattr state)") == ACTIVE && $(state_of "$(rattr state)") == ACTIVE ]]; }
wait_until "$ORCA_WAIT" subnet_up && wait_until "$ORCA_WAIT" both_active
la=$(lid_of "$(pattr lid)") lb=$(lid_of "$(rattr lid)") sb=$(lid_of "$(rattr sm_lid)")
subnet_up && both_active && ((la && lb && la != lb && sb == la))
ok $? "Debian 13's OpenSM ($(opensm --version 2> /dev/null | grep -o 'OpenSM [0-9.]*' | head -n 1)) on port $pguid: SUBNET UP, both ports ACTIVE, LIDs $la and $lb, the other host's SM LID $sb ($(secs_since "$t0") s)"
subnet_up || diag "$(tail -n 20 "$osm/opensm.log" "$osm/opensm.log.out" 2> /dev/null)"

# ---------------------------------------------------------------- 4. data
# verbs: the packaged provider (rdma-core 56) here, the build tree's (44) there
port=$((port + 1))
pair_server "$tmp/server" "$port" timeout -k 5 120 ibv_rc_pingpong -d orca0 -p "$port" -n 100 -s 4096 -c ||
    diag "the pingpong server did not listen"
timeout -k 5 120 ibv_rc_pingpong -d "$dev" -p "$port" -n 100 -s 4096 -c "$ORCA_PEER_ADDR" > "$tmp/client" 2>&1
crc=$?
wait "$PAIR_SPID"
src=$?
((crc == 0 && src == 0)) && grep -q '^819200 bytes in' "$tmp/client"
ok $? "ibv_rc_pingpong -c (buffers checked) to the other host: $(grep 'bytes in' "$tmp/client") (client rc $crc, server rc $src)"
((crc || src)) && diag "$(tail -n 5 "$tmp/client")" "$(tail -n 5 "$tmp/server")"

# rdma_cm over IPoIB: this host's ib netdev may be renamed by udev
modprobe ib_ipoib && peer "modprobe ib_ipoib"
ipoib_if() { local n; for n in /sys/class/infiniband/"$dev"/device/net/*; do [[ -e $n ]] && printf '%s' "${n##*/}"; done; }
has_if() { [[ -n $(ipoib_if) ]]; }
wait_until "$ORCA_WAIT" has_if
ifn=$(ipoib_if)
carrier() { [[ $(cat "/sys/class/net/$ifn/carrier" 2> /dev/null) == 1 && $(peer "cat /sys/class/net/ib0/carrier") == 1 ]]; }
[[ -n $ifn ]] && ip addr replace "$ip_a/24" dev "$ifn" && ip link set "$ifn" up &&
    peer "ip addr replace $ip_b/24 dev ib0 && ip link set ib0 up" && wait_until "$ORCA_WAIT" carrier
ok $? "IPoIB up on both hosts ($ifn here, $ip_a; ib0 there, $ip_b)"
port=$((port + 1))
export PAIR_RDMA_CM=1
pair_server "$tmp/server" "$port" timeout -k 5 120 rping -s -a "$ip_b" -p "$port" -v -V -C 10 ||
    diag "the rping server did not listen"
t0=$(now_us)
timeout -k 5 120 rping -c -a "$ip_b" -p "$port" -v -V -C 10 > "$tmp/client" 2>&1
crc=$?
wait "$PAIR_SPID"
src=$?
unset PAIR_RDMA_CM
n=$(grep -c '^ping data: rdma-ping-[0-9]' "$tmp/client")
((crc == 0 && src == 0 && n == 10)) && ! grep -qi 'mismatch' "$tmp/client" "$tmp/server"
ok $? "rping -V -C 10 to $ip_b over rdma_cm: $n verified pings (client rc $crc, server rc $src, $(secs_since "$t0") s)"
((crc || src)) && diag "$(tail -n 5 "$tmp/client")" "$(tail -n 5 "$tmp/server")"

# ---------------------------------------------------------------- 5. remove
pkill -x opensm
peer "ip link set ib0 down; modprobe -r ib_ipoib" > /dev/null 2>&1
ip link set "$ifn" down 2> /dev/null
modprobe -r ib_ipoib && modprobe -r orca
ok $? "modprobe -r ib_ipoib orca"
no_orca() { ! orca_loaded && [[ -z $(ib_devs) ]]; }
wait_until "$ORCA_WAIT" no_orca
no_orca
ok $? "no orca module or ib device left"
ok_no_oopses_both "orca-test: debian13.sh start"
done_testing
