// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * pkey_set: what a host's root can do to its own port's partitions with
 * no tool of the subnet's: a directed-route SMP with no hop (IBA 14.2.2:
 * the local SMA) through ib_umad that sets one P_Key table entry.  The
 * kernel hands it to the driver as a local MAD (no M_Key check for the
 * host itself), so only the host policy (orca.rst "Host policy") or the
 * switch's partition enforcement stand in its way.
 *
 *   pkey_set -d orca0 [-p 1] INDEX PKEY
 *
 * Prints the entry as the GetResp of the Set has it, and exits 0 if the
 * SMA took the Set (status 0, the entry now PKEY), 2 if it refused it, 1
 * on any other error.  Talks to /dev/infiniband/umadN with the kernel's
 * UAPI only.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/ib_user_mad.h>

#define MAD_SIZE	256
#define SMP_DR		0x81
#define ATTR_PKEY_TABLE	0x0016
#define DR_SLID		32
#define DR_DLID		34
#define SMP_DATA	64

struct umad_msg {
	struct ib_user_mad_hdr hdr;
	uint8_t mad[MAD_SIZE];
};

/* the umad device of @dev's @port: /dev/infiniband/umadN; -1 if none */
static int umad_open(const char *dev, unsigned int port)
{
	char path[128], name[64];
	unsigned int n, p;
	FILE *f;
	int ok;

	for (n = 0; n < 64; n++) {
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband_mad/umad%u/ibdev", n);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = fscanf(f, "%63s", name) == 1 && !strcmp(name, dev);
		fclose(f);
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband_mad/umad%u/port", n);
		f = fopen(path, "r");
		if (!f)
			continue;
		ok = ok && fscanf(f, "%u", &p) == 1 && p == port;
		fclose(f);
		if (!ok)
			continue;
		snprintf(path, sizeof(path), "/dev/infiniband/umad%u", n);
		return open(path, O_RDWR);
	}
	errno = ENODEV;
	return -1;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static uint16_t get16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

/* one SMP to the local SMA and its response; 0 or -1 */
static int smp(int fd, uint32_t agent, uint8_t method, uint32_t block,
	       const uint8_t *data, struct umad_msg *rsp)
{
	static uint32_t tid = 0x0ca70000;
	struct umad_msg m;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.hdr.id = agent;
	m.hdr.timeout_ms = 1000;
	m.hdr.retries = 3;
	m.hdr.lid = htobe16(0xffff);	/* permissive: directed route */
	m.mad[0] = 1;
	m.mad[1] = SMP_DR;
	m.mad[2] = 1;
	m.mad[3] = method;
	/* status 0; hop pointer 0, hop count 0: this port's own SMA */
	put16(m.mad + 12, ++tid >> 16);
	put16(m.mad + 14, tid);
	put16(m.mad + 16, ATTR_PKEY_TABLE);
	put16(m.mad + 20, block >> 16);
	put16(m.mad + 22, block);
	put16(m.mad + DR_SLID, 0xffff);
	put16(m.mad + DR_DLID, 0xffff);
	if (data)
		memcpy(m.mad + SMP_DATA, data, 64);
	if (write(fd, &m, sizeof(m)) != (ssize_t)sizeof(m)) {
		perror("pkey_set: write");
		return -1;
	}
	n = read(fd, rsp, sizeof(*rsp));
	if (n < (ssize_t)sizeof(rsp->hdr) + 64 || rsp->hdr.status) {
		fprintf(stderr, "pkey_set: no response (%zd, status %u)\n", n,
			n > 0 ? rsp->hdr.status : 0);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct ib_user_mad_reg_req reg;
	const char *dev = "orca0";
	unsigned int port = 1, index, pkey, status;
	struct umad_msg rsp;
	uint8_t block[64];
	int fd, c;

	while ((c = getopt(argc, argv, "d:p:")) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 'p')
			port = strtoul(optarg, NULL, 0);
		else
			return 1;
	}
	if (argc - optind != 2) {
		fprintf(stderr, "usage: pkey_set -d DEV [-p PORT] INDEX PKEY\n");
		return 1;
	}
	index = strtoul(argv[optind], NULL, 0);
	pkey = strtoul(argv[optind + 1], NULL, 0);
	if (pkey > 0xffff) {
		fprintf(stderr, "pkey_set: P_Key 0x%x\n", pkey);
		return 1;
	}
	fd = umad_open(dev, port);
	if (fd < 0) {
		perror("pkey_set: umad device");
		return 1;
	}
	/* the new header, with pkey_index */
	if (ioctl(fd, IB_USER_MAD_ENABLE_PKEY) < 0) {
		perror("pkey_set: IB_USER_MAD_ENABLE_PKEY");
		return 1;
	}
	memset(&reg, 0, sizeof(reg));
	reg.qpn = 0;
	reg.mgmt_class = SMP_DR;
	reg.mgmt_class_version = 1;
	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &reg) < 0) {
		perror("pkey_set: IB_USER_MAD_REGISTER_AGENT");
		return 1;
	}
	/* the block as it is, the one entry changed, written back */
	if (smp(fd, reg.id, 1, index / 32, NULL, &rsp))
		return 1;
	status = get16(rsp.mad + 4) & 0x7fff;
	if (status) {
		printf("P_KeyTable Get of block %u: status 0x%04x\n",
		       index / 32, status);
		return 1;
	}
	memcpy(block, rsp.mad + SMP_DATA, 64);
	put16(block + 2 * (index % 32), pkey);
	if (smp(fd, reg.id, 2, index / 32, block, &rsp))
		return 1;
	status = get16(rsp.mad + 4) & 0x7fff;
	printf("P_KeyTable Set of entry %u to 0x%04x: status 0x%04x, entry now 0x%04x\n",
	       index, pkey, status,
	       get16(rsp.mad + SMP_DATA + 2 * (index % 32)));
	close(fd);
	if (status || get16(rsp.mad + SMP_DATA + 2 * (index % 32)) != pkey)
		return 2;
	return 0;
}
