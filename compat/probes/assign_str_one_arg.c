// SPDX-License-Identifier: GPL-2.0
/* __assign_str(dst) takes the field only, the source is __string()'s (6.10) */
#define CREATE_TRACE_POINTS
#include "assign_str_one_arg_trace.h"
