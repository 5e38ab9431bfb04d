/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model: logging.  Every line goes to stderr (or the --log
 * file) with an "orca-emu[pid] sec.msec" prefix so that a reviewer can
 * interleave it with guest and harness logs.
 */
#ifndef ORCA_LOG_H
#define ORCA_LOG_H

#include <stdio.h>

void orca_log_set_file(FILE *f);
/* The program in the prefix (default orca-emu). */
void orca_log_set_name(const char *name);
/* Non-zero silences orca_log() (unit tests that provoke errors on purpose). */
void orca_log_set_quiet(int quiet);
void orca_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* ORCA_LOG_H */
