#!/bin/bash
# Guest test for a guest with RAM above 4 GiB (stage vm-bigmem): the
# driver's queues really live there (the kernel hands out ZONE_NORMAL
# first), so the device worked through the high part of its memory map.
# Without that the other tests of the boot would prove nothing about it.
# Prints TAP; exit status = number of failures.
set -u
# shellcheck source=tests/lib/tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tap.sh"
plan 2

mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
(( mem > 4 * 1024 * 1024 ))
ok $? "the guest has more than 4 GiB of RAM (MemTotal ${mem} kB)"

s=$(hostctl stats)
high=${s##* dma_high=}
high=${high%% *}
(( high >= 0x100000000 ))
ok $? "the device touched guest memory above 4 GiB (highest address + 1: $high)"
done_testing
