// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * verbs_dmabuf: regions of dma-buf memory on orca, ibv_reg_dmabuf_mr(3).
 *   usage: verbs_dmabuf [-d DEV]
 *
 * The dma-buf is a vgem dumb buffer (modprobe vgem; its card node, found
 * by the driver name DRM_IOCTL_VERSION gives), exported with PRIME and
 * mapped for the CPU through the dma-buf itself.  rdma-core's own dma-buf
 * tests allocate on amdgpu or i915 only.
 *  - ibv_reg_dmabuf_mr of 8 KiB at offset 4096 of a 16 KiB buffer, at an
 *    iova of the test's choosing;
 *  - an RDMA WRITE through its rkey lands at the buffer's bytes the iova
 *    names and nowhere else (all 16 KiB against a model, read through the
 *    CPU mapping); an RDMA READ and a SEND gathered through its lkey carry
 *    the buffer's bytes; a write past the region's end is
 *    IBV_WC_REM_ACCESS_ERR with the buffer untouched;
 *  - refused: an fd that is not a dma-buf, a range past the buffer's end,
 *    IBV_ACCESS_ON_DEMAND (EOPNOTSUPP); libibverbs refuses ibv_rereg_mr
 *    of it before the kernel (which would refuse it too: no user address
 *    to pin again);
 *  - ibv_dereg_mr, and the buffer is the exporter's again.
 */
#include <fcntl.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/utsname.h>

#include "common.h"

/* the DRM uapi this needs (<drm/drm.h>, <drm/drm_mode.h>) */
struct drm_version_arg {
	int version_major, version_minor, version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

struct drm_create_dumb_arg {
	uint32_t height, width, bpp, flags;
	uint32_t handle, pitch;
	uint64_t size;
};

struct drm_prime_handle_arg {
	uint32_t handle, flags;
	int32_t fd;
};

#define DRM_VERSION_IOCTL	_IOWR('d', 0x00, struct drm_version_arg)
#define DRM_PRIME_TO_FD_IOCTL	_IOWR('d', 0x2d, struct drm_prime_handle_arg)
#define DRM_CREATE_DUMB_IOCTL	_IOWR('d', 0xb2, struct drm_create_dumb_arg)
#define DRM_CLOEXEC_RDWR	(O_CLOEXEC | O_RDWR)

#define BUF_LEN		16384
#define MR_OFF		4096
#define MR_LEN		8192
#define MR_IOVA		0x10000ULL

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_port_attr port;
static uint8_t host[MR_LEN], model[BUF_LEN];
static struct ibv_mr *host_mr;

/*
 * Whether this kernel was built with vgem, by its config file (Debian's
 * kernels: CONFIG_DRM_VGEM=m): then a missing vgem is a failure, not an
 * environment without one (the debug kernel has no DRM at all).
 */
static bool kernel_has_vgem(void)
{
	struct utsname u;
	char path[300], line[256];
	bool has = false;
	FILE *f;

	if (uname(&u))
		return true;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (!has && fgets(line, sizeof(line), f))
		has = !strncmp(line, "CONFIG_DRM_VGEM=", 16);
	fclose(f);
	return has;
}

/* The card node of vgem, opened; -1 if there is none. */
static int open_vgem(void)
{
	DIR *d;
	struct dirent *e;
	int fd = -1;

	if (system("modprobe -q vgem"))
		diag("modprobe vgem failed");
	d = opendir("/dev/dri");
	while (d && (e = readdir(d))) {
		char path[300], name[32] = "";
		struct drm_version_arg v = { .name_len = sizeof(name) - 1,
					     .name = name };

		if (strncmp(e->d_name, "card", 4))
			continue;
		snprintf(path, sizeof(path), "/dev/dri/%s", e->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0 && !ioctl(fd, DRM_VERSION_IOCTL, &v) &&
		    !strcmp(name, "vgem")) {
			diag("vgem is %s", path);
			break;
		}
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	if (d)
		closedir(d);
	return fd;
}

/* A dumb buffer of BUF_LEN bytes as a dma-buf fd; -1 on failure. */
static int vgem_dmabuf(int card)
{
	struct drm_create_dumb_arg c = { .height = BUF_LEN / 4096,
					 .width = 1024, .bpp = 32 };
	struct drm_prime_handle_arg p = { .flags = DRM_CLOEXEC_RDWR };

	if (ioctl(card, DRM_CREATE_DUMB_IOCTL, &c) || c.size < BUF_LEN) {
		diag("DRM_IOCTL_MODE_CREATE_DUMB: %s, %llu bytes", strerror(errno),
		     (unsigned long long)c.size);
		return -1;
	}
	p.handle = c.handle;
	if (ioctl(card, DRM_PRIME_TO_FD_IOCTL, &p)) {
		diag("DRM_IOCTL_PRIME_HANDLE_TO_FD: %s", strerror(errno));
		return -1;
	}
	return p.fd;
}

static struct ibv_qp *qa, *qb;

static struct ibv_wc post_one(enum ibv_wr_opcode op, struct ibv_sge sge,
			      uint64_t raddr, uint32_t rkey)
{
	struct ibv_send_wr wr = { .wr_id = 1, .sg_list = &sge, .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc = { .status = IBV_WC_GENERAL_ERR };

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(qa, &wr, &bad))
		return wc;
	return next_wc(cq);
}

static void refusals(int dfd)
{
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	struct ibv_mr *mr;
	int nfd = open("/dev/null", O_RDWR);

	errno = 0;
	mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, nfd, rw);
	ok(!mr && errno, "an fd that is not a dma-buf (/dev/null) is refused (%s)",
	   mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	close(nfd);
	errno = 0;
	mr = ibv_reg_dmabuf_mr(pd, BUF_LEN - 4096, 8192, 0, dfd, rw);
	ok(!mr && errno, "8 KiB at %u of a %u-byte buffer is refused (%s)",
	   BUF_LEN - 4096, BUF_LEN, mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
	errno = 0;
	mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, dfd,
			       rw | IBV_ACCESS_ON_DEMAND);
	ok(!mr && errno == EOPNOTSUPP, "IBV_ACCESS_ON_DEMAND: EOPNOTSUPP (%s)",
	   mr ? "registered" : strerror(errno));
	if (mr)
		ibv_dereg_mr(mr);
}

static void traffic(uint8_t *cpu, int dfd)
{
	const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		       IBV_ACCESS_REMOTE_READ;
	struct ibv_mr *mr;
	struct ibv_wc wc, wr;
	struct ibv_sge sge;
	unsigned int i;
	int ret;

	for (i = 0; i < BUF_LEN; i++)
		cpu[i] = model[i] = (uint8_t)(i * 11 + 3);
	mr = ibv_reg_dmabuf_mr(pd, MR_OFF, MR_LEN, MR_IOVA, dfd, rw);
	if (!ok(mr != NULL, "ibv_reg_dmabuf_mr: %u bytes at offset %u, iova %#llx (%s)",
		MR_LEN, MR_OFF, MR_IOVA, mr ? "registered" : strerror(errno)))
		return;
	ok(mr->length == MR_LEN && mr->lkey && mr->rkey, "length %zu, keys %#x/%#x",
	   mr->length, mr->lkey, mr->rkey);
	qa = create_qp(pd, cq, IBV_QPT_RC);
	qb = create_qp(pd, cq, IBV_QPT_RC);
	if (!ok(qa && qb && !connect_to(qa, qb->qp_num, &port) &&
		!connect_to(qb, qa->qp_num, &port), "an RC pair"))
		return;

	for (i = 0; i < MR_LEN; i++)
		host[i] = (uint8_t)(i * 7 + 1);
	sge = (struct ibv_sge){ (uintptr_t)host, 5000, host_mr->lkey };
	wc = post_one(IBV_WR_RDMA_WRITE, sge, MR_IOVA + 100, mr->rkey);
	memcpy(model + MR_OFF + 100, host, 5000);
	ok(wc.status == IBV_WC_SUCCESS && !memcmp(cpu, model, BUF_LEN),
	   "RDMA WRITE of 5000 bytes at iova + 100 lands at buffer byte %u, nothing else changed (%s)",
	   MR_OFF + 100, wc_status_name(&wc));

	memset(host, 0, MR_LEN);
	sge = (struct ibv_sge){ (uintptr_t)host, MR_LEN, host_mr->lkey };
	wc = post_one(IBV_WR_RDMA_READ, sge, MR_IOVA, mr->rkey);
	ok(wc.status == IBV_WC_SUCCESS && !memcmp(host, model + MR_OFF, MR_LEN),
	   "RDMA READ of the whole region carries the buffer's bytes (%s)",
	   wc_status_name(&wc));

	{
		struct ibv_sge rs = { (uintptr_t)host, MR_LEN, host_mr->lkey };
		struct ibv_recv_wr r = { .wr_id = 2, .sg_list = &rs,
					 .num_sge = 1 }, *rbad;

		memset(host, 0, MR_LEN);
		ret = ibv_post_recv(qb, &r, &rbad);
		sge = (struct ibv_sge){ MR_IOVA + 8, 3000, mr->lkey };
		wc = post_one(IBV_WR_SEND, sge, 0, 0);
		wr = next_wc(cq);
		ok(!ret && wc.status == IBV_WC_SUCCESS &&
		   wr.status == IBV_WC_SUCCESS &&
		   !memcmp(host, model + MR_OFF + 8, 3000),
		   "a SEND gathered through its lkey at iova + 8 arrives whole (%s, %s)",
		   wc_status_name(&wc), wc_status_name(&wr));
	}

	sge = (struct ibv_sge){ (uintptr_t)host, 100, host_mr->lkey };
	wc = post_one(IBV_WR_RDMA_WRITE, sge, MR_IOVA + MR_LEN - 50, mr->rkey);
	ok(wc.status == IBV_WC_REM_ACCESS_ERR && !memcmp(cpu, model, BUF_LEN),
	   "an RDMA WRITE past the region's end: IBV_WC_REM_ACCESS_ERR, the buffer untouched (%s)",
	   wc_status_name(&wc));
	ibv_destroy_qp(qa);
	ibv_destroy_qp(qb);
	while (ibv_poll_cq(cq, 1, &wc) > 0)
		;

	errno = 0;
	ret = ibv_rereg_mr(mr, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0,
			   IBV_ACCESS_LOCAL_WRITE);
	ok(ret == IBV_REREG_MR_ERR_INPUT,
	   "ibv_rereg_mr of it: libibverbs refuses a dma-buf region (%d, %s)",
	   ret, strerror(errno));
	ok(!ibv_dereg_mr(mr), "ibv_dereg_mr");
}

int main(int argc, char **argv)
{
	const char *dev = parse_dev_arg(&argc, &argv);
	uint8_t *cpu;
	int card, dfd;

	if (argc > 1) {
		fprintf(stderr, "usage: %s [-d DEV]\n", argv[0]);
		return 2;
	}
	ctx = open_device_by_name(dev);
	if (!ok(ctx != NULL, "open %s", dev))
		return tap_done();
	pd = ibv_alloc_pd(ctx);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	host_mr = pd ? ibv_reg_mr(pd, host, MR_LEN, IBV_ACCESS_LOCAL_WRITE) :
		       NULL;
	if (!ok(pd && cq && host_mr && !ibv_query_port(ctx, 1, &port),
		"PD, CQ, region, port"))
		return tap_done();
	card = open_vgem();
	if (card < 0 && !kernel_has_vgem()) {
		skip("this kernel has no vgem (no CONFIG_DRM_VGEM in /boot/config-*), so no dma-buf to register",
		     "vgem's card node");
		return tap_done();
	}
	if (!ok(card >= 0, "vgem's card node (modprobe vgem)"))
		return tap_done();
	dfd = vgem_dmabuf(card);
	cpu = dfd >= 0 ? mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE, MAP_SHARED,
			      dfd, 0) : MAP_FAILED;
	if (!ok(cpu != MAP_FAILED, "a %u-byte vgem dumb buffer, exported as a dma-buf and mapped",
		BUF_LEN))
		return tap_done();
	refusals(dfd);
	traffic(cpu, dfd);
	munmap(cpu, BUF_LEN);
	close(dfd);
	close(card);
	ibv_dereg_mr(host_mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return tap_done();
}
