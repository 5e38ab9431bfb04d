#!/bin/bash
# Guest test for the debug kernel (stage vm-debug, right after
# debug-report.sh --clear): the driver's KUnit suites (orca_com_test.c,
# orca_attr_test.c), run under KASAN, UBSAN, lockdep and kmemleak from the
# orca.ko built with them (make driver-debug-kunit: CONFIG_INFINIBAND_ORCA_
# KUNIT_TEST=m against the debug kernel, in $BUILD/kmod-debug-kunit).
#
# The orca.ko vm.sh loaded (ORCA_KO) is unloaded and the KUnit build loaded
# in its place: in 6.1 KUnit runs a module's suites while the module comes
# up (its notifier, before orca's own init probes the device) and keeps
# each suite's KTAP in /sys/kernel/debug/kunit/<suite>/results until the
# module goes.  Each case becomes one TAP line named as kunit/tap.sh (make
# kunit) names it, "kunit <suite>.<case>", a skipped case "# SKIP".  The
# kernel log since a mark stands in for a results file that is missing (a
# failed init makes KUnit remove it) or cut short (6.1 keeps 512 bytes of
# each case's log).  A suite found in neither, a case with no result line
# in either and a suite whose own line is "not ok" fail; a crash panics
# the debug kernel (panic_on_oops), which ends the boot without an exit
# status and so fails the stage.  Then the KUnit build is unloaded and
# ORCA_KO loaded again: orca0 must come back for the scripts after this one.
#
# Running the suites taints the kernel with TAINT_TEST ('N', bit 18) for
# the rest of the boot.  Only verbs-fuzz.sh compares taint flags, before
# and after its own run, so this script must not run between those two
# reads (it cannot: run-tests.sh runs one script at a time).
#
# The suites expected are those the driver's *_test.c files define
# (.name of each struct kunit_suite), or ORCA_KUNIT_SUITES ("a b").
# Prints TAP (the plan last); exit status = number of failures.
#   ORCA_KUNIT_KO (the KUnit build), ORCA_KO (the module to load again,
#   set by vm.sh), ORCA_DEV (orca0)
set -u
here=$(dirname "${BASH_SOURCE[0]}")
# shellcheck source=tests/lib/tap.sh
. "$here/../lib/tap.sh"
# shellcheck source=tests/lib/ibdev.sh
. "$here/../lib/ibdev.sh"
# shellcheck source=tests/lib/klog.sh
. "$here/../lib/klog.sh"

dev=${ORCA_DEV:-orca0}
repo=${ORCA_REPO:-$here/../..}
build=${ORCA_BUILD:-$repo/build}
kunit_ko=${ORCA_KUNIT_KO:-$build/kmod-debug-kunit/drivers/infiniband/hw/orca/orca.ko}
ko=${ORCA_KO:-}
dbg=/sys/kernel/debug/kunit
t_start=$(now_us)

# ---------------------------------------------------------------- suites
suites=()
if [[ -n ${ORCA_KUNIT_SUITES:-} ]]; then
    read -r -a suites <<< "$ORCA_KUNIT_SUITES"
else
    for f in "$repo"/drivers/infiniband/hw/orca/*_test.c; do
        [[ -f $f ]] || continue
        in=0
        while IFS= read -r line; do
            if [[ $line =~ struct[[:space:]]+kunit_suite[[:space:]]+[A-Za-z0-9_]+[[:space:]]*=[[:space:]]*\{ ]]; then
                in=1
            elif ((in)) && [[ $line =~ ^[[:space:]]*\.name[[:space:]]*=[[:space:]]*\"([^\"]+)\" ]]; then
                suites+=("${BASH_REMATCH[1]}")
                in=0
            elif ((in)) && [[ $line == *"};"* ]]; then
                in=0
            fi
        done < "$f"
    done
fi

if ((${#suites[@]} == 0)); then
    echo "Bail out! no KUnit suite found in $repo/drivers/infiniband/hw/orca/*_test.c"
    exit 1
fi
if [[ ! -f $kunit_ko ]]; then
    echo "Bail out! $kunit_ko is not built (make driver-debug-kunit)"
    exit 1
fi
if [[ -z $ko || ! -f $ko ]]; then
    echo "Bail out! ORCA_KO ('$ko'), the module to load again afterwards, is not there"
    exit 1
fi
diag "suites: ${suites[*]}; KUnit build: $kunit_ko"

# ---------------------------------------------------------------- KTAP
# parse_suite SUITE SRC: one suite's KTAP on stdin (a debugfs results file,
# or the kernel log from the mark on, other lines interleaved), from its
# "    # Subtest: SUITE" line to its own result line.  Fills, for SRC (d or
# k): PLAN[SRC], SUITE_ST[SRC] ("ok", "not ok"), and per case number n
# ST[SRC:n] ("ok", "not ok", "skip"), NAME[SRC:n], WHY[SRC:n] (the skip
# reason) and DIAG[SRC:n] (the case's indented lines before its result
# line: its messages).
declare -A PLAN SUITE_ST ST NAME WHY DIAG
case_re='^    (ok|not ok) ([0-9]+) (- )?([^[:space:]#]+)(.*)$'
skip_re='^[[:space:]]*#[[:space:]]*[Ss][Kk][Ii][Pp]([[:space:]]+(.*))?$'
suite_re='^(ok|not ok) [0-9]+ (- )?([^[:space:]#]+)'
parse_suite() {
    local s=$1 src=$2 line in=0 diag='' n st rest
    while IFS= read -r line; do
        line=${line%$'\r'}
        if ((!in)); then
            [[ $line == "    # Subtest: $s" ]] && in=1
            continue
        fi
        if [[ $line =~ $suite_re && ${BASH_REMATCH[3]} == "$s" ]]; then
            SUITE_ST[$src]=${BASH_REMATCH[1]}
            break
        elif [[ -z ${PLAN[$src]:-} && $line =~ ^\ {4}1\.\.([0-9]+) ]]; then
            PLAN[$src]=${BASH_REMATCH[1]}
        elif [[ $line =~ $case_re ]]; then
            n=${BASH_REMATCH[2]} st=${BASH_REMATCH[1]} rest=${BASH_REMATCH[5]}
            NAME[$src:$n]=${BASH_REMATCH[4]}
            if [[ $st == ok && $rest =~ $skip_re ]]; then
                st=skip
                WHY[$src:$n]=${BASH_REMATCH[2]:-skipped}
            fi
            ST[$src:$n]=$st
            DIAG[$src:$n]=$diag
            diag=''
        elif [[ $line =~ ^\ {4}(.*[^[:space:]].*)$ ]]; then
            # the case's messages ("# ...", an expectation's lines) and a
            # parameterised case's own lines; not what the kernel log has
            # between them (unindented)
            diag+=${BASH_REMATCH[1]}$'\n'
        fi
    done
}

# ---------------------------------------------------------------- run
mark="orca-kunit: start $EPOCHREALTIME"
echo "$mark" > /dev/kmsg
taint0=$(< /proc/sys/kernel/tainted)

t0=$(now_us)
if [[ -d /sys/module/orca ]]; then
    out=$(timeout -k 5 120 rmmod orca 2>&1)
    rc=$?
    ok "$rc" "kunit: the loaded orca.ko unloaded for the KUnit build ($(secs_since "$t0") s)"
    if ((rc)); then
        diag "rc=$rc" "$out"
        echo "Bail out! rmmod orca failed: the KUnit build of orca cannot be loaded"
        exit 1
    fi
else
    pass "kunit: no orca.ko loaded before the KUnit build"
fi
[[ -d $dbg ]] || diag "$dbg is not there (no CONFIG_KUNIT_DEBUGFS?): the results come from the kernel log"

t0=$(now_us)
out=$(insmod "$kunit_ko" 2>&1)
load_rc=$?
ok "$load_rc" "kunit: the KUnit build of orca.ko loads; its suites ran during the load ($(secs_since "$t0") s)"
((load_rc)) && diag "insmod rc=$load_rc" "$out"

# The kernel log from the mark on, read once.
klog=''
seen=0
while IFS= read -r line; do
    if ((seen)); then klog+=$line$'\n'; elif [[ $line == *"$mark"* ]]; then seen=1; fi
done < <(dmesg --notime 2>&1)
((seen)) || diag "the mark is not in the kernel log (wrapped?): debugfs only"

for s in "${suites[@]}"; do
    PLAN=() SUITE_ST=() ST=() NAME=() WHY=() DIAG=()
    [[ -r $dbg/$s/results ]] && parse_suite "$s" d < "$dbg/$s/results"
    parse_suite "$s" k <<< "$klog"
    plan=${PLAN[d]:-${PLAN[k]:-}}
    if [[ -z $plan ]]; then
        fail "kunit $s: the suite's results (none in $dbg/$s/results or the kernel log: it did not run)"
        continue
    fi
    [[ -n ${PLAN[d]:-} ]] || diag "$s: no $dbg/$s/results; results from the kernel log"
    failed=0
    for ((n = 1; n <= plan; n++)); do
        src=d
        [[ -n ${ST[d:$n]:-} ]] || src=k
        if [[ -z ${ST[$src:$n]:-} ]]; then
            fail "kunit $s.#$n: a result line for case $n of $plan (none in $dbg/$s/results or the kernel log)"
            failed=1
            continue
        fi
        [[ $src == d || -z ${PLAN[d]:-} ]] ||
            diag "$s case $n: not in $dbg/$s/results (its log is cut at 512 bytes); from the kernel log"
        case ${ST[$src:$n]} in
        ok) pass "kunit $s.${NAME[$src:$n]}" ;;
        skip) skip "kunit $s.${NAME[$src:$n]}" "${WHY[$src:$n]}" ;;
        *)
            fail "kunit $s.${NAME[$src:$n]}"
            failed=1
            [[ -n ${DIAG[$src:$n]} ]] && diag "${DIAG[$src:$n]}"
            ;;
        esac
    done
    sst=${SUITE_ST[d]:-${SUITE_ST[k]:-}}
    if [[ -z $sst ]]; then
        fail "kunit $s: the suite's own result line (none: crashed or cut short?)"
    elif [[ $sst != ok ]] && ((!failed)); then
        fail "kunit $s: the suite reports '$sst' with no failed case (suite init or exit failed?)"
        [[ -r $dbg/$s/results ]] && diag "$(< "$dbg/$s/results")"
    fi
done

# ---------------------------------------------------------------- restore
t0=$(now_us)
if [[ -d /sys/module/orca ]]; then
    out=$(timeout -k 5 120 rmmod orca 2>&1)
    rc=$?
    ok "$rc" "kunit: the KUnit build of orca.ko unloads ($(secs_since "$t0") s)"
    ((rc)) && diag "rc=$rc" "$out"
else
    # a failed init left nothing loaded
    ok "$load_rc" "kunit: the KUnit build of orca.ko unloads (it is not loaded)"
fi

t0=$(now_us)
out=$(insmod "$ko" 2>&1)
rc=$?
((rc == 0)) && { wait_dev 1 "${ORCA_WAIT:-120}" || rc=1; }
ok "$rc" "kunit: $ko loaded again and $dev back ($(secs_since "$t0") s)"
((rc)) && diag "$out"

# What the kernel's checkers said during the run (debug-report.sh, last,
# judges the whole boot; this names the script).
hits=''
while IFS= read -r line; do
    case $line in
    *KASAN* | *UBSAN* | *"BUG:"* | *"WARNING:"* | *"kernel BUG"* | *Oops* | \
        *"general protection fault"* | *"possible circular locking"* | \
        *"inconsistent lock state"* | *"possible recursive locking"* | \
        *"suspicious RCU usage"* | *"lock held when returning"* | \
        *"sleeping function called"* | *"scheduling while atomic"* | \
        *"blocked for more than"* | *"soft lockup"* | \
        *"list_add corruption"* | *"list_del corruption"* | \
        *"Call Trace"* | *"refcount_t:"*)
        hits+="$line"$'\n' ;;
    esac
done < <(klog_since "$mark")
[[ -z $hits ]]
ok $? "kunit: kernel log during the KUnit run: no oops, BUG, WARNING, KASAN, UBSAN, lockdep or debug-objects report"
[[ -z $hits ]] || diag "$(head -40 <<< "$hits")"

taint1=$(< /proc/sys/kernel/tainted)
diag "kernel taint $taint0 -> $taint1 (KUnit adds TAINT_TEST, 'N', 0x40000, for the rest of the boot)"
diag "kunit.sh took $(secs_since "$t_start") s"
plan "$TAP_N"
done_testing
