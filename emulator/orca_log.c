// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "orca_log.h"

static FILE *log_file;
static int log_quiet;
static const char *log_name = "orca-emu";

void orca_log_set_name(const char *name)
{
	log_name = name;
}

void orca_log_set_file(FILE *f)
{
	log_file = f;
}

void orca_log_set_quiet(int quiet)
{
	log_quiet = quiet;
}

void orca_log(const char *fmt, ...)
{
	FILE *f = log_file ? log_file : stderr;
	struct timespec ts;
	va_list ap;

	if (log_quiet)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(f, "%s[%d] %ld.%03ld: ", log_name, (int)getpid(),
		(long)ts.tv_sec, ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fflush(f);
}
