/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * orca device model, layer 6: the commands.  orca_cmdq.c takes entries
 * off the command queue, checks them and completes them through the EQ;
 * orca_cmd.c holds the opcode table and the device, PD, CQ and AH
 * handlers; orca_cmd_qp.c, orca_cmd_mr.c, orca_cmd_mw.c and
 * orca_cmd_srq.c the handlers of those objects, orca_cmd_mad.c MAD_IFC.  A handler parses and
 * checks its input, then acts on the resources (orca_res.h) and the
 * engine (orca_engine.h).
 */
#ifndef ORCA_CMD_H
#define ORCA_CMD_H

#include "orca_engine.h"

struct cmd_desc {
	uint16_t in_size, out_size;
	bool need_init;		/* only after INIT */
	int (*fn)(struct orca_dev *dev, struct cmd *c);
};

/* orca_cmd.c: every command the device knows, by opcode */
extern const struct cmd_desc orca_cmd_table[256];
void destroy_all(struct orca_dev *dev);
void disarm(struct orca_dev *dev);

/* orca_cmd_qp.c */
int cmd_create_qp(struct orca_dev *dev, struct cmd *c);
int cmd_modify_qp(struct orca_dev *dev, struct cmd *c);
int cmd_query_qp(struct orca_dev *dev, struct cmd *c);
int cmd_destroy_qp(struct orca_dev *dev, struct cmd *c);
int cmd_alloc_mr(struct orca_dev *dev, struct cmd *c);
int cmd_attach_mcast(struct orca_dev *dev, struct cmd *c);
int cmd_detach_mcast(struct orca_dev *dev, struct cmd *c);

/* orca_cmd_mr.c */
int cmd_reg_mr(struct orca_dev *dev, struct cmd *c);
int cmd_dereg_mr(struct orca_dev *dev, struct cmd *c);
int cmd_rereg_mr(struct orca_dev *dev, struct cmd *c);
int cmd_alloc_dm(struct orca_dev *dev, struct cmd *c);
int cmd_dealloc_dm(struct orca_dev *dev, struct cmd *c);
int cmd_reg_dm_mr(struct orca_dev *dev, struct cmd *c);

/* orca_cmd_mw.c */
int cmd_alloc_mw(struct orca_dev *dev, struct cmd *c);
int cmd_dealloc_mw(struct orca_dev *dev, struct cmd *c);

/* orca_cmd_mad.c: MAD_IFC (orca_fw_mad.c answers), MODIFY_PORT */
int cmd_mad_ifc(struct orca_dev *dev, struct cmd *c);
int cmd_modify_port(struct orca_dev *dev, struct cmd *c);

/* orca_cmd_srq.c */
int cmd_create_srq(struct orca_dev *dev, struct cmd *c);
int cmd_modify_srq(struct orca_dev *dev, struct cmd *c);
int cmd_query_srq(struct orca_dev *dev, struct cmd *c);
int cmd_destroy_srq(struct orca_dev *dev, struct cmd *c);

/* orca_cmdq.c: the command queue */
void flush_pending(struct orca_dev *dev);
void process_cmdq(struct orca_dev *dev);

#endif /* ORCA_CMD_H */
