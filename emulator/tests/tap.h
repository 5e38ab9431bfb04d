/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Minimal TAP producer: one "ok N - name" line per test case, any number
 * of CHECK()s inside a case, failed checks reported as "# " diagnostics.
 */
#ifndef ORCA_TAP_H
#define ORCA_TAP_H

#include <stdio.h>

static int tap_cases, tap_failed_cases, tap_case_failures;
static unsigned long tap_checks;

#define CHECK(cond)							\
	do {								\
		tap_checks++;						\
		if (!(cond)) {						\
			tap_case_failures++;				\
			printf("#   %s:%d: check failed: %s\n", __FILE__,	\
			       __LINE__, #cond);			\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long long _a = (long long)(a), _b = (long long)(b);	\
		tap_checks++;						\
		if (_a != _b) {						\
			tap_case_failures++;				\
			printf("#   %s:%d: %s == %s failed: 0x%llx != 0x%llx\n", \
			       __FILE__, __LINE__, #a, #b,		\
			       (unsigned long long)_a,			\
			       (unsigned long long)_b);			\
		}							\
	} while (0)

static inline void tap_case(const char *name, int failures_before)
{
	tap_cases++;
	if (tap_case_failures != failures_before)
		tap_failed_cases++;
	printf("%sok %d - %s\n",
	       tap_case_failures != failures_before ? "not " : "", tap_cases,
	       name);
	fflush(stdout);
}

#define RUN(fn)								\
	do {								\
		int _before = tap_case_failures;			\
		fn();							\
		tap_case(#fn, _before);					\
	} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_cases);
	printf("# %d cases, %lu checks, %d failed cases\n", tap_cases,
	       tap_checks, tap_failed_cases);
	return tap_failed_cases ? 1 : 0;
}

#endif /* ORCA_TAP_H */
