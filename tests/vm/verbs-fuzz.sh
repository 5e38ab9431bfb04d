#!/bin/bash
# Guest test: userspace that misbehaves (issue 10 section 3).  Runs the
# verbs fuzzer (tests/fuzz/verbs_fuzz.c: random libibverbs calls, raw
# uverbs write() and ioctl() commands, forks, closes with objects open),
# first the regression seeds of tests/fuzz/regression-seeds briefly, then
# one long run with a printed seed; then asserts that
#   - every fuzzer run exited normally (no crash of the fuzzer or a child),
#   - no fuzzer process is left,
#   - every orca0 object count of `rdma res` is back to its start value,
#   - the kernel logged no oops/BUG/WARNING/KASAN/lockdep/... report and
#     the taint flags did not change,
#   - the device still works (ibv_rc_pingpong over 127.0.0.1),
#   - rmmod orca and a reload work, and the device works after that.
# Prints TAP; exit status = number of failures.
#   ORCA_FUZZ_SEED (default: from the clock, printed), ORCA_FUZZ_CALLS
#   (100000), ORCA_FUZZ_TIMEOUT (seconds for each run; default half the
#   suite's bound ORCA_TEST_TIMEOUT, so that a hang is reported with the
#   stacks of what hangs before run-tests.sh kills the suite; 1200),
#   ORCA_FUZZ_REGRESSION (1: replay the regression seeds first),
#   ORCA_FUZZ_ARGS (more fuzzer options, e.g. --skip ioctl_get_context), ORCA_DEV
#   (orca0), ORCA_KO (the module to reload, set by vm.sh)
# (the functions wait_until calls look unreachable to shellcheck)
# shellcheck disable=SC2317
set -u
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lib/tap.sh
. "$here/../lib/tap.sh"
# shellcheck source=tests/lib/ibdev.sh
. "$here/../lib/ibdev.sh"

dev=${ORCA_DEV:-orca0}
build=${ORCA_BUILD:-$here/../../build}
fuzz=$build/tests/fuzz/verbs_fuzz
seeds_file=$here/../fuzz/regression-seeds
calls=${ORCA_FUZZ_CALLS:-100000}
limit=$(pos_int "${ORCA_FUZZ_TIMEOUT:-}" $(($(pos_int "${ORCA_TEST_TIMEOUT:-}" 2400) / 2)))
seed=${ORCA_FUZZ_SEED:-$(( ${EPOCHREALTIME/./} % 1000000007 ))}
ko=${ORCA_KO:-}
log_dir=${ORCA_JOB:-/tmp}
kinds=(pd cq qp cm_id mr ctx srq)

res_line() { local k s=''; for k in "${kinds[@]}"; do s+="$k ${RES[$k]:-?} "; done; printf '%s' "${s% }"; }

# has process $1 exited (gone, or a zombie not yet reaped)?
proc_ended() {
    local st
    read -r st 2> /dev/null < "/proc/$1/stat" || return 0
    st=${st##*) }
    [[ ${st%% *} == Z ]]
}

# what the processes of session $1 wait on: state and wait channel, the
# kernel stack and, with gdb, the user stack of each
hung_report() {
    local p
    ps -o pid=,stat=,wchan:32=,args= -s "$1" 2> /dev/null
    for p in $(ps -o pid= -s "$1" 2> /dev/null); do
        echo "process $p, kernel stack:"
        sed 's/^/  /' "/proc/$p/stack" 2> /dev/null
        command -v gdb > /dev/null || continue
        echo "process $p, user stack:"
        timeout 60 gdb -p "$p" -batch -ex bt 2> /dev/null | grep '^#' | sed 's/^/  /'
    done
}

# one fuzzer run in its own session; sets RUN_RC (124: it did not end
# within TIMEOUT), RUN_SECS, RUN_OUT and HUNG (hung_report at the timeout)
run_fuzz() {   # run_fuzz SEED CALLS TIMEOUT
    local t0 pg
    t0=$(now_us)
    RUN_OUT=$log_dir/verbs-fuzz-$1.log
    HUNG=''
    # shellcheck disable=SC2086  # ORCA_FUZZ_ARGS: words on purpose
    setsid "$fuzz" -d "$dev" --seed "$1" --calls "$2" ${ORCA_FUZZ_ARGS:-} \
        > "$RUN_OUT" 2>&1 &
    pg=$!
    if ! wait_until "$3" proc_ended "$pg"; then
        HUNG=$(hung_report "$pg")
        kill -9 -- "-$pg" 2> /dev/null
    fi
    wait "$pg"
    RUN_RC=$?
    [[ -z $HUNG ]] || RUN_RC=124
    RUN_SECS=$(secs_since "$t0")
    # children the fuzzer forked run on after it: wait for the session
    wait_until "$ORCA_WAIT" ended "-$pg" && return 0
    LEFT=$(ps -o pid=,args= -s "$pg" 2>/dev/null)
    kill -9 -- "-$pg" 2>/dev/null
    return 1
}

summary() {   # the figures of a fuzzer log, as one line
    local steps calls kids
    steps=$(grep -m1 '^# steps ' "$1")
    kids=$(grep -m1 '^# children: ' "$1")
    calls=${steps#*verb calls }
    calls=${calls%% *}
    printf '%s verb calls, %s' "${calls:-?}" "${kids#\# }"
}

if [[ ! -x $fuzz ]]; then
    echo "Bail out! $fuzz is not built (make testprogs)"
    exit 1
fi
mapfile -t regress < <(grep -Ev '^[[:space:]]*(#|$)' "$seeds_file" 2>/dev/null)
((${ORCA_FUZZ_REGRESSION:-1})) || regress=()
plan $((${#regress[@]} + 3 + ${#kinds[@]} + 6))

res_mark_start
diag "rdma res before: $(res_line)"
taint0=$(< /proc/sys/kernel/tainted)
lockdep0=$(grep -s 'debug_locks:' /proc/lockdep_stats)
mark="verbs-fuzz: start $seed $EPOCHREALTIME"
echo "$mark" > /dev/kmsg

# 1: the regression seeds, each briefly
for r in "${regress[@]}"; do
    read -r rseed rcalls _ <<< "$r"
    if run_fuzz "$rseed" "${rcalls:-20000}" "$limit" && ((RUN_RC == 0)); then
        pass "regression seed $rseed (${rcalls:-20000} steps): exit 0 in $RUN_SECS s, $(summary "$RUN_OUT")"
    else
        fail "regression seed $rseed (${rcalls:-20000} steps): exit $RUN_RC in $RUN_SECS s${HUNG:+ (did not end within $limit s)}"
        diag "$(grep -E '^# (verbs_fuzz|child)|fatal|^/|\[0x' "$RUN_OUT" | head -20)"
        [[ -z $HUNG ]] || diag "$HUNG"
    fi
done

# 2: the long run
diag "seed $seed, $calls steps (replay: ORCA_FUZZ_SEED=$seed ORCA_FUZZ_CALLS=$calls, or $fuzz -d $dev --seed $seed --calls $calls ${ORCA_FUZZ_ARGS:-})"
LEFT=''
run_fuzz "$seed" "$calls" "$limit"
left_rc=$?
if ((RUN_RC == 0)); then
    pass "verbs_fuzz seed $seed, $calls steps: exit 0 in $RUN_SECS s, $(summary "$RUN_OUT")"
elif [[ -n $HUNG ]]; then
    fail "verbs_fuzz seed $seed, $calls steps: did not end within $limit s"
    diag "what it waits on:" "$HUNG"
else
    fail "verbs_fuzz seed $seed, $calls steps: exit $RUN_RC in $RUN_SECS s (a crash of the fuzzer or of a child)"
fi
grep -E '^# (verbs_fuzz|child|per verb|  |errno histogram|max RSS|live at exit)|fatal signal' "$RUN_OUT" |
    while IFS= read -r l; do diag "${l#\# }"; done
diag "full output: $RUN_OUT"
ok "$left_rc" "no fuzzer process left after it exited"
[[ -z $LEFT ]] || diag "left: $LEFT"
calls_made=$(summary "$RUN_OUT")
calls_made=${calls_made%% *}
[[ $calls_made =~ ^[0-9]+$ ]] && ((calls_made >= calls))
ok $? "the fuzzer made at least $calls verb calls ($calls_made)"

# 3: every object released (the kernel may still be closing files)
res_settle
diag "rdma res after: $(res_line)"
for k in "${kinds[@]}"; do
    is "${RES[$k]:-missing}" "${START[$k]}" "rdma res $dev $k back to its start value (${START[$k]} -> ${RES[$k]:-missing})"
done

# 4: the kernel's view of the run
hits=''
seen=0
while IFS= read -r line; do
    if ((!seen)); then [[ $line == *"$mark"* ]] && seen=1; continue; fi
    case $line in
    *KASAN* | *UBSAN* | *"BUG:"* | *"WARNING:"* | *"kernel BUG"* | *Oops* | \
        *"general protection fault"* | *"possible circular locking"* | \
        *"inconsistent lock state"* | *"possible recursive locking"* | \
        *"suspicious RCU usage"* | *"lock held when returning"* | \
        *"sleeping function called"* | *"scheduling while atomic"* | \
        *"DMA-API: "*": "* | *"blocked for more than"* | *"soft lockup"* | \
        *"list_add corruption"* | *"list_del corruption"* | \
        *"Call Trace"* | *"suspected memory leak"* | *"refcount_t:"*)
        hits+="$line"$'\n' ;;
    esac
done < <(dmesg 2>&1)
((seen)) || diag "the start mark is no longer in the kernel log (it wrapped): scanned nothing; the taint check below still counts"
[[ -z $hits ]]
ok $? "kernel log since the start: no oops, BUG, WARNING, KASAN, UBSAN, lockdep or hung-task report"
[[ -z $hits ]] || diag "$(head -40 <<< "$hits")"
taint1=$(< /proc/sys/kernel/tainted)
lockdep1=$(grep -s 'debug_locks:' /proc/lockdep_stats)
[[ $taint1 == "$taint0" && $lockdep1 == "$lockdep0" ]]
ok $? "kernel taint unchanged ($taint0 -> $taint1)${lockdep0:+, lockdep still on (${lockdep1//[[:space:]]/})}"

# 5: the device still works
pingpong() {   # ibv_rc_pingpong server and client over 127.0.0.1
    local port=$1 srv out rc
    ip link set lo up 2>/dev/null
    timeout -k 2 "$ORCA_WAIT" ibv_rc_pingpong -d "$dev" -p "$port" -n 200 > "$log_dir/pp-srv-$port.log" 2>&1 &
    srv=$!
    wait_until "$ORCA_WAIT" listening_or_ended "$port" "$srv"
    out=$(timeout -k 2 "$ORCA_WAIT" ibv_rc_pingpong -d "$dev" -p "$port" -n 200 127.0.0.1 2>&1)
    rc=$?
    wait "$srv" || rc=1
    PP=$(grep -m1 'bytes in' <<< "$out")
    ((rc == 0)) || diag "client: $out" "server: $(< "$log_dir/pp-srv-$port.log")"
    return "$rc"
}
pingpong 18781
ok $? "ibv_rc_pingpong -d $dev over 127.0.0.1 after the fuzzer (${PP:-no result})"

# 6: unload and reload
t0=$(now_us)
out=$(timeout -k 5 "$ORCA_WAIT" rmmod orca 2>&1)
rc=$?
ok "$rc" "rmmod orca after the fuzzer ($(secs_since "$t0") s)"
((rc == 0)) || diag "$out"
if [[ -n $ko ]] && insmod "$ko" 2>/dev/null; then
    wait_dev 1
    [[ -e /sys/class/infiniband/$dev ]]
    ok $? "insmod orca: $dev is back"
    pingpong 18782
    ok $? "ibv_rc_pingpong after the reload (${PP:-no result})"
else
    fail "insmod orca (ORCA_KO=${ko:-unset})"
    fail "ibv_rc_pingpong after the reload (no module)"
fi

done_testing
