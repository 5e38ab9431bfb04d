// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ECE carried by the RDMA connection manager (tests/vm/rdmacm.sh): an RC
 * connection made with rdma_cm between two hosts, each QP created with
 * rdma_create_qp(), so that librdmacm offers the QP's ECE options in the
 * CM REQ (ibv_query_ece), the passive side accepts what both have in its
 * REP, and the active side takes the answer (ibv_set_ece).  Each side
 * prints what the other offered (rdma_get_remote_ece) and what its QP
 * ended with (ibv_query_ece after ESTABLISHED):
 *
 *   cm_ece --server ADDR PORT     wait for one connection on ADDR:PORT
 *   cm_ece --client ADDR PORT     connect to it
 *
 * Output: "cm_ece: server: remote offered 0x.. (vendor 0x..), QP 0x..
 * (vendor 0x..)" (the REQ's options: librdmacm keeps none of the REP's
 * for the active side, it sets them on the QP) and "cm_ece: client: QP
 * 0x.. (vendor 0x..)"; exit status 0 once connected, disconnected and
 * torn down, 1 on any error (printed).
 */
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static struct rdma_event_channel *ch;

static int fail(const char *what, int err)
{
	fprintf(stderr, "cm_ece: %s: %s\n", what, strerror(err));
	return 1;
}

/* The next event, which must be @want; it is acked, its id returned. */
static int wait_event(enum rdma_cm_event_type want, struct rdma_cm_id **id,
		      struct ibv_ece *remote)
{
	struct rdma_cm_event *ev;
	int ret;

	if (rdma_get_cm_event(ch, &ev))
		return fail("rdma_get_cm_event", errno);
	ret = ev->event != want;
	if (ret)
		fprintf(stderr, "cm_ece: event %s (status %d), expected %s\n",
			rdma_event_str(ev->event), ev->status,
			rdma_event_str(want));
	if (id)
		*id = ev->id;
	/* what the peer offered arrives with the REQ and the REP */
	if (remote && !ret && rdma_get_remote_ece(ev->id, remote))
		ret = fail("rdma_get_remote_ece", errno);
	rdma_ack_cm_event(ev);
	return ret;
}

static int make_qp(struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a = {
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	/* librdmacm makes the PD and CQs, and offers the QP's ECE */
	if (rdma_create_qp(id, NULL, &a))
		return fail("rdma_create_qp", errno);
	return 0;
}

static int report(const char *side, struct rdma_cm_id *id,
		  const struct ibv_ece *remote)
{
	struct ibv_ece ece = {};
	int err = ibv_query_ece(id->qp, &ece);

	if (err)
		return fail("ibv_query_ece", err);
	printf("cm_ece: %s: ", side);
	if (remote)
		printf("remote offered 0x%x (vendor 0x%x), ", remote->options,
		       remote->vendor_id);
	printf("QP 0x%x (vendor 0x%x)\n", ece.options, ece.vendor_id);
	fflush(stdout);
	return 0;
}

static int server(struct rdma_addrinfo *ai)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1 };
	struct rdma_cm_id *listen_id, *id;
	struct ibv_ece remote = {};
	int ret = 1;

	if (rdma_create_id(ch, &listen_id, NULL, RDMA_PS_TCP))
		return fail("rdma_create_id", errno);
	if (rdma_bind_addr(listen_id, ai->ai_src_addr) ||
	    rdma_listen(listen_id, 1)) {
		ret = fail("rdma_bind_addr/rdma_listen", errno);
		goto out;
	}
	printf("cm_ece: server: listening\n");
	fflush(stdout);
	if (wait_event(RDMA_CM_EVENT_CONNECT_REQUEST, &id, &remote) ||
	    make_qp(id))
		goto out;
	if (rdma_accept(id, &cp)) {
		ret = fail("rdma_accept", errno);
		goto out_id;
	}
	if (!wait_event(RDMA_CM_EVENT_ESTABLISHED, NULL, NULL) &&
	    !report("server", id, &remote) &&
	    !wait_event(RDMA_CM_EVENT_DISCONNECTED, NULL, NULL))
		ret = 0;
out_id:
	rdma_destroy_qp(id);
	rdma_destroy_id(id);
out:
	rdma_destroy_id(listen_id);
	return ret;
}

static int client(struct rdma_addrinfo *ai)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1, .retry_count = 7 };
	struct rdma_cm_id *id;
	int ret = 1;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		return fail("rdma_create_id", errno);
	if (rdma_resolve_addr(id, NULL, ai->ai_dst_addr, 5000) ||
	    wait_event(RDMA_CM_EVENT_ADDR_RESOLVED, NULL, NULL) ||
	    rdma_resolve_route(id, 5000) ||
	    wait_event(RDMA_CM_EVENT_ROUTE_RESOLVED, NULL, NULL)) {
		fprintf(stderr, "cm_ece: resolving the address and route failed\n");
		goto out;
	}
	if (make_qp(id))
		goto out;
	if (rdma_connect(id, &cp)) {
		fail("rdma_connect", errno);
		goto out_qp;
	}
	if (!wait_event(RDMA_CM_EVENT_ESTABLISHED, NULL, NULL) &&
	    !report("client", id, NULL) && !rdma_disconnect(id) &&
	    !wait_event(RDMA_CM_EVENT_DISCONNECTED, NULL, NULL))
		ret = 0;
out_qp:
	rdma_destroy_qp(id);
out:
	rdma_destroy_id(id);
	return ret;
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *ai;
	bool srv;
	int ret;

	if (argc != 4 || (strcmp(argv[1], "--server") &&
			  strcmp(argv[1], "--client"))) {
		fprintf(stderr, "usage: cm_ece --server|--client ADDR PORT\n");
		return 2;
	}
	srv = !strcmp(argv[1], "--server");
	if (srv)
		hints.ai_flags = RAI_PASSIVE;
	ret = rdma_getaddrinfo(argv[2], argv[3], &hints, &ai);
	if (ret) {
		fprintf(stderr, "cm_ece: rdma_getaddrinfo %s:%s: %s\n", argv[2],
			argv[3], gai_strerror(ret));
		return 1;
	}
	ch = rdma_create_event_channel();
	if (!ch)
		return fail("rdma_create_event_channel", errno);
	ret = srv ? server(ai) : client(ai);
	rdma_freeaddrinfo(ai);
	rdma_destroy_event_channel(ch);
	return ret;
}
