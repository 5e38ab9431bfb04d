// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca device model: names of commands, statuses, syndromes and QP
 * states, for logs and counters.
 */
#include "orca_hw.h"
#include "orca_names.h"

const char *orca_opcode_name(unsigned int opcode)
{
	switch (opcode) {
	case ORCA_CMD_RESET:		return "RESET";
	case ORCA_CMD_INIT:		return "INIT";
	case ORCA_CMD_TEARDOWN:		return "TEARDOWN";
	case ORCA_CMD_QUERY_CAPS:	return "QUERY_CAPS";
	case ORCA_CMD_QUERY_PORT:	return "QUERY_PORT";
	case ORCA_CMD_QUERY_GID_TABLE:	return "QUERY_GID_TABLE";
	case ORCA_CMD_QUERY_PKEY_TABLE:	return "QUERY_PKEY_TABLE";
	case ORCA_CMD_QUERY_COUNTERS:	return "QUERY_COUNTERS";
	case ORCA_CMD_MAD_IFC:		return "MAD_IFC";
	case ORCA_CMD_MODIFY_PORT:	return "MODIFY_PORT";
	case ORCA_CMD_QUERY_CLOCK:	return "QUERY_CLOCK";
	case ORCA_CMD_ALLOC_PD:		return "ALLOC_PD";
	case ORCA_CMD_DEALLOC_PD:	return "DEALLOC_PD";
	case ORCA_CMD_CREATE_KICK_RING:	return "CREATE_KICK_RING";
	case ORCA_CMD_DESTROY_KICK_RING: return "DESTROY_KICK_RING";
	case ORCA_CMD_CREATE_CQ:	return "CREATE_CQ";
	case ORCA_CMD_DESTROY_CQ:	return "DESTROY_CQ";
	case ORCA_CMD_RESIZE_CQ:	return "RESIZE_CQ";
	case ORCA_CMD_CREATE_QP:	return "CREATE_QP";
	case ORCA_CMD_MODIFY_QP:	return "MODIFY_QP";
	case ORCA_CMD_QUERY_QP:		return "QUERY_QP";
	case ORCA_CMD_DESTROY_QP:	return "DESTROY_QP";
	case ORCA_CMD_ATTACH_MCAST:	return "ATTACH_MCAST";
	case ORCA_CMD_DETACH_MCAST:	return "DETACH_MCAST";
	case ORCA_CMD_REG_MR:		return "REG_MR";
	case ORCA_CMD_DEREG_MR:		return "DEREG_MR";
	case ORCA_CMD_REREG_MR:		return "REREG_MR";
	case ORCA_CMD_ALLOC_MW:		return "ALLOC_MW";
	case ORCA_CMD_ALLOC_MR:		return "ALLOC_MR";
	case ORCA_CMD_ALLOC_DM:		return "ALLOC_DM";
	case ORCA_CMD_DEALLOC_DM:	return "DEALLOC_DM";
	case ORCA_CMD_REG_DM_MR:	return "REG_DM_MR";
	case ORCA_CMD_DEALLOC_MW:	return "DEALLOC_MW";
	case ORCA_CMD_CREATE_AH:	return "CREATE_AH";
	case ORCA_CMD_DESTROY_AH:	return "DESTROY_AH";
	case ORCA_CMD_CREATE_SRQ:	return "CREATE_SRQ";
	case ORCA_CMD_MODIFY_SRQ:	return "MODIFY_SRQ";
	case ORCA_CMD_QUERY_SRQ:	return "QUERY_SRQ";
	case ORCA_CMD_DESTROY_SRQ:	return "DESTROY_SRQ";
	}
	return "UNKNOWN";
}

const char *orca_status_name(unsigned int status)
{
	static const char *const names[] = {
		"OK", "BAD_OPCODE", "BAD_PARAM", "BAD_RESOURCE",
		"BAD_RES_STATE", "BAD_QP_STATE", "NO_RESOURCES", "UNSUPPORTED",
		"BAD_LEN", "DMA_FAULT", "NOT_READY", "INTERNAL",
	};

	return status < ARRAY_SIZE(names) ? names[status] : "?";
}

const char *orca_synd_name(unsigned int synd)
{
	static const char *const names[] = {
		"NONE", "IN_LEN", "OUT_LEN", "IN_ADDR", "OUT_ADDR",
		"QUEUE_ADDR", "LIMIT", "HANDLE", "IN_USE", "QP_TYPE",
		"TRANSITION", "MISSING_ATTR", "INVALID_ATTR", "ATTR_RANGE",
		"FLAGS", "ECE", "RESERVED_NZ", "NOT_INIT", "PAGE_LIST", "RING",
	};

	return synd < ARRAY_SIZE(names) ? names[synd] : "?";
}

const char *orca_qps_name(unsigned int state)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}
