/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Standalone replacement for the part of rdma-core's libibverbs/cmd_ioctl.h
 * the orca provider uses: a command buffer for one uverbs ioctl method with
 * room for a few attributes, filled with object handles and output
 * pointers, run by libibverbs' execute_ioctl() or chained into one of its
 * ibv_cmd_*() calls as the driver's part.  In-tree builds use the real
 * header; the provider source is the same for both.
 *
 * struct ibv_command_buffer is libibverbs' own and crosses the library
 * boundary (execute_ioctl(), ibv_cmd_query_context() read it and follow
 * its link): its members are declared in upstream order and pinned by
 * the static_asserts below (unchanged from rdma-core 20 to 65, x86_64).
 * The real DECLARE_COMMAND_BUFFER sizes a stack array for any number of
 * attributes and chain; here the number must be a constant and no chain
 * is made, all the provider needs.
 */
#ifndef ORCA_COMPAT_CMD_IOCTL_H
#define ORCA_COMPAT_CMD_IOCTL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <rdma/rdma_user_ioctl_cmds.h>

struct ibv_context;

struct ibv_command_buffer {
	struct ibv_command_buffer *next;	/* a chained (core) part */
	struct ib_uverbs_attr *next_attr;	/* the next one to fill */
	struct ib_uverbs_attr *last_attr;	/* one past the room */
	uint8_t uhw_in_idx;
	uint8_t uhw_out_idx;
	uint8_t uhw_in_headroom_dwords;
	uint8_t uhw_out_headroom_dwords;
	uint8_t buffer_error:1;
	uint8_t fallback_require_ex:1;
	uint8_t fallback_ioctl_only:1;
	struct ib_uverbs_ioctl_hdr hdr;		/* attrs[] follow */
};

static_assert(offsetof(struct ibv_command_buffer, uhw_in_idx) == 24,
	      "ibv_command_buffer layout");
static_assert(offsetof(struct ibv_command_buffer, hdr) == 32,
	      "ibv_command_buffer layout");
static_assert(sizeof(struct ibv_command_buffer) == 56,
	      "ibv_command_buffer layout");

/* libibverbs' "no UHW attribute" index */
#define ORCA_COMPAT_UHW_NONE	0xff

/*
 * @_name: a struct ibv_command_buffer * to a buffer on the stack for
 * method @_method of object @_object with room for @_n attributes.
 */
#define DECLARE_COMMAND_BUFFER(_name, _object, _method, _n)		\
	struct {							\
		struct ibv_command_buffer b;				\
		struct ib_uverbs_attr a[_n];				\
	} _name##_storage = {						\
		.b = {							\
			.next_attr = _name##_storage.b.hdr.attrs,	\
			.last_attr = _name##_storage.b.hdr.attrs + (_n), \
			.uhw_in_idx = ORCA_COMPAT_UHW_NONE,		\
			.uhw_out_idx = ORCA_COMPAT_UHW_NONE,		\
			.hdr = { .object_id = (_object),		\
				 .method_id = (_method) },		\
		},							\
	};								\
	struct ibv_command_buffer *const _name = &_name##_storage.b

static inline struct ib_uverbs_attr *
orca_compat_next_attr(struct ibv_command_buffer *cmd, uint16_t attr_id)
{
	struct ib_uverbs_attr *attr;

	assert(cmd->next_attr < cmd->last_attr);
	attr = cmd->next_attr++;
	*attr = (struct ib_uverbs_attr){
		.attr_id = attr_id,
		.flags = UVERBS_ATTR_F_MANDATORY,
	};
	return attr;
}

/* An object handle (UVERBS_ATTR_TYPE_IDR): the handle is the data. */
static inline struct ib_uverbs_attr *
fill_attr_in_obj(struct ibv_command_buffer *cmd, uint16_t attr_id,
		 uint32_t handle)
{
	struct ib_uverbs_attr *attr = orca_compat_next_attr(cmd, attr_id);

	attr->data = handle;
	return attr;
}

/* Where the kernel writes @len bytes (UVERBS_ATTR_TYPE_PTR_OUT). */
static inline struct ib_uverbs_attr *
fill_attr_out(struct ibv_command_buffer *cmd, uint16_t attr_id, void *data,
	      size_t len)
{
	struct ib_uverbs_attr *attr = orca_compat_next_attr(cmd, attr_id);

	if (len > UINT16_MAX)
		cmd->buffer_error = 1;
	attr->len = len;
	attr->data = (uintptr_t)data;
	return attr;
}

#define fill_attr_out_ptr(cmd, attr_id, ptr)				\
	fill_attr_out(cmd, attr_id, ptr, sizeof(*(ptr)))

int execute_ioctl(struct ibv_context *context, struct ibv_command_buffer *cmd);

#endif /* ORCA_COMPAT_CMD_IOCTL_H */
