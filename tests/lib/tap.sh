# shellcheck shell=bash
# Tiny TAP helpers for the guest-side test scripts (tests/vm/*.sh).
# Source it; every helper is a bash builtin sequence (fork+exec costs about
# 57 ms in the TCG guest).
#
#   plan N                  print "1..N"
#   ok COND_RC DESC         "ok n - DESC" if COND_RC is 0, else "not ok n - DESC"
#   pass DESC / fail DESC   unconditional
#   skip DESC REASON        "ok n - DESC # SKIP REASON"
#   is GOT WANT DESC        string equality, with a diagnostic on mismatch
#   diag TEXT...            one "# " line per argument and per line in it
#   now_us                  microseconds since the epoch (no fork)
#   secs_since US           seconds since US, "S.mmm"
#   sleep_s SECONDS         sleep without forking
#   done_testing            exit status = number of failures (max 255)

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
done_testing() {
    ((TAP_FAILED > 255)) && TAP_FAILED=255
    exit "$TAP_FAILED"
}
