/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: the guest's physical memory map.
 *
 * Guest RAM is one file (QEMU memory-backend-file), but it is not mapped
 * 1:1 at guest physical addresses: QEMU splits it below 4 GiB to leave
 * room for PCI, and maps the rest at 4 GiB.  A DMA address is a guest
 * physical address, so every access is translated to a file offset here,
 * and refused unless it lies wholly inside one RAM region.
 */
#ifndef ORCA_DMA_H
#define ORCA_DMA_H

#include <stdbool.h>
#include <stdint.h>

#define ORCA_GIB		(1ULL << 30)
#define ORCA_4G			(4ULL << 30)

enum orca_machine {
	ORCA_MACHINE_PC		= 0,	/* -machine pc (i440fx) */
	ORCA_MACHINE_Q35	= 1,	/* -machine q35 */
};

struct orca_ram_region {
	uint64_t gpa;		/* guest physical start */
	uint64_t len;
	uint64_t off;		/* offset in the RAM file */
};

struct orca_memmap {
	struct orca_ram_region r[2];	/* below 4 GiB, at 4 GiB */
	unsigned int n;
};

/*
 * The map QEMU 7.2 builds for @machine with @ram_size bytes of RAM, or
 * with the split at @below_4g when it is not 0 (taken as is: QEMU's
 * max-ram-below-4g only lowers its own split, so pass what QEMU ends up
 * with; also lets tests use a small RAM file).
 */
void orca_memmap_init(struct orca_memmap *m, unsigned int machine,
		      uint64_t ram_size, uint64_t below_4g);

/* RAM below 4 GiB QEMU 7.2 gives @machine with @ram_size bytes. */
uint64_t orca_memmap_below_4g(unsigned int machine, uint64_t ram_size);

/*
 * The file offset of [gpa, gpa + len) if that range is RAM, all of it in
 * one region (overflow-safe); false otherwise.
 */
bool orca_memmap_translate(const struct orca_memmap *m, uint64_t gpa,
			   uint64_t len, uint64_t *off);

#endif /* ORCA_DMA_H */
