#!/bin/bash
# Guest test: RC over a lossy link.  The emulator's link drops, duplicates
# and reorders packets (hostctl link-faults DROP,DUP,REORDER,DELAY, per
# million packets); RC must still deliver every message once, whole and in
# order.  ibv_rc_pingpong -c validates every received buffer; ib_write_bw
# and ib_send_bw must complete under 5 % loss, and tests/tools/twohost
# checks every byte of SEND, WRITE, READ, atomics and UD under it (UD may
# lose a message: the loss is the test's; see below); the counters must
# show what the link did and the retransmissions it caused.
# In the first guest of scripts/vm2.sh the servers run in the other guest
# and both emulators' links are lossy (tests/lib/pair.sh).
# Prints TAP; exit status = number of failures.
#   ORCA_DEV (orca0), ORCA_LOSSY_TIMEOUT (180 s per run),
#   ORCA_LOSSY_HEAVY (1: also 20 % loss, where a READ may exhaust its
#   retries and one run takes minutes; make check sets 0, make soak 1)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"

dev=${ORCA_DEV:-orca0}
limit=${ORCA_LOSSY_TIMEOUT:-180}
heavy=${ORCA_LOSSY_HEAVY:-1}
[[ $heavy == [01] ]] || heavy=1
build=${ORCA_BUILD:-$(dirname "${BASH_SOURCE[0]}")/../../build}
port=18700
tmp=$(mktemp -d)
trap 'hostctl_all link-faults off > /dev/null 2>&1; rm -rf "$tmp"' EXIT
plan $((12 + heavy))

ip link set lo up

declare -A s0 s1 first
# delta NAME: how much counter NAME grew from snapshot s0 to s1
delta() { printf '%s' $((${s1[$1]:-0} - ${s0[$1]:-0})); }

# pair PROG ARGS...: server and client on a fresh port; sets crc src secs
pair() {
    local p=$1 t0
    shift
    port=$((port + 1))
    pair_server "$tmp/server" "$port" timeout -k 5 "$limit" "$p" -d "$dev" -p "$port" "$@"
    spid=$PAIR_SPID
    t0=$(now_us)
    timeout -k 5 "$limit" "$p" -d "$dev" -p "$port" "$@" "$(pair_server_addr)" > "$tmp/client" 2>&1
    crc=$?
    wait "$spid"
    src=$?
    secs=$(secs_since "$t0")
}

report() {   # report DESC: ok if both sides exited 0, with the details if not
    [[ $crc == 0 && $src == 0 ]]
    ok $? "$1: client and server exit 0 in $secs s"
    if ((crc || src)); then
        diag "client rc $crc, server rc $src" "$(tail -n 6 "$tmp/client")" \
            "$(tail -n 6 "$tmp/server")"
    fi
}

# ibv_rc_pingpong ends without a handshake: each side destroys its QP once
# its own 100 sends and receives are done.  When the link loses the ACK
# of the last message, its sender retransmits to a QP that is gone and
# ends with "transport retry counter exceeded", as it would on a real
# fabric.  That is no loss of data: the other side has received (and -c
# validated) all 100 messages, so every message of the failing side did
# arrive.  So: both exit 0, or one completes all 100 iterations and the
# other's only error is the retry count (pair.sh's own "# pair:" line in a
# remote server's log is no output of the program's).
teardown_race() {   # teardown_race DONE_LOG FAILED_LOG
    grep -q '100 iters' "$1" &&
        grep -q 'transport retry counter exceeded' "$2" &&
        ! grep -v -e 'transport retry counter exceeded' -e 'parse WC failed' \
            -e 'address:' -e 'bytes in' -e 'iters in' -e '^# pair: ' "$2" | grep -q .
}

pingpong() {   # pingpong FAULTS DESC
    emu_stats s0
    hostctl_all link-faults "$1" > /dev/null
    pair ibv_rc_pingpong -g 0 -s 16384 -n 100 -c
    hostctl_all link-faults off > /dev/null
    if ((crc == 0 && src != 0)) && teardown_race "$tmp/client" "$tmp/server"; then
        diag "the server's last ACK was lost after the client had validated all 100 messages and gone: teardown race"
        src=0
    elif ((src == 0 && crc != 0)) && teardown_race "$tmp/server" "$tmp/client"; then
        diag "the client's last ACK was lost after the server had validated all 100 messages and gone: teardown race"
        crc=0
    fi
    report "ibv_rc_pingpong -s 16384 -n 100 -c, $2 (every buffer validated)"
    emu_stats s1
    diag "link: $(delta link_drops) dropped, $(delta link_dups) duplicated, $(delta link_reorders) reordered; $(delta retries) retransmissions"
}

emu_stats first
pingpong 10000,0,0,0 "1 % loss"
pingpong 50000,0,0,0 "5 % loss"
((heavy)) && pingpong 200000,0,0,0 "20 % loss"
pingpong 0,50000,0,0 "5 % duplicated"
pingpong 0,0,50000,0 "5 % reordered"
pingpong 30000,30000,30000,100 "3 % of each, 100 us delay"

emu_stats s0
hostctl_all link-faults 50000,0,0,0 > /dev/null
for p in ib_write_bw ib_send_bw; do
    pair "$p" -n 200 -s 65536
    if ((crc)) && grep -qs "Can't produce a report" "$tmp/client" "$tmp/server"; then
        diag "$p: perftest could not calibrate the CPU clock; retrying once"
        pair "$p" -n 200 -s 65536
    fi
    report "$p -n 200 -s 65536 under 5 % loss: $(grep -A1 '#bytes' "$tmp/client" | tail -n 1 | tr -s ' ')"
done
# every verb of the data path, every byte checked by its receiver
port=$((port + 1))
th=(--lossy)
pair_remote || th+=(--one-port)
pair_server "$tmp/server" "$port" timeout -k 5 "$limit" "$build/tests/twohost" -d "$dev" --server "$port" "${th[@]}" ||
    diag "twohost --server did not listen"
timeout -k 5 "$limit" "$build/tests/twohost" -d "$dev" --connect "$(pair_server_addr):$port" "${th[@]}" > "$tmp/client" 2>&1
crc=$?
wait "$PAIR_SPID"
src=$?
[[ $crc == 0 && $src == 0 ]] && ! grep -q '^not ok' "$tmp/client"
ok $? "tests/tools/twohost under 5 % loss: $(grep -c '^ok' "$tmp/client") checks of SEND, WRITE, READ, atomics and UD data passed, $(grep -c '^not ok' "$tmp/client") failed (client rc $crc, server rc $src)"
diag "$(grep -h 'UD messages arrived' "$tmp/server")"
((crc || src)) && diag "$(grep '^not ok' "$tmp/client")" "$(tail -n 8 "$tmp/server")"
hostctl_all link-faults off > /dev/null
emu_stats s1
d=$(delta link_drops) r=$(delta retries)
((d > 0 && r > 0))
ok $? "perftest under 5 % loss: the link dropped $d packets and the device retransmitted $r times"

# the link is clean again: no more faults, no more retransmissions
emu_stats s0
pair ibv_rc_pingpong -g 0 -s 16384 -n 50 -c
report "ibv_rc_pingpong on the clean link again"
emu_stats s1
[[ -n ${s0[retries]:-} && -n ${s1[retries]:-} ]] && (($(delta link_drops) == 0 && $(delta retries) == 0))
ok $? "clean link: no drop, no retransmission ($(delta link_drops) dropped, $(delta retries) retransmissions)"
out=$(hostctl link-faults 1000001,0,0,0 2>&1)
[[ $out == error* ]]
ok $? "hostctl link-faults refuses a rate above one million: $out"
diag "retransmissions over the whole test: $((${s1[retries]:-0} - ${first[retries]:-0}))"
done_testing
