/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: one command being executed, and how whatever
 * executes it (a handler, or a resource it creates) refuses it: fail()
 * sets the status, syndrome and a reason the command queue logs.
 */
#ifndef ORCA_RESULT_H
#define ORCA_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "orca_hw.h"

struct cmd {
	unsigned int opcode;
	uint16_t token;
	uint32_t in_len, out_len;
	uint64_t in_mbox, out_mbox;
	const void *in;		/* dev->in_buf, in_len bytes */
	void *out;		/* dev->out_buf, zeroed, out_size bytes */
	uint32_t out_size;	/* min(out_len, what the command returns) */
	uint8_t status;
	uint32_t synd;
	char why[192];
};

/* Returns @status, so that a handler can "return fail(...)". */
int fail(struct cmd *c, uint8_t status, uint32_t synd, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool all_zero(const void *p, size_t len);

#define CHECK_RESERVED(c, field)					\
	do {								\
		if (!all_zero(&(field), sizeof(field)))			\
			return fail(c, ORCA_STATUS_BAD_PARAM,		\
				    ORCA_SYND_RESERVED_NZ,		\
				    "reserved field '%s' not zero", #field); \
	} while (0)

#endif /* ORCA_RESULT_H */
