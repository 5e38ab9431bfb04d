#!/bin/bash
# orca VM, stage 2: PID 1 inside the host's root filesystem (read-only 9p).
#
# Reads $ORCA_JOB/vm.conf (written by scripts/vm.sh), loads ib_core and
# ib_uverbs, insmods orca.ko (unless ORCA_NO_ORCA=1), installs the orca
# provider into a tmpfs over /etc/libibverbs.d (unless ORCA_NO_PROVIDER=1),
# runs $ORCA_JOB/cmd.sh with bash, then writes $ORCA_JOB/rc and
# $ORCA_JOB/dmesg.txt, prints "ORCA-VM-EXIT rc=N" on the console and powers
# the VM off.
#
# Being PID 1, this script must never exit: every path ends in poweroff.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

uptime_s() { local u; read -r u _ < /proc/uptime; printf '%s' "$u"; }
finish() {   # $1 = exit status of the guest command
    local rc=$1
    dmesg > "$ORCA_JOB/dmesg.txt" 2>&1
    echo "$rc" > "$ORCA_JOB/rc"
    sync
    echo "ORCA-VM-EXIT rc=$rc uptime=$(uptime_s)"
    /bin/busybox poweroff -f
    sleep 30
}

mkdir -p /dev/pts /dev/shm
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts -o mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t debugfs debugfs /sys/kernel/debug
# Only KERN_CRIT and worse on the console, so that driver messages cannot
# land in the middle of the command's (TAP) output; dmesg.txt has them all.
echo 3 > /proc/sys/kernel/printk
ip link set lo up
echo "ORCA-VM-STAGE2 uptime=$(uptime_s)"

if [[ -z ${ORCA_JOB:-} || ! -r $ORCA_JOB/vm.conf ]]; then
    echo "ORCA-VM-FAIL stage2: job dir '${ORCA_JOB:-}' or its vm.conf is missing"
    echo "ORCA-VM-EXIT rc=255"
    /bin/busybox poweroff -f
    sleep 30
fi
# shellcheck source=/dev/null
. "$ORCA_JOB/vm.conf"
: "${ORCA_REPO:=}" "${ORCA_BUILD:=}" "${ORCA_KO:=}"
export ORCA_JOB ORCA_REPO ORCA_BUILD ORCA_KO ORCA_GUEST=1 ORCA_BOUND_SCALE=${ORCA_BOUND_SCALE:-1}
export PATH="$ORCA_REPO/tests/lib:$PATH"
hostname "${ORCA_HOSTNAME:-orca-vm}"

# vm.sh --link: the guest network link (virtio-net over QEMU's socket
# netdev) gets its address; nothing else routes there.
if [[ -n ${ORCA_LINK_ADDR:-} ]]; then
    modprobe virtio_net 2>/dev/null
    for ((i = 0; i < 50; i++)); do
        link_if=$(cd /sys/class/net && for n in *; do
            [[ $n != lo && -e $n/device ]] && { echo "$n"; break; }; done)
        [[ -n $link_if ]] && break
        read -rt 0.1 <> <(:) || :
    done
    if [[ -n ${link_if:-} ]] && ip addr add "$ORCA_LINK_ADDR" dev "$link_if" &&
        ip link set "$link_if" up; then
        export ORCA_LINK_IF=$link_if
    else
        echo "ORCA-VM-WARN stage2: no network link for $ORCA_LINK_ADDR"
    fi
fi

# Marker for scripts/vm.sh: on failure it prints dmesg from here on.
echo "orca-vm: stage 2 loading modules" > /dev/kmsg
# RDMA core modules come from the host's /lib/modules through 9p (the
# debug kernel has them built in).
if ! modprobe -a ib_core ib_uverbs && [[ ! -d /sys/class/infiniband_verbs ]]; then
    echo "ORCA-VM-FAIL stage2: modprobe ib_core ib_uverbs failed"
    finish 253
fi

if [[ ${ORCA_NO_ORCA:-0} != 1 ]]; then
    if [[ ! -f $ORCA_KO ]]; then
        echo "ORCA-VM-FAIL stage2: $ORCA_KO does not exist (make build first)"
        finish 253
    fi
    if ! insmod "$ORCA_KO"; then
        echo "ORCA-VM-FAIL stage2: insmod $ORCA_KO failed; last kernel messages:"
        dmesg | tail -n 30
        finish 253
    fi
    # probe is synchronous, but give a deferred registration a moment
    for ((i = 0; i < 50; i++)); do
        [[ -e /sys/class/infiniband/orca0 ]] && break
        read -rt 0.1 <> <(:) || :
    done
    [[ -e /sys/class/infiniband/orca0 ]] ||
        echo "ORCA-VM-WARN stage2: orca.ko loaded but /sys/class/infiniband/orca0 did not appear"
fi

# Install the provider into the VM image: a tmpfs over /etc/libibverbs.d
# holding the host's .driver files plus orca.driver (not with
# ORCA_NO_PROVIDER=1: the guest command installs its own, e.g. a package).
if [[ ${ORCA_NO_PROVIDER:-0} != 1 ]]; then
    ibvd=/etc/libibverbs.d
    mkdir -p /run/orca-libibverbs.d
    cp -p "$ibvd"/*.driver /run/orca-libibverbs.d/ 2>/dev/null
    mount -t tmpfs -o mode=755 tmpfs "$ibvd" &&
        cp -p /run/orca-libibverbs.d/*.driver "$ibvd"/ 2>/dev/null
    printf 'driver %s\n' "$ORCA_BUILD/liborca" > "$ibvd/orca.driver" ||
        echo "ORCA-VM-WARN stage2: could not write $ibvd/orca.driver"
    [[ -f $ORCA_BUILD/liborca-rdmav34.so ]] ||
        echo "ORCA-VM-WARN stage2: $ORCA_BUILD/liborca-rdmav34.so does not exist (provider not built)"
fi

# The guest's own account of a hang, taken shortly before vm.sh's bound
# (ORCA_HANG_AT, seconds of uptime): every task that is not sleeping
# interruptibly, with its kernel stack, then the kernel's blocked tasks and
# CPUs (sysrq w and l) and its log.  vm.sh shows it on a timeout.  A
# task stuck in the kernel cannot be killed by a suite's timeout, and a
# kernel that hangs whole writes nothing: either says where to look.
hang_report() {
    local u p s st
    while read -r u _ < /proc/uptime && ((${u%.*} < ORCA_HANG_AT)); do
        sleep 5
    done
    {
        echo "orca-vm watchdog: the guest command still runs at uptime $u s"
        echo "--- tasks not in interruptible sleep (state, wchan, command)"
        ps -eo pid=,stat=,wchan:28=,args= | awk '$2 !~ /^[SI]/ && $4 != "ps" { print substr($0, 1, 150) }'
        for p in /proc/[0-9]*; do
            s=$(< "$p/stat") 2> /dev/null || continue
            s=${s##*) } st=${s%% *}   # after "(comm) ", which may hold spaces
            [[ $st == [DR] && ${p#/proc/} != "$BASHPID" ]] || continue
            echo "--- kernel stack of ${p#/proc/} ($st, $(< "$p/comm"))"
            head -n 12 "$p/stack" 2>/dev/null
        done
        echo w > /proc/sysrq-trigger
        echo l > /proc/sysrq-trigger
        sleep 2
        echo "--- kernel log, last 120 lines"
        dmesg | tail -n 120
    } > "$ORCA_JOB/hang.txt" 2>&1
}
hang_pid=''
if [[ ${ORCA_HANG_AT:-0} =~ ^[1-9][0-9]*$ ]]; then
    hang_report &
    hang_pid=$!
fi

cd "${ORCA_CWD:-/tmp}" 2>/dev/null || cd /tmp || :
echo "orca-vm: running the guest command" > /dev/kmsg
echo "ORCA-VM-CMD-START uptime=$(uptime_s)"
bash "$ORCA_JOB/cmd.sh" > >(tee "$ORCA_JOB/output.log") 2>&1 < /dev/null
rc=$?
# the command's process substitution (tee) was made in the child that ran
# it, so nothing here waits for it: the watchdog is the only job
[[ -n $hang_pid ]] && kill "$hang_pid" 2> /dev/null
echo "orca-vm: guest command exited with status $rc" > /dev/kmsg
echo "ORCA-VM-CMD-END rc=$rc uptime=$(uptime_s)"
finish "$rc"
