/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * orca trace events (/sys/kernel/tracing/events/orca/): how every firmware
 * command ended, every asynchronous event dispatched, and the completion
 * event queue's interrupts.  The device is named by its PCI function, as
 * in /sys/kernel/debug/orca/.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM orca

#if !defined(_ORCA_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _ORCA_TRACE_H_

#include <linux/device.h>
#include <linux/tracepoint.h>

#include "orca_com.h"
#include "orca_hw.h"

TRACE_DEFINE_ENUM(ORCA_CMD_RESET);
TRACE_DEFINE_ENUM(ORCA_CMD_INIT);
TRACE_DEFINE_ENUM(ORCA_CMD_TEARDOWN);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_CAPS);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_PORT);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_GID_TABLE);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_PKEY_TABLE);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_COUNTERS);
TRACE_DEFINE_ENUM(ORCA_CMD_MAD_IFC);
TRACE_DEFINE_ENUM(ORCA_CMD_MODIFY_PORT);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_CLOCK);
TRACE_DEFINE_ENUM(ORCA_CMD_ALLOC_PD);
TRACE_DEFINE_ENUM(ORCA_CMD_DEALLOC_PD);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_KICK_RING);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_KICK_RING);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_CQ);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_CQ);
TRACE_DEFINE_ENUM(ORCA_CMD_RESIZE_CQ);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_QP);
TRACE_DEFINE_ENUM(ORCA_CMD_MODIFY_QP);
TRACE_DEFINE_ENUM(ORCA_CMD_QUERY_QP);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_QP);
TRACE_DEFINE_ENUM(ORCA_CMD_ATTACH_MCAST);
TRACE_DEFINE_ENUM(ORCA_CMD_DETACH_MCAST);
TRACE_DEFINE_ENUM(ORCA_CMD_REG_MR);
TRACE_DEFINE_ENUM(ORCA_CMD_DEREG_MR);
TRACE_DEFINE_ENUM(ORCA_CMD_REREG_MR);
TRACE_DEFINE_ENUM(ORCA_CMD_ALLOC_MW);
TRACE_DEFINE_ENUM(ORCA_CMD_DEALLOC_MW);
TRACE_DEFINE_ENUM(ORCA_CMD_ALLOC_MR);
TRACE_DEFINE_ENUM(ORCA_CMD_ALLOC_DM);
TRACE_DEFINE_ENUM(ORCA_CMD_DEALLOC_DM);
TRACE_DEFINE_ENUM(ORCA_CMD_REG_DM_MR);
TRACE_DEFINE_ENUM(ORCA_CMD_CREATE_AH);
TRACE_DEFINE_ENUM(ORCA_CMD_DESTROY_AH);

#define show_orca_cmd_opcode(op)					\
	__print_symbolic(op,						\
			 { ORCA_CMD_RESET, "RESET" },			\
			 { ORCA_CMD_INIT, "INIT" },			\
			 { ORCA_CMD_TEARDOWN, "TEARDOWN" },		\
			 { ORCA_CMD_QUERY_CAPS, "QUERY_CAPS" },		\
			 { ORCA_CMD_QUERY_PORT, "QUERY_PORT" },		\
			 { ORCA_CMD_QUERY_GID_TABLE, "QUERY_GID_TABLE" }, \
			 { ORCA_CMD_QUERY_PKEY_TABLE, "QUERY_PKEY_TABLE" }, \
			 { ORCA_CMD_QUERY_COUNTERS, "QUERY_COUNTERS" },	\
			 { ORCA_CMD_MAD_IFC, "MAD_IFC" },		\
			 { ORCA_CMD_MODIFY_PORT, "MODIFY_PORT" },	\
			 { ORCA_CMD_QUERY_CLOCK, "QUERY_CLOCK" },	\
			 { ORCA_CMD_ALLOC_PD, "ALLOC_PD" },		\
			 { ORCA_CMD_DEALLOC_PD, "DEALLOC_PD" },		\
			 { ORCA_CMD_CREATE_KICK_RING, "CREATE_KICK_RING" }, \
			 { ORCA_CMD_DESTROY_KICK_RING, "DESTROY_KICK_RING" }, \
			 { ORCA_CMD_CREATE_CQ, "CREATE_CQ" },		\
			 { ORCA_CMD_DESTROY_CQ, "DESTROY_CQ" },		\
			 { ORCA_CMD_RESIZE_CQ, "RESIZE_CQ" },		\
			 { ORCA_CMD_CREATE_QP, "CREATE_QP" },		\
			 { ORCA_CMD_MODIFY_QP, "MODIFY_QP" },		\
			 { ORCA_CMD_QUERY_QP, "QUERY_QP" },		\
			 { ORCA_CMD_DESTROY_QP, "DESTROY_QP" },		\
			 { ORCA_CMD_ATTACH_MCAST, "ATTACH_MCAST" },	\
			 { ORCA_CMD_DETACH_MCAST, "DETACH_MCAST" },	\
			 { ORCA_CMD_REG_MR, "REG_MR" },			\
			 { ORCA_CMD_DEREG_MR, "DEREG_MR" },		\
			 { ORCA_CMD_REREG_MR, "REREG_MR" },		\
			 { ORCA_CMD_ALLOC_MW, "ALLOC_MW" },		\
			 { ORCA_CMD_DEALLOC_MW, "DEALLOC_MW" },		\
			 { ORCA_CMD_ALLOC_MR, "ALLOC_MR" },		\
			 { ORCA_CMD_ALLOC_DM, "ALLOC_DM" },		\
			 { ORCA_CMD_DEALLOC_DM, "DEALLOC_DM" },	\
			 { ORCA_CMD_REG_DM_MR, "REG_DM_MR" },	\
			 { ORCA_CMD_CREATE_AH, "CREATE_AH" },		\
			 { ORCA_CMD_DESTROY_AH, "DESTROY_AH" })

TRACE_DEFINE_ENUM(ORCA_STATUS_OK);
TRACE_DEFINE_ENUM(ORCA_STATUS_BAD_OPCODE);
TRACE_DEFINE_ENUM(ORCA_STATUS_BAD_PARAM);
TRACE_DEFINE_ENUM(ORCA_STATUS_BAD_RESOURCE);
TRACE_DEFINE_ENUM(ORCA_STATUS_BAD_RES_STATE);
TRACE_DEFINE_ENUM(ORCA_STATUS_BAD_QP_STATE);
TRACE_DEFINE_ENUM(ORCA_STATUS_NO_RESOURCES);
TRACE_DEFINE_ENUM(ORCA_STATUS_UNSUPPORTED);
TRACE_DEFINE_ENUM(ORCA_STATUS_BAD_LEN);
TRACE_DEFINE_ENUM(ORCA_STATUS_DMA_FAULT);
TRACE_DEFINE_ENUM(ORCA_STATUS_NOT_READY);
TRACE_DEFINE_ENUM(ORCA_STATUS_INTERNAL);

#define show_orca_cmd_status(status)					\
	__print_symbolic(status,					\
			 { ORCA_STATUS_OK, "OK" },			\
			 { ORCA_STATUS_BAD_OPCODE, "BAD_OPCODE" },	\
			 { ORCA_STATUS_BAD_PARAM, "BAD_PARAM" },	\
			 { ORCA_STATUS_BAD_RESOURCE, "BAD_RESOURCE" },	\
			 { ORCA_STATUS_BAD_RES_STATE, "BAD_RES_STATE" }, \
			 { ORCA_STATUS_BAD_QP_STATE, "BAD_QP_STATE" },	\
			 { ORCA_STATUS_NO_RESOURCES, "NO_RESOURCES" },	\
			 { ORCA_STATUS_UNSUPPORTED, "UNSUPPORTED" },	\
			 { ORCA_STATUS_BAD_LEN, "BAD_LEN" },		\
			 { ORCA_STATUS_DMA_FAULT, "DMA_FAULT" },	\
			 { ORCA_STATUS_NOT_READY, "NOT_READY" },	\
			 { ORCA_STATUS_INTERNAL, "INTERNAL" },		\
			 { ORCA_CMD_STATUS_TIMEOUT, "TIMEOUT" },	\
			 { ORCA_CMD_STATUS_DEAD, "DEAD" },		\
			 { ORCA_CMD_STATUS_NO_SLOT, "NO_SLOT" })

TRACE_DEFINE_ENUM(ORCA_EQE_QP_EVENT);
TRACE_DEFINE_ENUM(ORCA_EQE_PORT_EVENT);
TRACE_DEFINE_ENUM(ORCA_EQE_CQ_ERROR);
TRACE_DEFINE_ENUM(ORCA_EQE_DEVICE_FATAL);

#define show_orca_eqe_type(type)					\
	__print_symbolic(type,						\
			 { ORCA_EQE_QP_EVENT, "QP_EVENT" },		\
			 { ORCA_EQE_PORT_EVENT, "PORT_EVENT" },		\
			 { ORCA_EQE_CQ_ERROR, "CQ_ERROR" },		\
			 { ORCA_EQE_DEVICE_FATAL, "DEVICE_FATAL" })

TRACE_DEFINE_ENUM(ORCA_QP_EV_FATAL);
TRACE_DEFINE_ENUM(ORCA_QP_EV_SQ_DRAINED);
TRACE_DEFINE_ENUM(ORCA_QP_EV_SQ_ERROR);
TRACE_DEFINE_ENUM(ORCA_QP_EV_REQ_ERR);
TRACE_DEFINE_ENUM(ORCA_QP_EV_ACCESS_ERR);
TRACE_DEFINE_ENUM(ORCA_QP_EV_COMM_EST);
TRACE_DEFINE_ENUM(ORCA_QP_EV_LAST_WQE_REACHED);

#define show_orca_qp_event(event)					\
	__print_symbolic(event,						\
			 { ORCA_QP_EV_FATAL, "FATAL" },			\
			 { ORCA_QP_EV_SQ_DRAINED, "SQ_DRAINED" },	\
			 { ORCA_QP_EV_SQ_ERROR, "SQ_ERROR" },		\
			 { ORCA_QP_EV_REQ_ERR, "REQ_ERR" },		\
			 { ORCA_QP_EV_ACCESS_ERR, "ACCESS_ERR" },	\
			 { ORCA_QP_EV_COMM_EST, "COMM_EST" },		\
			 { ORCA_QP_EV_LAST_WQE_REACHED, "LAST_WQE_REACHED" })

TRACE_DEFINE_ENUM(ORCA_PORT_EV_ACTIVE);
TRACE_DEFINE_ENUM(ORCA_PORT_EV_DOWN);

#define show_orca_port_event(event)					\
	__print_symbolic(event,						\
			 { ORCA_PORT_EV_ACTIVE, "ACTIVE" },		\
			 { ORCA_PORT_EV_DOWN, "DOWN" })

TRACE_DEFINE_ENUM(ORCA_QPS_RESET);
TRACE_DEFINE_ENUM(ORCA_QPS_INIT);
TRACE_DEFINE_ENUM(ORCA_QPS_RTR);
TRACE_DEFINE_ENUM(ORCA_QPS_RTS);
TRACE_DEFINE_ENUM(ORCA_QPS_SQD);
TRACE_DEFINE_ENUM(ORCA_QPS_SQE);
TRACE_DEFINE_ENUM(ORCA_QPS_ERR);

#define show_orca_qp_state(state)					\
	__print_symbolic(state,						\
			 { ORCA_QPS_RESET, "RESET" },			\
			 { ORCA_QPS_INIT, "INIT" },			\
			 { ORCA_QPS_RTR, "RTR" },			\
			 { ORCA_QPS_RTS, "RTS" },			\
			 { ORCA_QPS_SQD, "SQD" },			\
			 { ORCA_QPS_SQE, "SQE" },			\
			 { ORCA_QPS_ERR, "ERR" })

#ifndef _ORCA_TRACE_HELPERS_
#define _ORCA_TRACE_HELPERS_
/* What an asynchronous EQE names, by type (orca_async_event). */
static inline void orca_trace_eqe(const struct orca_eqe *eqe, u32 *num,
				  u8 *event, u8 *state, u32 *syndrome)
{
	*num = 0;
	*event = 0;
	*state = 0;
	*syndrome = 0;
	switch (eqe->type) {
	case ORCA_EQE_QP_EVENT:
		*num = le32_to_cpu(eqe->qp.qpn);
		*event = eqe->qp.event;
		*state = eqe->qp.state;
		break;
	case ORCA_EQE_PORT_EVENT:
		*num = eqe->port.port;
		*event = eqe->port.event;
		break;
	case ORCA_EQE_CQ_ERROR:
		*num = le32_to_cpu(eqe->cq.cqn);
		*syndrome = le32_to_cpu(eqe->cq.syndrome);
		break;
	case ORCA_EQE_DEVICE_FATAL:
		*syndrome = le32_to_cpu(eqe->fatal.syndrome);
		break;
	}
}
#endif

/*
 * One firmware command, when orca_com_exec() returns: completed by the
 * device (status is its ORCA_STATUS_*), or given up (TIMEOUT, DEAD,
 * NO_SLOT; token 0 if it was never posted).  err is what the caller got,
 * latency_us the time since the command was submitted.
 */
TRACE_EVENT(orca_cmd,
	    TP_PROTO(const struct device *dev, u16 opcode, u16 token,
		     u16 status, u32 syndrome, int err, s64 latency_us),
	    TP_ARGS(dev, opcode, token, status, syndrome, err, latency_us),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u16, opcode)
			     __field(u16, token)
			     __field(u16, status)
			     __field(u32, syndrome)
			     __field(int, err)
			     __field(s64, latency_us)
	    ),
	    TP_fast_assign(__assign_str(dev);
			   __entry->opcode = opcode;
			   __entry->token = token;
			   __entry->status = status;
			   __entry->syndrome = syndrome;
			   __entry->err = err;
			   __entry->latency_us = latency_us;
	    ),
	    TP_printk("%s %s opcode=0x%02x token=0x%04x status=%s (0x%x) syndrome=0x%x err=%d latency_us=%lld",
		      __get_str(dev), show_orca_cmd_opcode(__entry->opcode),
		      __entry->opcode, __entry->token,
		      show_orca_cmd_status(__entry->status), __entry->status,
		      __entry->syndrome, __entry->err, __entry->latency_us)
);

/*
 * One asynchronous event, as the driver dispatches it (also the
 * DEVICE_FATAL the driver makes up when it declares the device dead).
 * num is the QPN, CQN or port the entry names, 0 for DEVICE_FATAL; event
 * and state are the QP event and the QP's state after it, or the port
 * event; syndrome is the CQ error's or the fatal error's.
 */
TRACE_EVENT(orca_async_event,
	    TP_PROTO(const struct device *dev, const struct orca_eqe *eqe),
	    TP_ARGS(dev, eqe),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u8, type)
			     __field(u8, event)
			     __field(u8, state)
			     __field(u32, num)
			     __field(u32, syndrome)
	    ),
	    TP_fast_assign(__assign_str(dev);
			   __entry->type = eqe->type;
			   orca_trace_eqe(eqe, &__entry->num, &__entry->event,
					  &__entry->state, &__entry->syndrome);
	    ),
	    TP_printk("%s %s num=%u event=%s state=%s syndrome=0x%x",
		      __get_str(dev), show_orca_eqe_type(__entry->type),
		      __entry->num,
		      __entry->type == ORCA_EQE_QP_EVENT ?
		      show_orca_qp_event(__entry->event) :
		      __entry->type == ORCA_EQE_PORT_EVENT ?
		      show_orca_port_event(__entry->event) : "-",
		      __entry->type == ORCA_EQE_QP_EVENT ?
		      show_orca_qp_state(__entry->state) : "-",
		      __entry->syndrome)
);

/*
 * One completion EQ interrupt: the consumer index before, the device's
 * producer index, how many entries were consumed and how many completion
 * events the device reports as dropped since the previous interrupt.
 */
TRACE_EVENT(orca_ceq_irq,
	    TP_PROTO(const struct device *dev, u32 ci, u32 pi, u32 consumed,
		     u32 dropped),
	    TP_ARGS(dev, ci, pi, consumed, dropped),
	    TP_STRUCT__entry(__string(dev, dev_name(dev))
			     __field(u32, ci)
			     __field(u32, pi)
			     __field(u32, consumed)
			     __field(u32, dropped)
	    ),
	    TP_fast_assign(__assign_str(dev);
			   __entry->ci = ci;
			   __entry->pi = pi;
			   __entry->consumed = consumed;
			   __entry->dropped = dropped;
	    ),
	    TP_printk("%s ci=%u pi=%u consumed=%u dropped=%u",
		      __get_str(dev), __entry->ci, __entry->pi,
		      __entry->consumed, __entry->dropped)
);

#endif /* _ORCA_TRACE_H_ */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE orca_trace
#include <trace/define_trace.h>
