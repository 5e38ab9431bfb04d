/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM orca_probe

#if !defined(ORCA_PROBE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define ORCA_PROBE_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(orca_probe,
	    TP_PROTO(const char *name),
	    TP_ARGS(name),
	    TP_STRUCT__entry(__string(name, name)),
	    TP_fast_assign(__assign_str(name);),
	    TP_printk("%s", __get_str(name))
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE assign_str_one_arg_trace
#include <trace/define_trace.h>
