#!/bin/bash
# Guest side of make bench's two-host part (first guest of scripts/vm2.sh):
# rxe0 on the guest link of both guests, then tests/bench/perf.sh with the
# servers on the other guest: orca0 <-> orca0 through orca-fabric and
# rxe0 <-> rxe0 over the guest link, in the same boot.
# Writes $ORCA_JOB/bench2/perf.txt, perf_table.txt and drops.txt (the
# emulators' retry, window and queue-drop counters after the run).
set -u
here=$(dirname "${BASH_SOURCE[0]}")
OUT=$ORCA_JOB/bench2
mkdir -p "$OUT"
peer --wait 180 true || { echo "twohost bench: the second guest does not answer"; exit 1; }
modprobe rdma_rxe
peer "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev \$ORCA_LINK_IF" || exit 1
rdma link add rxe0 type rxe netdev "$ORCA_LINK_IF" || exit 1
"$here/perf.sh" "$OUT"
# what the transport did meanwhile, on each guest's emulator: with the
# send window and the egress back-pressure, large transfers through the
# switch lose nothing (review-emulator B4)
for who in a b; do
    if [[ $who == a ]]; then s=$(hostctl stats); else s=$(peer hostctl stats); fi
    line="DROPS guest-$who"
    for k in retries window_waits fabric_egress_waits fabric_queue_drops pkts_dropped naks fabric_shm fabric_kicks_sent fabric_ring_waits fabric_direct_links fabric_direct_tx_pkts fabric_direct_kicks_sent; do
        v=" ${s#ok }"
        v=${v##* "$k"=}
        line+=" $k=${v%% *}"
    done
    echo "$line"
done > "$OUT/drops.txt"
cat "$OUT/drops.txt"
