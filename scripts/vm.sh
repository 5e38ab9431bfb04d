#!/bin/bash
# Boot Debian's 6.1 kernel under QEMU (TCG) with the orca HCA (ivshmem-doorbell
# + orca-emu) and run one command in the guest.  See README.md ("Running a
# command in the VM") and usage() below.
#
# Host side of the VM harness:
#  * starts orca-emu (ivshmem server socket, control socket, guest-RAM file in
#    /dev/shm with a unique name) and waits until it listens;
#  * boots /boot/vmlinuz-$KVER with a busybox initramfs (scripts/vm/init); the
#    host's / is exported read-only over virtio-9p and seen at the same paths,
#    the job dir ($BUILD/vm/<name>) is exported writable at the same path;
#  * stage 2 (scripts/vm/stage2.sh) loads ib_core, ib_uverbs and orca.ko,
#    installs the provider and runs the command; its output is streamed to our
#    stdout and its exit status becomes ours;
#  * a host control agent serves tests/lib/hostctl requests from the guest;
#  * everything is torn down on exit, error, Ctrl-C and timeout.
#
# Exit status: the guest command's; 124 on timeout; 125 harness/setup error;
# 253 the guest could not load the modules; 254 no exit status from the guest
# (kernel panic, QEMU died); 130/143 interrupted.
# Functions run from traps and background jobs look unreachable to shellcheck:
# shellcheck disable=SC2317
set -euo pipefail

PROG=vm.sh
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD=${BUILD:-$REPO/build}
EMU=${ORCA_EMU:-}
TIMEOUT=600
NAME=
KEEP=0
NO_ORCA=0
NO_PROVIDER=0
PLAIN_IVSHMEM=0
DEBUG_KERNEL=0
GUEST_KERNEL=
MODULES_ROOT=
GUEST_ROOT=
SMP=2
MEM=2G
EMU_ARGS=()
LINK=''
GUEST_HOSTNAME=orca-vm
EXTRA_APPEND=
EXTRA_BINDS=

usage() {
    cat <<EOF
usage: scripts/vm.sh [options] [--] CMD...
Boot the orca test VM, run CMD with bash in the guest, exit with its status.
A single CMD word is run as a bash command line ('ibv_devices; rdma dev');
several words are quoted and run as one simple command.

  --emu-set KEY=VALUE   emulator setting (repeatable), e.g. fw_version=2.9.13
  --emu-config FILE     emulator config file
  --emu-restart MS      the emulator's firmware boots again MS ms after it
                        dies (orca-emu --restart-after; hostctl kill)
  --timeout SECONDS     bound for the whole run (default $TIMEOUT)
  --name NAME           job name; job dir is \$BUILD/vm/NAME (default vm-<pid>)
  --keep                keep the job dir (also kept when the run fails)
  --no-orca             do not insmod orca.ko (ib_core/ib_uverbs still load)
  --no-provider         do not install the build tree's provider (no tmpfs
                        orca.driver over /etc/libibverbs.d)
  --kernel debug        boot the debug kernel (scripts/debug-kernel.sh: KASAN,
                        UBSAN, lockdep, kmemleak...; built once, cached) with
                        \$BUILD/kmod-debug's orca.ko (make driver-debug)
  --kernel 6.12|7.3     boot Debian's 6.12 (bookworm-security) or 7.3
                        (trixie-backports) image, fetched and cached by
                        scripts/guest-kernel.sh, its modules bound at
                        /lib/modules/<release> in the guest, with
                        \$BUILD/kmod-<6.12|7.3>'s orca.ko (make driver-6.12)
  --root debian13       the guest's / is a real Debian 13 system
                        (scripts/debian-root.sh 13: debootstrap, cached), an
                        overlay with a throw-away upper layer, booting its own
                        kernel; nothing of the build tree is loaded or
                        installed (implies --no-orca --no-provider: orca
                        comes from its packages); the repository, \$BUILD and
                        the job dir are seen at their paths
  --bind DIR            a host directory a --root guest sees at its path
                        (repeatable; other guests see all of the host's /)
  --plain-ivshmem       add a second ivshmem function (ivshmem-plain, 1 MiB of
                        zeroes) that has no orca firmware behind it
  --emu PATH            emulator binary (default \$BUILD/orca-emu, or \$ORCA_EMU)
  --smp N               guest CPUs (default $SMP)
  --append ARGS         more guest kernel command line (e.g. swiotlb=force)
  --mem SIZE            guest RAM, QEMU syntax (default $MEM); above 3.5G the
                        guest has RAM above 4 GiB (the emulator is told the
                        machine, guest_machine=pc, to translate addresses)
  --link LPORT:RPORT:ADDR/LEN
                        a guest network link (virtio-net, eth0 with ADDR/LEN)
                        carried by QEMU's socket netdev as UDP datagrams
                        between 127.0.0.1:LPORT and 127.0.0.1:RPORT (the other
                        guest of scripts/vm2.sh); the address exists only on
                        that emulated link
  --hostname NAME       the guest's host name (default orca-vm)
Environment: BUILD (default <repo>/build), KVER (default: newest 6.1.0-*-amd64
in /lib/modules), ORCA_EMU, ORCA_QEMU_CPU (default Nehalem), ORCA_TCG_THREAD
(multi, or single: one QEMU thread for all vCPUs, as make check runs guests),
ORCA_BOUND_SCALE (1-9: every bound, this one's and the guest's suites', that
many times longer).
In the guest: tests/lib is on PATH (hostctl), ORCA_JOB/ORCA_REPO/ORCA_BUILD are set.
EOF
}

say() { printf '%s: %s\n' "$PROG" "$*" >&2; }
die() { say "error: $*"; exit 125; }

ORIG_ARGS=("$@")    # for the one boot again (the end)
while (($#)); do
    case $1 in
    --emu-set) [[ $# -ge 2 && $2 == *=* ]] || die "--emu-set needs KEY=VALUE"
        EMU_ARGS+=(--set "$2"); shift 2 ;;
    --emu-set=*) EMU_ARGS+=(--set "${1#*=}"); shift ;;
    --emu-config) [[ $# -ge 2 ]] || die "--emu-config needs FILE"
        [[ -r $2 ]] || die "cannot read emulator config $2"
        EMU_ARGS+=(--config "$(realpath "$2")"); shift 2 ;;
    --emu-restart) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || die "--emu-restart needs milliseconds"
        EMU_ARGS+=(--restart-after "$2"); shift 2 ;;
    --timeout) [[ $# -ge 2 && $2 =~ ^[0-9]+$ && $2 -gt 0 ]] || die "--timeout needs a positive number of seconds"
        TIMEOUT=$2; shift 2 ;;
    --name) [[ $# -ge 2 && $2 =~ ^[A-Za-z0-9._-]+$ ]] || die "--name needs [A-Za-z0-9._-]+"
        NAME=$2; shift 2 ;;
    --keep) KEEP=1; shift ;;
    --no-orca) NO_ORCA=1; shift ;;
    --no-provider) NO_PROVIDER=1; shift ;;
    --plain-ivshmem) PLAIN_IVSHMEM=1; shift ;;
    --kernel) case ${2:-} in
        debug) DEBUG_KERNEL=1 ;;
        6.12 | 7.3) GUEST_KERNEL=$2 ;;
        *) die "--kernel takes debug, 6.12 or 7.3" ;;
        esac
        shift 2 ;;
    --root) [[ ${2:-} == debian13 ]] || die "--root takes debian13"
        GUEST_ROOT=$2; NO_ORCA=1; NO_PROVIDER=1; shift 2 ;;
    --bind) [[ $# -ge 2 && -d $2 ]] || die "--bind needs a directory"
        EXTRA_BINDS+=:$(cd "$2" && pwd -P); shift 2 ;;
    --emu) [[ $# -ge 2 ]] || die "--emu needs PATH"; EMU=$2; shift 2 ;;
    --smp) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "--smp needs N"; SMP=$2; shift 2 ;;
    --append) [[ $# -ge 2 ]] || die "--append needs ARGS"; EXTRA_APPEND+=" $2"; shift 2 ;;
    --mem) [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*[MG]$ ]] || die "--mem needs SIZE (e.g. 4608M)"; MEM=$2; shift 2 ;;
    --link) [[ $# -ge 2 && $2 =~ ^[0-9]+:[0-9]+:[0-9.]+/[0-9]+$ ]] || die "--link needs LPORT:RPORT:ADDR/LEN"
        LINK=$2; shift 2 ;;
    --hostname) [[ $# -ge 2 && $2 =~ ^[a-z0-9-]+$ ]] || die "--hostname needs [a-z0-9-]+"
        GUEST_HOSTNAME=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    --) shift; break ;;
    -*) usage >&2; die "unknown option $1" ;;
    *) break ;;
    esac
done
(($#)) || { usage >&2; die "no command given"; }

# ORCA_BOUND_SCALE N: every bound N times longer, this run's and the
# guest's (run-tests.sh's per suite), for a host that runs N guests at
# once (make check).  A bound costs time only when something hangs.
BOUND_SCALE=${ORCA_BOUND_SCALE:-1}
[[ $BOUND_SCALE =~ ^[1-9]$ ]] || die "ORCA_BOUND_SCALE must be 1-9, not '$BOUND_SCALE'"
TIMEOUT=$((TIMEOUT * BOUND_SCALE))
say "bound $TIMEOUT s"
T0=$EPOCHREALTIME

# ---------------------------------------------------------------- checks
if [[ -n $GUEST_ROOT ]] && { ((DEBUG_KERNEL)) || [[ -n $GUEST_KERNEL ]]; }; then
    die "--root boots the root's own kernel: no --kernel with it"
fi
if ((DEBUG_KERNEL)); then
    # everything the guest needs is built in: no modules in the initramfs
    DEBUG_KDIR=$("$REPO/scripts/debug-kernel.sh") || die "no debug kernel (scripts/debug-kernel.sh failed)"
    KVER=$(< "$DEBUG_KDIR/include/config/kernel.release")
    KERNEL=$DEBUG_KDIR/arch/x86/boot/bzImage
    # Under TCG, KASAN's and kmemleak's bookkeeping can keep a CPU in the
    # kernel for many seconds: not a lockup or an RCU stall worth a report
    # (a stall of 5 minutes still is).  acpi=noirq: the PCI root's _PRT
    # (QEMU's piix DSDT loops over 128 slot/pin entries) runs into
    # ACPICA's 30 s AML loop timeout twice on this kernel, a minute of
    # every boot; every device here uses MSI-X, so no INTx routing is lost.
    DEBUG_APPEND=" nosoftlockup rcupdate.rcu_cpu_stall_timeout=300 acpi=noirq"
elif [[ -n $GUEST_ROOT ]]; then
    ROOT_DIR=$("$REPO/scripts/debian-root.sh" "${GUEST_ROOT#debian}") || die "no $GUEST_ROOT root (scripts/debian-root.sh failed)"
    KVER=$(< "$ROOT_DIR/../release")
    KERNEL=$ROOT_DIR/boot/vmlinuz-$KVER
    # the initramfs takes its 9p and overlay modules from the root
    MODULES_ROOT=$ROOT_DIR
    [[ $ROOT_DIR != *[[:space:]:]* ]] || die "path '$ROOT_DIR' contains white space or ':'"
elif [[ -n $GUEST_KERNEL ]]; then
    GUEST_KDIR=$("$REPO/scripts/guest-kernel.sh" "$GUEST_KERNEL") || die "no $GUEST_KERNEL kernel (scripts/guest-kernel.sh failed)"
    KVER=$(< "$GUEST_KDIR/release")
    KERNEL=$GUEST_KDIR/vmlinuz
    # the guest sees the host's /: its /lib/modules/$KVER is this one
    MODULES_ROOT=$GUEST_KDIR
    [[ $GUEST_KDIR != *[[:space:]:]* ]] || die "path '$GUEST_KDIR' contains white space or ':'"
else
    if [[ -z ${KVER:-} ]]; then
        KVER=$(cd /lib/modules 2>/dev/null && printf '%s\n' 6.1.0-*-amd64 | grep -v '\*' | sort -V | tail -n 1) || :
    fi
    [[ -n $KVER ]] || die "no 6.1.0-*-amd64 kernel in /lib/modules (run: make deps)"
    KERNEL=/boot/vmlinuz-$KVER
fi
[[ -r $KERNEL ]] || die "cannot read $KERNEL (run: make deps; reading it needs root on Debian)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (run: make deps)"
[[ -x /bin/busybox ]] || die "/bin/busybox not found (run: make deps)"
BUILD=$(mkdir -p "$BUILD" && cd "$BUILD" && pwd -P)
EMU=${EMU:-$BUILD/orca-emu}
[[ -x $EMU ]] || die "emulator $EMU not found or not executable (run: make build)"
EMU=$(realpath "$EMU")
# built through the shadow tree of the top-level Makefile (see its driver target)
ORCA_KO=$BUILD/kmod/drivers/infiniband/hw/orca/orca.ko
((DEBUG_KERNEL)) && ORCA_KO=$BUILD/kmod-debug/drivers/infiniband/hw/orca/orca.ko
[[ -n $GUEST_KERNEL ]] && ORCA_KO=$BUILD/kmod-$GUEST_KERNEL/drivers/infiniband/hw/orca/orca.ko
if ((!NO_ORCA)) && [[ ! -f $ORCA_KO ]]; then
    die "$ORCA_KO not built (run: make build$( ((DEBUG_KERNEL)) && echo ' driver-debug')$([[ -n $GUEST_KERNEL ]] && echo " driver-$GUEST_KERNEL"), or use --no-orca)"
fi
if ((!NO_ORCA)) && [[ $(modinfo -F vermagic "$ORCA_KO") != "$KVER "* ]]; then
    die "$ORCA_KO is not built for $KVER (run: make driver$( ((DEBUG_KERNEL)) && echo '-debug')$([[ -n $GUEST_KERNEL ]] && echo "-$GUEST_KERNEL"))"
fi
for p in "$REPO" "$BUILD"; do
    [[ $p != *[[:space:]]* ]] || die "path '$p' contains white space; the kernel command line cannot carry it"
done

NAME=${NAME:-vm-$$}
JOB=$BUILD/vm/$NAME
STARTED=0         # set once we own resources that need cleaning up
RUN='' RAM='' EMU_PID='' EMU_REAL='' QEMU_PID='' FILTER_PID='' AGENT_PID='' WD_PID=''
RC=125

# ---------------------------------------------------------------- cleanup
alive() { [[ -n $1 ]] && kill -0 "$1" 2>/dev/null; }
stop_pid() {    # stop_pid PID GRACE_SECONDS: TERM, wait, then KILL
    local pid=$1 grace=$2 i
    alive "$pid" || return 0
    kill -TERM "$pid" 2>/dev/null || :
    for ((i = 0; i < grace * 20; i++)); do
        alive "$pid" || break
        sleep 0.05
    done
    alive "$pid" && kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null || :
}
qemu_real_pid() {   # the QEMU process itself (QEMU_PID is its timeout wrapper)
    local pid comm
    [[ -n $RUN && -r $RUN/qemu.pid ]] || return 1
    read -r pid < "$RUN/qemu.pid" || return 1
    read -r comm < "/proc/$pid/comm" 2>/dev/null || return 1
    [[ $comm == qemu-system* ]] && printf '%s' "$pid"
}
cleanup() {
    local rc=$? q
    trap '' INT TERM
    set +e
    ((STARTED)) || return "$rc"
    stop_pid "$WD_PID" 1
    stop_pid "$AGENT_PID" 2
    if alive "$QEMU_PID"; then
        q=$(qemu_real_pid)
        stop_pid "$QEMU_PID" 5
        [[ -n $q ]] && alive "$q" && kill -KILL "$q" 2>/dev/null
    fi
    stop_pid "$EMU_PID" 3
    [[ -n $EMU_REAL ]] && alive "$EMU_REAL" && kill -KILL "$EMU_REAL" 2>/dev/null
    stop_pid "$FILTER_PID" 2
    [[ -n $RAM ]] && rm -f "$RAM"
    [[ -n $RUN ]] && rm -rf "$RUN"
    if ((KEEP || RC != 0)); then
        say "job dir kept: $JOB"
    else
        rm -rf "$JOB"
    fi
    return "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; RC=130; exit 130' INT
trap 'say "terminated"; RC=143; exit 143' TERM

# ---------------------------------------------------------------- initramfs
build_initramfs() {
    local out=$BUILD/vm/initramfs-$KVER.cpio.gz tmp m f n=0 mods=(virtio_pci 9pnet_virtio 9p)
    ((DEBUG_KERNEL)) && mods=()
    [[ -n $GUEST_ROOT ]] && mods+=(overlay)
    if [[ -f $out && $out -nt $REPO/scripts/vm/init && $out -nt ${BASH_SOURCE[0]} ]]; then
        INITRD=$out
        return
    fi
    ldd /bin/busybox >/dev/null 2>&1 && die "/bin/busybox is dynamically linked (install busybox-static)"
    tmp=$(mktemp -d "$BUILD/vm/.initramfs.XXXXXX")
    mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,stash,lib/modules}
    cp /bin/busybox "$tmp/bin/busybox"
    cp "$REPO/scripts/vm/init" "$tmp/init"
    chmod 755 "$tmp/init"
    : > "$tmp/modules.list"
    declare -A seen=()
    for m in "${mods[@]}"; do
        while read -r kind f _; do
            [[ $kind == insmod && -z ${seen[$f]:-} ]] || continue
            seen[$f]=1
            n=$((n + 1))
            case $f in
            *.ko) cp "$f" "$tmp/lib/modules/$n.ko" ;;
            *.ko.xz) xz -dc "$f" > "$tmp/lib/modules/$n.ko" ;;
            *.ko.zst) zstd -qdc "$f" > "$tmp/lib/modules/$n.ko" ;;
            *.ko.gz) gzip -dc "$f" > "$tmp/lib/modules/$n.ko" ;;
            *) rm -rf "$tmp"; die "unexpected module file $f" ;;
            esac
            echo "$n.ko" >> "$tmp/modules.list"
        done < <(modprobe ${MODULES_ROOT:+-d "$MODULES_ROOT"} -S "$KVER" --show-depends "$m")
    done
    ((n > 0 || DEBUG_KERNEL)) || { rm -rf "$tmp"; die "modprobe --show-depends found no modules for $KVER"; }
    if ((EUID == 0)); then
        mknod "$tmp/dev/console" c 5 1
        mknod "$tmp/dev/null" c 1 3
    fi
    (cd "$tmp" && find . | cpio -o -H newc --quiet | gzip -1) > "$tmp.cpio.gz"
    mv -f "$tmp.cpio.gz" "$out"
    rm -rf "$tmp"
    say "built $out ($n modules)"
    INITRD=$out
}

mkdir -p "$BUILD/vm"
build_initramfs

# ---------------------------------------------------------------- job dir
STARTED=1
rm -rf "$JOB"
mkdir -p "$JOB/hostctl"
RUN=$(mktemp -d /tmp/orca-vm.XXXXXX)          # sockets, fifo: host only
# Guest RAM, shared with orca-emu.  Created empty (unique name); QEMU sizes it.
RAM=$(mktemp "/dev/shm/orca-vm-$NAME.XXXXXX")
SOCK=$RUN/ivshmem.sock
CTL=$RUN/ctl.sock
FIFO=$RUN/console.fifo
mkfifo "$FIFO"

{
    printf 'ORCA_REPO=%q\n' "$REPO"
    printf 'ORCA_BUILD=%q\n' "$BUILD"
    printf 'ORCA_KO=%q\n' "$ORCA_KO"
    printf 'ORCA_NO_ORCA=%q\n' "$NO_ORCA"
    printf 'ORCA_NO_PROVIDER=%q\n' "$NO_PROVIDER"
    printf 'ORCA_CWD=%q\n' "$PWD"
    printf 'ORCA_VM_NAME=%q\n' "$NAME"
    printf 'ORCA_HOSTNAME=%q\n' "$GUEST_HOSTNAME"
    printf 'ORCA_LINK_ADDR=%q\n' "${LINK##*:}"
    printf 'ORCA_BOUND_SCALE=%q\n' "$BOUND_SCALE"
    # the guest reports what hangs 30 s before the bound (stage2.sh)
    if ((TIMEOUT >= 90)); then printf 'ORCA_HANG_AT=%d\n' $((TIMEOUT - 30)); fi
} > "$JOB/vm.conf"
if (($# == 1)); then
    printf '%s\n' "$1" > "$JOB/cmd.sh"
else
    { printf '%q ' "$@"; echo; } > "$JOB/cmd.sh"
fi

# ---------------------------------------------------------------- emulator
# Wrapped in timeout as a backstop in case this script is SIGKILLed.
timeout --foreground -k 5 $((TIMEOUT + 60)) \
    "$EMU" --socket "$SOCK" --ram "$RAM" --ctl "$CTL" --log "$JOB/emu.log" --once "${EMU_ARGS[@]}" --set guest_machine=pc \
    > "$JOB/emu.out" 2>&1 < /dev/null &
EMU_PID=$!
disown "$EMU_PID"   # no "Killed" job notice when a test kills the emulator
printf '%q ' "$EMU" --socket "$SOCK" --ram "$RAM" --ctl "$CTL" --log "$JOB/emu.log" --once "${EMU_ARGS[@]}" --set guest_machine=pc > "$JOB/emu-cmdline.txt"
for ((i = 0; i < 200; i++)); do
    [[ -S $SOCK ]] && break
    alive "$EMU_PID" || break
    sleep 0.05
done
if [[ ! -S $SOCK ]] || ! alive "$EMU_PID"; then
    say "emulator did not start listening on $SOCK; its output:"
    { cat "$JOB/emu.out" "$JOB/emu.log" 2>/dev/null || :; } | tail -n 30 >&2
    exit 125
fi
read -r EMU_REAL < "/proc/$EMU_PID/task/$EMU_PID/children" || :
EMU_REAL=${EMU_REAL%% *}

# ---------------------------------------------------------------- host control agent
# Serves tests/lib/hostctl: the guest writes $JOB/hostctl/req.ID (one line,
# written with one write()), we answer with $JOB/hostctl/rep.ID ("rc=N" then
# the output), renamed into place so the guest never sees a partial reply.
agent() {
    trap - EXIT INT TERM
    set +e
    local req id line out rc d=$JOB/hostctl
    shopt -s nullglob
    while :; do
        for req in "$d"/req.*; do
            IFS= read -r line < "$req" || continue     # not complete yet
            id=${req##*/req.}
            rm -f "$req"
            if [[ $line == emu-kill-9 ]]; then
                if [[ -n $EMU_REAL ]] && kill -KILL "$EMU_REAL" 2>/dev/null; then
                    out="ok killed emulator pid $EMU_REAL with SIGKILL"; rc=0
                else
                    out="error emulator not running"; rc=1
                fi
            elif [[ $line =~ ^fabric\ [a-z][a-z-]*(\ [A-Za-z0-9_.=:,-]+){0,3}$ ]]; then
                # for the fabric's control socket (vm2.sh's ORCA_FABRIC_CTL)
                if [[ -n ${ORCA_FABRIC_CTL:-} ]]; then
                    out=$(timeout -k 2 15 "$EMU" --ctl-send "$ORCA_FABRIC_CTL" "${line#fabric }" 2>&1)
                    rc=$?
                else
                    out="error no fabric control socket (scripts/vm2.sh)"; rc=2
                fi
            elif [[ $line =~ ^[a-z][a-z0-9-]*(\ [A-Za-z0-9_.=:,-]+){0,4}$ ]]; then
                # a control-socket request: orca-emu validates it
                out=$(timeout -k 2 15 "$EMU" --ctl-send "$CTL" "$line" 2>&1)
                rc=$?
            else
                out="error request not allowed: $line"; rc=2
            fi
            printf '%s hostctl %q -> rc=%s %s\n' "$(date +%T.%N)" "$line" "$rc" "${out//$'\n'/ | }" >> "$JOB/hostctl.log"
            printf 'rc=%s\n%s\n' "$rc" "$out" > "$d/.rep.$id"
            mv -f "$d/.rep.$id" "$d/rep.$id"
        done
        sleep 0.05
    done
}
agent &
AGENT_PID=$!

# ---------------------------------------------------------------- console filter
# Serial console -> $JOB/console.log (everything, host-timestamped) and our
# stdout (the guest command's output only; harness markers go to stderr).
filter() {
    trap - EXIT INT TERM
    set +e
    local line in_cmd=0 t
    while IFS= read -r line || [[ -n $line ]]; do
        line=${line%$'\r'}
        t=$EPOCHREALTIME
        printf '%6s %s\n' "$(elapsed "$t")" "$line" >> "$JOB/console.log"
        case $line in
        ORCA-VM-CMD-START*)
            in_cmd=1
            printf '%s\n' "$t" > "$RUN/cmd-start"
            say "guest command starting ($(elapsed "$t") s after start)" ;;
        ORCA-VM-CMD-END*) in_cmd=0 ;;
        ORCA-VM-FAIL* | ORCA-VM-WARN*) say "guest: $line" ;;
        ORCA-VM-EXIT* | ORCA-VM-STAGE*) ;;
        *) ((in_cmd)) && printf '%s\n' "$line" ;;
        esac
    done
}
elapsed() {  # seconds since T0, one decimal, from $EPOCHREALTIME values (no fork)
    local a=${1/./} b=${T0/./}
    local d=$(((10#$a - 10#$b) / 100000))
    printf '%d.%d' $((d / 10)) $((d % 10))
}
filter < "$FIFO" &
FILTER_PID=$!

# ---------------------------------------------------------------- QEMU
APPEND="console=ttyS0 quiet panic=-1 mitigations=off random.trust_cpu=on${DEBUG_APPEND:-}"
APPEND+="${EXTRA_APPEND:-}"
APPEND+=" ORCA_JOB=$JOB ORCA_STAGE2=$REPO/scripts/vm/stage2.sh ORCA_BINDS=$REPO:$BUILD$EXTRA_BINDS"
if [[ -n $GUEST_ROOT ]]; then
    APPEND+=" ORCA_ROOT=$ROOT_DIR"
elif [[ -n ${MODULES_ROOT:-} ]]; then
    APPEND+=" ORCA_MODULES=$MODULES_ROOT/lib/modules/$KVER"
fi
# The CPU model: Nehalem (x86-64-v2, no AVX).  Under TCG it was faster than
# -cpu max in every guest workload tried (one boot with each, on this
# machine): SHA-256 in python3 4.6 s against 8.3, 3 GB from /dev/zero 1.1 s
# against 7.9, copying /usr/share/doc 17 s against 29; on the debug kernel
# 378 s against 440 for the same list; vm-default took 241 s in make check
# against 289 the run before.  ORCA_QEMU_CPU overrides it (e.g. max, for a
# path that needs AVX).
# shellcheck disable=SC2054  # commas belong to QEMU option values
QEMU=(qemu-system-x86_64
    -accel "tcg,thread=${ORCA_TCG_THREAD:-multi}" -machine pc,memory-backend=ram0 -cpu "${ORCA_QEMU_CPU:-Nehalem}" -smp "$SMP" -m "$MEM"
    -object "memory-backend-file,id=ram0,size=$MEM,mem-path=$RAM,share=on"
    -nodefaults -no-user-config -display none -no-reboot
    -kernel "$KERNEL" -initrd "$INITRD" -append "$APPEND"
    -chardev "file,id=con0,path=$FIFO" -serial chardev:con0
    -chardev "socket,path=$SOCK,id=orca" -device ivshmem-doorbell,chardev=orca,vectors=3
    -fsdev "local,id=fsroot,path=/,security_model=none,readonly=on,multidevs=remap"
    -device virtio-9p-pci,fsdev=fsroot,mount_tag=hostroot
    -fsdev "local,id=fsjob,path=$JOB,security_model=none,multidevs=remap"
    -device virtio-9p-pci,fsdev=fsjob,mount_tag=job
    -pidfile "$RUN/qemu.pid")
if [[ -n $LINK ]]; then
    IFS=: read -r LPORT RPORT LADDR <<< "$LINK"
    LADDR=${LADDR%/*}
    # the MAC's last byte is the address's, so that the two guests differ
    # shellcheck disable=SC2054
    QEMU+=(-netdev "socket,id=link0,udp=127.0.0.1:$RPORT,localaddr=127.0.0.1:$LPORT"
        -device "virtio-net-pci,netdev=link0,mac=52:54:00:0a:77:$(printf '%02x' $((${LADDR##*.} & 255)))")
fi
if ((PLAIN_IVSHMEM)); then
    # shellcheck disable=SC2054
    QEMU+=(-object memory-backend-memfd,id=plainmem,size=1M,share=on
        -device ivshmem-plain,memdev=plainmem)
fi
printf '%q ' "${QEMU[@]}" > "$JOB/qemu-cmdline.txt"
echo >> "$JOB/qemu-cmdline.txt"
# timeout is only the backstop (if this script dies); the bound is enforced below.
timeout --foreground -k 5 $((TIMEOUT + 30)) "${QEMU[@]}" > "$JOB/qemu.log" 2>&1 < /dev/null &
QEMU_PID=$!
sleep "$TIMEOUT" &
WD_PID=$!

set +e
wait -n -p DONE "$QEMU_PID" "$WD_PID"
QRC=$?
set -e
if [[ ${DONE:-} == "$WD_PID" ]]; then
    WD_PID=
    say "TIMEOUT: the guest did not finish within $TIMEOUT s; stopping QEMU"
    RC=124
else
    # drain the console (the filter ends at EOF; bounded in case QEMU never opened it)
    for ((i = 0; i < 60; i++)); do alive "$FILTER_PID" || break; sleep 0.05; done
    stop_pid "$FILTER_PID" 1
    FILTER_PID=
    if [[ -r $JOB/rc ]] && read -r RC < "$JOB/rc" && [[ $RC =~ ^[0-9]+$ ]]; then
        :
    elif line=$(grep -a -o 'ORCA-VM-EXIT rc=[0-9]*' "$JOB/console.log" 2>/dev/null | tail -n 1) && [[ -n $line ]]; then
        RC=${line##*=}
    else
        RC=254
        say "no exit status from the guest (QEMU exit status $QRC; kernel panic or QEMU failure)"
    fi
fi

# ---------------------------------------------------------------- report
set +e   # best effort from here on: the exit status is $RC
if [[ -r $RUN/cmd-start ]]; then
    read -r TS < "$RUN/cmd-start"
    say "guest exit status $RC; boot-to-command $(elapsed "$TS") s, total $(elapsed "$EPOCHREALTIME") s"
else
    say "guest exit status $RC; the guest command never started; total $(elapsed "$EPOCHREALTIME") s"
fi
if ((RC != 0)); then
    if [[ -s $JOB/qemu.log ]]; then
        say "--- QEMU output ($JOB/qemu.log)"
        tail -n 20 "$JOB/qemu.log" >&2
    fi
    if [[ ! -r $RUN/cmd-start ]] || ((RC == 124 || RC == 254)); then
        say "--- serial console, last 40 lines ($JOB/console.log)"
        tail -n 40 "$JOB/console.log" >&2 2>/dev/null
    fi
    if ((RC == 124)) && [[ -s $JOB/hang.txt ]]; then
        say "--- the guest's hang report, at most 150 lines ($JOB/hang.txt)"
        head -n 150 "$JOB/hang.txt" >&2
    elif ((RC == 124)); then
        say "--- no hang report from the guest: its kernel did not run its watchdog"
    fi
    say "--- emulator log, last 30 lines ($JOB/emu.log, $JOB/emu.out)"
    cat "$JOB/emu.out" "$JOB/emu.log" 2>/dev/null | tail -n 30 >&2
    if [[ -s $JOB/dmesg.txt ]]; then
        say "--- guest dmesg since stage 2, at most 150 lines ($JOB/dmesg.txt)"
        sed -n '/orca-vm: stage 2/,$p' "$JOB/dmesg.txt" | tail -n 150 >&2
    fi
fi
# The guest kernel died of an int3 before stage 2, so before anything of
# ours was loaded: QEMU's multi-threaded TCG ran the old translation of an
# instruction the kernel was patching (text_poke_bp's int3 after it was
# taken out), seen on 6.12 and 7.3 guests once in some dozens of boots.
# Nothing of the job ran: boot it once more, and say so (the dead boot's
# console is kept beside the job dir).
if ((RC == 254)) && [[ -z ${ORCA_VM_BOOTED_AGAIN:-} ]] &&
    grep -aq 'Oops: int3' "$JOB/console.log" 2> /dev/null &&
    ! grep -aq 'ORCA-VM-STAGE2' "$JOB/console.log"; then
    cp -f "$JOB/console.log" "$BUILD/vm/$NAME.int3-console.log"
    say "the guest kernel died of an int3 before stage 2 (TCG patching race, $BUILD/vm/$NAME.int3-console.log); booting once more"
    RC=0
    cleanup
    trap - EXIT INT TERM
    ORCA_VM_BOOTED_AGAIN=1 exec "$0" "${ORIG_ARGS[@]}"
fi
exit "$RC"
