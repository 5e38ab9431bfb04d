// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: guest physical address -> RAM file offset.
 *
 * The split follows QEMU 7.2: hw/i386/pc_piix.c pc_init1() keeps up to
 * 3.5 GiB (0xe0000000) below 4 GiB, or 3 GiB (0xc0000000) once the guest
 * has 3.5 GiB or more (gigabyte_align, the default of pc-i440fx-7.2);
 * hw/i386/pc_q35.c keeps up to 2.75 GiB (0xb0000000), or 2 GiB once the
 * guest has that much.  The rest of RAM is mapped at 4 GiB and follows
 * the low part in the file (memory_region_init_alias at offset
 * below_4g_mem_size).  The installed QEMU 7.2 agrees ("info mtree":
 * the ram-below-4g and ram-above-4g aliases of pc.ram).
 */
#include "orca_dma.h"

uint64_t orca_memmap_below_4g(unsigned int machine, uint64_t ram_size)
{
	uint64_t lowmem;

	if (machine == ORCA_MACHINE_Q35)
		lowmem = ram_size >= 0xb0000000ULL ? 0x80000000ULL :
						     0xb0000000ULL;
	else
		lowmem = ram_size >= 0xe0000000ULL ? 0xc0000000ULL :
						     0xe0000000ULL;
	return ram_size < lowmem ? ram_size : lowmem;
}

void orca_memmap_init(struct orca_memmap *m, unsigned int machine,
		      uint64_t ram_size, uint64_t below_4g)
{
	uint64_t low = below_4g ? below_4g : orca_memmap_below_4g(machine,
								   ram_size);

	if (low > ram_size)
		low = ram_size;
	m->n = 0;
	if (low)
		m->r[m->n++] = (struct orca_ram_region){ 0, low, 0 };
	if (ram_size > low)
		m->r[m->n++] = (struct orca_ram_region){ ORCA_4G,
							 ram_size - low, low };
}

bool orca_memmap_translate(const struct orca_memmap *m, uint64_t gpa,
			   uint64_t len, uint64_t *off)
{
	unsigned int i;

	for (i = 0; i < m->n; i++) {
		const struct orca_ram_region *r = &m->r[i];

		if (gpa < r->gpa || gpa - r->gpa > r->len ||
		    len > r->len - (gpa - r->gpa))
			continue;
		*off = r->off + (gpa - r->gpa);
		return true;
	}
	return false;
}
