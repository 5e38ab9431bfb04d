/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Force-included (-include) into a real source file of the provider or the
 * device model, so that each of its accesses to memory it shares goes
 * through a recorder before it is done: the order of the accesses and
 * fences the code really makes, for tests/models/ties.c to hold against
 * the model checkers' steps.  The builtins keep their meaning (a macro is
 * not expanded again inside its own expansion).
 */
#ifndef ORCA_TRACE_ATOMICS_H
#define ORCA_TRACE_ATOMICS_H

enum mt_kind { MT_LOAD, MT_STORE, MT_RMW, MT_FENCE };

void mt_record(enum mt_kind kind, const volatile void *addr, int order);

#define __atomic_load_n(p, o) \
	(mt_record(MT_LOAD, (p), (o)), __atomic_load_n((p), (o)))
#define __atomic_store_n(p, v, o) \
	(mt_record(MT_STORE, (p), (o)), __atomic_store_n((p), (v), (o)))
#define __atomic_compare_exchange_n(p, e, d, w, so, fo) \
	(mt_record(MT_RMW, (p), (so)), \
	 __atomic_compare_exchange_n((p), (e), (d), (w), (so), (fo)))
#define __atomic_fetch_add(p, v, o) \
	(mt_record(MT_RMW, (p), (o)), __atomic_fetch_add((p), (v), (o)))
#define __atomic_add_fetch(p, v, o) \
	(mt_record(MT_RMW, (p), (o)), __atomic_add_fetch((p), (v), (o)))
#define __atomic_exchange_n(p, v, o) \
	(mt_record(MT_RMW, (p), (o)), __atomic_exchange_n((p), (v), (o)))
#define __atomic_thread_fence(o) \
	(mt_record(MT_FENCE, 0, (o)), __atomic_thread_fence(o))

#endif
