/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Reading a libFuzzer input as a stream of little values: once it is
 * used up every read returns zeros, so any input is a complete program.
 * A broken device invariant prints why and aborts, which libFuzzer
 * reports as a crash with the input that caused it.
 */
#ifndef ORCA_EMU_FUZZ_INPUT_H
#define ORCA_EMU_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline void fz_bytes(struct fz *z, void *dst, size_t len)
{
	size_t k = len < z->n ? len : z->n;

	memcpy(dst, z->p, k);
	memset((uint8_t *)dst + k, 0, len - k);
	z->p += k;
	z->n -= k;
}

static inline uint8_t fz_u8(struct fz *z)
{
	uint8_t v;

	fz_bytes(z, &v, 1);
	return v;
}

static inline uint16_t fz_u16(struct fz *z)
{
	uint16_t v;

	fz_bytes(z, &v, 2);
	return le16toh(v);
}

static inline uint32_t fz_u32(struct fz *z)
{
	uint32_t v;

	fz_bytes(z, &v, 4);
	return le32toh(v);
}

static inline uint64_t fz_u64(struct fz *z)
{
	uint64_t v;

	fz_bytes(z, &v, 8);
	return le64toh(v);
}

#define FZ_ASSERT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "device invariant broken: %s: ",	\
				#cond);					\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

#endif /* ORCA_EMU_FUZZ_INPUT_H */
