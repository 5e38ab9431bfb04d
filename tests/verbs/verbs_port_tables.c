// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Every entry of port 1's GID and P_Key tables, as the device defines them
 * (Documentation/infiniband/orca.rst, "GID and P_Key tables"): GID i is
 * subnet_prefix : port_guid + i; the P_Key table is pkey_table (index 0
 * is the pkey key), entries past it are 0.  The expected values come from
 * the command line, written from the emulator configuration of the boot:
 *
 *   verbs_port_tables -d orca0 --prefix P --port-guid G --gids N --pkeys K0,K1,...
 *
 * Without options: the default configuration (node GUID 00ca7afffe000001,
 * so port GUID ...0002, one GID, P_Key table { 0xffff }).
 * Also: ib_core reads every entry when it fills its cache (at probe and
 * on every port event); the driver answers from tables it read once, so a
 * port down/up costs no firmware command per entry.
 */
#include "common.h"

static unsigned long long port_cmds(void)
{
	return emu_stat("op_QUERY_PORT") + emu_stat("op_QUERY_GID_TABLE") +
	       emu_stat("op_QUERY_PKEY_TABLE");
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	unsigned long long prefix = 0xfe80000000000000ULL;
	unsigned long long guid = 0x00ca7afffe000002ULL;
	unsigned int ngids = 1, npkeys = 0, i, bad;
	uint16_t pkeys[64];
	struct ibv_port_attr pa;
	struct ibv_context *ctx;
	union ibv_gid gid;
	char *tok, *save;
	uint16_t pkey;

	for (i = 1; i + 1 < (unsigned int)argc; i += 2) {
		if (!strcmp(argv[i], "--prefix"))
			prefix = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--port-guid"))
			guid = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--gids"))
			ngids = strtoul(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--pkeys"))
			for (tok = strtok_r(argv[i + 1], ",", &save);
			     tok && npkeys < 64; tok = strtok_r(NULL, ",", &save))
				pkeys[npkeys++] = strtoul(tok, NULL, 0);
	}
	if (!npkeys)
		pkeys[npkeys++] = 0xffff;
	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	if (!ok(!ibv_query_port(ctx, 1, &pa), "query port 1"))
		goto out;
	ok(pa.gid_tbl_len == (int)ngids, "gid_tbl_len %d (expected %u)",
	   pa.gid_tbl_len, ngids);
	ok(pa.pkey_tbl_len >= npkeys, "pkey_tbl_len %u holds the %u listed P_Keys",
	   pa.pkey_tbl_len, npkeys);

	for (i = 0, bad = 0; i < ngids; i++) {
		if (ibv_query_gid(ctx, 1, i, &gid) ||
		    be64toh(gid.global.subnet_prefix) != prefix ||
		    be64toh(gid.global.interface_id) != guid + i) {
			diag("GID[%u] = %016llx:%016llx", i,
			     (unsigned long long)be64toh(gid.global.subnet_prefix),
			     (unsigned long long)be64toh(gid.global.interface_id));
			bad++;
		}
	}
	ok(!bad, "GID[0..%u] = %016llx : port GUID %016llx + index (%u wrong)",
	   ngids - 1, prefix, guid, bad);
	ok(ibv_query_gid(ctx, 1, ngids, &gid) != 0,
	   "GID[%u] (past the table) is refused", ngids);

	for (i = 0, bad = 0; i < pa.pkey_tbl_len; i++) {
		uint16_t want = i < npkeys ? pkeys[i] : 0;

		if (ibv_query_pkey(ctx, 1, i, &pkey) || be16toh(pkey) != want) {
			diag("P_Key[%u] = 0x%04x, expected 0x%04x", i,
			     be16toh(pkey), want);
			bad++;
		}
	}
	ok(!bad, "P_Key[0..%u] as configured (%u wrong)", pa.pkey_tbl_len - 1,
	   bad);
	ok(ibv_query_pkey(ctx, 1, pa.pkey_tbl_len, &pkey) != 0,
	   "P_Key[%u] (past the table) is refused", pa.pkey_tbl_len);

	if (have_hostctl()) {
		unsigned long long before = port_cmds(), after;

		/*
		 * Each port event makes ib_core re-read every entry; it tells
		 * the contexts only after that (ib_cache_event_task), so the
		 * events are the end of the re-reads, on any machine.
		 */
		drain_async(ctx, 0);
		n_seen_events = 0;
		hostctl("port-down", NULL, 0);
		if (!wait_event(ctx, IBV_EVENT_PORT_ERR, NULL, wait_ms()))
			diag("no IBV_EVENT_PORT_ERR within %d s", wait_ms() / 1000);
		hostctl("port-up", NULL, 0);
		if (!wait_event(ctx, IBV_EVENT_PORT_ACTIVE, NULL, wait_ms()))
			diag("no IBV_EVENT_PORT_ACTIVE within %d s",
			     wait_ms() / 1000);
		after = port_cmds();
		ok(after - before <= 2,
		   "a port down/up (ib_core re-reads %u GIDs and %u P_Keys) costs %llu port commands, not one per entry",
		   ngids, pa.pkey_tbl_len, after - before);
	} else {
		skip("not in the orca VM (no hostctl)", "port event cost");
	}
out:
	ibv_close_device(ctx);
	return tap_done();
}
