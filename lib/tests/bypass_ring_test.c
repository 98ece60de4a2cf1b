// SPDX-License-Identifier: GPL-2.0-only
/*
 * refnic/bypass.h, the C ring interface, offline: its rings over plain
 * memory with a fake kernel at the other end. Free-running indices across
 * 2^32, full and empty rings, all-or-nothing reserve, cached peer indices,
 * cancel, the flags, a producer index past the ring, the mapping size, and
 * a producer and a consumer thread moving a million entries each way, in
 * order. Also: refnic/version.h against the library (refnic_version()), a
 * C program linking librefnic.
 */
#include <refnic/bypass.h>
#include <refnic/version.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: %s: failed: %s\n", __FILE__,   \
				__LINE__, __func__, #cond);                    \
			failures++;                                            \
		}                                                              \
	} while (0)

#define RING 64
#define NEAR_WRAP (UINT32_MAX - 20)

/* A ring mapping in plain memory: the header, then RING entries of up to
 * 24 bytes (struct refnic_bypass_rx_desc, the largest).
 */
struct mapping {
	struct refnic_bypass_ring_hdr hdr;
	unsigned char pad[REFNIC_BYPASS_RING_DESC_OFF - sizeof(struct refnic_bypass_ring_hdr)];
	unsigned char entries[RING * sizeof(struct refnic_bypass_rx_desc)];
} __attribute__((aligned(64)));

static void start_at(struct mapping *m, __u32 index)
{
	memset(m, 0, sizeof(*m));
	m->hdr.producer = index;
	m->hdr.consumer = index;
}

/* The kernel's end of a fill ring: takes up to @max entries into @out. */
static __u32 kernel_take(struct mapping *m, __u32 max, __u64 *out)
{
	__u32 prod = __atomic_load_n(&m->hdr.producer, __ATOMIC_ACQUIRE);
	__u32 cons = m->hdr.consumer, n = 0;
	const __u64 *e = (const __u64 *)m->entries;

	while (cons + n != prod && n < max) {
		out[n] = e[(cons + n) & (RING - 1)];
		n++;
	}
	__atomic_store_n(&m->hdr.consumer, cons + n, __ATOMIC_RELEASE);
	return n;
}

/* The kernel's end of an rxc ring: publishes @n entries, addr = first.. */
static void kernel_give(struct mapping *m, __u32 n, __u64 first)
{
	struct refnic_bypass_rx_desc *e = (struct refnic_bypass_rx_desc *)m->entries;
	__u32 prod = m->hdr.producer, i;

	for (i = 0; i < n; i++) {
		e[(prod + i) & (RING - 1)] = (struct refnic_bypass_rx_desc){
			.addr = first + i, .len = 60, .flags = REFNIC_BYPASS_RX_CSUM_OK
		};
	}
	__atomic_store_n(&m->hdr.producer, prod + n, __ATOMIC_RELEASE);
}

static void test_producer(void)
{
	static struct mapping m;
	struct refnic_ring_prod fill;
	__u64 taken[RING];
	__u32 idx = 0, i;

	start_at(&m, NEAR_WRAP);
	CHECK(refnic_ring_prod__init(&fill, &m, 48) == -EINVAL);
	CHECK(refnic_ring_prod__init(&fill, NULL, RING) == -EINVAL);
	CHECK(refnic_ring_prod__init(&fill, &m, RING) == 0);
	CHECK(refnic_ring_prod__nb_free(&fill, RING) == RING);

	/* The whole ring, across the wrap of the index. */
	CHECK(refnic_ring_prod__reserve(&fill, RING, &idx) == RING);
	CHECK(idx == NEAR_WRAP);
	for (i = 0; i < RING; i++)
		*refnic_ring_prod__fill_addr(&fill, idx + i) = 1000 + i;
	CHECK(refnic_ring_prod__reserve(&fill, 1, &idx) == 0);
	CHECK(m.hdr.producer == NEAR_WRAP);	/* nothing published yet */
	refnic_ring_prod__submit(&fill, RING);
	CHECK(m.hdr.producer == NEAR_WRAP + RING);
	CHECK(refnic_ring_prod__pending(&fill) == RING);

	CHECK(kernel_take(&m, 10, taken) == 10);
	CHECK(taken[0] == 1000 && taken[9] == 1009);
	/* All or nothing: 11 do not fit, 10 do, after one read of the
	 * kernel's consumer index.
	 */
	CHECK(refnic_ring_prod__reserve(&fill, 11, &idx) == 0);
	CHECK(refnic_ring_prod__reserve(&fill, 10, &idx) == 10);
	CHECK(idx == NEAR_WRAP + RING);
	refnic_ring_prod__cancel(&fill, 4);
	for (i = 0; i < 6; i++)
		*refnic_ring_prod__fill_addr(&fill, idx + i) = 2000 + i;
	refnic_ring_prod__submit(&fill, 6);
	CHECK(refnic_ring_prod__pending(&fill) == RING - 10 + 6);
	CHECK(kernel_take(&m, RING, taken) == RING - 10 + 6);
	CHECK(taken[RING - 11] == 1063 && taken[RING - 10] == 2000 && taken[RING - 5] == 2005);
	CHECK(refnic_ring_prod__pending(&fill) == 0);

	/* The tx ring's entries are descriptors. */
	{
		static struct mapping t;
		struct refnic_ring_prod tx;

		start_at(&t, 0);
		CHECK(refnic_ring_prod__init(&tx, &t, RING) == 0);
		CHECK(refnic_ring_prod__reserve(&tx, 2, &idx) == 2);
		*refnic_ring_prod__tx_desc(&tx, idx) =
			(struct refnic_bypass_tx_desc){ .addr = 4096, .len = 60 };
		refnic_ring_prod__submit(&tx, 1);
		CHECK(((struct refnic_bypass_tx_desc *)t.entries)[0].addr == 4096);
		CHECK(t.hdr.producer == 1);
	}

	/* The kernel's flags. */
	CHECK(!refnic_ring_prod__needs_wakeup(&fill));
	m.hdr.flags = REFNIC_BYPASS_RING_NEED_WAKEUP;
	CHECK(refnic_ring_prod__needs_wakeup(&fill));
	CHECK(!refnic_ring_prod__broken(&fill));
	m.hdr.flags = REFNIC_BYPASS_RING_BROKEN;
	CHECK(refnic_ring_prod__broken(&fill));
	CHECK(!refnic_ring_prod__needs_wakeup(&fill));
}

static void test_consumer(void)
{
	static struct mapping m;
	struct refnic_ring_cons rxc;
	const struct refnic_bypass_rx_desc *d;
	__u32 idx = 0, idx2 = 0;

	start_at(&m, NEAR_WRAP);
	CHECK(refnic_ring_cons__init(&rxc, &m, RING) == 0);
	CHECK(refnic_ring_cons__peek(&rxc, 8, &idx) == 0);

	kernel_give(&m, 5, 100);
	CHECK(refnic_ring_cons__nb_avail(&rxc, 64) == 5);
	CHECK(refnic_ring_cons__peek(&rxc, 3, &idx) == 3);
	CHECK(idx == NEAR_WRAP);
	CHECK(refnic_ring_cons__peek(&rxc, 8, &idx2) == 2);
	CHECK(idx2 == NEAR_WRAP + 3);
	d = refnic_ring_cons__rx_desc(&rxc, idx2 + 1);
	CHECK(d->addr == 104 && d->len == 60 && d->flags == REFNIC_BYPASS_RX_CSUM_OK);
	/* Put the last one back and take it again. */
	refnic_ring_cons__cancel(&rxc, 1);
	CHECK(refnic_ring_cons__peek(&rxc, 8, &idx2) == 1);
	CHECK(refnic_ring_cons__rx_desc(&rxc, idx2)->addr == 104);
	CHECK(m.hdr.consumer == NEAR_WRAP);	/* nothing released yet */
	refnic_ring_cons__release(&rxc, 5);
	CHECK(m.hdr.consumer == NEAR_WRAP + 5);

	/* The cached producer index is read again only when used up: a full
	 * ring's worth, across the wrap.
	 */
	kernel_give(&m, RING, 200);
	CHECK(refnic_ring_cons__peek(&rxc, RING + 10, &idx) == RING);
	CHECK(refnic_ring_cons__rx_desc(&rxc, idx + RING - 1)->addr == 200 + RING - 1);
	refnic_ring_cons__release(&rxc, RING);

	/* A producer index more than a ring ahead: never more than the ring
	 * holds, whatever the index says.
	 */
	__atomic_store_n(&m.hdr.producer, m.hdr.producer + 3 * RING, __ATOMIC_RELEASE);
	CHECK(refnic_ring_cons__peek(&rxc, 1000, &idx) == RING);
	CHECK(refnic_ring_cons__peek(&rxc, 1000, &idx) == 0);
	refnic_ring_cons__release(&rxc, RING);

	/* The txc ring's entries are offsets. */
	{
		static struct mapping t;
		struct refnic_ring_cons txc;

		start_at(&t, 7);
		((__u64 *)t.entries)[7] = 8192;
		t.hdr.producer = 8;
		CHECK(refnic_ring_cons__init(&txc, &t, RING) == 0);
		CHECK(refnic_ring_cons__peek(&txc, 4, &idx) == 1);
		CHECK(*refnic_ring_cons__txc_addr(&txc, idx) == 8192);
		refnic_ring_cons__release(&txc, 1);
		CHECK(t.hdr.consumer == 8);
	}

	CHECK(!refnic_ring_cons__broken(&rxc));
	m.hdr.flags = REFNIC_BYPASS_RING_BROKEN;
	CHECK(refnic_ring_cons__broken(&rxc));
}

/* --- A million entries each way, two threads ------------------------------ */

#define MOVES 1000000U

struct pair {
	struct mapping m;
	__u32 errors;
};

/* The kernel taking fill entries: each must be the next number. */
static void *kernel_consumer(void *arg)
{
	struct pair *p = arg;
	const __u64 *e = (const __u64 *)p->m.entries;
	__u32 cons = p->m.hdr.consumer, expect = 0;

	while (expect < MOVES) {
		__u32 prod = __atomic_load_n(&p->m.hdr.producer, __ATOMIC_ACQUIRE);

		for (; cons != prod; cons++, expect++)
			p->errors += e[cons & (RING - 1)] != expect;
		__atomic_store_n(&p->m.hdr.consumer, cons, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* The kernel producing rxc entries 0, 1, 2, ... */
static void *kernel_producer(void *arg)
{
	struct pair *p = arg;
	struct refnic_bypass_rx_desc *e = (struct refnic_bypass_rx_desc *)p->m.entries;
	__u32 prod = p->m.hdr.producer, next = 0;

	while (next < MOVES) {
		__u32 cons = __atomic_load_n(&p->m.hdr.consumer, __ATOMIC_ACQUIRE);

		for (; prod - cons < RING && next < MOVES; prod++, next++)
			e[prod & (RING - 1)] = (struct refnic_bypass_rx_desc){ .addr = next };
		__atomic_store_n(&p->m.hdr.producer, prod, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void test_threads(void)
{
	static struct pair to_kernel, from_kernel;
	struct refnic_ring_prod fill;
	struct refnic_ring_cons rxc;
	__u32 sent = 0, got = 0, idx, n, i, bad = 0;
	pthread_t t1, t2;

	start_at(&to_kernel.m, NEAR_WRAP);
	start_at(&from_kernel.m, NEAR_WRAP);
	CHECK(refnic_ring_prod__init(&fill, &to_kernel.m, RING) == 0);
	CHECK(refnic_ring_cons__init(&rxc, &from_kernel.m, RING) == 0);
	CHECK(pthread_create(&t1, NULL, kernel_consumer, &to_kernel) == 0);
	CHECK(pthread_create(&t2, NULL, kernel_producer, &from_kernel) == 0);
	while (sent < MOVES || got < MOVES) {
		n = MOVES - sent < 16 ? MOVES - sent : 16;
		if (n && refnic_ring_prod__reserve(&fill, n, &idx) == n) {
			for (i = 0; i < n; i++)
				*refnic_ring_prod__fill_addr(&fill, idx + i) = sent + i;
			refnic_ring_prod__submit(&fill, n);
			sent += n;
		}
		n = refnic_ring_cons__peek(&rxc, 32, &idx);
		for (i = 0; i < n; i++)
			bad += refnic_ring_cons__rx_desc(&rxc, idx + i)->addr != got + i;
		refnic_ring_cons__release(&rxc, n);
		got += n;
	}
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	CHECK(to_kernel.errors == 0);
	CHECK(bad == 0);
	CHECK(to_kernel.m.hdr.consumer == NEAR_WRAP + MOVES);
	CHECK(from_kernel.m.hdr.consumer == NEAR_WRAP + MOVES);
}

static void test_mmap_len(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	CHECK(refnic_ring__mmap_len(64, 8) == page);
	CHECK(refnic_ring__mmap_len(1024, sizeof(struct refnic_bypass_rx_desc)) % page == 0);
	CHECK(refnic_ring__mmap_len(1024, 24) >= 256 + 1024 * 24);
	CHECK(refnic_ring__mmap_len(1024, 24) < 256 + 1024 * 24 + page);
	CHECK(refnic_ring__valid_size(64) && refnic_ring__valid_size(4096));
	CHECK(!refnic_ring__valid_size(32) && !refnic_ring__valid_size(8192) &&
	      !refnic_ring__valid_size(1000));
}

static void test_version(void)
{
	char text[32];

	snprintf(text, sizeof(text), "%d.%d.%d", REFNIC_VERSION_MAJOR, REFNIC_VERSION_MINOR,
		 REFNIC_VERSION_PATCH);
	CHECK(strcmp(text, REFNIC_VERSION_STRING) == 0);
	CHECK(refnic_version() == REFNIC_VERSION);
	CHECK(strcmp(refnic_version_string(), REFNIC_VERSION_STRING) == 0);
	CHECK(REFNIC_VERSION >= REFNIC_VERSION_NUMBER(0, 2, 0));
	CHECK(REFNIC_VERSION_NUMBER(1, 0, 0) > REFNIC_VERSION_NUMBER(0, 255, 255));
}

int main(void)
{
	test_producer();
	test_consumer();
	test_threads();
	test_mmap_len();
	test_version();
	if (failures) {
		fprintf(stderr, "%d checks failed\n", failures);
		return 1;
	}
	printf("refnic/bypass.h and refnic/version.h: every check passed\n");
	return 0;
}
