#!/bin/bash
# Guest side of make bench's two-host part (first guest of scripts/vm2.sh):
# rxe0 on the guest link of both guests, then tests/bench/perf.sh with the
# servers on the other guest: orca0 <-> orca0 through orca-fabric and
# rxe0 <-> rxe0 over the guest link, in the same boot.
# Writes $ORCA_JOB/bench2/perf.txt and perf_table.txt.
set -u
here=$(dirname "${BASH_SOURCE[0]}")
OUT=$ORCA_JOB/bench2
mkdir -p "$OUT"
peer --wait 180 true || { echo "twohost bench: the second guest does not answer"; exit 1; }
modprobe rdma_rxe
peer "modprobe rdma_rxe && rdma link add rxe0 type rxe netdev \$ORCA_LINK_IF" || exit 1
rdma link add rxe0 type rxe netdev "$ORCA_LINK_IF" || exit 1
"$here/perf.sh" "$OUT"
