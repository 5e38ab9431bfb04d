#!/bin/bash
# Guest test: the user doorbell page and its fallback.
#  - loaded as usual, orca reserves the rest of BAR0's page in /proc/iomem
#    (so that no other BAR lands in the page it maps to users) and
#    verbs_bypass posts and polls under seccomp with no system call;
#  - a process without CAP_SYS_RAWIO gets no doorbell page (the register
#    rings any vector of any ivshmem peer, this guest's own MSI-X ones
#    included: review-driver finding 3): its verbs_bypass sees write()
#    kicks; reloaded with user_doorbell_any=1 it gets the page again;
#  - reloaded with user_doorbell=0, nothing is reserved, no page is mapped
#    and verbs_bypass --expect-kick-syscalls sees the write() kicks (so its
#    counter is not blind) while the work still completes;
#  - reloaded with db_hint=0: no doorbell hint page is mapped and every
#    post kicks (verbs_dbhint checks both; in the default load it checks
#    the read-only mapping and that posts skipped kicks);
#  - reloaded as usual again.
# Prints TAP; exit status = number of failures.
#   ORCA_KO, ORCA_BUILD (set by vm.sh), ORCA_DEV (orca0)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

ko=${ORCA_KO:?ORCA_KO not set (run in the orca VM)}
bypass=${ORCA_BUILD:?ORCA_BUILD not set (run in the orca VM)}/tests/verbs_bypass
dbhint=$ORCA_BUILD/tests/verbs_dbhint
dev=${ORCA_DEV:-orca0}
plan 17

wait_dev() { wait_until "$ORCA_WAIT" test -e "/sys/class/infiniband/$dev"; }
reserved() { grep -c 'orca doorbell page' /proc/iomem; }
# run verbs_bypass (under the command words in wrap, if any), its TAP as
# comments; status = its exit status
wrap=()
run_bypass() {
    local out rc
    out=$("${wrap[@]}" "$bypass" -d "$dev" "$@" 2>&1)
    rc=$?
    diag "$out"
    return "$rc"
}

n=$(reserved)
[[ $n == 1 ]]
ok $? "the rest of BAR0's page is reserved in /proc/iomem ($n 'orca doorbell page' entries)"
[[ $(cat /sys/module/orca/parameters/user_doorbell) == Y ]]
ok $? "user_doorbell is on by default"
run_bypass
ok $? "verbs_bypass: post and poll under seccomp with no system call"

# root without CAP_SYS_RAWIO (dropped from the bounding set before exec)
wrap=(setpriv --bounding-set=-sys_rawio --inh-caps=-sys_rawio)
run_bypass --expect-kick-syscalls
ok $? "without CAP_SYS_RAWIO: no doorbell page mapped, the sandbox counts the write() kicks, the work completes"
rmmod orca && insmod "$ko" user_doorbell_any=1 && wait_dev
ok $? "reload with user_doorbell_any=1"
run_bypass
ok $? "user_doorbell_any=1: without CAP_SYS_RAWIO too, the page is mapped and no system call made"
wrap=()

rmmod orca && insmod "$ko" user_doorbell=0 && wait_dev
ok $? "reload with user_doorbell=0"
n=$(reserved)
[[ $n == 0 ]]
ok $? "nothing reserved in /proc/iomem ($n entries)"
run_bypass --expect-kick-syscalls
ok $? "verbs_bypass --expect-kick-syscalls: the sandbox counts the write() kicks, and the work completes anyway"

rmmod orca && insmod "$ko" && wait_dev
ok $? "reload with the defaults"
n=$(reserved)
[[ $n == 1 ]]
ok $? "the page is reserved again ($n entries)"
run_bypass
ok $? "verbs_bypass again: no system call"

[[ $(cat /sys/module/orca/parameters/db_hint) == Y ]]
ok $? "db_hint is on by default"
rmmod orca && insmod "$ko" db_hint=0 && wait_dev
ok $? "reload with db_hint=0"
out=$("$dbhint" -d "$dev" 2>&1)
ok $? "verbs_dbhint with db_hint=0: no hint page mapped, every post kicked"
diag "$out"
run_bypass
ok $? "verbs_bypass with db_hint=0: no system call either"
rmmod orca && insmod "$ko" && wait_dev
ok $? "reload with the defaults"
done_testing
