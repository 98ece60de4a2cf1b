// SPDX-License-Identifier: GPL-2.0
/*
 * Netlink fuzz test of the refnic generic netlink family (uapi/refnic.yaml).
 * Run by selftests/genl/fuzz.sh, which adds what a process cannot see from
 * inside: kprobe counts of every handler, the kernel log, slab usage, page
 * pools and the module's reference count. This binary prints KTAP.
 *
 *   fuzz [--seed N] [--count N] [--batch N] [--max-devs N] [--ns2 PATH]
 *        [--no-churn] [--self-test] [--quiet]
 *
 * The seed also comes from $REFNIC_FUZZ_SEED, the count from
 * $REFNIC_FUZZ_COUNT; the seed is printed first, so a failure replays with
 * --seed (the concurrent churn makes the kernel's side timing dependent,
 * the messages sent are not: the same seed sends the same sequence of
 * messages as long as the same replies come back).
 *
 * Messages. Each request starts as a valid message of one operation (dev-get
 * do and dump, dev-new, dev-del, link-set, stats-get do and dump, fault-set,
 * fault-get dump, bus-set) naming a plausible ifindex: a refnic port seen in a reply
 * (live, or deleted since: stale), 0, 1 (lo, not refnic), a random small
 * one or a huge one. About 80% are then mutated, 1-4 times: an attribute
 * dropped, duplicated, re-typed (another type, an unknown one, NLA_F_NESTED
 * or NLA_F_NET_BYTEORDER set wrongly), given an extreme value (0, 1, -1,
 * INT/U32/U64 max and min, at 1/2/4/8 bytes), a garbage attribute added,
 * bits flipped, an nla_len pointing past the message or odd or below the
 * header, the message cut short, the genl command or version changed, or
 * NLM_F_DUMP set on a do-only operation (or dropped from a dump). nlmsg_len
 * always matches what is sent: a message whose nlmsg_len lies is dropped by
 * netlink_rcv_skb() without an answer, which would not test the family.
 * Every request carries NLM_F_REQUEST | NLM_F_ACK and a unique sequence
 * number; requests go out in batches (--batch, one sendmsg each, at most one
 * dump per batch, and last).
 *
 * "Every request answered": each request gets exactly one final answer,
 * matched by sequence number: an NLMSG_ERROR (an ACK or an errno) or, for
 * a dump, NLMSG_DONE (its payload the dump's errno). A request with no final
 * answer within 30 s, a second final answer, an answer to no request or a
 * lost message (ENOBUFS on the socket) fails the test. Answers are counted
 * per operation and outcome (the errno histogram is printed).
 *
 * Bounds, so the VM stays sane: dev-new is only sent while fewer than
 * --max-devs (4) pairs made by the fuzzer exist, and then mostly with 1-2
 * queues and 64-256 descriptor rings (the extreme-value mutation still
 * reaches 16 queues and 4096 descriptors now and then); above the cap a
 * dev-del of one of them is sent instead. Every pair the fuzzer made, and
 * every refnic port left in either namespace, is deleted at the end, which
 * also disarms every fault; the test then checks that dev-get finds no
 * port in either namespace.
 *
 * Concurrency: a churn thread creates and deletes pairs all along, half
 * through rtnetlink (RTM_NEWLINK kind refnic, as `ip link add`, the peer
 * every other time in the second namespace) and half through the family's
 * dev-new/dev-del, brings both ports up (page pools, and IPv6's own
 * traffic: router solicitations, MLD, DAD), waits 0-40 ms and deletes the
 * pair. Fuzzed requests name these ports too (they show up in dev-get
 * dumps), so requests race with registration and teardown, and the fuzzer
 * may delete a churn pair first (the churn thread accepts ENODEV then). A
 * monitor thread listens to the family's "monitor" group in both
 * namespaces, so the notification paths run too, and counts what arrives.
 *
 * Second namespace: --ns2 PATH (a /run/netns file). dev-new's netns-fd and
 * peer-netns-fd name it, our own namespace or no namespace at all (a file
 * descriptor of /dev/null, a closed or huge one). Ports created there are
 * found and deleted through a socket opened in it.
 *
 * --self-test: one final answer is ignored on purpose; the "every request
 * answered" check must then fail (fuzz.sh --self-test checks that it does).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/genetlink.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"

/* The ABI under test, generated from uapi/refnic.yaml. */
#include "../../uapi/linux/refnic.h"
#include "../../uapi/linux/if_refnic.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif

#define MSG_MAX		1024	/* one request, after mutation */
#define RX_BUF		(256 * 1024)
#define MAX_BATCH	64
#define ANSWER_TIMEOUT_MS 30000
#define KNOWN_MAX	64	/* ifindexes remembered */
#define SEQ_BASE	1000

/* ---- deterministic PRNG (splitmix64 seeded xorshift64*) ------------------- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
	uint64_t x = rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static void rnd_seed(uint64_t seed)
{
	uint64_t z = seed + 0x9E3779B97F4A7C15ULL;

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	rng_state = (z ^ (z >> 31)) | 1;
}

static uint32_t rnd(uint32_t n) /* [0, n) */
{
	return n ? (uint32_t)(rnd64() % n) : 0;
}

static bool chance(unsigned int percent)
{
	return rnd(100) < percent;
}

/* The churn thread's own generator (its timing is not replayable anyway). */
static uint32_t rnd_r(uint64_t *s, uint32_t n)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return n ? (uint32_t)(*s % n) : 0;
}

/* ---- operations ------------------------------------------------------------ */

enum op {
	OP_DEV_GET, OP_DEV_GET_DUMP, OP_DEV_NEW, OP_DEV_DEL, OP_LINK_SET,
	OP_STATS_GET, OP_STATS_GET_DUMP, OP_FAULT_SET, OP_FAULT_GET_DUMP,
	OP_BUS_SET,
	OP_OTHER,	/* a command or do/dump combination with no handler */
	NUM_OPS
};

static const char *const op_name[NUM_OPS] = {
	"dev-get", "dev-get-dump", "dev-new", "dev-del", "link-set",
	"stats-get", "stats-get-dump", "fault-set", "fault-get-dump", "bus-set",
	"other",
};

/* Which handler a request reaches, by what it is as sent. */
static enum op classify(uint8_t cmd, bool dump)
{
	switch (cmd) {
	case REFNIC_CMD_DEV_GET: return dump ? OP_DEV_GET_DUMP : OP_DEV_GET;
	case REFNIC_CMD_DEV_NEW: return dump ? OP_OTHER : OP_DEV_NEW;
	case REFNIC_CMD_DEV_DEL: return dump ? OP_OTHER : OP_DEV_DEL;
	case REFNIC_CMD_LINK_SET: return dump ? OP_OTHER : OP_LINK_SET;
	case REFNIC_CMD_STATS_GET:
		return dump ? OP_STATS_GET_DUMP : OP_STATS_GET;
	case REFNIC_CMD_FAULT_SET: return dump ? OP_OTHER : OP_FAULT_SET;
	case REFNIC_CMD_FAULT_GET: return dump ? OP_FAULT_GET_DUMP : OP_OTHER;
	case REFNIC_CMD_BUS_SET: return dump ? OP_OTHER : OP_BUS_SET;
	}
	return OP_OTHER;
}

/* ---- statistics ------------------------------------------------------------- */

#define ERRNO_MAX 140

static struct {
	uint64_t sent, batches, mutated, replies;
	uint64_t answers[NUM_OPS][ERRNO_MAX + 1]; /* by errno; 0 is success */
	uint64_t unanswered, duplicate, unknown_seq, enobufs, bad_answer;
	uint64_t dev_new_ok, dev_del_ok, fuzz_created_ns2;
} st;

/* ---- netlink plumbing -------------------------------------------------------- */

static int nl_open(int proto)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd, one = 1, size = 4 << 20;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		ksft_exit_fail_perror("socket(AF_NETLINK)");
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		ksft_exit_fail_perror("bind");
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	return fd;
}

/* A message under construction. */
struct msg {
	uint8_t buf[MSG_MAX];
	uint32_t len;
};

static struct nlmsghdr *msg_start(struct msg *m, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)m->buf;

	memset(m->buf, 0, sizeof(m->buf));
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	m->len = NLMSG_HDRLEN;
	return nlh;
}

static void *msg_put(struct msg *m, const void *data, uint32_t len)
{
	void *p = m->buf + m->len;

	if (m->len + NLMSG_ALIGN(len) > sizeof(m->buf))
		return NULL;
	if (data)
		memcpy(p, data, len);
	m->len += NLMSG_ALIGN(len);
	return p;
}

static struct nlattr *attr_put(struct msg *m, uint16_t type, const void *data,
			       uint16_t len)
{
	struct nlattr *a = (struct nlattr *)(m->buf + m->len);

	if (m->len + NLA_HDRLEN + NLA_ALIGN(len) > sizeof(m->buf))
		return NULL;
	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((uint8_t *)a + NLA_HDRLEN, data, len);
	m->len += NLA_HDRLEN + NLA_ALIGN(len);
	return a;
}

static void attr_u32(struct msg *m, uint16_t type, uint32_t v)
{
	attr_put(m, type, &v, 4);
}

static void attr_str(struct msg *m, uint16_t type, const char *s)
{
	attr_put(m, type, s, strlen(s) + 1);
}

static struct nlattr *nest_start(struct msg *m, uint16_t type)
{
	return attr_put(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct msg *m, struct nlattr *a)
{
	a->nla_len = m->buf + m->len - (uint8_t *)a;
}

static void msg_finish(struct msg *m, uint32_t seq)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)m->buf;

	nlh->nlmsg_len = m->len;
	nlh->nlmsg_seq = seq;
}

static const struct nlattr *attr_find(const void *data, int len, uint16_t type)
{
	const struct nlattr *a;

	for (a = data; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
	     a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len),
	     a = (const void *)((const uint8_t *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
	return NULL;
}

static uint32_t attr_get_u32(const struct nlattr *a)
{
	uint32_t v = 0;

	if (a && a->nla_len >= NLA_HDRLEN + 4)
		memcpy(&v, (const uint8_t *)a + NLA_HDRLEN, 4);
	return v;
}

/* Synchronous request on @fd: send, read until the final answer of our
 * sequence number; @cb sees each data message. Returns 0 or -errno.
 */
typedef void (*reply_cb)(const struct nlmsghdr *nlh, void *arg);

static int nl_request(int fd, struct msg *m, uint32_t seq, reply_cb cb,
		      void *arg)
{
	static __thread uint8_t buf[RX_BUF];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	const struct nlmsghdr *nlh;
	ssize_t n;
	int len;

	msg_finish(m, seq);
	if (send(fd, m->buf, m->len, 0) < 0)
		return -errno;
	for (;;) {
		if (poll(&pfd, 1, ANSWER_TIMEOUT_MS) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		len = n;
		for (nlh = (void *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
			if (nlh->nlmsg_type == NLMSG_DONE)
				return nlh->nlmsg_len >= NLMSG_HDRLEN + 4 ?
				       *(int *)NLMSG_DATA(nlh) : 0;
			if (cb)
				cb(nlh, arg);
		}
	}
}

/* ---- the family ------------------------------------------------------------------ */

static uint16_t family_id;
static uint32_t monitor_grp;

static void family_cb(const struct nlmsghdr *nlh, void *arg)
{
	const uint8_t *p = NLMSG_DATA(nlh) + GENL_HDRLEN;
	int len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	const struct nlattr *a, *grps, *g;
	int glen;

	a = attr_find(p, len, CTRL_ATTR_FAMILY_ID);
	if (a)
		family_id = *(uint16_t *)((uint8_t *)a + NLA_HDRLEN);
	grps = attr_find(p, len, CTRL_ATTR_MCAST_GROUPS);
	if (!grps)
		return;
	glen = grps->nla_len - NLA_HDRLEN;
	for (g = (void *)((uint8_t *)grps + NLA_HDRLEN);
	     glen >= NLA_HDRLEN && g->nla_len >= NLA_HDRLEN && g->nla_len <= glen;
	     glen -= NLA_ALIGN(g->nla_len),
	     g = (void *)((uint8_t *)g + NLA_ALIGN(g->nla_len))) {
		const struct nlattr *name, *id;

		name = attr_find((uint8_t *)g + NLA_HDRLEN,
				 g->nla_len - NLA_HDRLEN, CTRL_ATTR_MCAST_GRP_NAME);
		id = attr_find((uint8_t *)g + NLA_HDRLEN,
			       g->nla_len - NLA_HDRLEN, CTRL_ATTR_MCAST_GRP_ID);
		if (name && id &&
		    !strcmp((char *)name + NLA_HDRLEN, REFNIC_MCGRP_MONITOR))
			monitor_grp = attr_get_u32(id);
	}
}

static int resolve_family(int fd)
{
	struct genlmsghdr g = { .cmd = CTRL_CMD_GETFAMILY, .version = 1 };
	struct msg m;

	msg_start(&m, GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK);
	msg_put(&m, &g, sizeof(g));
	attr_str(&m, CTRL_ATTR_FAMILY_NAME, REFNIC_FAMILY_NAME);
	return nl_request(fd, &m, 1, family_cb, NULL);
}

static void genl_start(struct msg *m, uint8_t cmd, uint16_t flags)
{
	struct genlmsghdr g = { .cmd = cmd, .version = REFNIC_FAMILY_VERSION };

	msg_start(m, family_id, NLM_F_REQUEST | NLM_F_ACK | flags);
	msg_put(m, &g, sizeof(g));
}

/* ---- what the fuzzer knows about ports ---------------------------------------------- */

struct ifset {
	uint32_t idx[KNOWN_MAX];
	unsigned int n;
};

static struct ifset live, stale;	/* our namespace's refnic ports */

static bool ifset_has(struct ifset *s, uint32_t i)
{
	for (unsigned int k = 0; k < s->n; k++)
		if (s->idx[k] == i)
			return true;
	return false;
}

static void ifset_add(struct ifset *s, uint32_t i)
{
	if (!i || ifset_has(s, i))
		return;
	if (s->n == KNOWN_MAX) {
		memmove(s->idx, s->idx + 1, (KNOWN_MAX - 1) * sizeof(s->idx[0]));
		s->n--;
	}
	s->idx[s->n++] = i;
}

static void ifset_del(struct ifset *s, uint32_t i)
{
	for (unsigned int k = 0; k < s->n; k++)
		if (s->idx[k] == i) {
			s->idx[k] = s->idx[--s->n];
			return;
		}
}

/* Pairs the fuzzer made: a port's ifindex and the namespace it is in. */
struct created {
	uint32_t ifindex;
	bool ns2;
};

static struct created made[64];
static unsigned int n_made;
static unsigned int max_devs = 4;

static uint32_t pick_ifindex(void)
{
	uint32_t r = rnd(100);

	if (r < 55 && live.n)
		return live.idx[rnd(live.n)];
	if (r < 65 && n_made)
		return made[rnd(n_made)].ifindex;
	if (r < 75 && stale.n)
		return stale.idx[rnd(stale.n)];
	if (r < 80)
		return 0;
	if (r < 85)
		return 1;	/* lo: not a refnic device */
	if (r < 90) {
		static const uint32_t huge[] = { 0x7fffffff, 0x80000000,
						 0xfffffffe, 0xffffffff, 65536 };
		return huge[rnd(5)];
	}
	return 1 + rnd(300);
}

/* ---- seeds: one valid message per operation ----------------------------------------- */

static int fd_self_ns = -1, fd_ns2 = -1, fd_devnull = -1;

static uint32_t pick_netns_fd(void)
{
	uint32_t r = rnd(100);

	if (r < 35)
		return fd_self_ns;
	if (r < 70 && fd_ns2 >= 0)
		return fd_ns2;
	if (r < 80)
		return fd_devnull;	/* not a namespace */
	if (r < 90)
		return 1000 + rnd(1000); /* not open */
	return rnd(2) ? 0xffffffff : 0x7fffffff;
}

static uint32_t name_ctr;

static void seed_dev_new(struct msg *m)
{
	static const uint32_t rings[] = { 64, 64, 128, 256 };
	char name[32];

	if (chance(60)) {
		snprintf(name, sizeof(name), "fz%u", name_ctr++);
		attr_str(m, REFNIC_A_DEV_IFNAME, name);
	}
	if (chance(40)) {
		snprintf(name, sizeof(name), "fz%up", name_ctr++);
		attr_str(m, REFNIC_A_DEV_PEER_IFNAME, name);
	}
	if (chance(15))
		attr_u32(m, REFNIC_A_DEV_NETNS_FD, pick_netns_fd());
	if (chance(25))
		attr_u32(m, REFNIC_A_DEV_PEER_NETNS_FD, pick_netns_fd());
	if (chance(70))
		attr_u32(m, REFNIC_A_DEV_QUEUES, 1 + rnd(2));
	/* Without them the default (512) applies: keep memory small. */
	attr_u32(m, REFNIC_A_DEV_RX_RING_SIZE, rings[rnd(4)]);
	attr_u32(m, REFNIC_A_DEV_TX_RING_SIZE, rings[rnd(4)]);
}

static void seed_link(struct msg *m)
{
	static const uint64_t rates[] = { 0, 1, 1000000, 10000000000ULL,
					  10000000000000ULL };
	struct nlattr *n = nest_start(m, REFNIC_A_DEV_LINK);
	uint64_t rate;

	if (chance(50)) {
		uint8_t c = rnd(2);

		attr_put(m, REFNIC_A_LINK_CARRIER, &c, 1);
	}
	if (chance(40)) {
		rate = rates[rnd(5)];
		attr_put(m, REFNIC_A_LINK_RATE, &rate, 8);
	}
	if (chance(40))
		attr_u32(m, REFNIC_A_LINK_LATENCY,
			 chance(50) ? 0 : rnd(REFNIC_LATENCY_MAX + 1));
	if (chance(40))
		attr_u32(m, REFNIC_A_LINK_LOSS,
			 chance(50) ? 0 : rnd(REFNIC_PPM_MAX + 1));
	nest_end(m, n);
}

/* Costs stay small (a read spins its CPU read-ns): the VM must stay quick.
 * Nodes: none, 0, 1 (offline in a one-node VM), or any.
 */
static void seed_bus(struct msg *m)
{
	static const uint32_t gens[] = { 0, 3, 4, 5, 1, 6 };
	static const uint32_t lanes[] = { 1, 2, 4, 8, 16, 3, 32 };
	static const int32_t nodes[] = { -1, 0, 1, 1024 };
	struct nlattr *n = nest_start(m, REFNIC_A_DEV_BUS);
	int32_t node;

	if (chance(50))
		attr_u32(m, REFNIC_A_BUS_READ_NS, chance(50) ? 0 : rnd(2000));
	if (chance(40))
		attr_u32(m, REFNIC_A_BUS_GEN, gens[rnd(6)]);
	if (chance(40))
		attr_u32(m, REFNIC_A_BUS_LANES, lanes[rnd(7)]);
	if (chance(30)) {
		node = nodes[rnd(4)];
		attr_put(m, REFNIC_A_BUS_NODE, &node, 4);
	}
	if (chance(30))
		attr_u32(m, REFNIC_A_BUS_REMOTE_NS, rnd(2000));
	/* A counter: read-only, refused. */
	if (chance(5))
		attr_u32(m, REFNIC_A_BUS_WRITES, 0);
	nest_end(m, n);
}

static void seed_fault(struct msg *m)
{
	attr_u32(m, REFNIC_A_FAULT_IFINDEX, pick_ifindex());
	/* every fault type the uAPI has (mutation makes the unknown ones) */
	attr_u32(m, REFNIC_A_FAULT_TYPE, rnd(REFNIC_FAULT_LOSE_IRQ + 1));
	attr_u32(m, REFNIC_A_FAULT_QUEUE, chance(70) ? rnd(2) : rnd(16));
	switch (rnd(4)) {
	case 0: attr_u32(m, REFNIC_A_FAULT_RATE, rnd(REFNIC_PPM_MAX + 1)); break;
	case 1: attr_u32(m, REFNIC_A_FAULT_COUNT, rnd(100)); break;
	case 2: attr_u32(m, REFNIC_A_FAULT_RATE, 0); break; /* clear */
	default: break;	/* neither: clear */
	}
}

/* Weights of the seed operations, per thousand. dev-new is the costly one
 * under TCG (a pair registered, and deleted again later).
 */
static const unsigned int op_weight[NUM_OPS - 1] = {
	[OP_DEV_GET] = 130, [OP_DEV_GET_DUMP] = 80, [OP_DEV_NEW] = 50,
	[OP_DEV_DEL] = 90, [OP_LINK_SET] = 150, [OP_STATS_GET] = 140,
	[OP_STATS_GET_DUMP] = 80, [OP_FAULT_SET] = 150, [OP_FAULT_GET_DUMP] = 90,
	[OP_BUS_SET] = 40,
};

static enum op pick_op(void)
{
	uint32_t r = rnd(1000), acc = 0;

	for (int i = 0; i < NUM_OPS - 1; i++) {
		acc += op_weight[i];
		if (r < acc)
			return i;
	}
	return OP_FAULT_SET;
}

/* Builds a valid request of @op into @m. Returns the op actually built. */
static enum op build_seed(struct msg *m, enum op op)
{
	if (op == OP_DEV_NEW && n_made >= max_devs)
		op = OP_DEV_DEL;

	switch (op) {
	case OP_DEV_GET:
		genl_start(m, REFNIC_CMD_DEV_GET, 0);
		attr_u32(m, REFNIC_A_DEV_IFINDEX, pick_ifindex());
		break;
	case OP_DEV_GET_DUMP:
		genl_start(m, REFNIC_CMD_DEV_GET, NLM_F_DUMP);
		break;
	case OP_DEV_NEW:
		genl_start(m, REFNIC_CMD_DEV_NEW, 0);
		seed_dev_new(m);
		break;
	case OP_DEV_DEL:
		genl_start(m, REFNIC_CMD_DEV_DEL, 0);
		/* Mostly one of ours, so that the cap holds. */
		attr_u32(m, REFNIC_A_DEV_IFINDEX,
			 n_made && chance(70) ? made[rnd(n_made)].ifindex :
			 pick_ifindex());
		break;
	case OP_LINK_SET:
		genl_start(m, REFNIC_CMD_LINK_SET, 0);
		attr_u32(m, REFNIC_A_DEV_IFINDEX, pick_ifindex());
		seed_link(m);
		break;
	case OP_STATS_GET:
		genl_start(m, REFNIC_CMD_STATS_GET, 0);
		attr_u32(m, REFNIC_A_STATS_IFINDEX, pick_ifindex());
		break;
	case OP_STATS_GET_DUMP:
		genl_start(m, REFNIC_CMD_STATS_GET, NLM_F_DUMP);
		break;
	case OP_FAULT_SET:
		genl_start(m, REFNIC_CMD_FAULT_SET, 0);
		seed_fault(m);
		break;
	case OP_FAULT_GET_DUMP:
		genl_start(m, REFNIC_CMD_FAULT_GET, NLM_F_DUMP);
		if (chance(50))
			attr_u32(m, REFNIC_A_FAULT_IFINDEX, pick_ifindex());
		break;
	case OP_BUS_SET:
		genl_start(m, REFNIC_CMD_BUS_SET, 0);
		attr_u32(m, REFNIC_A_DEV_IFINDEX, pick_ifindex());
		seed_bus(m);
		break;
	default:
		break;
	}
	return op;
}

/* ---- mutations ---------------------------------------------------------------------- */

#define PAYLOAD_OFF (NLMSG_HDRLEN + GENL_HDRLEN)

/* The top-level attributes of @m: offsets, at most 32. */
static int attr_offsets(struct msg *m, uint32_t *off)
{
	uint32_t o = PAYLOAD_OFF;
	int n = 0;

	while (o + NLA_HDRLEN <= m->len && n < 32) {
		struct nlattr *a = (void *)(m->buf + o);

		if (a->nla_len < NLA_HDRLEN || o + a->nla_len > m->len)
			break;
		off[n++] = o;
		o += NLA_ALIGN(a->nla_len);
	}
	return n;
}

/* Also the attributes inside the first nest, so nests get mutated too. */
static int attr_offsets_deep(struct msg *m, uint32_t *off)
{
	uint32_t top[32];
	int n = attr_offsets(m, top), k = 0;

	for (int i = 0; i < n && k < 32; i++) {
		struct nlattr *a = (void *)(m->buf + top[i]);
		uint32_t o = top[i] + NLA_HDRLEN, end = top[i] + a->nla_len;

		off[k++] = top[i];
		if (!(a->nla_type & NLA_F_NESTED))
			continue;
		while (o + NLA_HDRLEN <= end && k < 32) {
			struct nlattr *c = (void *)(m->buf + o);

			if (c->nla_len < NLA_HDRLEN || o + c->nla_len > end)
				break;
			off[k++] = o;
			o += NLA_ALIGN(c->nla_len);
		}
	}
	return k;
}

/* Fixes the nla_len of nests enclosing [at, at + 0) after @delta bytes were
 * inserted or removed at @at.
 */
static void fix_nests(struct msg *m, uint32_t at, int delta)
{
	uint32_t top[32];
	int n = attr_offsets(m, top);

	(void)n;
	for (int i = 0; i < n; i++) {
		struct nlattr *a = (void *)(m->buf + top[i]);

		if ((a->nla_type & NLA_F_NESTED) && top[i] < at &&
		    at < top[i] + a->nla_len)
			a->nla_len += delta;
	}
}

static void msg_splice(struct msg *m, uint32_t at, uint32_t del, const void *ins,
		   uint32_t ins_len)
{
	if (at > m->len)
		return;
	if (del > m->len - at)	/* an unaligned last attribute */
		del = m->len - at;
	if (m->len - del + ins_len > sizeof(m->buf))
		return;
	memmove(m->buf + at + ins_len, m->buf + at + del, m->len - at - del);
	if (ins_len)
		memcpy(m->buf + at, ins, ins_len);
	m->len = m->len - del + ins_len;
}

static const uint64_t extremes[] = {
	0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0xffff, 0x7fffffff, 0x80000000,
	0xffffffff, 0x100000000ULL, 0x7fffffffffffffffULL,
	0x8000000000000000ULL, 0xffffffffffffffffULL, (uint64_t)-2,
	REFNIC_QUEUES_MAX, REFNIC_QUEUES_MAX + 1, REFNIC_RING_MIN - 1,
	REFNIC_RING_MAX, REFNIC_RING_MAX + 1, REFNIC_RING_MAX * 2,
	REFNIC_LATENCY_MAX, REFNIC_LATENCY_MAX + 1, REFNIC_PPM_MAX,
	REFNIC_PPM_MAX + 1, 10000000000000ULL, 10000000000001ULL, 3, 4, 15, 16,
};

static void mutate(struct msg *m)
{
	struct nlmsghdr *nlh = (void *)m->buf;
	struct genlmsghdr *g = (void *)(m->buf + NLMSG_HDRLEN);
	uint32_t off[32], o;
	struct nlattr *a;
	int n = attr_offsets_deep(m, off);
	uint8_t tmp[MSG_MAX];

	switch (rnd(12)) {
	case 0: /* drop an attribute */
		if (!n)
			break;
		o = off[rnd(n)];
		a = (void *)(m->buf + o);
		{
			uint32_t l = NLA_ALIGN(a->nla_len);

			msg_splice(m, o, l, NULL, 0);
			fix_nests(m, o, -(int)l);
		}
		break;
	case 1: /* duplicate one */
		if (!n)
			break;
		o = off[rnd(n)];
		a = (void *)(m->buf + o);
		{
			uint32_t l = NLA_ALIGN(a->nla_len);

			memcpy(tmp, a, l);
			if (m->len + l > sizeof(m->buf))
				break;
			fix_nests(m, o, l);
			msg_splice(m, o, 0, tmp, l);
		}
		break;
	case 2: /* re-type */
		if (!n)
			break;
		a = (void *)(m->buf + off[rnd(n)]);
		switch (rnd(5)) {
		case 0: a->nla_type = (a->nla_type & ~NLA_TYPE_MASK) | rnd(20); break;
		case 1: a->nla_type ^= NLA_F_NESTED; break;
		case 2: a->nla_type ^= NLA_F_NET_BYTEORDER; break;
		case 3: a->nla_type = rnd(0x10000); break;
		default: a->nla_type = (a->nla_type & ~NLA_TYPE_MASK) |
				       (NLA_TYPE_MASK - rnd(4)); break;
		}
		break;
	case 3: /* extreme value, of a random width */
		if (!n)
			break;
		o = off[rnd(n)];
		a = (void *)(m->buf + o);
		if (a->nla_type & NLA_F_NESTED && chance(70))
			break;
		{
			static const uint32_t widths[] = { 0, 1, 2, 4, 8, 4, 4, 8 };
			uint64_t v = extremes[rnd(sizeof(extremes) / sizeof(extremes[0]))];
			uint32_t w = chance(70) ? (uint32_t)(a->nla_len - NLA_HDRLEN) :
				     widths[rnd(8)];
			uint32_t oldl = NLA_ALIGN(a->nla_len);
			uint8_t attr[NLA_HDRLEN + 8];
			struct nlattr *na = (void *)attr;

			if (w > 8)
				w = 8;
			if (chance(20))
				v = -v;
			memset(attr, 0, sizeof(attr));
			na->nla_type = a->nla_type;
			na->nla_len = NLA_HDRLEN + w;
			memcpy(attr + NLA_HDRLEN, &v, w);
			msg_splice(m, o, oldl, attr, NLA_ALIGN(NLA_HDRLEN + w));
			fix_nests(m, o, (int)NLA_ALIGN(NLA_HDRLEN + w) - (int)oldl);
		}
		break;
	case 4: /* a garbage attribute */
		{
			uint8_t attr[NLA_HDRLEN + 40];
			struct nlattr *na = (void *)attr;
			uint32_t l = rnd(33);

			for (uint32_t i = 0; i < sizeof(attr); i++)
				attr[i] = rnd(256);
			na->nla_type = chance(50) ? rnd(16) : rnd(0x10000);
			na->nla_len = NLA_HDRLEN + l;
			o = n && chance(50) ? off[rnd(n)] : m->len;
			fix_nests(m, o, NLA_ALIGN(NLA_HDRLEN + l));
			msg_splice(m, o, 0, attr, NLA_ALIGN(NLA_HDRLEN + l));
		}
		break;
	case 5: /* flip bits in the payload */
		if (m->len <= NLMSG_HDRLEN)
			break;
		for (int i = 1 + rnd(3); i; i--) {
			o = NLMSG_HDRLEN + rnd(m->len - NLMSG_HDRLEN);
			m->buf[o] ^= 1 << rnd(8);
		}
		break;
	case 6: /* a lying nla_len */
		if (!n)
			break;
		a = (void *)(m->buf + off[rnd(n)]);
		switch (rnd(5)) {
		case 0: a->nla_len = m->len + rnd(64); break;	/* past the end */
		case 1: a->nla_len = rnd(NLA_HDRLEN); break;	/* below the header */
		case 2: a->nla_len |= 1; break;			/* odd */
		case 3: a->nla_len = 0xffff; break;
		default: if (a->nla_len > NLA_HDRLEN) a->nla_len--; break;
		}
		break;
	case 7: /* cut the message short, anywhere past the nlmsghdr */
		if (m->len > NLMSG_HDRLEN)
			m->len = NLMSG_HDRLEN + rnd(m->len - NLMSG_HDRLEN);
		break;
	case 8: /* another command */
		{
			static const uint8_t cmds[] = {
				0, REFNIC_CMD_DEV_ADD_NTF, REFNIC_CMD_DEV_DEL_NTF,
				REFNIC_CMD_LINK_CHANGE_NTF, REFNIC_CMD_FAULT_NTF,
				REFNIC_CMD_MAX + 1, 0x7f, 0xff };

			if (chance(50))
				g->cmd = cmds[rnd(sizeof(cmds))];
			else
				g->cmd = 1 + rnd(REFNIC_CMD_FAULT_GET);
		}
		break;
	case 9: /* another version, or reserved bits */
		if (chance(70))
			g->version = chance(50) ? 0 : rnd(256);
		else
			g->reserved = rnd(0x10000);
		break;
	case 10: /* dump on a do-only operation, or a dump without NLM_F_DUMP */
		nlh->nlmsg_flags ^= chance(80) ? NLM_F_DUMP :
				    (chance(50) ? NLM_F_ROOT : NLM_F_MATCH);
		break;
	default: /* other flags: ECHO, EXCL, CREATE, REPLACE, ... */
		nlh->nlmsg_flags |= (1 << (3 + rnd(10))) & ~NLM_F_DUMP;
		break;
	}
}

/* ---- sending and answering ------------------------------------------------------------ */

struct pending {
	uint32_t seq;
	enum op op;
	bool answered;
	bool ns2;	/* sent on the second namespace's socket */
	int err;
};

static int sk_fuzz = -1, sk_fuzz2 = -1;
static uint32_t next_seq = SEQ_BASE;
static bool self_test;
static bool self_test_dropped;
static int quiet;

static void note_reply(const struct nlmsghdr *nlh, struct pending *p)
{
	const struct genlmsghdr *g = NLMSG_DATA(nlh);
	const uint8_t *attrs = (const uint8_t *)g + GENL_HDRLEN;
	int len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	uint32_t ifi;

	st.replies++;
	if (len < 0)
		return;
	if (g->cmd != REFNIC_CMD_DEV_GET && g->cmd != REFNIC_CMD_DEV_NEW)
		return;
	ifi = attr_get_u32(attr_find(attrs, len, REFNIC_A_DEV_IFINDEX));
	if (!ifi)
		return;
	if (g->cmd == REFNIC_CMD_DEV_NEW) {
		/* A pair made by us: port 0 is in the namespace its reply
		 * names... which we learn by looking it up in ours first.
		 */
		made[n_made].ifindex = ifi;
		made[n_made].ns2 = p->ns2;
		if (n_made < sizeof(made) / sizeof(made[0]) - 1)
			n_made++;
		st.dev_new_ok++;
	}
	if (!p->ns2) {
		ifset_add(&live, ifi);
		ifset_del(&stale, ifi);
	}
}

/* Reads answers until every request of the batch has its final one. */
static void collect(int fd, struct pending *pend, int np)
{
	static uint8_t buf[RX_BUF];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int left = 0;

	for (int i = 0; i < np; i++)
		left += !pend[i].answered;
	while (left) {
		struct nlmsghdr *nlh;
		ssize_t n;
		int len;

		if (poll(&pfd, 1, ANSWER_TIMEOUT_MS) <= 0) {
			for (int i = 0; i < np; i++)
				if (!pend[i].answered) {
					st.unanswered++;
					ksft_print_msg("seq %u (%s) not answered within %d ms\n",
						       pend[i].seq, op_name[pend[i].op],
						       ANSWER_TIMEOUT_MS);
				}
			return;
		}
		n = recv(fd, buf, sizeof(buf), MSG_TRUNC);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			if (errno == ENOBUFS) {
				st.enobufs++;
				ksft_print_msg("answers lost: ENOBUFS\n");
				continue;
			}
			ksft_exit_fail_perror("recv");
		}
		if (n > (ssize_t)sizeof(buf)) {
			st.bad_answer++;
			ksft_print_msg("answer of %zd bytes truncated\n", n);
			n = sizeof(buf);
		}
		len = n;
		for (nlh = (void *)buf; NLMSG_OK(nlh, len);
		     nlh = NLMSG_NEXT(nlh, len)) {
			struct pending *p = NULL;
			bool final;
			int err = 0;

			for (int i = 0; i < np; i++)
				if (pend[i].seq == nlh->nlmsg_seq)
					p = &pend[i];
			if (!p) {
				st.unknown_seq++;
				ksft_print_msg("answer type %u to unknown seq %u\n",
					       nlh->nlmsg_type, nlh->nlmsg_seq);
				continue;
			}
			final = nlh->nlmsg_type == NLMSG_ERROR ||
				nlh->nlmsg_type == NLMSG_DONE;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				if (nlh->nlmsg_len < NLMSG_HDRLEN + sizeof(int))
					st.bad_answer++;
				else
					err = ((struct nlmsgerr *)NLMSG_DATA(nlh))->error;
			} else if (nlh->nlmsg_type == NLMSG_DONE) {
				if (nlh->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					err = *(int *)NLMSG_DATA(nlh);
			} else if (nlh->nlmsg_type == family_id) {
				if (p->answered) {
					st.bad_answer++;
					ksft_print_msg("seq %u: data after its final answer\n",
						       p->seq);
				}
				note_reply(nlh, p);
				continue;
			} else {
				st.bad_answer++;
				ksft_print_msg("seq %u: answer of type %u\n",
					       p->seq, nlh->nlmsg_type);
				continue;
			}
			if (!final)
				continue;
			if (self_test && !self_test_dropped && st.sent > 500) {
				/* Planted: lose this answer. */
				self_test_dropped = true;
				ksft_print_msg("self-test: ignoring the answer to seq %u\n",
					       p->seq);
				continue;
			}
			if (p->answered) {
				st.duplicate++;
				ksft_print_msg("seq %u (%s): a second final answer (%d)\n",
					       p->seq, op_name[p->op], err);
				continue;
			}
			p->answered = true;
			p->err = err;
			left--;
			if (err > 0 || err < -ERRNO_MAX) {
				st.bad_answer++;
				ksft_print_msg("seq %u: error %d\n", p->seq, err);
				err = -ERRNO_MAX;
			}
			st.answers[p->op][-err]++;
		}
	}
}

/* Outcome of a request whose success changes what we know. */
static void after_answer(struct pending *p, struct msg *m)
{
	const struct genlmsghdr *g = (void *)(m->buf + NLMSG_HDRLEN);
	const struct nlattr *a;
	uint32_t ifi;

	if (!p->answered || p->err || p->op != OP_DEV_DEL ||
	    m->len < PAYLOAD_OFF)
		return;
	(void)g;
	a = attr_find(m->buf + PAYLOAD_OFF, m->len - PAYLOAD_OFF,
		      REFNIC_A_DEV_IFINDEX);
	ifi = attr_get_u32(a);
	st.dev_del_ok++;
	/* Both ports went; we know one. Forget the pair if it was ours. */
	for (unsigned int k = 0; k < n_made; k++)
		if (made[k].ifindex == ifi && made[k].ns2 == p->ns2) {
			made[k] = made[--n_made];
			break;
		}
	if (!p->ns2) {
		ifset_del(&live, ifi);
		ifset_add(&stale, ifi);
	}
}

/* A port of ours that is gone (its pair deleted by someone else) still
 * counts against the cap until a dev-del of it fails with ENODEV.
 */
static void forget_dead(struct pending *p, struct msg *m)
{
	const struct nlattr *a;
	uint32_t ifi;

	if (!p->answered || p->op != OP_DEV_DEL || p->err != -ENODEV ||
	    m->len < PAYLOAD_OFF)
		return;
	a = attr_find(m->buf + PAYLOAD_OFF, m->len - PAYLOAD_OFF,
		      REFNIC_A_DEV_IFINDEX);
	ifi = attr_get_u32(a);
	for (unsigned int k = 0; k < n_made; k++)
		if (made[k].ifindex == ifi && made[k].ns2 == p->ns2) {
			made[k] = made[--n_made];
			break;
		}
	if (!p->ns2) {
		ifset_del(&live, ifi);
		ifset_add(&stale, ifi);
	}
}

static void hexdump_msg(const char *what, struct msg *m)
{
	char line[3 * 32 + 1];

	ksft_print_msg("%s (%u bytes):\n", what, m->len);
	for (uint32_t i = 0; i < m->len; i += 32) {
		int k = 0;

		for (uint32_t j = i; j < m->len && j < i + 32; j++)
			k += sprintf(line + k, "%02x ", m->buf[j]);
		ksft_print_msg("  %s\n", line);
	}
}

static struct msg batch_msg[MAX_BATCH];

/* One batch on @fd: @nb requests, built and mutated, sent in one sendmsg. */
static void run_batch(int fd, bool ns2, int nb)
{
	struct pending pend[MAX_BATCH];
	struct iovec iov[MAX_BATCH];
	struct msghdr mh = { .msg_iov = iov };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	int np = 0;
	bool have_dump = false;

	mh.msg_name = &kernel;
	mh.msg_namelen = sizeof(kernel);
	for (int i = 0; i < nb; i++) {
		struct msg *m = &batch_msg[np];
		struct nlmsghdr *nlh;
		struct genlmsghdr *g;
		enum op op = pick_op();
		bool dump;

		/* At most one dump per batch, and last: a second would find
		 * the socket's dump running (EBUSY).
		 */
		if (have_dump && (op == OP_DEV_GET_DUMP ||
				  op == OP_STATS_GET_DUMP ||
				  op == OP_FAULT_GET_DUMP))
			op = OP_STATS_GET;
		op = build_seed(m, op);
		if (chance(80)) {
			int k = 1 + (chance(70) ? 0 : rnd(4));

			while (k--)
				mutate(m);
			st.mutated++;
		}
		msg_finish(m, next_seq);
		nlh = (void *)m->buf;
		/* Keep every request a request that asks for an answer. */
		nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
		g = (void *)(m->buf + NLMSG_HDRLEN);
		dump = (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
		if (dump) {
			if (have_dump)
				nlh->nlmsg_flags &= ~NLM_F_DUMP;
			dump = !have_dump;
			have_dump = true;
		}
		pend[np] = (struct pending){
			.seq = next_seq++,
			.op = m->len >= PAYLOAD_OFF ? classify(g->cmd, dump) :
						      OP_OTHER,
			.ns2 = ns2,
		};
		iov[np].iov_base = m->buf;
		iov[np].iov_len = m->len;
		np++;
	}
	/* The dump goes last: requests after it in the batch would be
	 * answered before the rest of the dump, which is fine, but a dump
	 * request must be the last one for netlink not to drop what follows
	 * when it fails. Simplest: move it there.
	 */
	for (int i = 0; i < np - 1; i++) {
		struct nlmsghdr *nlh = (void *)batch_msg[i].buf;

		if ((nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP) {
			struct msg t = batch_msg[i];
			struct pending tp = pend[i];

			batch_msg[i] = batch_msg[np - 1];
			batch_msg[np - 1] = t;
			pend[i] = pend[np - 1];
			pend[np - 1] = tp;
			iov[i].iov_base = batch_msg[i].buf;
			iov[i].iov_len = batch_msg[i].len;
			iov[np - 1].iov_base = batch_msg[np - 1].buf;
			iov[np - 1].iov_len = batch_msg[np - 1].len;
			break;
		}
	}
	/* One datagram holding all of them: netlink_rcv_skb() walks it. */
	{
		static uint8_t dgram[MAX_BATCH * MSG_MAX];
		uint32_t l = 0;

		for (int i = 0; i < np; i++) {
			memcpy(dgram + l, batch_msg[i].buf, batch_msg[i].len);
			l += NLMSG_ALIGN(batch_msg[i].len);
		}
		iov[0].iov_base = dgram;
		iov[0].iov_len = l;
		mh.msg_iovlen = 1;
		if (sendmsg(fd, &mh, 0) < 0)
			ksft_exit_fail_perror("sendmsg");
	}
	st.sent += np;
	st.batches++;
	collect(fd, pend, np);
	for (int i = 0; i < np; i++) {
		after_answer(&pend[i], &batch_msg[i]);
		forget_dead(&pend[i], &batch_msg[i]);
		if (!pend[i].answered)
			hexdump_msg("unanswered request", &batch_msg[i]);
	}
}

/* ---- the churn thread ------------------------------------------------------------------ */

static atomic_bool stop;
static atomic_ulong churn_rtnl, churn_genl, churn_up, churn_del_raced;
static atomic_ulong churn_errors;
static char ns2_path[256];

static int rtnl_simple(int fd, uint16_t type, uint16_t flags, const char *name,
		       uint32_t set_flags, uint32_t change)
{
	struct ifinfomsg ifm = { .ifi_family = AF_UNSPEC, .ifi_flags = set_flags,
				 .ifi_change = change };
	struct msg m;

	msg_start(&m, type, NLM_F_REQUEST | NLM_F_ACK | flags);
	msg_put(&m, &ifm, sizeof(ifm));
	attr_str(&m, IFLA_IFNAME, name);
	return nl_request(fd, &m, 1, NULL, NULL);
}

/* ip link add NAME type refnic queues Q rx-ring R tx-ring R peer name PEER
 * [netns NS2]
 */
static int rtnl_pair_add(int fd, const char *name, const char *peer,
			 uint32_t queues, uint32_t ring, int peer_ns_fd)
{
	struct ifinfomsg ifm = { .ifi_family = AF_UNSPEC };
	struct nlattr *li, *data, *pe;
	struct msg m;

	msg_start(&m, RTM_NEWLINK, NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE |
				   NLM_F_EXCL);
	msg_put(&m, &ifm, sizeof(ifm));
	attr_str(&m, IFLA_IFNAME, name);
	li = nest_start(&m, IFLA_LINKINFO);
	attr_str(&m, IFLA_INFO_KIND, "refnic");
	data = nest_start(&m, IFLA_INFO_DATA);
	pe = nest_start(&m, IFLA_REFNIC_PEER);
	msg_put(&m, &ifm, sizeof(ifm));
	attr_str(&m, IFLA_IFNAME, peer);
	if (peer_ns_fd >= 0)
		attr_u32(&m, IFLA_NET_NS_FD, peer_ns_fd);
	nest_end(&m, pe);
	attr_u32(&m, IFLA_REFNIC_QUEUES, queues);
	attr_u32(&m, IFLA_REFNIC_RX_RING_SIZE, ring);
	attr_u32(&m, IFLA_REFNIC_TX_RING_SIZE, ring);
	nest_end(&m, data);
	nest_end(&m, li);
	return nl_request(fd, &m, 1, NULL, NULL);
}

struct churn_ctx {
	int genl, rtnl, rtnl2;	/* genl and rtnetlink here, rtnetlink in ns2 */
};

static void churn_check(int err, const char *what, const char *name)
{
	/* The fuzzer may have deleted the pair first. */
	if (err == -ENODEV) {
		atomic_fetch_add(&churn_del_raced, 1);
		return;
	}
	if (err) {
		atomic_fetch_add(&churn_errors, 1);
		ksft_print_msg("churn: %s %s: %s\n", what, name, strerror(-err));
	}
}

static void *churn_thread(void *arg)
{
	struct churn_ctx *c = arg;
	uint64_t s = 0x1234567 ^ (uint64_t)time(NULL);
	char a[IFNAMSIZ], b[IFNAMSIZ];
	unsigned int i = 0;

	while (!atomic_load(&stop)) {
		bool peer_ns2 = c->rtnl2 >= 0 && (i & 2);
		uint32_t q = 1 + rnd_r(&s, 2), ring = 64 << rnd_r(&s, 3);
		int err, up_fd = peer_ns2 ? c->rtnl2 : c->rtnl;

		snprintf(a, sizeof(a), "fc%ua", i);
		snprintf(b, sizeof(b), "fc%ub", i);
		if (i & 1) {
			err = rtnl_pair_add(c->rtnl, a, b, q, ring,
					    peer_ns2 ? fd_ns2 : -1);
			if (err) {
				atomic_fetch_add(&churn_errors, 1);
				ksft_print_msg("churn: ip link add %s: %s\n", a,
					       strerror(-err));
				usleep(100000);
				i++;
				continue;
			}
			atomic_fetch_add(&churn_rtnl, 1);
		} else {
			struct msg m;

			genl_start(&m, REFNIC_CMD_DEV_NEW, 0);
			attr_str(&m, REFNIC_A_DEV_IFNAME, a);
			attr_str(&m, REFNIC_A_DEV_PEER_IFNAME, b);
			if (peer_ns2)
				attr_u32(&m, REFNIC_A_DEV_PEER_NETNS_FD, fd_ns2);
			attr_u32(&m, REFNIC_A_DEV_QUEUES, q);
			attr_u32(&m, REFNIC_A_DEV_RX_RING_SIZE, ring);
			attr_u32(&m, REFNIC_A_DEV_TX_RING_SIZE, ring);
			err = nl_request(c->genl, &m, 1, NULL, NULL);
			if (err) {
				atomic_fetch_add(&churn_errors, 1);
				ksft_print_msg("churn: dev-new %s: %s\n", a,
					       strerror(-err));
				usleep(100000);
				i++;
				continue;
			}
			atomic_fetch_add(&churn_genl, 1);
		}
		err = rtnl_simple(c->rtnl, RTM_NEWLINK, 0, a, IFF_UP, IFF_UP);
		churn_check(err, "up", a);
		err = rtnl_simple(up_fd, RTM_NEWLINK, 0, b, IFF_UP, IFF_UP);
		churn_check(err, "up", b);
		if (!err)
			atomic_fetch_add(&churn_up, 1);
		usleep(rnd_r(&s, 40000));
		if (i & 1) {
			err = rtnl_simple(c->rtnl, RTM_DELLINK, 0, a, 0, 0);
			churn_check(err, "ip link del", a);
		} else {
			struct msg m;
			struct ifreq ifr = {};
			int ifi = 0, sfd;

			/* dev-del wants the ifindex. */
			snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", a);
			sfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			if (sfd >= 0 && !ioctl(sfd, SIOCGIFINDEX, &ifr))
				ifi = ifr.ifr_ifindex;
			if (sfd >= 0)
				close(sfd);
			if (!ifi) {
				atomic_fetch_add(&churn_del_raced, 1);
			} else {
				genl_start(&m, REFNIC_CMD_DEV_DEL, 0);
				attr_u32(&m, REFNIC_A_DEV_IFINDEX, ifi);
				err = nl_request(c->genl, &m, 1, NULL, NULL);
				churn_check(err, "dev-del", a);
			}
		}
		i++;
	}
	return NULL;
}

/* ---- the monitor thread ------------------------------------------------------------------ */

static atomic_ulong ntf_count[REFNIC_CMD_MAX + 1], ntf_lost;

static void *monitor_thread(void *arg)
{
	int *fds = arg;
	struct pollfd pfd[2] = { { .fd = fds[0], .events = POLLIN },
				 { .fd = fds[1], .events = POLLIN } };
	static uint8_t buf[RX_BUF];
	int nfd = fds[1] >= 0 ? 2 : 1;

	while (!atomic_load(&stop)) {
		if (poll(pfd, nfd, 100) <= 0)
			continue;
		for (int k = 0; k < nfd; k++) {
			struct nlmsghdr *nlh;
			ssize_t n;
			int len;

			if (!(pfd[k].revents & POLLIN))
				continue;
			n = recv(pfd[k].fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (n < 0) {
				if (errno == ENOBUFS)
					atomic_fetch_add(&ntf_lost, 1);
				continue;
			}
			len = n;
			for (nlh = (void *)buf; NLMSG_OK(nlh, len);
			     nlh = NLMSG_NEXT(nlh, len)) {
				struct genlmsghdr *g = NLMSG_DATA(nlh);

				if (nlh->nlmsg_type == family_id &&
				    g->cmd <= REFNIC_CMD_MAX)
					atomic_fetch_add(&ntf_count[g->cmd], 1);
			}
		}
	}
	return NULL;
}

/* ---- cleanup ---------------------------------------------------------------------------- */

struct iflist {
	uint32_t idx[256];
	int n;
};

static void dump_cb(const struct nlmsghdr *nlh, void *arg)
{
	struct iflist *l = arg;
	const uint8_t *attrs = (const uint8_t *)NLMSG_DATA(nlh) + GENL_HDRLEN;
	int len = nlh->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	uint32_t ifi, port;
	const struct nlattr *pa;

	if (nlh->nlmsg_type != family_id || len < 0)
		return;
	ifi = attr_get_u32(attr_find(attrs, len, REFNIC_A_DEV_IFINDEX));
	pa = attr_find(attrs, len, REFNIC_A_DEV_PORT);
	port = attr_get_u32(pa);
	(void)port;
	if (ifi && l->n < 256)
		l->idx[l->n++] = ifi;
}

/* Deletes every refnic port the family shows on @fd. Returns how many
 * ports were left, after up to 5 rounds.
 */
static int delete_all(int fd, int *deleted)
{
	struct iflist l;
	struct msg m;
	int err;

	for (int round = 0; round < 5; round++) {
		l.n = 0;
		genl_start(&m, REFNIC_CMD_DEV_GET, NLM_F_DUMP);
		err = nl_request(fd, &m, next_seq++, dump_cb, &l);
		if (err) {
			ksft_print_msg("dev-get dump: %s\n", strerror(-err));
			return -1;
		}
		if (!l.n)
			return 0;
		for (int i = 0; i < l.n; i++) {
			genl_start(&m, REFNIC_CMD_DEV_DEL, 0);
			attr_u32(&m, REFNIC_A_DEV_IFINDEX, l.idx[i]);
			err = nl_request(fd, &m, next_seq++, NULL, NULL);
			if (!err)
				(*deleted)++;
			else if (err != -ENODEV)
				ksft_print_msg("dev-del %u: %s\n", l.idx[i],
					       strerror(-err));
		}
	}
	return l.n;
}

/* ---- main -------------------------------------------------------------------------------- */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [--seed N] [--count N] [--batch N] [--max-devs N]\n"
		"          [--ns2 /run/netns/NAME] [--no-churn] [--self-test] [--quiet]\n",
		argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "batch", required_argument, NULL, 'b' },
		{ "max-devs", required_argument, NULL, 'm' },
		{ "ns2", required_argument, NULL, 'n' },
		{ "no-churn", no_argument, NULL, 'C' },
		{ "self-test", no_argument, NULL, 'T' },
		{ "quiet", no_argument, NULL, 'q' },
		{}
	};
	uint64_t seed = 0, count = 100000;
	int batch = 16, opt, rc, left, left2 = 0, deleted = 0;
	bool churn = true, have_seed = false;
	struct churn_ctx cc = { .rtnl2 = -1 };
	pthread_t churn_tid, mon_tid;
	int mon_fds[2] = { -1, -1 };
	double t0, t1;
	uint64_t ok_total;
	const char *e;

	if ((e = getenv("REFNIC_FUZZ_SEED")) && *e) {
		seed = strtoull(e, NULL, 0);
		have_seed = true;
	}
	if ((e = getenv("REFNIC_FUZZ_COUNT")) && *e)
		count = strtoull(e, NULL, 0);
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's': seed = strtoull(optarg, NULL, 0); have_seed = true; break;
		case 'c': count = strtoull(optarg, NULL, 0); break;
		case 'b': batch = atoi(optarg); break;
		case 'm': max_devs = atoi(optarg); break;
		case 'n': snprintf(ns2_path, sizeof(ns2_path), "%s", optarg); break;
		case 'C': churn = false; break;
		case 'T': self_test = true; break;
		case 'q': quiet = 1; break;
		default: usage(argv[0]);
		}
	}
	if (batch < 1 || batch > MAX_BATCH || max_devs < 1 || max_devs > 32)
		usage(argv[0]);
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003 ^ ts.tv_nsec ^ getpid();
	}
	rnd_seed(seed);

	ksft_print_header();
	ksft_print_msg("seed %llu (replay: REFNIC_FUZZ_SEED=%llu or --seed %llu), %llu messages, batches of %d, at most %u pairs of ours\n",
		       (unsigned long long)seed, (unsigned long long)seed,
		       (unsigned long long)seed, (unsigned long long)count,
		       batch, max_devs);
	ksft_set_plan(6);

	if (geteuid())
		ksft_exit_skip("needs root\n");

	fd_self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	fd_devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (ns2_path[0]) {
		fd_ns2 = open(ns2_path, O_RDONLY | O_CLOEXEC);
		if (fd_ns2 < 0)
			ksft_exit_fail_perror(ns2_path);
	}

	sk_fuzz = nl_open(NETLINK_GENERIC);
	rc = resolve_family(sk_fuzz);
	if (rc == -ENOENT)
		ksft_exit_skip("no refnic family (module not loaded?)\n");
	if (rc || !family_id)
		ksft_exit_fail_msg("CTRL_CMD_GETFAMILY refnic: %s\n", strerror(-rc));
	ksft_test_result_pass("family refnic resolved: id %u, monitor group %u\n",
			      family_id, monitor_grp);

	/* Sockets in the second namespace: made there, used from here. */
	if (fd_ns2 >= 0) {
		if (setns(fd_ns2, CLONE_NEWNET))
			ksft_exit_fail_perror("setns ns2");
		sk_fuzz2 = nl_open(NETLINK_GENERIC);
		cc.rtnl2 = nl_open(NETLINK_ROUTE);
		mon_fds[1] = nl_open(NETLINK_GENERIC);
		if (setns(fd_self_ns, CLONE_NEWNET))
			ksft_exit_fail_perror("setns back");
	}
	mon_fds[0] = nl_open(NETLINK_GENERIC);
	for (int k = 0; k < 2; k++)
		if (mon_fds[k] >= 0 && monitor_grp &&
		    setsockopt(mon_fds[k], SOL_NETLINK, NETLINK_ADD_MEMBERSHIP,
			       &monitor_grp, sizeof(monitor_grp)))
			ksft_exit_fail_perror("NETLINK_ADD_MEMBERSHIP monitor");
	pthread_create(&mon_tid, NULL, monitor_thread, mon_fds);

	cc.genl = nl_open(NETLINK_GENERIC);
	cc.rtnl = nl_open(NETLINK_ROUTE);
	if (churn)
		pthread_create(&churn_tid, NULL, churn_thread, &cc);

	t0 = now();
	{
		double last = t0;
		uint64_t b = 0;

		while (st.sent < count) {
			int nb = batch;

			if (count - st.sent < (uint64_t)nb)
				nb = count - st.sent;
			/* One batch in 16 from the second namespace. */
			if (sk_fuzz2 >= 0 && (b % 16) == 15)
				run_batch(sk_fuzz2, true, nb);
			else
				run_batch(sk_fuzz, false, nb);
			b++;
			if (!quiet && now() - last > 15) {
				last = now();
				ksft_print_msg("%llu sent, %.0f/s, %u pairs of ours, churn %lu pairs\n",
					       (unsigned long long)st.sent,
					       st.sent / (last - t0), n_made,
					       atomic_load(&churn_rtnl) +
					       atomic_load(&churn_genl));
			}
			if (st.unanswered > 10)
				break;
		}
	}
	t1 = now();
	atomic_store(&stop, true);
	if (churn)
		pthread_join(churn_tid, NULL);

	ksft_print_msg("%llu requests in %llu batches (%llu mutated) in %.1f s, %.0f/s; %llu replies\n",
		       (unsigned long long)st.sent, (unsigned long long)st.batches,
		       (unsigned long long)st.mutated, t1 - t0, st.sent / (t1 - t0),
		       (unsigned long long)st.replies);
	ksft_print_msg("answers per operation (as sent): ok, then errno:count\n");
	ok_total = 0;
	for (int op = 0; op < NUM_OPS; op++) {
		char line[1024];
		int k = 0;
		uint64_t tot = 0;

		for (int er = 0; er <= ERRNO_MAX; er++)
			tot += st.answers[op][er];
		k += snprintf(line + k, sizeof(line) - k, "%-15s %7llu: ok %llu",
			      op_name[op], (unsigned long long)tot,
			      (unsigned long long)st.answers[op][0]);
		for (int er = 1; er <= ERRNO_MAX && k < (int)sizeof(line) - 40; er++)
			if (st.answers[op][er])
				k += snprintf(line + k, sizeof(line) - k, ", %s %llu",
					      strerrorname_np(er) ? strerrorname_np(er) : "?",
					      (unsigned long long)st.answers[op][er]);
		ksft_print_msg("  %s\n", line);
		ok_total += st.answers[op][0];
	}
	{
		char line[512];
		int k = 0;

		for (int er = 0; er <= ERRNO_MAX; er++) {
			uint64_t t = 0;

			for (int op = 0; op < NUM_OPS; op++)
				t += st.answers[op][er];
			if (t)
				k += snprintf(line + k, sizeof(line) - k, "%s%s %llu",
					      k ? ", " : "",
					      er ? (strerrorname_np(er) ?: "?") : "ok",
					      (unsigned long long)t);
		}
		ksft_print_msg("errno histogram: %s\n", line);
	}
	ksft_print_msg("pairs: %llu made by fuzzed dev-new, %llu dev-del ok; churn: %lu via rtnetlink, %lu via dev-new, %lu brought up, %lu deleted by the fuzzer first, %lu errors\n",
		       (unsigned long long)st.dev_new_ok,
		       (unsigned long long)st.dev_del_ok,
		       atomic_load(&churn_rtnl), atomic_load(&churn_genl),
		       atomic_load(&churn_up), atomic_load(&churn_del_raced),
		       atomic_load(&churn_errors));
	ksft_print_msg("notifications: dev-add %lu, dev-del %lu, link-change %lu, fault %lu, overruns %lu\n",
		       atomic_load(&ntf_count[REFNIC_CMD_DEV_ADD_NTF]),
		       atomic_load(&ntf_count[REFNIC_CMD_DEV_DEL_NTF]),
		       atomic_load(&ntf_count[REFNIC_CMD_LINK_CHANGE_NTF]),
		       atomic_load(&ntf_count[REFNIC_CMD_FAULT_NTF]),
		       atomic_load(&ntf_lost));

	ksft_test_result(st.sent >= count && st.sent >= 1,
			 "%llu messages sent (at least %llu)\n",
			 (unsigned long long)st.sent, (unsigned long long)count);

	if (!st.unanswered && !st.duplicate && !st.unknown_seq && !st.enobufs &&
	    !st.bad_answer)
		ksft_test_result_pass("every request answered exactly once (%llu answers)\n",
				      (unsigned long long)(st.sent));
	else
		ksft_test_result_fail("every request answered exactly once: %llu unanswered, %llu answered twice, %llu answers to no request, %llu ENOBUFS, %llu malformed\n",
				      (unsigned long long)st.unanswered,
				      (unsigned long long)st.duplicate,
				      (unsigned long long)st.unknown_seq,
				      (unsigned long long)st.enobufs,
				      (unsigned long long)st.bad_answer);

	{
		char miss[256] = "";
		int k = 0;

		for (int op = 0; op < OP_OTHER; op++)
			if (!st.answers[op][0])
				k += snprintf(miss + k, sizeof(miss) - k, " %s",
					      op_name[op]);
		ksft_test_result(!k, "every operation succeeded at least once%s%s\n",
				 k ? ", not:" : "", miss);
	}

	ksft_test_result(!atomic_load(&churn_errors) &&
			 (!churn || atomic_load(&churn_rtnl) + atomic_load(&churn_genl)),
			 "churn: %lu pairs created and deleted concurrently, %lu unexpected errors\n",
			 atomic_load(&churn_rtnl) + atomic_load(&churn_genl),
			 atomic_load(&churn_errors));

	/* Everything made goes: ours, the churn's leftovers, in both. */
	left = delete_all(sk_fuzz, &deleted);
	if (sk_fuzz2 >= 0)
		left2 = delete_all(sk_fuzz2, &deleted);
	atomic_store(&stop, true);
	pthread_join(mon_tid, NULL);
	ksft_test_result(left == 0 && left2 == 0,
			 "cleanup: %d ports deleted, none left (%d here, %d in ns2)\n",
			 deleted, left, left2);

	ksft_finished();
}
