#!/bin/bash
# Guest test for a guest with RAM above 4 GiB (stage vm-bigmem): the
# driver's queues really live there (the kernel hands out ZONE_NORMAL
# first), so the device worked through the high part of its memory map.
# Without that the other tests of the boot would prove nothing about it.
# Then a region of 2.25 GiB in 4 KiB pages (build/tests/big_mr): more
# than 2^19 page-list entries, which the driver used to refuse (one
# contiguous list of at most 4 MiB); now a chain of 4 KiB chunks, and an
# RDMA WRITE and READ beyond 2 GiB through it.
# Prints TAP; exit status = number of failures.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
plan 3

mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
(( mem > 4 * 1024 * 1024 ))
ok $? "the guest has more than 4 GiB of RAM (MemTotal ${mem} kB)"

s=$(hostctl stats)
high=${s##* dma_high=}
high=${high%% *}
(( high >= 0x100000000 ))
ok $? "the device touched guest memory above 4 GiB (highest address + 1: $high)"

t0=$(now_us)
out=$("${ORCA_BUILD:?ORCA_BUILD not set (run in the orca VM)}/tests/big_mr" -d "${ORCA_DEV:-orca0}" 2>&1)
rc=$?
ok "$rc" "big_mr: a 2.25 GiB region in 4 KiB pages registers, RDMA WRITE and READ beyond 2 GiB ($(secs_since "$t0") s)"
diag "$out"
done_testing
