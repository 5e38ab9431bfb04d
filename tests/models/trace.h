/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The trace of tests/models: what the real code recorded through
 * trace_atomics.h, worded as the model checkers word their steps
 * ("store rec; fence; load awake"), and TAP.
 */
#ifndef ORCA_MODELS_TRACE_H
#define ORCA_MODELS_TRACE_H

#include <stdbool.h>
#include <stddef.h>

#include "trace_atomics.h"

#define OPS_LEN		1024

/* record from now on (true) or not; true also forgets what was traced */
void trace_on(bool on);
/* forget every named region */
void trace_forget_regions(void);
/* @len bytes at @addr are the model's variable @name; NULL: leave out */
void name_region(const volatile void *addr, size_t len, const char *name);
/*
 * The trace in the model's words.  A load or store of memory no region
 * names is "load ?" / "store ?": the model knows of no such access.
 * @collapse: a run of one operation counts once ("load rec; load rec" is
 * "load rec": the model reads "the records" as one step).
 */
void trace_ops(char *buf, size_t len, bool collapse);
/* a run of one operation in @buf as one */
void collapse_runs(char *buf);

/* TAP: one test, the code's and the model's operations as diagnostics */
void ok(bool pass, const char *what, const char *real, const char *model);
int done_testing(void);

/* the model checkers' sides, alone (emulator/tests/test_*_model.c) */
void kick_model_poster_ops(int cons, int prod, int awake, char *buf,
			   size_t len);
void kick_model_device_ops(int cons, int prod, int ovf, char *buf,
			   size_t len);
void dbhint_model_ops(bool device_side, char *buf, size_t len);

#endif
