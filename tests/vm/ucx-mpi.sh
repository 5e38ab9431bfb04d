#!/bin/bash
# Guest test, first guest of scripts/vm2.sh --sm none (OpenSM up): UCX and
# Open MPI between the hosts on orca0, user verbs through the orca
# provider (UCX's rc_verbs and ud_verbs transports; rc_mlx5 and friends
# need mlx5dv and never apply).
#  - ucx_info -d lists rc_verbs and ud_verbs on orca0:1;
#  - ucx_perftest between the hosts (server there): UCT rc_verbs put and
#    am, bcopy and zcopy; UCT ud_verbs am; UCP tag_lat and tag_bw over
#    rc_verbs,ud_verbs: a Final: row and both ends exit 0 for each;
#  - Open MPI 4.1 (UCX PML; mpirun reaches the other guest through
#    tests/lib/peer-rsh): tests/tools/mpi_pingpong.py, one rank a host,
#    1 byte to 1 MiB, every byte of every message checked, and this
#    device carried the bytes (its transmit counters grew by at least
#    what rank 0 sent).
# Prints TAP.  ORCA_DEV (orca0), ORCA_PEER_ADDR (the other guest).
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"

dev=${ORCA_DEV:-orca0}
lib=$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)
tools=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)
limit=300
port=13400
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
plan 9
if ! pair_remote; then
    echo "Bail out! ucx-mpi.sh needs the second guest of scripts/vm2.sh"
    exit 1
fi
there=$(pair_server_addr)
here=$(ip -4 -o addr show eth0 | awk '{ sub(/\/.*/, "", $4); print $4; exit }')


ucx_info -d > "$tmp/info" 2>&1
grep -q 'Transport: rc_verbs' "$tmp/info" && grep -q 'Transport: ud_verbs' "$tmp/info" &&
    grep -q "Device: $dev:1" "$tmp/info"
ok $? "ucx_info -d: rc_verbs and ud_verbs on $dev:1"

# perf DESC ENV... -- ARGS...: ucx_perftest ARGS, server there, client here
perf() {
    local d=$1 envs=() crc src row
    shift
    while [[ $1 != -- ]]; do envs+=("$1"); shift; done
    shift
    port=$((port + 1))
    pair_server "$tmp/server" "$port" env "${envs[@]}" timeout -k 5 "$limit" ucx_perftest -p "$port" ||
        diag "ucx_perftest server did not listen" "$(tail -n 3 "$tmp/server")"
    env "${envs[@]}" timeout -k 5 "$limit" ucx_perftest "$there" -p "$port" "$@" > "$tmp/client" 2>&1
    crc=$?
    wait "$PAIR_SPID"
    src=$?
    row=$(grep -A2 'Final:' "$tmp/client" | head -n 1 | tr -s ' ')
    [[ $crc == 0 && $src == 0 && -n $row ]]
    ok $? "ucx_perftest $d:${row:- no Final row} (client rc $crc, server rc $src)"
    ((crc || src)) && diag "$(tail -n 6 "$tmp/client")" "$(tail -n 4 "$tmp/server")"
}
uct=(UCX_NET_DEVICES="$dev:1")
perf "UCT rc_verbs put_bw zcopy 64 KiB" "${uct[@]}" -- -d "$dev:1" -x rc_verbs -t put_bw -D zcopy -s 65536 -n 200
perf "UCT rc_verbs put_bw bcopy 8 KiB" "${uct[@]}" -- -d "$dev:1" -x rc_verbs -t put_bw -D bcopy -s 8192 -n 500
# rc_verbs' active messages are at most one 8 KiB segment
perf "UCT rc_verbs am_bw zcopy 8 KiB" "${uct[@]}" -- -d "$dev:1" -x rc_verbs -t am_bw -D zcopy -s 8192 -n 500
perf "UCT rc_verbs am_lat bcopy" "${uct[@]}" -- -d "$dev:1" -x rc_verbs -t am_lat -D bcopy -s 64 -n 1000
perf "UCT ud_verbs am_lat bcopy" "${uct[@]}" -- -d "$dev:1" -x ud_verbs -t am_lat -D bcopy -s 64 -n 1000
ucp=(UCX_NET_DEVICES="$dev:1" "UCX_TLS=rc_verbs,ud_verbs,self")
perf "UCP tag_lat over rc_verbs,ud_verbs" "${ucp[@]}" -- -t tag_lat -s 1024 -n 1000
perf "UCP tag_bw over rc_verbs,ud_verbs" "${ucp[@]}" -- -t tag_bw -s 65536 -n 200

# Open MPI: one rank here (rank 0), one there
b0=$(emu_stat_on here pkt_bytes)
timeout -k 5 "$limit" mpirun --allow-run-as-root -np 2 -H "$here,$there" \
    --mca plm_rsh_agent "$lib/peer-rsh" --mca pml ucx --mca pml_ucx_devices any \
    --mca btl self,tcp --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 \
    -x UCX_NET_DEVICES="$dev:1" -x UCX_TLS=rc_verbs,ud_verbs,self \
    /usr/bin/python3 "$tools/mpi_pingpong.py" 5 > "$tmp/mpi" 2>&1
rc=$?
sent=$(awk '/verified/ { print $5 / 2 }' "$tmp/mpi")
b1=$(emu_stat_on here pkt_bytes)
# a failed query (empty) never reads as 0
nums "$b0" "$b1" && moved=$((b1 - b0)) || moved=query-failed
[[ $rc == 0 ]] && grep -q ' 0 mismatches' "$tmp/mpi" && nums "$moved" "$sent" &&
    ((moved >= sent))
ok $? "mpirun, UCX PML, 2 hosts: $(grep verified "$tmp/mpi") (exit $rc); $dev sent $moved payload bytes, rank 0 $sent"
((rc)) && diag "$(tail -n 12 "$tmp/mpi")"
done_testing
