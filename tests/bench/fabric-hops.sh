#!/bin/bash
# First guest of scripts/vm2.sh --topology CHAIN (tests/bench/fabric.sh):
# OpenSM here over a chain of ORCA_HOPS switches, this port in the first,
# the other guest's in the last; then one RC stream, ib_write_bw -D 10
# of 64 KiB messages, from here to there.  Prints key=value lines:
# switches_crossed (ibtracert), bw_mb_s, msg_rate_k.  Exit status 0
# when it measured.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
# shellcheck source=tests/lib/pair.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/pair.sh"
dev=${ORCA_DEV:-orca0}
osm=/tmp/orca-opensm-hops
tmp=$(mktemp -d)
trap 'pkill -TERM -x opensm; rm -rf "$tmp"' EXIT
mkdir -p "$osm"
# shellcheck source=tests/lib/sm.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/sm.sh"

peer --wait 180 true || { echo "error=the second guest does not answer"; exit 1; }
if ! modprobe ib_umad || ! peer "modprobe ib_umad"; then echo "error=no ib_umad"; exit 1; fi
sm_start here "$(port_guid)" "$osm/log"
active() { [[ $(state_of "$(pattr state)") == ACTIVE && $(state_of "$(rattr state)") == ACTIVE ]]; }
if ! wait_until "$ORCA_WAIT" sm_up "$osm/log" || ! wait_until "$ORCA_WAIT" active; then
    echo "error=no SUBNET UP with both ports ACTIVE: $(tail -n 2 "$osm/log" | tr '\n' ' ')"
    exit 1
fi
la=$(lid_of "$(pattr lid)") lb=$(lid_of "$(rattr lid)")
echo "switches_crossed=$(ibtracert "$la" "$lb" 2> /dev/null | grep -c '"orca-fabric s[0-9]*"')"
port=18990
pair_server "$tmp/server" "$port" timeout -k 5 60 ib_write_bw -d "$dev" -p "$port" -D 10 -s 65536 -F ||
    { echo "error=the ib_write_bw server did not listen"; exit 1; }
timeout -k 5 60 ib_write_bw -d "$dev" -p "$port" -D 10 -s 65536 -F "$(pair_server_addr)" > "$tmp/client" 2>&1
crc=$?
wait "$PAIR_SPID"
src=$?
# perftest's result line: bytes, iterations, BW peak, BW average (MiB/s), MsgRate (Mpps)
read -r _ _ _ bw rate < <(awk '$1 == 65536 && NF >= 5' "$tmp/client" | tail -n 1)
if ((crc || src)) || [[ -z ${bw:-} ]]; then
    echo "error=ib_write_bw: client rc $crc, server rc $src: $(tail -n 3 "$tmp/client" | tr '\n' ' ')"
    exit 1
fi
echo "bw_mb_s=$bw"
echo "msg_rate_k=$(awk -v r="$rate" 'BEGIN { printf "%.1f", r * 1000 }')"
