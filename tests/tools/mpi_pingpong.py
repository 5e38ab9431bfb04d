#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""An MPI ping-pong between two ranks with every byte checked.

    mpirun -np 2 ... python3 mpi_pingpong.py [ITERATIONS]

For each size from 1 byte to 1 MiB (powers of 4), rank 0 sends a buffer
whose bytes depend on the size, the iteration and the rank; rank 1 checks
every byte, answers with its own pattern, and rank 0 checks that.  Prints
one line per size (round trips, microseconds per round trip) and a last
line "mpi_pingpong: N messages of M bytes verified, 0 mismatches" from
rank 0; the exit status is 1 if any byte was wrong.
"""
import sys
import time

from mpi4py import MPI


def pattern(size, it, rank):
    seed = (size * 31 + it * 7 + rank * 131) & 0xff
    return bytes((seed + i * 13) & 0xff for i in range(min(size, 4096))) * \
        (size // 4096) + bytes((seed + i * 13) & 0xff for i in range(size % 4096))


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if comm.Get_size() != 2:
        sys.stderr.write('mpi_pingpong: needs exactly 2 ranks\n')
        return 2
    iters = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    peer = 1 - rank
    bad = msgs = nbytes = 0
    size = 1
    while size <= 1 << 20:
        buf = bytearray(size)
        comm.Barrier()
        t0 = time.monotonic()
        for it in range(iters):
            if rank == 0:
                comm.Send([pattern(size, it, 0), MPI.BYTE], dest=peer, tag=it)
                comm.Recv([buf, MPI.BYTE], source=peer, tag=it)
                bad += buf != pattern(size, it, 1)
            else:
                comm.Recv([buf, MPI.BYTE], source=peer, tag=it)
                bad += buf != pattern(size, it, 0)
                comm.Send([pattern(size, it, 1), MPI.BYTE], dest=peer, tag=it)
            msgs += 2
            nbytes += 2 * size
        if rank == 0:
            us = (time.monotonic() - t0) * 1e6 / iters
            print('mpi_pingpong: %8d bytes x %d round trips, %.1f us each'
                  % (size, iters, us), flush=True)
        size *= 4
    bad = comm.allreduce(bad, op=MPI.SUM)
    if rank == 0:
        print('mpi_pingpong: %d messages of %d bytes verified, %d mismatches'
              % (msgs, nbytes, bad), flush=True)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
