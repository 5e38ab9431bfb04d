/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* Big-endian fields of @n bytes in MADs and packets, for the tests. */
#ifndef ORCA_EMU_TESTS_BE_H
#define ORCA_EMU_TESTS_BE_H

#include <stdint.h>

static inline void put_be(uint8_t *p, uint64_t v, int n)
{
	int i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * (n - 1 - i));
}

static inline uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

#endif /* ORCA_EMU_TESTS_BE_H */
