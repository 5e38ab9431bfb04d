#!/bin/bash
# Guest test: data-in-order as a reader sees it (tests/tools/dio_poll.c),
# with the device slowed down so that the reader watches messages arrive
# (hostctl place-delay: a pause before each packet's payload, and after
# the first block of a scrambled placement).  What must hold follows from
# what the device reports, so the same test runs on every configuration
# (vm-default: WRITE and SEND whole message, READ 128-byte blocks;
# vm-config: WRITE 128-byte blocks; vm-features-off: no guarantee).
# With --lossy (vm-default), again on a lossy link (5 % of packets
# dropped, 5 % reordered: retransmitted packets rewrite what was placed,
# and still the guarantees hold for the reader).
# Prints TAP; exit status = number of failures.
#   ORCA_BUILD (set by vm.sh), ORCA_DEV (orca0), ORCA_PLACE_DELAY_US (20)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

dev=${ORCA_DEV:-orca0}
delay=${ORCA_PLACE_DELAY_US:-20}
poll=${ORCA_BUILD:?ORCA_BUILD not set (run in the orca VM)}/tests/dio_poll
lossy=0
[[ ${1:-} == --lossy ]] && lossy=1
plan $((2 + lossy))

out=$(hostctl place-delay "$delay" 2>&1)
ok $? "hostctl place-delay $delay: $out"
"$poll" -d "$dev" > "$ORCA_JOB/dio_poll.tap" 2>&1
rc=$?
diag "$(cat "$ORCA_JOB/dio_poll.tap")"
((rc == 0))
ok $? "dio_poll: every guarantee the device reports holds for a polling reader, and less than WHOLE_MSG is caught ($(grep -c '^ok' "$ORCA_JOB/dio_poll.tap") checks passed, $rc failed)"
if ((lossy)); then
    hostctl link-faults 50000,0,50000,0 > /dev/null
    "$poll" -d "$dev" --rounds 12 > "$ORCA_JOB/dio_poll_lossy.tap" 2>&1
    rc=$?
    retr=$(hostctl stats | tr ' ' '\n' | sed -n 's/^retries=//p')
    hostctl link-faults off > /dev/null
    diag "$(cat "$ORCA_JOB/dio_poll_lossy.tap")"
    ((rc == 0))
    ok $? "dio_poll on a lossy link (5 % dropped, 5 % reordered; $retr retransmissions): the same guarantees hold ($(grep -c '^ok' "$ORCA_JOB/dio_poll_lossy.tap") checks passed, $rc failed)"
fi
hostctl place-delay 0 > /dev/null
done_testing
