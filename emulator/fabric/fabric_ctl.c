// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric: control socket.  As orca-emu's (ctl.c): SOCK_STREAM, one
 * request per line, one reply line starting with "ok" or "error".
 *
 *   ping    ok pong ports=N lids=N
 *   stats   ok ports=N lids=N bad_msgs=N queue_drops=N (every port's
 *           lidL_queue_drops together) direct_links=N direct_opened=N
 *           direct_failed=N (fabric_direct.c; lidL_in and lidL_out
 *           count the packets through them too), then per port GUID the SM
 *           knows, by its LID L: lidL_guid lidL_node lidL_lmc lidL_state
 *           (active, down or gone) lidL_in lidL_out lidL_bytes_in
 *           lidL_bytes_out lidL_dropped lidL_queue_drops lidL_connects
 *
 * In switch mode (--sm none) the switch has ports, not LIDs:
 *
 *   ping    ok pong ports=N switch_ports=N
 *   stats   ok mode=switch ports=N switch_ports=N bad_msgs=N lid=L
 *           (then drop_WHY=N, traps_*=N of port 0's SMA, and per port)
 *           (port 0's, from the SM) drop_<why>=N for every reason of
 *           enum fab_sw_drop, then per switch port P = 0..N: pP_guid
 *           (the cabled port GUID; port 0: the switch's) pP_state
 *           (down, init, armed, active) pP_phys (linkup, polling,
 *           disabled) pP_xmit_pkts pP_rcv_pkts pP_xmit_bytes
 *           pP_rcv_bytes (LRH..ICRC) pP_xmit_discards pP_vl15_dropped
 *           pP_relay_errors pP_rcv_errors pP_connects
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fabric.h"
#include "orca_log.h"

int fab_ctl_open(struct fabric *f, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, e;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, 4) < 0) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	f->ctl_fd = fd;
	f->ctl_path = path;
	return 0;
}

void fab_ctl_close(struct fabric *f)
{
	int i;

	for (i = 0; i < FAB_CTL_CLIENTS; i++) {
		if (f->ctl[i].fd >= 0)
			close(f->ctl[i].fd);
		f->ctl[i].fd = -1;
	}
	if (f->ctl_fd >= 0) {
		close(f->ctl_fd);
		unlink(f->ctl_path);
	}
	f->ctl_fd = -1;
}

int fab_ctl_pollfds(struct fabric *f, struct pollfd *pfd)
{
	int i, n = 0;

	if (f->ctl_fd < 0)
		return 0;
	pfd[n++] = (struct pollfd){ .fd = f->ctl_fd, .events = POLLIN };
	for (i = 0; i < FAB_CTL_CLIENTS; i++)
		pfd[n++] = (struct pollfd){ .fd = f->ctl[i].fd,
					    .events = POLLIN };
	return n;
}

static const char *lid_state(const struct fab_lid *l)
{
	if (l->conn < 0)
		return "gone";
	return l->up ? "active" : "down";
}

static const char *phys_name(uint8_t phys)
{
	switch (phys) {
	case ORCA_MAD_PHYS_LINKUP:
		return "linkup";
	case ORCA_MAD_PHYS_POLLING:
		return "polling";
	case ORCA_MAD_PHYS_DISABLED:
		return "disabled";
	}
	return "other";
}

/* Switch @s of the topology; the first one's are what 'stats' says. */
static void switch_stats(struct fabric *f, unsigned int s, char *reply,
			 size_t len)
{
	struct fab_switch *sw = f->topo->sw[s];
	unsigned int i;
	size_t off;

	off = snprintf(reply, len,
		       "ok mode=switch ports=%u switch_ports=%u bad_msgs=%llu lid=%u switch=%s switches=%u links=%u isl_pkts=%llu isl_retrains=%llu direct_links=%u direct_opened=%llu direct_failed=%llu",
		       f->n_conns, sw->nports,
		       (unsigned long long)f->bad_msgs, sw->node.port[0].lid,
		       f->topo->name[s], f->topo->n_sw, f->topo->n_links,
		       (unsigned long long)f->topo->isl_pkts,
		       (unsigned long long)f->topo->isl_retrains, f->n_direct,
		       (unsigned long long)f->direct_opened,
		       (unsigned long long)f->direct_failed);
	for (i = 0; i < FAB_SW_DROP_NR && off < len; i++)
		off += snprintf(reply + off, len - off, " drop_%s=%llu",
				fab_sw_drop_name(i),
				(unsigned long long)sw->drops[i]);
	if (off < len)
		off += snprintf(reply + off, len - off,
				" traps_raised=%llu traps_sent=%llu traps_resent=%llu traps_repressed=%llu traps_unanswered=%llu traps_coalesced=%llu traps_no_sm=%llu",
				(unsigned long long)sw->node.traps.raised,
				(unsigned long long)sw->node.traps.sent,
				(unsigned long long)sw->node.traps.resent,
				(unsigned long long)sw->node.traps.repressed,
				(unsigned long long)sw->node.traps.unanswered,
				(unsigned long long)sw->node.traps.coalesced,
				(unsigned long long)sw->node.traps.no_sm);
	/* its links to other fabrics, by port */
	for (i = 0; i < f->topo->n_remote && off < len; i++) {
		const struct fab_remote *r = &f->topo->remote[i];

		if (r->sw != s)
			continue;
		off += snprintf(reply + off, len - off,
				" p%u_remote=%s p%u_remote_frames_out=%llu p%u_remote_frames_in=%llu p%u_remote_drops=%llu p%u_remote_connects=%llu p%u_remote_bad_frames=%llu p%u_remote_loss_ppm=%u p%u_remote_delay_us=%u p%u_remote_fault_drops=%llu p%u_remote_delayed=%llu p%u_remote_sends=%llu",
				r->port, r->up ? "up" :
				r->admin_down ? "pulled" : "down",
				r->port, (unsigned long long)r->frames_out,
				r->port, (unsigned long long)r->frames_in,
				r->port, (unsigned long long)r->drops,
				r->port, (unsigned long long)r->connects,
				r->port, (unsigned long long)r->bad_frames,
				r->port, r->fault.loss_ppm, r->port,
				r->fault.delay_us, r->port,
				(unsigned long long)r->fault.drops, r->port,
				(unsigned long long)r->fault.delayed, r->port,
				(unsigned long long)r->sends);
	}
	/* the faults of its ends of links to switches here */
	for (i = 1; i <= sw->nports && off < len; i++) {
		const struct fab_fault *ft = f->topo->isl_fault[s][i];

		if (!ft)
			continue;
		off += snprintf(reply + off, len - off,
				" p%u_isl_loss_ppm=%u p%u_isl_delay_us=%u p%u_isl_fault_drops=%llu p%u_isl_delayed=%llu p%u_isl_overflows=%llu",
				i, ft->loss_ppm, i, ft->delay_us,
				i, (unsigned long long)ft->drops,
				i, (unsigned long long)ft->delayed,
				i, (unsigned long long)ft->overflows);
	}
	for (i = 0; i <= sw->nports && off < len; i++) {
		const struct orca_mad_port *mp = &sw->node.port[i];
		const uint64_t *c = sw->port[i].pma.c;

		off += snprintf(reply + off, len - off,
				" p%u_guid=0x%016llx p%u_state=%s p%u_phys=%s p%u_xmit_pkts=%llu p%u_rcv_pkts=%llu p%u_xmit_bytes=%llu p%u_rcv_bytes=%llu p%u_xmit_discards=%llu p%u_vl15_dropped=%llu p%u_relay_errors=%llu p%u_rcv_errors=%llu p%u_connects=%llu",
				i, (unsigned long long)(i ? sw->port[i].guid :
							sw->node.node_guid),
				i, fab_sw_state_name(mp->state),
				i, phys_name(mp->phys_state),
				i, (unsigned long long)c[ORCA_PMA_XMIT_PKTS],
				i, (unsigned long long)c[ORCA_PMA_RCV_PKTS],
				i, (unsigned long long)c[ORCA_PMA_XMIT_BYTES],
				i, (unsigned long long)c[ORCA_PMA_RCV_BYTES],
				i, (unsigned long long)c[ORCA_PMA_XMIT_DISCARDS],
				i, (unsigned long long)c[ORCA_PMA_VL15_DROPPED],
				i, (unsigned long long)
				c[ORCA_PMA_RCV_SWITCH_RELAY_ERRORS],
				i, (unsigned long long)c[ORCA_PMA_RCV_ERRORS],
				i, (unsigned long long)sw->port[i].connects);
	}
	if (off >= len && len > 4)
		strcpy(reply + len - 4, "...");
}

void fab_ctl_execute(struct fabric *f, const char *line, char *reply,
		     size_t len)
{
	unsigned long long queue_drops = 0;
	size_t off;
	unsigned int i;

	if (!strcmp(line, "ping")) {
		if (f->topo)
			snprintf(reply, len, "ok pong ports=%u switch_ports=%u switches=%u",
				 f->n_conns, f->topo->sw[0]->nports,
				 f->topo->n_sw);
		else
			snprintf(reply, len, "ok pong ports=%u lids=%u",
				 f->n_conns, f->n_lids);
		return;
	}
	/* "link SWITCH:PORT up|down": an inter-switch cable pulled, put back */
	if (f->topo && !strncmp(line, "link ", 5)) {
		char end[64], what[8], err[128];

		if (sscanf(line + 5, "%63s %7s", end, what) != 2 ||
		    (strcmp(what, "up") && strcmp(what, "down"))) {
			snprintf(reply, len, "error link SWITCH:PORT up|down");
			return;
		}
		if (fab_topo_link(f->topo, end, !strcmp(what, "up"), err,
				  sizeof(err))) {
			snprintf(reply, len, "error %s", err);
			return;
		}
		orca_log("inter-switch link %s %s (control socket)", end, what);
		snprintf(reply, len, "ok link %s %s", end, what);
		return;
	}
	/*
	 * "link-faults SWITCH:PORT LOSS_PPM DELAY_US": what that end of an
	 * inter-switch link sends, lost and delayed from now on
	 */
	if (f->topo && !strncmp(line, "link-faults ", 12)) {
		char end[64], err[128];
		unsigned int loss, delay;

		if (sscanf(line + 12, "%63s %u %u", end, &loss, &delay) != 3) {
			snprintf(reply, len, "error link-faults SWITCH:PORT LOSS_PPM DELAY_US");
			return;
		}
		if (fab_topo_link_faults(f->topo, end, loss, delay, err,
					 sizeof(err))) {
			snprintf(reply, len, "error %s", err);
			return;
		}
		orca_log("link %s: loss %u ppm, delay %u us (control socket)",
			 end, loss, delay);
		snprintf(reply, len, "ok link-faults %s %u %u", end, loss,
			 delay);
		return;
	}
	/* "stats SWITCH": that switch of a topology */
	if (f->topo && !strncmp(line, "stats ", 6)) {
		int s = fab_topo_find(f->topo, line + 6);

		if (s < 0)
			snprintf(reply, len, "error no switch '%s'", line + 6);
		else
			switch_stats(f, s, reply, len);
		return;
	}
	if (strcmp(line, "stats")) {
		snprintf(reply, len, "error unknown request '%s' (stats, stats SWITCH, ping)",
			 line);
		return;
	}
	if (f->topo) {
		switch_stats(f, 0, reply, len);
		return;
	}
	/* one number for "did the switch lose anything" */
	for (i = 0; i < f->n_lids; i++)
		queue_drops += f->lids[i].queue_drops;
	off = snprintf(reply, len,
		       "ok ports=%u lids=%u bad_msgs=%llu queue_drops=%llu direct_links=%u direct_opened=%llu direct_failed=%llu",
		       f->n_conns, f->n_lids, (unsigned long long)f->bad_msgs,
		       queue_drops, f->n_direct,
		       (unsigned long long)f->direct_opened,
		       (unsigned long long)f->direct_failed);
	for (i = 0; i < f->n_lids && off < len; i++) {
		const struct fab_lid *l = &f->lids[i];
		unsigned int id = l->lid;
		uint64_t din = 0, dout = 0;

		/* what goes through its direct links, as the rings count it */
		if (l->conn >= 0)
			fab_direct_counts(f, &f->conns[l->conn], &din, &dout);
		off += snprintf(reply + off, len - off,
				" lid%u_guid=0x%016llx lid%u_node=0x%016llx lid%u_lmc=%u lid%u_state=%s lid%u_in=%llu lid%u_out=%llu lid%u_bytes_in=%llu lid%u_bytes_out=%llu lid%u_dropped=%llu lid%u_queue_drops=%llu lid%u_connects=%llu",
				id, (unsigned long long)l->port_guid,
				id, (unsigned long long)l->node_guid,
				id, l->lmc, id, lid_state(l),
				id, (unsigned long long)(l->pkts_in + din),
				id, (unsigned long long)(l->pkts_out + dout),
				id, (unsigned long long)l->bytes_in,
				id, (unsigned long long)l->bytes_out,
				id, (unsigned long long)l->dropped,
				id, (unsigned long long)l->queue_drops,
				id, (unsigned long long)l->connects);
	}
	if (off >= len && len > 4)
		strcpy(reply + len - 4, "...");
}

static void client_drop(struct fab_ctl_client *cl)
{
	close(cl->fd);
	cl->fd = -1;
	cl->len = 0;
}

static void reply_line(struct fab_ctl_client *cl, const char *reply)
{
	size_t len = strlen(reply);

	/* one short line: a blocking send is fine */
	if (send(cl->fd, reply, len, MSG_NOSIGNAL) != (ssize_t)len ||
	    send(cl->fd, "\n", 1, MSG_NOSIGNAL) != 1)
		client_drop(cl);
}

static void client_input(struct fabric *f, struct fab_ctl_client *cl)
{
	static char reply[16384];
	char *nl;
	ssize_t r;

	r = read(cl->fd, cl->buf + cl->len, sizeof(cl->buf) - 1 - cl->len);
	if (r <= 0) {
		if (r < 0 && errno == EINTR)
			return;
		client_drop(cl);
		return;
	}
	cl->len += r;
	cl->buf[cl->len] = '\0';
	while (cl->fd >= 0 && (nl = strchr(cl->buf, '\n'))) {
		*nl = '\0';
		if (nl > cl->buf && nl[-1] == '\r')
			nl[-1] = '\0';
		fab_ctl_execute(f, cl->buf, reply, sizeof(reply));
		reply_line(cl, reply);
		if (cl->fd < 0)
			return;
		cl->len -= nl + 1 - cl->buf;
		memmove(cl->buf, nl + 1, cl->len + 1);
	}
	if (cl->fd >= 0 && cl->len == sizeof(cl->buf) - 1) {
		reply_line(cl, "error request line too long");
		if (cl->fd >= 0)
			client_drop(cl);
	}
}

void fab_ctl_handle(struct fabric *f, const struct pollfd *pfd, int n)
{
	int i, fd;

	if (!n)
		return;
	for (i = 0; i < FAB_CTL_CLIENTS && i + 1 < n; i++)
		if (f->ctl[i].fd >= 0 &&
		    (pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
			client_input(f, &f->ctl[i]);
	if (!(pfd[0].revents & POLLIN))
		return;
	fd = accept4(f->ctl_fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	for (i = 0; i < FAB_CTL_CLIENTS; i++) {
		if (f->ctl[i].fd < 0) {
			f->ctl[i].fd = fd;
			f->ctl[i].len = 0;
			return;
		}
	}
	orca_log("ctl: too many control clients, refusing one");
	close(fd);
}
