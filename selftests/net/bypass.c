// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel-bypass queues (/dev/refnic, uapi/linux/refnic_bypass.h) over a
 * refnic pair. Run by bypass.sh in port B's namespace, which exports:
 *   BP_DEV, BP_NS_PEER   port B, and the namespace of port A
 *   BP_MAC_A, BP_MAC_B   the ports' MAC addresses
 *   BP_V4_A, BP_V4_B     their IPv4 addresses
 *   BP_QUEUE             a queue pair an ntuple rule sends UDP to
 *                        BP_PORT on (ethtool -N ... action BP_QUEUE)
 *   BP_QUEUES            queue pairs of port B
 * Frames between the bypass queue and kernel sockets go both ways and are
 * checked byte for byte; every validation rule of the ABI is exercised
 * with its exact counter; teardown (close, port down, process exit,
 * umem unmapped mid-transfer) must leave no page pinned.
 *
 * The rings are driven through librefnic's C ring interface
 * (lib/include/refnic/bypass.h), as a program would; the hostile tests write
 * indices and entries raw, past it, as a broken or malicious one would.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <refnic/bypass.h>

#include "refnic_harness.h"

/* EXPECT_EQ(n, counter) compares int literals with __u64 counters. */
#pragma GCC diagnostic ignored "-Wsign-compare"

#define BUF_SIZE	2048
#define RING		1024
#define UMEM_BUFS	2048
#define UMEM_LEN	((size_t)UMEM_BUFS * BUF_SIZE)
#define PAYLOAD		200
#define HDRS		(14 + 20 + 8)

struct session {
	int fd;
	uint8_t *umem;
	struct refnic_ring_prod fill, tx;
	struct refnic_ring_cons rxc, txc;
	const uint8_t *hdr;
	size_t hdr_bytes;
};

static const char *env(const char *name)
{
	const char *v = getenv(name);

	if (!v) {
		fprintf(stderr, "# %s is not set: run bypass.sh\n", name);
		exit(KSFT_SKIP);
	}
	return v;
}

static int env_int(const char *name)
{
	return atoi(env(name));
}

static void parse_mac(const char *s, uint8_t *mac)
{
	sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2],
	       &mac[3], &mac[4], &mac[5]);
}

/* Raw index access, for the tests that write indices as a broken or
 * malicious process would.
 */
#define load_acq(p)		refnic_ring__load_acquire(p)
#define store_rel(p, v)		refnic_ring__store_release(p, v)

static struct refnic_bypass_bind bind_req(uint8_t *umem, int queue,
					  uint32_t flags)
{
	struct refnic_bypass_bind b = {
		.abi_version = REFNIC_BYPASS_ABI_VERSION,
		.ifindex = if_nametoindex(env("BP_DEV")),
		.queue = queue,
		.flags = flags,
		.umem_addr = (uintptr_t)umem,
		.umem_len = UMEM_LEN,
		.buf_size = BUF_SIZE,
		.fill_size = RING,
		.rxc_size = RING,
		.tx_size = RING / 2,
		.txc_size = RING / 2,
	};
	return b;
}

static uint8_t *umem_alloc(void)
{
	void *p = mmap(NULL, UMEM_LEN, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Opens, binds and maps; returns 0 or -errno of the step that failed. */
static int session_open(struct session *s, int queue, uint32_t flags)
{
	struct refnic_bypass_bind b;
	int err;

	memset(s, 0, sizeof(*s));
	s->umem = umem_alloc();
	if (!s->umem)
		return -ENOMEM;
	s->fd = open(REFNIC_BYPASS_DEV, O_RDWR | O_CLOEXEC);
	if (s->fd < 0)
		return -errno;
	b = bind_req(s->umem, queue, flags);
	err = refnic_bypass_bind_queue(s->fd, &b);
	err = err ?: refnic_bypass_map_fill(s->fd, b.fill_size, &s->fill);
	err = err ?: refnic_bypass_map_rxc(s->fd, b.rxc_size, &s->rxc);
	err = err ?: refnic_bypass_map_tx(s->fd, b.tx_size, &s->tx);
	err = err ?: refnic_bypass_map_txc(s->fd, b.txc_size, &s->txc);
	if (err)
		return err;
	/* Children the tests fork hold none of the session (the tests watch
	 * it close).
	 */
	madvise(s->fill.hdr, s->fill.map_len, MADV_DONTFORK);
	madvise(s->rxc.hdr, s->rxc.map_len, MADV_DONTFORK);
	madvise(s->tx.hdr, s->tx.map_len, MADV_DONTFORK);
	madvise(s->txc.hdr, s->txc.map_len, MADV_DONTFORK);
	if (flags & REFNIC_BYPASS_F_HDR_SPLIT) {
		const void *p = refnic_bypass_map_hdr(s->fd, b.rxc_size,
						      &s->hdr_bytes);

		if (!p)
			return -errno;
		madvise((void *)p, s->hdr_bytes, MADV_DONTFORK);
		s->hdr = p;
	}
	return 0;
}

static void session_close(struct session *s)
{
	refnic_ring_prod__unmap(&s->fill);
	refnic_ring_cons__unmap(&s->rxc);
	refnic_ring_prod__unmap(&s->tx);
	refnic_ring_cons__unmap(&s->txc);
	if (s->hdr)
		munmap((void *)s->hdr, s->hdr_bytes);
	if (s->fd > 0)
		close(s->fd);
	if (s->umem)
		munmap(s->umem, UMEM_LEN);
	memset(s, 0, sizeof(*s));
}

static void kick(struct session *s)
{
	refnic_bypass_kick(s->fd);
}

static struct refnic_bypass_stats stats(struct session *s)
{
	struct refnic_bypass_stats st = {};

	refnic_bypass_get_stats(s->fd, &st);
	return st;
}

/* Puts buffers first .. first + n - 1 on the fill ring and kicks. */
static void fill_bufs(struct session *s, uint32_t first, uint32_t n)
{
	uint32_t idx, i;

	if (refnic_ring_prod__reserve(&s->fill, n, &idx) != n) {
		fprintf(stderr, "# no room for %u fill entries\n", n);
		return;
	}
	for (i = 0; i < n; i++)
		*refnic_ring_prod__fill_addr(&s->fill, idx + i) =
			(uint64_t)(first + i) * BUF_SIZE;
	refnic_ring_prod__submit(&s->fill, n);
	kick(s);
}

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* How long the tests wait for the kernel to act on a kick. A loaded TCG VM
 * can take a good part of a second to run the queue's NAPI poll, so the
 * tests wait for the state they expect rather than sleep a fixed time.
 */
#define KERNEL_ACTS_MS	10000

/* Waits until the kernel has consumed the ring of @h up to @idx; 0 or
 * -ETIMEDOUT.
 */
static int wait_consumed(struct refnic_bypass_ring_hdr *h, uint32_t idx)
{
	int waited;

	for (waited = 0; waited < KERNEL_ACTS_MS; waited++) {
		if (load_acq(&h->consumer) == idx)
			return 0;
		msleep(1);
	}
	return -ETIMEDOUT;
}

/* Waits until the kernel has marked the ring of @h broken; 0 or
 * -ETIMEDOUT.
 */
static int wait_broken(struct refnic_bypass_ring_hdr *h)
{
	int waited;

	for (waited = 0; waited < KERNEL_ACTS_MS; waited++) {
		if (load_acq(&h->flags) & REFNIC_BYPASS_RING_BROKEN)
			return 0;
		msleep(1);
	}
	return -ETIMEDOUT;
}

/* A broken session's queue pair goes back to the stack from a work item:
 * poll(2) says EPOLLHUP once it has.
 */
static int wait_detached(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int waited;

	for (waited = 0; waited < KERNEL_ACTS_MS; waited++) {
		if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLHUP))
			return 0;
		msleep(1);
	}
	return -ETIMEDOUT;
}

/* Kernel UDP sockets in these tests take bursts of a few hundred datagrams
 * while the VM may not schedule the reader for a while: a receive buffer
 * that holds them all keeps a slow reader from dropping any.
 */
static void rcvbuf_for_burst(int fd)
{
	int bytes = 8 << 20;

	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes));
}

/* --- Traffic from and to port A's namespace -------------------------- */

static void enter_peer_ns(void)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", env("BP_NS_PEER"));
	fd = open(path, O_RDONLY);
	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		perror("setns");
		_exit(2);
	}
	close(fd);
}

static void pattern(uint8_t *p, uint32_t seq, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seq * 7 + i);
	memcpy(p, &seq, sizeof(seq));
}

static int pattern_ok(const uint8_t *p, size_t len, uint32_t *seq)
{
	uint8_t want[2048];

	memcpy(seq, p, sizeof(*seq));
	pattern(want, *seq, len);
	return !memcmp(want, p, len);
}

/* A child in port A's namespace sends @n datagrams of PAYLOAD bytes to
 * B:@port from source ports @sport.. (spread over @nsports ports).
 */
static pid_t send_from_peer(int port, int n, int sport, int nsports,
			    int pace)
{
	pid_t pid = fork();
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(port) };
	uint8_t buf[PAYLOAD];
	int i, fd[64];

	if (pid)
		return pid;
	/* Not a holder of the parent's sessions (their mappings are
	 * MADV_DONTFORK): the tests watch them close.
	 */
	close_range(3, ~0U, 0);
	enter_peer_ns();
	inet_pton(AF_INET, env("BP_V4_B"), &dst.sin_addr);
	for (i = 0; i < nsports; i++) {
		struct sockaddr_in src = { .sin_family = AF_INET,
					   .sin_port = htons(sport + i) };

		fd[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (bind(fd[i], (void *)&src, sizeof(src)))
			_exit(3);
	}
	for (i = 0; i < n; i++) {
		pattern(buf, i, sizeof(buf));
		if (sendto(fd[i % nsports], buf, sizeof(buf), 0, (void *)&dst,
			   sizeof(dst)) != sizeof(buf))
			_exit(4);
		if (pace && i % pace == pace - 1)
			msleep(1);
	}
	_exit(0);
}

static int wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* A kernel UDP socket of port B on @port receives what a child in port A's
 * namespace sends (send_from_peer()). Returns the datagrams it got (up to
 * @n, 5 s without one ends it), or -1 if it cannot bind; *@sender is the
 * child's exit status.
 */
static int stack_receives(int port, int n, int sport, int nsports, int pace,
			  int *sender)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port) };
	struct timeval tv = { 5, 0 };
	uint8_t buf[PAYLOAD];
	int got = 0, fd;
	pid_t pid;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || bind(fd, (void *)&a, sizeof(a)))
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	rcvbuf_for_burst(fd);
	pid = send_from_peer(port, n, sport, nsports, pace);
	while (got < n && recv(fd, buf, sizeof(buf), 0) == sizeof(buf))
		got++;
	*sender = wait_child(pid);
	close(fd);
	return got;
}

static uint16_t ip_csum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i < len; i += 2)
		sum += p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* An Ethernet/IPv4/UDP frame B -> A:@dport at @f; returns its length. */
static size_t build_frame(uint8_t *f, uint32_t seq, int dport)
{
	struct in_addr a, b;
	uint16_t c, len = 20 + 8 + PAYLOAD;

	parse_mac(env("BP_MAC_A"), f);
	parse_mac(env("BP_MAC_B"), f + 6);
	f[12] = 0x08;
	f[13] = 0x00;
	inet_pton(AF_INET, env("BP_V4_A"), &a);
	inet_pton(AF_INET, env("BP_V4_B"), &b);
	memset(f + 14, 0, 20);
	f[14] = 0x45;
	f[16] = len >> 8;
	f[17] = len & 0xff;
	f[22] = 64;
	f[23] = IPPROTO_UDP;
	memcpy(f + 26, &b, 4);
	memcpy(f + 30, &a, 4);
	c = ip_csum(f + 14, 20);
	f[24] = c >> 8;
	f[25] = c & 0xff;
	f[34] = 0x23;			/* source port 9000 */
	f[35] = 0x28;
	f[36] = dport >> 8;
	f[37] = dport & 0xff;
	f[38] = (8 + PAYLOAD) >> 8;
	f[39] = (8 + PAYLOAD) & 0xff;
	f[40] = 0;			/* no UDP checksum */
	f[41] = 0;
	pattern(f + HDRS, seq, PAYLOAD);
	return HDRS + PAYLOAD;
}

/* Pinned pages the kernel holds right now, from /proc/vmstat. */
static long pinned_pages(void)
{
	long acq = -1, rel = -1, v;
	char key[64];
	FILE *f;
	int fd;

	/* Fold the per-CPU counter deltas in first. */
	fd = open("/proc/sys/vm/stat_refresh", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1)
		return -1;
	close(fd);
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld", key, &v) == 2) {
		if (!strcmp(key, "nr_foll_pin_acquired"))
			acq = v;
		else if (!strcmp(key, "nr_foll_pin_released"))
			rel = v;
	}
	fclose(f);
	return acq - rel;
}

/* Receives @n frames of the test flow into the rxc ring, checking each;
 * refills as it goes. Returns the frames that were intact.
 */
static int receive(struct session *s, int n, int split, int timeout_ms)
{
	int good = 0, got = 0, waited = 0;

	while (got < n && waited < timeout_ms) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		uint32_t idx, fidx, k, peeked;

		peeked = refnic_ring_cons__peek(&s->rxc, RING, &idx);
		if (!peeked) {
			if (poll(&pfd, 1, 10) == 0)
				waited += 10;
			continue;
		}
		/* Every buffer back onto the fill ring: it has a slot for
		 * each one the kernel took from it.
		 */
		if (refnic_ring_prod__reserve(&s->fill, peeked, &fidx) != peeked) {
			fprintf(stderr, "# no fill slots for %u buffers\n", peeked);
			break;
		}
		for (k = 0; k < peeked; k++) {
			const struct refnic_bypass_rx_desc *e =
				refnic_ring_cons__rx_desc(&s->rxc, idx + k);
			const uint8_t *frame = s->umem + e->addr;
			const uint8_t *h = frame;
			uint32_t seq, len = e->len;

			*refnic_ring_prod__fill_addr(&s->fill, fidx + k) = e->addr;
			if (split) {
				h = refnic_bypass_hdr_slot(s->hdr, &s->rxc, idx + k);
				if (!(e->flags & REFNIC_BYPASS_RX_SPLIT) ||
				    e->hdr_len != HDRS)
					continue;
			} else {
				frame += HDRS;
				len -= HDRS;
			}
			if (h[12] == 0x08 && h[13] == 0 && h[23] == IPPROTO_UDP &&
			    len == PAYLOAD && !(e->flags & REFNIC_BYPASS_RX_ERROR) &&
			    pattern_ok(frame, PAYLOAD, &seq))
				good++;
			got++;
		}
		refnic_ring_cons__release(&s->rxc, peeked);
		refnic_ring_prod__submit(&s->fill, peeked);
		if (refnic_ring_prod__needs_wakeup(&s->fill))
			kick(s);
	}
	return good;
}

static int bp_queue(void)
{
	return env_int("BP_QUEUE");
}

static int bp_port(void)
{
	return env_int("BP_PORT");
}

/* --- ABI --------------------------------------------------------------- */

TEST(bind_refusals)
{
	struct refnic_bypass_bind b;
	uint8_t *umem = umem_alloc();
	int fd, fd2;

	ASSERT_NE(NULL, umem);
	fd = open(REFNIC_BYPASS_DEV, O_RDWR);
	ASSERT_LE(0, fd);

	/* Nothing to map before a bind. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
				   REFNIC_BYPASS_OFF_FILL));

#define REFUSED(field, value, want) do {				\
		b = bind_req(umem, bp_queue(), 0);			\
		b.field = value;					\
		EXPECT_EQ(-1, ioctl(fd, REFNIC_BYPASS_IOC_BIND, &b));	\
		EXPECT_EQ(want, errno) TH_LOG(#field " = " #value);	\
	} while (0)

	/* Each refused bind leaves the file as it was: unbound, nothing
	 * to map, free to try again.
	 */
	REFUSED(abi_version, 99, EPROTO);
	REFUSED(buf_size, 1000, EINVAL);
	REFUSED(flags, 1U << 7, EINVAL);
	REFUSED(reserved, 1, EINVAL);
	REFUSED(fill_size, 1000, EINVAL);
	REFUSED(rxc_size, 32, EINVAL);
	REFUSED(tx_size, 8192, EINVAL);
	REFUSED(umem_addr, (uintptr_t)umem + 100, EINVAL);
	REFUSED(umem_len, 0, EINVAL);
	REFUSED(umem_addr, 4096, EFAULT);
	REFUSED(queue, 0, EINVAL);
	REFUSED(queue, env_int("BP_QUEUES"), ERANGE);
	REFUSED(ifindex, if_nametoindex("lo"), ENODEV);
	REFUSED(ifindex, 0, ENODEV);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
				   REFNIC_BYPASS_OFF_FILL));

	/* One binding per queue pair, one per file. */
	b = bind_req(umem, bp_queue(), 0);
	ASSERT_EQ(0, ioctl(fd, REFNIC_BYPASS_IOC_BIND, &b));
	EXPECT_EQ(-1, ioctl(fd, REFNIC_BYPASS_IOC_BIND, &b));
	EXPECT_EQ(EBUSY, errno);
	fd2 = open(REFNIC_BYPASS_DEV, O_RDWR);
	EXPECT_EQ(-1, ioctl(fd2, REFNIC_BYPASS_IOC_BIND, &b));
	EXPECT_EQ(EBUSY, errno);
	/* A session's rings are reachable through its own file only. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd2,
				   REFNIC_BYPASS_OFF_RXC));
	/* No header area without header split; nothing at other offsets. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
				   REFNIC_BYPASS_OFF_HDR));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd,
				   0x50000000));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd,
				   REFNIC_BYPASS_OFF_FILL));
	EXPECT_EQ(-1, ioctl(fd, 0xbeef));
	EXPECT_EQ(ENOTTY, errno);
	close(fd2);
	close(fd);
	munmap(umem, UMEM_LEN);
}

TEST(header_area_read_only)
{
	struct session s;

	ASSERT_EQ(0, session_open(&s, bp_queue(), REFNIC_BYPASS_F_HDR_SPLIT));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED, s.fd, REFNIC_BYPASS_OFF_HDR));
	EXPECT_EQ(EPERM, errno);
	EXPECT_NE(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, s.fd,
				   REFNIC_BYPASS_OFF_HDR));
	session_close(&s);
}

TEST(needs_cap_net_admin)
{
	pid_t pid = fork();

	if (!pid) {
		struct refnic_bypass_bind b;
		uint8_t *umem = umem_alloc();
		int fd;

		if (setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(10);
		fd = open(REFNIC_BYPASS_DEV, O_RDWR);
		if (fd < 0)
			_exit(11);
		b = bind_req(umem, bp_queue(), 0);
		if (ioctl(fd, REFNIC_BYPASS_IOC_BIND, &b) == 0)
			_exit(12);
		_exit(errno == EPERM ? 0 : 13);
	}
	EXPECT_EQ(0, wait_child(pid));
}

/* Pinned umem pages count against RLIMIT_MEMLOCK unless CAP_IPC_LOCK. */
TEST(memlock_limit)
{
	pid_t pid = fork();

	if (!pid) {
		struct __user_cap_header_struct h = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct d[2] = {};
		struct rlimit small = { 1 << 20, 1 << 20 };
		struct refnic_bypass_bind b;
		uint8_t *umem = umem_alloc();
		int fd;

		/* Keep CAP_NET_ADMIN, drop CAP_IPC_LOCK. */
		if (syscall(SYS_capget, &h, d))
			_exit(10);
		d[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
		if (syscall(SYS_capset, &h, d) || setrlimit(RLIMIT_MEMLOCK, &small))
			_exit(11);
		fd = open(REFNIC_BYPASS_DEV, O_RDWR);
		b = bind_req(umem, bp_queue(), 0);
		if (ioctl(fd, REFNIC_BYPASS_IOC_BIND, &b) == 0)
			_exit(12);
		if (errno != ENOBUFS)
			_exit(13);
		/* Within the limit it works. */
		b.umem_len = 512 << 10;
		_exit(ioctl(fd, REFNIC_BYPASS_IOC_BIND, &b) ? 14 : 0);
	}
	EXPECT_EQ(0, wait_child(pid));
}

/* --- Data -------------------------------------------------------------- */

TEST(rx_from_kernel_socket)
{
	int n = 400, good;
	struct refnic_bypass_stats st;
	struct session s;
	pid_t pid;

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	EXPECT_TRUE(s.fill.hdr->flags & REFNIC_BYPASS_RING_NEED_WAKEUP);
	fill_bufs(&s, 0, RING);

	pid = send_from_peer(bp_port(), n, 20000, 1, 0);
	good = receive(&s, n, 0, 20000);
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_EQ(n, good);

	st = stats(&s);
	EXPECT_EQ(n, st.rx_frames);
	EXPECT_EQ((uint64_t)n * (HDRS + PAYLOAD), st.rx_bytes);
	EXPECT_EQ(0, st.rx_errors);
	EXPECT_LE(RING, st.fill_bufs);
	EXPECT_LT(0, st.fill_batches);
	EXPECT_LT(0, st.irqs);
	EXPECT_EQ(0, st.bad_addr + st.bad_align + st.dup_buf + st.bad_index);
	TH_LOG("%llu fill batches for %llu buffers, %llu irqs, %llu polls, %llu kicks, %llu entries without a kick",
	       st.fill_batches, st.fill_bufs, st.irqs, st.polls, st.kicks,
	       st.wakeups_avoided);
	session_close(&s);
}

TEST(rx_header_split)
{
	int n = 200, good;
	struct session s;
	pid_t pid;

	ASSERT_EQ(0, session_open(&s, bp_queue(), REFNIC_BYPASS_F_HDR_SPLIT));
	fill_bufs(&s, 0, RING);
	pid = send_from_peer(bp_port(), n, 20000, 1, 0);
	good = receive(&s, n, 1, 20000);
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_EQ(n, good);
	EXPECT_EQ(n, stats(&s).rx_frames);
	session_close(&s);
}

/* RSS never picks a bound queue: flows no rule steers miss the session
 * and reach the stack.
 */
TEST(rss_avoids_bound_queue)
{
	int n = 256, got, sender;
	struct session s;

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	fill_bufs(&s, 0, RING);
	got = stack_receives(9100, n, 30000, 64, 32, &sender);
	ASSERT_LE(0, got);
	EXPECT_EQ(0, sender);
	EXPECT_EQ(n, got);
	EXPECT_EQ(0, stats(&s).rx_frames);
	session_close(&s);
}

TEST(tx_to_kernel_socket)
{
	struct refnic_bypass_stats st;
	int n = 300, sent = 0, done = 0, waited = 0, pipefd[2];
	uint32_t idx, batch, i;
	struct session s;
	pid_t pid;
	char c;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	if (!pid) {
		/* Port A's socket: every datagram, intact, in order. */
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons(9001) };
		struct timeval tv = { 10, 0 };
		uint8_t buf[PAYLOAD + 1];
		uint32_t seq;
		int fd, k;

		enter_peer_ns();
		fd = socket(AF_INET, SOCK_DGRAM, 0);
		if (bind(fd, (void *)&a, sizeof(a)))
			_exit(2);
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		rcvbuf_for_burst(fd);
		if (write(pipefd[1], "r", 1) != 1)
			_exit(3);
		for (k = 0; k < n; k++) {
			if (recv(fd, buf, sizeof(buf), 0) != PAYLOAD)
				_exit(4);
			if (!pattern_ok(buf, PAYLOAD, &seq) || seq != (uint32_t)k)
				_exit(5);
		}
		_exit(0);
	}
	ASSERT_EQ(1, read(pipefd[0], &c, 1));

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	while (done < n && waited < 20000) {
		/* Completions: count and release. */
		batch = refnic_ring_cons__peek(&s.txc, s.txc.size, &idx);
		refnic_ring_cons__release(&s.txc, batch);
		done += batch;

		/* Up to 32 frames a round, as many as the tx ring has room for. */
		batch = n - sent < 32 ? n - sent : 32;
		i = refnic_ring_prod__nb_free(&s.tx, batch);
		batch = i < batch ? i : batch;
		if (batch && refnic_ring_prod__reserve(&s.tx, batch, &idx) == batch) {
			for (i = 0; i < batch; i++, sent++) {
				uint64_t off = (uint64_t)(sent % UMEM_BUFS) * BUF_SIZE;

				*refnic_ring_prod__tx_desc(&s.tx, idx + i) =
					(struct refnic_bypass_tx_desc) {
					.addr = off,
					.len = build_frame(s.umem + off, sent, 9001),
				};
			}
			refnic_ring_prod__submit(&s.tx, batch);
		}
		kick(&s);
		msleep(2);
		waited += 2;
	}
	EXPECT_EQ(n, done);
	EXPECT_EQ(0, wait_child(pid));
	st = stats(&s);
	EXPECT_EQ(n, st.tx_frames);
	EXPECT_EQ((uint64_t)n * (HDRS + PAYLOAD), st.tx_bytes);
	session_close(&s);
}

/* --- Hostile rings ------------------------------------------------------ */

TEST(hostile_rings)
{
	struct refnic_bypass_tx_desc *tx;
	struct refnic_bypass_stats st;
	struct pollfd pfd;
	struct session s;
	uint64_t *fill;
	uint32_t p;

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	/* Entries and indices written raw, past the ring interface. */
	fill = s.fill.ring;
	tx = s.tx.ring;

	/* Fill: one good buffer, then one of each bad kind. */
	p = s.fill.hdr->producer;
	fill[p++ & (RING - 1)] = 0;
	fill[p++ & (RING - 1)] = UMEM_LEN + BUF_SIZE;	/* outside */
	fill[p++ & (RING - 1)] = ~0ULL;			/* outside */
	fill[p++ & (RING - 1)] = BUF_SIZE + 100;	/* misaligned */
	fill[p++ & (RING - 1)] = 0;			/* given twice */
	store_rel(&s.fill.hdr->producer, p);
	kick(&s);
	EXPECT_EQ(0, wait_consumed(s.fill.hdr, p));
	st = stats(&s);
	EXPECT_EQ(1, st.fill_bufs);
	EXPECT_EQ(2, st.bad_addr);
	EXPECT_EQ(1, st.bad_align);
	EXPECT_EQ(1, st.dup_buf);

	/* TX: each bad kind once; buffer 0 is posted for RX. */
	p = s.tx.hdr->producer;
	tx[p++ & (RING / 2 - 1)] = (struct refnic_bypass_tx_desc){ BUF_SIZE, 60, 1 };
	tx[p++ & (RING / 2 - 1)] = (struct refnic_bypass_tx_desc){ BUF_SIZE, 5, 0 };
	tx[p++ & (RING / 2 - 1)] = (struct refnic_bypass_tx_desc){ BUF_SIZE + 100, 2000, 0 };
	tx[p++ & (RING / 2 - 1)] = (struct refnic_bypass_tx_desc){ UMEM_LEN, 60, 0 };
	tx[p++ & (RING / 2 - 1)] = (struct refnic_bypass_tx_desc){ 0, 60, 0 };
	store_rel(&s.tx.hdr->producer, p);
	kick(&s);
	EXPECT_EQ(0, wait_consumed(s.tx.hdr, p));
	st = stats(&s);
	EXPECT_EQ(1, st.bad_flags);
	EXPECT_EQ(2, st.bad_len);
	EXPECT_EQ(3, st.bad_addr);
	EXPECT_EQ(2, st.dup_buf);
	EXPECT_EQ(0, st.tx_frames);
	EXPECT_EQ(0, st.bad_index);

	/* A consumer index the kernel never produced up to breaks it. */
	store_rel(&s.rxc.hdr->consumer, 12345);
	p = s.fill.hdr->producer;
	fill[p++ & (RING - 1)] = BUF_SIZE * 8;
	store_rel(&s.fill.hdr->producer, p);
	kick(&s);
	EXPECT_EQ(0, wait_broken(s.fill.hdr));
	st = stats(&s);
	EXPECT_EQ(1, st.bad_index);
	EXPECT_TRUE(refnic_ring_cons__broken(&s.rxc));
	pfd = (struct pollfd){ .fd = s.fd, .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, KERNEL_ACTS_MS));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_EQ(-1, ioctl(s.fd, REFNIC_BYPASS_IOC_KICK));
	EXPECT_EQ(EPIPE, errno);
	session_close(&s);
}

TEST(producer_jump_breaks_session)
{
	int n = 50, got, sender;
	struct session s;

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	/* More than a ring ahead of what the kernel consumed. */
	store_rel(&s.tx.hdr->producer, s.tx.size + 7);
	kick(&s);
	EXPECT_EQ(0, wait_broken(s.tx.hdr));
	EXPECT_EQ(1, stats(&s).bad_index);

	/* Torn down: the queue pair is the stack's again while the broken
	 * file is still open.
	 */
	ASSERT_EQ(0, wait_detached(s.fd));
	got = stack_receives(bp_port(), n, 24000, 1, 10, &sender);
	ASSERT_LE(0, got);
	EXPECT_EQ(0, sender);
	EXPECT_EQ(n, got);
	session_close(&s);
}

/* A process flipping a producer index between polls, from a thread of its
 * own: between its consumer (nothing to take) and @span past it. NAPI must
 * read each index once a poll and act on that value alone: a poll that
 * asks for another must have seen work the next one then does, and an
 * index out of range must break the session, never count as work.
 */
struct flipper {
	struct refnic_bypass_ring_hdr *h;
	uint32_t span;
	int stop;
	unsigned long flips;
};

static void *flip_producer(void *arg)
{
	struct flipper *f = arg;
	struct refnic_bypass_ring_hdr *h = f->h;

	/* One store a pass, alternating: a VM under single-threaded TCG
	 * switches vCPUs only between translation blocks (here at the loop's
	 * branch), and would otherwise always stop this thread after the
	 * same store. The consumer is read again each time: the kernel may
	 * have taken entries meanwhile.
	 */
	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED)) {
		store_rel(&h->producer, load_acq(&h->consumer) +
					(f->flips & 1 ? f->span : 0));
		f->flips++;
	}
	return NULL;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Flips the producer index of the ring of @h for @ms (or until the session
 * breaks), kicking whenever the kernel asks; returns the flips.
 */
static unsigned long flip_for(struct session *s, struct refnic_bypass_ring_hdr *h,
			      uint32_t span, int ms)
{
	struct flipper f = { .h = h, .span = span };
	long end = now_ms() + ms;
	pthread_t t;

	if (pthread_create(&t, NULL, flip_producer, &f))
		return 0;
	while (now_ms() < end) {
		uint32_t flags = load_acq(&h->flags);

		if (flags & REFNIC_BYPASS_RING_BROKEN)
			break;
		if (flags & REFNIC_BYPASS_RING_NEED_WAKEUP)
			kick(s);
		msleep(1);
	}
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	return f.flips;
}

/* Every poll comes from a kick, an interrupt, or a poll that asked for it
 * having seen work, which the poll it asked for takes: at least one fill
 * entry (a fill batch). The two over that allow for the bind.
 */
static int polls_accounted(const struct refnic_bypass_stats *st)
{
	return st->polls <= st->kicks + st->irqs + st->fill_batches + 2;
}

TEST(flipped_index_no_spin)
{
	struct refnic_bypass_stats st;
	unsigned long flips;
	struct session s;
	uint64_t *fill;
	uint32_t i;

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	/* Entries outside the umem: each one NAPI takes is refused and
	 * counted, posts nothing, and the rxc ring never fills.
	 */
	fill = s.fill.ring;
	for (i = 0; i < RING; i++)
		fill[i] = UMEM_LEN + BUF_SIZE;

	/* Between nothing and one entry: both in range. */
	flips = flip_for(&s, s.fill.hdr, 1, 2000);
	st = stats(&s);
	TH_LOG("%lu flips: %llu polls, %llu kicks, %llu irqs, %llu fill batches, %llu entries taken, bad_index %llu",
	       flips, (unsigned long long)st.polls,
	       (unsigned long long)st.kicks, (unsigned long long)st.irqs,
	       (unsigned long long)st.fill_batches,
	       (unsigned long long)st.bad_addr,
	       (unsigned long long)st.bad_index);
	EXPECT_LT(0, flips);
	EXPECT_TRUE(polls_accounted(&st));
	EXPECT_EQ(0, st.fill_bufs);
	EXPECT_EQ(st.bad_addr, load_acq(&s.fill.hdr->consumer));
	/* A stale flip (the consumer moved on between the thread's read and
	 * its store) puts the producer behind the consumer: that breaks the
	 * session, once.
	 */
	EXPECT_GE(1, st.bad_index);
	session_close(&s);
}

TEST(flipped_index_breaks_session)
{
	struct refnic_bypass_stats st;
	struct pollfd pfd;
	unsigned long flips;
	struct session s;

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	/* Between nothing and more than a ring ahead. */
	flips = flip_for(&s, s.fill.hdr, RING + 1, KERNEL_ACTS_MS);
	EXPECT_EQ(0, wait_broken(s.fill.hdr));
	st = stats(&s);
	TH_LOG("%lu flips: %llu polls, %llu kicks, %llu irqs",
	       flips, (unsigned long long)st.polls,
	       (unsigned long long)st.kicks, (unsigned long long)st.irqs);
	EXPECT_EQ(1, st.bad_index);
	EXPECT_EQ(0, st.fill_batches);
	EXPECT_TRUE(polls_accounted(&st));
	pfd = (struct pollfd){ .fd = s.fd, .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, KERNEL_ACTS_MS));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_EQ(-1, ioctl(s.fd, REFNIC_BYPASS_IOC_KICK));
	EXPECT_EQ(EPIPE, errno);
	session_close(&s);
}

/* Random garbage in every ring, entry and index, under traffic, over many
 * sessions: the kernel must refuse it all without a complaint in its log
 * (the harness checks) and give every page back.
 */
TEST(garbage_storm)
{
	long base = pinned_pages();
	struct refnic_bypass_stats st;
	uint64_t refused = 0;
	int round, i;
	pid_t pid;

	srandom(1234);
	pid = send_from_peer(bp_port(), 4000, 23000, 1, 8);
	for (round = 0; round < 40; round++) {
		struct session s;

		ASSERT_EQ(0, session_open(&s, bp_queue(),
					  round & 1 ? REFNIC_BYPASS_F_HDR_SPLIT : 0));
		/* The four rings, raw. */
		struct {
			struct refnic_bypass_ring_hdr *hdr;
			void *entries;
			uint32_t size;
		} r[4] = {
			{ s.fill.hdr, s.fill.ring, s.fill.size },
			{ s.rxc.hdr, s.rxc.ring, s.rxc.size },
			{ s.tx.hdr, s.tx.ring, s.tx.size },
			{ s.txc.hdr, s.txc.ring, s.txc.size },
		};

		fill_bufs(&s, 0, RING / 2);
		msleep(5);
		for (i = 0; i < 64; i++) {
			typeof(r[0]) *g = &r[random() % 4];
			uint32_t *w = g->entries;

			w[random() % (g->size * 2)] = random() % 3 ?
				random() % (UMEM_LEN + 8192) : random();
			if (i % 8 == 7) {
				uint32_t *idx = random() & 1 ? &g->hdr->producer :
							     &g->hdr->consumer;

				store_rel(idx, *idx + random() % (2 * g->size));
			}
			kick(&s);
		}
		msleep(5);
		st = stats(&s);
		refused += st.bad_addr + st.bad_align + st.bad_len +
			   st.bad_flags + st.dup_buf + st.bad_index;
		session_close(&s);
	}
	wait_child(pid);
	EXPECT_LT(0, refused);
	EXPECT_EQ(base, pinned_pages());
	TH_LOG("%llu ring entries refused over 40 sessions",
	       (unsigned long long)refused);
}

/* After any session, the queue pair is the stack's again. */
TEST(queue_back_to_stack)
{
	int n = 100, got, sender;
	struct session s;

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	fill_bufs(&s, 0, 64);
	session_close(&s);

	got = stack_receives(bp_port(), n, 21000, 1, 16, &sender);
	ASSERT_LE(0, got);
	EXPECT_EQ(0, sender);
	EXPECT_EQ(n, got);
}

/* --- Teardown ----------------------------------------------------------- */

TEST(teardown_under_traffic)
{
	long base = pinned_pages();
	struct session s;
	pid_t pid;

	ASSERT_LE(0, base);
	ASSERT_EQ(0, session_open(&s, bp_queue(), REFNIC_BYPASS_F_HDR_SPLIT));
	EXPECT_EQ(base + UMEM_LEN / 4096, pinned_pages());
	fill_bufs(&s, 0, RING);
	pid = send_from_peer(bp_port(), 3000, 22000, 1, 0);
	receive(&s, 50, 1, 10000);
	/* Unmapping the umem does not unpin it: the device may still
	 * write there until the file is closed.
	 */
	munmap(s.umem, UMEM_LEN);
	s.umem = NULL;
	EXPECT_EQ(base + UMEM_LEN / 4096, pinned_pages());
	session_close(&s);
	EXPECT_EQ(base, pinned_pages());
	wait_child(pid);
}

TEST(process_exit_releases)
{
	long base = pinned_pages();
	struct session s;
	pid_t pid = fork();

	if (!pid) {
		if (session_open(&s, bp_queue(), 0))
			_exit(1);
		fill_bufs(&s, 0, RING);
		_exit(0);	/* no close, no munmap */
	}
	EXPECT_EQ(0, wait_child(pid));
	EXPECT_EQ(base, pinned_pages());
	/* And the queue is free to bind again. */
	EXPECT_EQ(0, session_open(&s, bp_queue(), 0));
	session_close(&s);
}

TEST(port_down_ends_session)
{
	long base = pinned_pages();
	struct pollfd pfd;
	struct session s;
	char cmd[128];

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	fill_bufs(&s, 0, RING);
	snprintf(cmd, sizeof(cmd), "ip link set %s down", env("BP_DEV"));
	ASSERT_EQ(0, system(cmd));
	pfd = (struct pollfd){ .fd = s.fd, .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, KERNEL_ACTS_MS));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_TRUE(pfd.revents & POLLHUP);
	EXPECT_EQ(-1, ioctl(s.fd, REFNIC_BYPASS_IOC_KICK));
	EXPECT_EQ(ENXIO, errno);
	snprintf(cmd, sizeof(cmd), "ip link set %s up", env("BP_DEV"));
	ASSERT_EQ(0, system(cmd));
	session_close(&s);
	EXPECT_EQ(base, pinned_pages());
}

/* While bound, ring and channel changes wait; hardware GRO stays off. */
TEST(reconfig_refused_while_bound)
{
	struct session s;
	char cmd[256];

	ASSERT_EQ(0, session_open(&s, bp_queue(), 0));
	snprintf(cmd, sizeof(cmd), "ethtool -G %s rx 256 2>/dev/null",
		 env("BP_DEV"));
	EXPECT_NE(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "ethtool -L %s combined 2 2>/dev/null",
		 env("BP_DEV"));
	EXPECT_NE(0, system(cmd));
	snprintf(cmd, sizeof(cmd),
		 "ethtool -K %s rx-gro-hw on >/dev/null 2>&1; ethtool -k %s | grep -q 'rx-gro-hw: off'",
		 env("BP_DEV"), env("BP_DEV"));
	EXPECT_EQ(0, system(cmd));
	session_close(&s);
	snprintf(cmd, sizeof(cmd), "ethtool -k %s | grep -q 'rx-gro-hw: on'",
		 env("BP_DEV"));
	EXPECT_EQ(0, system(cmd)) TH_LOG("rx-gro-hw comes on once unbound");
	snprintf(cmd, sizeof(cmd), "ethtool -K %s rx-gro-hw off", env("BP_DEV"));
	EXPECT_EQ(0, system(cmd));
}

REFNIC_HARNESS_MAIN
