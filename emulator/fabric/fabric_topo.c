// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * orca-fabric --sm none: several switches and the links between them
 * (fabric_topo.h).  Forwarding, directed routes and each switch's SMA are
 * fabric_switch.c's and fabric_dr.c's: a packet that one switch sends out
 * of an ISL port arrives here in that port's queue and is handed to the
 * switch at the other end as input on its port, so a directed route or a
 * LID route crosses any number of switches hop by hop, as IBA 14.2.2 and
 * 18.2.4.3 describe it for each.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric_topo.h"

static void remote_rx(void *ctx, struct fab_remote *r, const uint8_t *m,
		      size_t len);
static void remote_link(void *ctx, struct fab_remote *r, bool up);
/* the callbacks of a remote link, into topology @t */
#define remote_cb(t)	((const struct fab_remote_cb){		\
	.ctx = (t), .rx = remote_rx, .link = remote_link })

static int fail(char *err, size_t len, unsigned int line, const char *fmt,
		...)
{
	va_list ap;
	size_t off = 0;

	if (line)
		off = snprintf(err, len, "line %u: ", line);
	if (off < len) {
		va_start(ap, fmt);
		vsnprintf(err + off, len - off, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static void init_empty(struct fab_topo *t)
{
	unsigned int s, p;

	memset(t, 0, sizeof(*t));
	for (s = 0; s < FAB_TOPO_MAX_SW; s++)
		for (p = 0; p <= ORCA_MAD_MAX_PORTS; p++)
			t->peer[s][p].sw = FAB_TOPO_NONE;
	for (s = 0; s < FAB_TOPO_MAX_REMOTE; s++) {
		t->remote[s].fd = t->remote[s].listen_fd = -1;
		t->remote_pfd[s] = -1;
	}
}

void fab_topo_free(struct fab_topo *t)
{
	unsigned int s;

	for (s = 0; s < t->n_remote; s++)
		fab_remote_free(&t->remote[s]);
	t->n_remote = 0;
	for (s = 0; s < t->n_faulty; s++) {
		struct fab_fault **f =
			&t->isl_fault[t->faulty[s].sw][t->faulty[s].port];

		fab_fault_free(*f);
		free(*f);
		*f = NULL;
	}
	t->n_faulty = 0;
	for (s = 0; s < t->n_sw; s++) {
		fab_sw_free(t->sw[s]);
		free(t->sw[s]);
		t->sw[s] = NULL;
	}
	t->n_sw = 0;
}

int fab_topo_find(const struct fab_topo *t, const char *name)
{
	unsigned int s;

	for (s = 0; s < t->n_sw; s++)
		if (!strcmp(t->name[s], name))
			return s;
	return -1;
}

static int add_switch(struct fab_topo *t, const char *name,
		      unsigned int nports, uint64_t guid)
{
	struct fab_switch *sw;
	unsigned int s = t->n_sw;

	if (s == FAB_TOPO_MAX_SW)
		return -1;
	sw = calloc(1, sizeof(*sw));
	if (!sw || fab_sw_init(sw, nports, guid)) {
		free(sw);
		return -1;
	}
	snprintf(t->name[s], sizeof(t->name[s]), "%s", name);
	t->sw[s] = sw;
	t->n_sw++;
	return s;
}

int fab_topo_one(struct fab_topo *t, unsigned int nports, uint64_t guid,
		 char *err, size_t len)
{
	init_empty(t);
	if (add_switch(t, "sw0", nports, guid) < 0)
		return fail(err, len, 0, "out of memory");
	return 0;
}

/* "NAME:PORT" of a switch already declared; its index, or -1. */
static int parse_end(const struct fab_topo *t, const char *s,
		     struct fab_topo_end *e, char *err, size_t len,
		     unsigned int line)
{
	char name[FAB_TOPO_NAME];
	const char *colon = strchr(s, ':');
	unsigned long port;
	char *end;
	int i;

	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(name))
		return fail(err, len, line, "'%s' is not SWITCH:PORT", s);
	memcpy(name, s, colon - s);
	name[colon - s] = '\0';
	i = fab_topo_find(t, name);
	if (i < 0)
		return fail(err, len, line, "no switch '%s' declared before",
			    name);
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (*end || end == colon + 1 || errno || !port ||
	    port > t->sw[i]->nports)
		return fail(err, len, line, "switch %s has no port '%s' (1..%u)",
			    name, colon + 1, t->sw[i]->nports);
	e->sw = i;
	e->port = port;
	return 0;
}

/* A port that a link or a pin has already claimed. */
static bool claimed(const struct fab_topo *t, const struct fab_topo_end *e)
{
	unsigned int i;

	if (t->peer[e->sw][e->port].sw != FAB_TOPO_NONE)
		return true;
	for (i = 0; i < t->n_pins; i++)
		if (t->pin[i].sw == (unsigned int)e->sw &&
		    t->pin[i].port == e->port)
			return true;
	return false;
}

static int parse_switch(struct fab_topo *t, char **w, int n, char *err,
			size_t len, unsigned int line)
{
	unsigned long nports;
	uint64_t guid;
	char *end;

	if (n < 3 || n > 4)
		return fail(err, len, line, "switch NAME PORTS [GUID]");
	if (strlen(w[1]) >= FAB_TOPO_NAME || strchr(w[1], ':'))
		return fail(err, len, line, "switch name '%s': at most %d characters, no ':'",
			    w[1], FAB_TOPO_NAME - 1);
	if (fab_topo_find(t, w[1]) >= 0)
		return fail(err, len, line, "switch '%s' declared twice", w[1]);
	if (t->n_sw == FAB_TOPO_MAX_SW)
		return fail(err, len, line, "more than %d switches",
			    FAB_TOPO_MAX_SW);
	errno = 0;
	nports = strtoul(w[2], &end, 10);
	if (*end || errno || !nports || nports > ORCA_MAD_MAX_PORTS)
		return fail(err, len, line, "switch %s: PORTS 1..%u, not '%s'",
			    w[1], ORCA_MAD_MAX_PORTS, w[2]);
	guid = FAB_SW_DEFAULT_GUID + t->n_sw;
	if (n == 4) {
		errno = 0;
		guid = strtoull(w[3], &end, 0);
		if (*end || errno || !guid)
			return fail(err, len, line, "switch %s: bad GUID '%s'",
				    w[1], w[3]);
	}
	if (add_switch(t, w[1], nports, guid) < 0)
		return fail(err, len, line, "out of memory");
	snprintf(t->sw[t->n_sw - 1]->node.desc,
		 sizeof(t->sw[t->n_sw - 1]->node.desc), "%s %s", FAB_SW_DESC,
		 w[1]);
	return 0;
}

static int parse_link(struct fab_topo *t, char **w, int n, char *err,
		      size_t len, unsigned int line)
{
	struct fab_topo_end a, b;

	if (n != 3)
		return fail(err, len, line, "link SWITCH:PORT SWITCH:PORT");
	if (parse_end(t, w[1], &a, err, len, line) ||
	    parse_end(t, w[2], &b, err, len, line))
		return -1;
	if (a.sw == b.sw)
		return fail(err, len, line, "a link from switch %s to itself",
			    t->name[a.sw]);
	if (claimed(t, &a) || claimed(t, &b))
		return fail(err, len, line, "%s is cabled already",
			    claimed(t, &a) ? w[1] : w[2]);
	t->peer[a.sw][a.port] = b;
	t->peer[b.sw][b.port] = a;
	t->n_links++;
	return 0;
}

static int parse_ca(struct fab_topo *t, char **w, int n, char *err,
		    size_t len, unsigned int line)
{
	struct fab_topo_end e;
	uint64_t guid;
	unsigned int i;
	char *end;

	if (n != 3)
		return fail(err, len, line, "ca PORT-GUID SWITCH:PORT");
	errno = 0;
	guid = strtoull(w[1], &end, 0);
	if (*end || errno || !guid)
		return fail(err, len, line, "bad port GUID '%s'", w[1]);
	if (parse_end(t, w[2], &e, err, len, line))
		return -1;
	for (i = 0; i < t->n_pins; i++)
		if (t->pin[i].guid == guid)
			return fail(err, len, line, "port GUID %s pinned twice",
				    w[1]);
	if (claimed(t, &e))
		return fail(err, len, line, "%s is cabled already", w[2]);
	if (t->n_pins == FAB_TOPO_MAX_PINS)
		return fail(err, len, line, "more than %d ca lines",
			    FAB_TOPO_MAX_PINS);
	t->pin[t->n_pins++] = (struct fab_topo_pin){
		.guid = guid, .sw = e.sw, .port = e.port,
	};
	return 0;
}

static int parse_remote(struct fab_topo *t, char **w, int n, char *err,
			size_t len, unsigned int line)
{
	struct fab_topo_end e;
	char why[128];

	if (n != 4)
		return fail(err, len, line, "remote SWITCH:PORT listen|connect A.B.C.D:PORT");
	if (parse_end(t, w[1], &e, err, len, line))
		return -1;
	if (claimed(t, &e))
		return fail(err, len, line, "%s is cabled already", w[1]);
	if (t->n_remote == FAB_TOPO_MAX_REMOTE)
		return fail(err, len, line, "more than %d remote links",
			    FAB_TOPO_MAX_REMOTE);
	if (fab_remote_init(&t->remote[t->n_remote], e.sw, e.port, w[2], w[3],
			    why, sizeof(why)))
		return fail(err, len, line, "remote %s: %s", w[1], why);
	t->peer[e.sw][e.port] = (struct fab_topo_end){
		.sw = FAB_TOPO_REMOTE, .port = t->n_remote,
	};
	t->n_remote++;
	return 0;
}

static int parse_line(struct fab_topo *t, char *s, char *err, size_t len,
		      unsigned int line)
{
	char *w[8], *hash = strchr(s, '#');
	int n = 0;

	if (hash)
		*hash = '\0';
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (!*s)
			break;
		if (n == 8)
			return fail(err, len, line, "too many words");
		w[n++] = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (*s)
			*s++ = '\0';
	}
	if (!n)
		return 0;
	if (!strcmp(w[0], "switch"))
		return parse_switch(t, w, n, err, len, line);
	if (!strcmp(w[0], "link"))
		return parse_link(t, w, n, err, len, line);
	if (!strcmp(w[0], "ca"))
		return parse_ca(t, w, n, err, len, line);
	if (!strcmp(w[0], "remote"))
		return parse_remote(t, w, n, err, len, line);
	return fail(err, len, line, "unknown statement '%s' (switch, link, ca, remote)",
		    w[0]);
}

/*
 * The cables are in: each ISL end holds the other switch's GUID (a
 * switch's ports all report its port 0 GUID) and its link comes up, in
 * INIT, for the SM to find; a pinned port keeps its CA's GUID, so that
 * no other CA takes it.
 */
static void cable_up(struct fab_topo *t)
{
	unsigned int s, p, i;

	for (i = 0; i < t->n_pins; i++)
		t->sw[t->pin[i].sw]->port[t->pin[i].port].guid = t->pin[i].guid;
	for (s = 0; s < t->n_sw; s++) {
		for (p = 1; p <= t->sw[s]->nports; p++) {
			const struct fab_topo_end *e = &t->peer[s][p];
			struct fab_sw_port *sp = &t->sw[s]->port[p];

			if (e->sw == FAB_TOPO_NONE)
				continue;
			/* no link until the other fabric answers */
			if (e->sw == FAB_TOPO_REMOTE) {
				sp->guid = sp->node_guid = ~0ULL;
				sp->connected = true;
				continue;
			}
			sp->guid = t->sw[e->sw]->node.node_guid;
			sp->node_guid = sp->guid;
			sp->connected = true;
			sp->connects++;
			fab_sw_link(t->sw[s], p, true);
		}
	}
}

int fab_topo_parse(struct fab_topo *t, const char *text, char *err,
		   size_t len)
{
	char buf[FAB_TOPO_LINE];
	unsigned int line = 0;
	const char *s = text;

	init_empty(t);
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);

		line++;
		if (n >= sizeof(buf)) {
			fail(err, len, line, "longer than %d characters",
			     FAB_TOPO_LINE - 1);
			goto bad;
		}
		memcpy(buf, s, n);
		buf[n] = '\0';
		if (parse_line(t, buf, err, len, line))
			goto bad;
		s += n + (nl ? 1 : 0);
	}
	if (!t->n_sw) {
		fail(err, len, 0, "no switch");
		goto bad;
	}
	cable_up(t);
	return 0;
bad:
	fab_topo_free(t);
	return -1;
}

int fab_topo_load(struct fab_topo *t, const char *path, char *err,
		  size_t len)
{
	char *text = NULL;
	size_t cap = 0, n = 0, r;
	FILE *f = fopen(path, "r");
	int ret;

	init_empty(t);
	if (!f)
		return fail(err, len, 0, "%s: %s", path, strerror(errno));
	do {
		char *grown;

		if (cap - n < 4096) {
			if (cap >= (1u << 20)) {
				fclose(f);
				free(text);
				return fail(err, len, 0, "%s: larger than 1 MiB",
					    path);
			}
			grown = realloc(text, cap + 4096 + 1);
			if (!grown) {
				fclose(f);
				free(text);
				return fail(err, len, 0, "out of memory");
			}
			text = grown;
			cap += 4096;
		}
		r = fread(text + n, 1, cap - n, f);
		n += r;
	} while (r);
	if (ferror(f)) {
		fclose(f);
		free(text);
		return fail(err, len, 0, "%s: read error", path);
	}
	fclose(f);
	text[n] = '\0';
	if (strlen(text) != n) {
		free(text);
		return fail(err, len, 0, "%s: a NUL byte in the text", path);
	}
	ret = fab_topo_parse(t, text, err, len);
	free(text);
	return ret;
}

int fab_topo_attach(struct fab_topo *t, uint64_t guid, uint64_t node_guid,
		    unsigned int *swi)
{
	unsigned int s, p;
	int port;

	/* its pin, or the port it had: that one or none */
	for (s = 0; s < t->n_sw; s++)
		for (p = 1; p <= t->sw[s]->nports; p++)
			if (t->peer[s][p].sw == FAB_TOPO_NONE &&
			    t->sw[s]->port[p].guid == guid) {
				port = fab_sw_attach(t->sw[s], guid, node_guid);
				if (port >= 0)
					*swi = s;
				return port;
			}
	/* ISL ends and pinned ports hold a GUID: only free ones are left */
	for (s = 0; s < t->n_sw; s++) {
		port = fab_sw_attach(t->sw[s], guid, node_guid);
		if (port >= 0) {
			*swi = s;
			return port;
		}
	}
	return -1;
}

/*
 * The other end of the link at @peer port @pp came up (again): this end
 * follows, unless it is up in INIT, untrained since.  Returns false if
 * the SM disabled this end: no light, so no link at the other either.
 */
static bool follow(struct fab_topo *t, struct fab_switch *peer,
		   unsigned int pp)
{
	if (peer->node.port[pp].phys_state == ORCA_MAD_PHYS_DISABLED)
		return false;
	if (peer->port[pp].up &&
	    peer->node.port[pp].state == ORCA_MAD_PORT_INIT)
		return true;
	fab_sw_link(peer, pp, false);
	fab_sw_link(peer, pp, true);
	t->isl_retrains++;
	return true;
}

/* The link of switch @s port @p came up (again): its peer's end too. */
static void link_came_up(struct fab_topo *t, unsigned int s, unsigned int p)
{
	const struct fab_topo_end *e = &t->peer[s][p];

	if (!follow(t, t->sw[e->sw], e->port))
		fab_sw_link(t->sw[s], p, false);
}

/* Message @m of @n bytes out of switch @s port @p arrives at its peer. */
static void deliver(struct fab_topo *t, unsigned int s, unsigned int p,
		    const uint8_t *m, size_t n)
{
	const struct fab_topo_end *e = &t->peer[s][p];
	const size_t hdr = sizeof(struct orca_fab_hdr);

	if (m[0] == ORCA_FAB_LINK_UP) {
		link_came_up(t, s, p);
	} else if (m[0] == ORCA_FAB_PKT && n > hdr) {
		t->isl_pkts++;
		fab_sw_input(t->sw[e->sw], e->port, m + hdr, n - hdr);
	}
}

/* What the local ISLs' delays held and whose time has come; how many. */
static unsigned int deliver_due(struct fab_topo *t)
{
	unsigned int i, moved = 0;
	uint64_t now = 0;
	const uint8_t *m;
	size_t n;

	for (i = 0; i < t->n_faulty; i++) {
		const struct fab_topo_end *e = &t->faulty[i];
		struct fab_fault *f = t->isl_fault[e->sw][e->port];

		if (!fab_fault_holding(f))
			continue;
		if (!now)
			now = fab_fault_now_us();
		while ((n = fab_fault_due(f, now, &m))) {
			deliver(t, e->sw, e->port, m, n);
			moved++;
		}
	}
	return moved;
}

/*
 * Would the head of switch @s port @p's queue wait at its peer?  A
 * local link without faults is lossless: what the peer's egress cannot
 * take stays here, and this queue filling holds back what feeds it.
 */
static bool isl_blocked(const struct fab_topo *t, unsigned int s,
			unsigned int p, const uint8_t *m, size_t n)
{
	const struct fab_topo_end *e = &t->peer[s][p];
	const size_t hdr = sizeof(struct orca_fab_hdr);

	return e->sw != FAB_TOPO_REMOTE && !t->isl_fault[s][p] &&
	       m[0] == ORCA_FAB_PKT && n > hdr &&
	       fab_sw_blocked(t->sw[e->sw], e->port, m + hdr, n - hdr);
}

static unsigned int carry(struct fab_topo *t, unsigned int budget)
{
	uint8_t ctl[sizeof(struct orca_fab_link)];
	unsigned int s, p, moved = 0, before;
	struct fab_fault *f;
	const uint8_t *m;
	size_t n;

	if (t->n_faulty)
		moved = deliver_due(t);
	do {
		before = moved;
		for (s = 0; s < t->n_sw; s++) {
			for (p = 1; p <= t->sw[s]->nports; p++) {
				const struct fab_topo_end *e = &t->peer[s][p];

				if (e->sw == FAB_TOPO_NONE)
					continue;
				/* one at a time per port: fair to all */
				if (moved >= budget)
					return moved;
				n = fab_sw_peek(t->sw[s], p, &m);
				if (!n || isl_blocked(t, s, p, m, n))
					continue;
				moved++;
				/*
				 * in place: what it makes goes to other
				 * queues, or to this one's tail, never
				 * over its head
				 */
				if (e->sw == FAB_TOPO_REMOTE) {
					/* to the other fabric: a frame, or lost */
					fab_remote_send(&t->remote[e->port], m,
							n);
				} else if (m[0] != ORCA_FAB_PKT) {
					/* LINK_UP may empty this very queue */
					memcpy(ctl, m, n < sizeof(ctl) ?
						       n : sizeof(ctl));
					fab_sw_drop_head(t->sw[s], p);
					deliver(t, s, p, ctl, n < sizeof(ctl) ?
							      n : sizeof(ctl));
					continue;
				} else {
					f = t->isl_fault[s][p];
					if (!f || fab_fault_admit(f, m, n,
								  fab_fault_now_us()) ==
						  FAB_FAULT_PASS)
						deliver(t, s, p, m, n);
				}
				fab_sw_drop_head(t->sw[s], p);
			}
		}
	} while (moved != before);
	return moved;
}

unsigned int fab_topo_carry(struct fab_topo *t, unsigned int budget)
{
	unsigned int moved = carry(t, budget), i;

	/* the frames for other fabrics: a send() a link per pass */
	for (i = 0; i < t->n_remote; i++)
		fab_remote_flush(&t->remote[i]);
	return moved;
}

/*
 * The switch port "NAME:PORT" @end into @a, and the switch port it is
 * cabled to (here or in another fabric); NULL with @err if it is no
 * inter-switch link.
 */
static const struct fab_topo_end *cabled(struct fab_topo *t, const char *end,
					 struct fab_topo_end *a, char *err,
					 size_t len)
{
	if (parse_end(t, end, a, err, len, 0))
		return NULL;
	if (t->peer[a->sw][a->port].sw == FAB_TOPO_NONE) {
		fail(err, len, 0, "%s is no inter-switch link", end);
		return NULL;
	}
	return &t->peer[a->sw][a->port];
}

int fab_topo_link(struct fab_topo *t, const char *end, bool up, char *err,
		  size_t len)
{
	struct fab_topo_end a;
	const struct fab_topo_end *b = cabled(t, end, &a, err, len);

	if (!b)
		return -1;
	if (b->sw == FAB_TOPO_REMOTE) {
		fab_remote_admin(&t->remote[b->port], up, &remote_cb(t));
		return 0;
	}
	/* what the cable held is gone with it */
	if (!up && t->isl_fault[a.sw][a.port])
		fab_fault_flush(t->isl_fault[a.sw][a.port]);
	if (!up && t->isl_fault[b->sw][b->port])
		fab_fault_flush(t->isl_fault[b->sw][b->port]);
	fab_sw_link(t->sw[a.sw], a.port, up);
	fab_sw_link(t->sw[b->sw], b->port, up);
	return 0;
}

int fab_topo_link_faults(struct fab_topo *t, const char *end,
			 uint32_t loss_ppm, uint32_t delay_us, char *err,
			 size_t len)
{
	struct fab_topo_end a;
	const struct fab_topo_end *b = cabled(t, end, &a, err, len);
	struct fab_fault **f;

	if (!b)
		return -1;
	if (b->sw == FAB_TOPO_REMOTE)
		return fab_fault_set(&t->remote[b->port].fault, loss_ppm,
				     delay_us, err, len);
	f = &t->isl_fault[a.sw][a.port];
	if (!*f) {
		if (!loss_ppm && !delay_us)
			return 0;
		*f = calloc(1, sizeof(**f));
		if (!*f)
			return fail(err, len, 0, "out of memory");
		t->faulty[t->n_faulty++] = a;
	}
	return fab_fault_set(*f, loss_ppm, delay_us, err, len);
}

bool fab_topo_holding(const struct fab_topo *t)
{
	unsigned int i;

	for (i = 0; i < t->n_remote; i++)
		if (fab_fault_holding(&t->remote[i].fault))
			return true;
	for (i = 0; i < t->n_faulty; i++)
		if (fab_fault_holding(t->isl_fault[t->faulty[i].sw]
						  [t->faulty[i].port]))
			return true;
	return false;
}

bool fab_topo_busy(const struct fab_topo *t)
{
	unsigned int s, p;
	const uint8_t *m;
	size_t n;

	for (s = 0; s < t->n_sw; s++)
		for (p = 1; p <= t->sw[s]->nports; p++)
			if (t->peer[s][p].sw != FAB_TOPO_NONE &&
			    (n = fab_sw_peek(t->sw[s], p, &m)) &&
			    !isl_blocked(t, s, p, m, n))
				return true;
	return false;
}

/* ---- links to other fabrics ---- */

static void remote_rx(void *ctx, struct fab_remote *r, const uint8_t *m,
		      size_t len)
{
	struct fab_topo *t = ctx;
	struct fab_switch *sw = t->sw[r->sw];
	const size_t hdr = sizeof(struct orca_fab_hdr);

	if (m[1] != ORCA_FAB_VERSION) {
		r->bad_frames++;
		return;
	}
	if (m[0] == ORCA_FAB_PKT && len > hdr) {
		t->isl_pkts++;
		fab_sw_input(sw, r->port, m + hdr, len - hdr);
	} else if (m[0] == ORCA_FAB_LINK_UP) {
		if (!follow(t, sw, r->port))
			fab_remote_admin(r, false, &remote_cb(t));
	}
}

static void remote_link(void *ctx, struct fab_remote *r, bool up)
{
	struct fab_topo *t = ctx;

	fab_sw_link(t->sw[r->sw], r->port, up);
}

int fab_topo_pollfds(struct fab_topo *t, struct pollfd *pfd)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < t->n_remote; i++) {
		t->remote_pfd[i] = -1;
		if (fab_remote_pollfd(&t->remote[i], &pfd[n]))
			t->remote_pfd[i] = n++;
	}
	return n;
}

void fab_topo_io(struct fab_topo *t, const struct pollfd *pfd,
		 uint64_t now_ms)
{
	unsigned int i;

	for (i = 0; i < t->n_remote; i++) {
		short ev = pfd && t->remote_pfd[i] >= 0 ?
			   pfd[t->remote_pfd[i]].revents : 0;

		fab_remote_io(&t->remote[i], ev, now_ms, &remote_cb(t));
	}
}

void fab_topo_tick(struct fab_topo *t, uint64_t now_ms)
{
	unsigned int s;

	for (s = 0; s < t->n_sw; s++)
		fab_sw_tick(t->sw[s], now_ms);
}
