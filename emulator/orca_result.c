// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: how a command handler says why it refused.
 */
#include <stdarg.h>
#include <stdio.h>

#include "orca_result.h"

int fail(struct cmd *c, uint8_t status, uint32_t synd,
	 const char *fmt, ...)
{
	va_list ap;

	c->status = status;
	c->synd = synd;
	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	return status;
}

bool all_zero(const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len--)
		if (*b++)
			return false;
	return true;
}
