# shellcheck shell=bash
# Guest tests: the ib device as the system shows it (sourced after tap.sh).
# The caller sets dev (e.g. orca0) and, for the rdma res helpers, kinds
# (the object kinds to watch, e.g. (pd cq qp mr ctx)).
#   wait_dev PRESENT [SECONDS]  /sys/class/infiniband/$dev appears (1) or
#                               goes (0) within SECONDS ($ORCA_WAIT);
#                               WAITED = the time it took
#   res_read                    RES[kind] = count, from `rdma res show`
#   res_mark_start              START[kind] = the counts now (-1: none)
#   res_settle                  wait up to $ORCA_WAIT s until every kind is
#                               back at START (files may still be closing)
#   emu_stat KEY                one counter of this guest's emulator
#                               ('hostctl stats'); nothing and status 1 if
#                               hostctl fails or there is no counter KEY
#                               (tests/lib/pair.sh has the two-host sum)
#   heartbeat                   the device's heartbeat tick count
#                               ('hostctl ping'); status 1 if it fails
#   ticked HB N                 the heartbeat is N ticks past HB: time
#                               counted by the device, not the guest
#   fw_verb [SECONDS]           a verb that needs firmware commands
#                               (ibv_devinfo no longer does: the port
#                               mirror): ibv_rc_pingpong's server allocates
#                               a PD, a CQ and a QP, then waits for a client
#                               that never comes (exit 124 = every command
#                               went through), within SECONDS ($ORCA_WAIT)
#   debugfs_dir                 $dev's debugfs directory,
#                               /sys/kernel/debug/orca/<pci>
#   debugfs_value KEY FILE      the value of "KEY: value" in $dbgdir/FILE
#                               (the caller sets dbgdir=$(debugfs_dir) once);
#                               status 1 if there is none
# dev, kinds and dbgdir are the caller's:
# shellcheck disable=SC2154

_dev_is() { if [[ -e /sys/class/infiniband/$dev ]]; then (($1)); else ((!$1)); fi; }
wait_dev() { wait_until "${2:-$ORCA_WAIT}" _dev_is "${1:-1}"; }

declare -A RES START
res_read() {
    local line w i
    RES=()
    line=$(rdma res show 2>/dev/null | grep -E "^[0-9]+: $dev: ") || return 1
    read -r -a w <<< "${line#*: "$dev": }"
    for ((i = 0; i + 1 < ${#w[@]}; i += 2)); do RES[${w[i]}]=${w[i + 1]}; done
}

res_mark_start() {
    local k
    res_read
    for k in "${kinds[@]}"; do START[$k]=${RES[$k]:--1}; done
}

_res_at_start() {
    local k
    res_read || return 1
    for k in "${kinds[@]}"; do [[ ${RES[$k]:-x} == "${START[$k]}" ]] || return 1; done
}
res_settle() { wait_until "$ORCA_WAIT" _res_at_start; }

emu_stat() {
    local s kv
    s=$(hostctl stats) || return 1
    for kv in $s; do
        [[ ${kv%%=*} == "$1" && ${kv#*=} =~ ^[0-9]+$ ]] && { printf '%s' "${kv#*=}"; return 0; }
    done
    return 1
}

heartbeat() {
    local s
    s=$(hostctl ping) || return 1
    [[ $s =~ heartbeat=([0-9]+) ]] && printf '%s' "${BASH_REMATCH[1]}"
}
ticked() { local h; h=$(heartbeat) && ((h >= $1 + $2)); }
fw_verb() { timeout -k 2 "${1:-$ORCA_WAIT}" ibv_rc_pingpong -d "$dev" -p 18777 > /dev/null 2>&1; }

debugfs_dir() {
    printf '/sys/kernel/debug/orca/%s' "$(basename "$(readlink -f "/sys/class/infiniband/$dev/device")")"
}
debugfs_value() {
    local line
    [[ -r $dbgdir/$2 ]] || return 1
    while IFS= read -r line; do
        [[ ${line%%: *} == "$1" ]] && { printf '%s' "${line#*: }"; return 0; }
    done < "$dbgdir/$2"
    return 1
}
