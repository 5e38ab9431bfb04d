#!/bin/bash
# Guest test: libibverbs' ibv_srq_pingpong on orca0, server and client in
# this guest (exchange on 127.0.0.1): 16 RC QPs per side receive through one
# shared receive queue each, with -c (every received buffer validated).
# Passes if both sides exit 0 and print their rate line.
#   ORCA_DEV (orca0), ORCA_PP_ITERS (100), ORCA_PP_TIMEOUT (120 s)
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"

dev=${ORCA_DEV:-orca0}
iters=${ORCA_PP_ITERS:-100}
limit=${ORCA_PP_TIMEOUT:-120}
port=18600
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 2

ip link set lo up
args=(-d "$dev" -g 0 -n "$iters" -p "$port" -c)
timeout -k 5 "$limit" ibv_srq_pingpong "${args[@]}" > "$tmp/server" 2>&1 &
spid=$!
wait_until "$ORCA_WAIT" listening_or_ended "$port" "$spid"
listening "$port" || diag "the server did not listen on port $port within $ORCA_WAIT s"
t0=$(now_us)
timeout -k 5 "$limit" ibv_srq_pingpong "${args[@]}" 127.0.0.1 > "$tmp/client" 2>&1
crc=$?
wait "$spid"
src=$?
secs=$(secs_since "$t0")
rate=$(grep -m1 'bytes in' "$tmp/client")
[[ $crc == 0 && $src == 0 && -n $rate ]]
ok $? "ibv_srq_pingpong -n $iters -c: client and server exit 0 in $secs s: $rate"
if ((crc || src)); then
    diag "client rc $crc, server rc $src" "$(tail -n 5 "$tmp/client")" \
        "$(tail -n 5 "$tmp/server")"
fi
grep -q 'bytes in' "$tmp/server"
ok $? "the server side reports its rate too: $(grep -m1 'bytes in' "$tmp/server")"
done_testing
