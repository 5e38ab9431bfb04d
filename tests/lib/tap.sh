# shellcheck shell=bash
# Tiny TAP helpers for the guest-side test scripts (tests/vm/*.sh).
# Source it; every helper is a bash builtin sequence (fork+exec costs about
# 57 ms in the TCG guest).
#
#   plan N                  print "1..N"
#   ok COND_RC DESC         "ok n - DESC" if COND_RC is 0, else "not ok n - DESC"
#   pass DESC / fail DESC   unconditional
#   nums VALUE...           every VALUE is a decimal number (a query's
#                           result: empty when the query failed)
#   skip DESC REASON        "ok n - DESC # SKIP REASON"
#   is GOT WANT DESC        string equality, with a diagnostic on mismatch
#   diag TEXT...            one "# " line per argument and per line in it
#   now_us                  microseconds since the epoch (no fork)
#   secs_since US           seconds since US, "S.mmm"
#   sleep_s SECONDS         sleep without forking
#   wait_until SECONDS CMD...
#                           run CMD (a command or function) until it
#                           succeeds, every 0.1 s, for at most SECONDS;
#                           status 0 if it did; WAITED = the seconds it
#                           took ("S.mmm"), for a diagnostic
#   listening PORT          a TCP socket of this guest listens on PORT
#   listening_or_ended PORT PID
#                           that, or the server PID has exited (a wait
#                           for a server that failed ends at once)
#   ended PID | -PGID       the process (group) no longer exists
#   fuzz_finish PID SECONDS a verbs_fuzz started with --after-usr1: SIGUSR1
#                           (it makes its last steps and exits), a wait of
#                           at most SECONDS, then SIGKILL; its exit status
#   done_testing            exit status = number of failures (max 255)
#
# No wall-clock asserts (issue 19): CI machines are shared and slow (TCG,
# two busy loops beside the VM, the debug kernel), so a test waits for a
# condition with a generous bound, which costs time only when the test
# fails, and reports the time taken as a diagnostic, never as a pass
# condition.  ORCA_WAIT (seconds, default 120) is that bound, for every
# test that sources this file; "fails fast" is checked by what the driver
# or the device counted (no command posted, none timed out), not by a clock.

TAP_N=0
TAP_FAILED=0

plan() { printf '1..%d\n' "$1"; }
diag() {   # each argument, and each line of it, becomes one comment line
    local a l
    for a; do
        a=${a%$'\n'}
        while IFS= read -r l; do printf '# %s\n' "$l"; done <<< "$a"
    done
}
pass() { TAP_N=$((TAP_N + 1)); printf 'ok %d - %s\n' "$TAP_N" "$1"; }
fail() { TAP_N=$((TAP_N + 1)); TAP_FAILED=$((TAP_FAILED + 1)); printf 'not ok %d - %s\n' "$TAP_N" "$1"; }
ok() { if [[ $1 == 0 ]]; then pass "$2"; else fail "$2"; fi; }
skip() { TAP_N=$((TAP_N + 1)); printf 'ok %d - %s # SKIP %s\n' "$TAP_N" "$1" "$2"; }
is() {
    if [[ $1 == "$2" ]]; then
        pass "$3"
    else
        fail "$3"
        diag "got:  '$1'" "want: '$2'"
    fi
}
now_us() { printf '%s' "${EPOCHREALTIME/./}"; }
secs_since() {
    local d=$(((${EPOCHREALTIME/./} - $1) / 1000))
    printf '%d.%03d' $((d / 1000)) $((d % 1000))
}
_tap_sleep_fd=
sleep_s() {
    [[ -n $_tap_sleep_fd ]] || exec {_tap_sleep_fd}<> <(:)
    read -r -t "$1" -u "$_tap_sleep_fd" _ || :
}
# pos_int VALUE DEFAULT: VALUE if it is a positive integer, else DEFAULT
# (a knob from the environment)
pos_int() { if [[ $1 =~ ^[1-9][0-9]*$ ]]; then echo "$1"; else echo "$2"; fi; }
# nums VALUE...: every VALUE is a decimal number (a counter a query
# returned; a failed query's empty result would read as 0 in (( )))
nums() { local v; for v; do [[ $v =~ ^[0-9]+$ ]] || return 1; done; }
ORCA_WAIT=$(pos_int "${ORCA_WAIT:-}" 120)
export ORCA_WAIT
# WAITED is for the sourcing script:
# shellcheck disable=SC2034
WAITED=0.000
# shellcheck disable=SC2034
wait_until() {
    local bound=$1 t0=${EPOCHREALTIME/./}
    shift
    until "$@"; do
        if (((${EPOCHREALTIME/./} - t0) / 1000000 >= bound)); then
            WAITED=$(secs_since "$t0")
            return 1
        fi
        sleep_s 0.1
    done
    WAITED=$(secs_since "$t0")
    return 0
}
listening() {   # /proc/net/tcp{,6}: local port PORT in state 0A (LISTEN)
    local hex l w f
    printf -v hex ':%04X' "$1"
    for f in /proc/net/tcp /proc/net/tcp6; do
        [[ -r $f ]] || continue
        while IFS= read -r l; do
            read -r -a w <<< "$l"
            [[ ${w[1]} == *"$hex" && ${w[3]} == 0A ]] && return 0
        done < "$f"
    done
    return 1
}
ended() { ! kill -0 -- "$1" 2>/dev/null; }
listening_or_ended() { listening "$1" || ended "$2"; }
fuzz_finish() {
    kill -USR1 "$1" 2>/dev/null
    wait_until "$2" ended "$1" || kill -9 "$1" 2>/dev/null
    wait "$1"
}
done_testing() {
    ((TAP_FAILED > 255)) && TAP_FAILED=255
    exit "$TAP_FAILED"
}
