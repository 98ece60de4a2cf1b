/* SPDX-License-Identifier: LGPL-2.1-only OR BSD-2-Clause */
/*
 * The kernel-bypass rings of /dev/refnic from C: header-only, in the style
 * of libxdp's xsk.h. The ABI is <linux/refnic_bypass.h>; docs/bypass.md has
 * the protocol. (C++ programs have refnic::bypass, <refnic/bypass.hpp>.)
 *
 * A bound session has four single-producer single-consumer rings, each an
 * mmap() of the descriptor: a struct refnic_bypass_ring_hdr (producer and
 * consumer index, flags), then the entries. The process produces on two
 * (fill: __u64 umem offsets to receive into; tx: struct
 * refnic_bypass_tx_desc) and consumes on two (rxc: struct
 * refnic_bypass_rx_desc; txc: __u64 offsets sent from):
 *
 *   struct refnic_ring_prod fill, tx;
 *   struct refnic_ring_cons rxc, txc;
 *   refnic_bypass_map_fill(fd, bind.fill_size, &fill);    ... and the others
 *
 *   if (refnic_ring_prod__reserve(&fill, n, &idx) == n) {  all n or none
 *           for (i = 0; i < n; i++)
 *                   *refnic_ring_prod__fill_addr(&fill, idx + i) = offset[i];
 *           refnic_ring_prod__submit(&fill, n);
 *           if (refnic_ring_prod__needs_wakeup(&fill))
 *                   refnic_bypass_kick(fd);
 *   }
 *   n = refnic_ring_cons__peek(&rxc, 64, &idx);            up to 64
 *   for (i = 0; i < n; i++)
 *           use(refnic_ring_cons__rx_desc(&rxc, idx + i));
 *   refnic_ring_cons__release(&rxc, n);
 *
 * Indices are free-running __u32; an entry's slot is its index masked by
 * the ring size. A producer writes its entries, then publishes them with a
 * store-release of its index (submit); a consumer reads the producer index
 * with a load-acquire (peek) and, once done with the entries, gives them
 * back with a store-release of its own index (release). Each end caches the
 * other's index and reads it again only when the cache says the ring is
 * full (producer) or empty (consumer). Not thread-safe: one thread per ring
 * end.
 *
 * Wakeups: while a ring's REFNIC_BYPASS_RING_NEED_WAKEUP flag is set, the
 * kernel sees new entries only after a kick (refnic_bypass_kick()): after
 * submitting fill or tx entries, and after releasing rxc or txc entries
 * while fill or tx entries are pending (the kernel takes a fill or tx entry
 * only while its completion ring has room). REFNIC_BYPASS_RING_BROKEN: the
 * kernel tore the session down; only close() is left.
 */
#ifndef REFNIC_BYPASS_H
#define REFNIC_BYPASS_H

#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/refnic_bypass.h>

#ifdef __cplusplus
extern "C" {
#define REFNIC_RING_CAST(type, value) (static_cast<type>(value))
#else
#define REFNIC_RING_CAST(type, value) ((type)(value))
#endif

/* The process's end of a process -> kernel ring: fill or tx. */
struct refnic_ring_prod {
	__u32 cached_prod;	/* submitted + reserved */
	__u32 cached_cons;	/* the kernel's consumer index as last read,
				 * plus size
				 */
	__u32 mask;
	__u32 size;
	__u32 *producer;	/* ours: in the ring header */
	__u32 *consumer;	/* the kernel's */
	__u32 *flags;		/* REFNIC_BYPASS_RING_*, the kernel's */
	void *ring;		/* the entries */
	struct refnic_bypass_ring_hdr *hdr;	/* the mapping */
	size_t map_len;		/* bytes mapped by refnic_bypass_map_*(), or 0 */
};

/* The process's end of a kernel -> process ring: rxc or txc. */
struct refnic_ring_cons {
	__u32 cached_prod;	/* the kernel's producer index as last read */
	__u32 cached_cons;	/* released + peeked */
	__u32 mask;
	__u32 size;
	__u32 *producer;	/* the kernel's */
	__u32 *consumer;	/* ours: in the ring header */
	__u32 *flags;		/* REFNIC_BYPASS_RING_*, the kernel's */
	void *ring;		/* the entries */
	struct refnic_bypass_ring_hdr *hdr;	/* the mapping */
	size_t map_len;		/* bytes mapped by refnic_bypass_map_*(), or 0 */
};

static inline __u32 refnic_ring__load_acquire(const __u32 *index)
{
	return __atomic_load_n(index, __ATOMIC_ACQUIRE);
}

static inline void refnic_ring__store_release(__u32 *index, __u32 value)
{
	__atomic_store_n(index, value, __ATOMIC_RELEASE);
}

/* Whether @size is a ring size the kernel takes: a power of two from
 * REFNIC_BYPASS_RING_MIN to REFNIC_BYPASS_RING_MAX.
 */
static inline int refnic_ring__valid_size(__u32 size)
{
	return size >= REFNIC_BYPASS_RING_MIN && size <= REFNIC_BYPASS_RING_MAX &&
	       (size & (size - 1)) == 0;
}

/* --- Views over a ring mapping --------------------------------------------
 * @mapping is a ring mapping (a struct refnic_bypass_ring_hdr, the entries
 * at REFNIC_BYPASS_RING_DESC_OFF) of @size entries, a power of two; the view
 * starts from the indices in its header. 0, or -EINVAL.
 */
static inline int refnic_ring_prod__init(struct refnic_ring_prod *r,
					 void *mapping, __u32 size)
{
	struct refnic_bypass_ring_hdr *hdr =
		REFNIC_RING_CAST(struct refnic_bypass_ring_hdr *, mapping);

	if (!mapping || size == 0 || (size & (size - 1)) != 0)
		return -EINVAL;
	r->hdr = hdr;
	r->producer = &hdr->producer;
	r->consumer = &hdr->consumer;
	r->flags = &hdr->flags;
	r->ring = REFNIC_RING_CAST(char *, mapping) + REFNIC_BYPASS_RING_DESC_OFF;
	r->size = size;
	r->mask = size - 1;
	r->cached_prod = refnic_ring__load_acquire(r->producer);
	r->cached_cons = refnic_ring__load_acquire(r->consumer) + size;
	r->map_len = 0;
	return 0;
}

static inline int refnic_ring_cons__init(struct refnic_ring_cons *r,
					 void *mapping, __u32 size)
{
	struct refnic_bypass_ring_hdr *hdr =
		REFNIC_RING_CAST(struct refnic_bypass_ring_hdr *, mapping);

	if (!mapping || size == 0 || (size & (size - 1)) != 0)
		return -EINVAL;
	r->hdr = hdr;
	r->producer = &hdr->producer;
	r->consumer = &hdr->consumer;
	r->flags = &hdr->flags;
	r->ring = REFNIC_RING_CAST(char *, mapping) + REFNIC_BYPASS_RING_DESC_OFF;
	r->size = size;
	r->mask = size - 1;
	r->cached_cons = refnic_ring__load_acquire(r->consumer);
	r->cached_prod = refnic_ring__load_acquire(r->producer);
	r->map_len = 0;
	return 0;
}

/* --- Entries ---------------------------------------------------------------- */

static inline __u64 *refnic_ring_prod__fill_addr(struct refnic_ring_prod *fill,
						 __u32 idx)
{
	return &REFNIC_RING_CAST(__u64 *, fill->ring)[idx & fill->mask];
}

static inline struct refnic_bypass_tx_desc *
refnic_ring_prod__tx_desc(struct refnic_ring_prod *tx, __u32 idx)
{
	return &REFNIC_RING_CAST(struct refnic_bypass_tx_desc *, tx->ring)[idx & tx->mask];
}

static inline const struct refnic_bypass_rx_desc *
refnic_ring_cons__rx_desc(const struct refnic_ring_cons *rxc, __u32 idx)
{
	return &REFNIC_RING_CAST(const struct refnic_bypass_rx_desc *, rxc->ring)[idx & rxc->mask];
}

static inline const __u64 *refnic_ring_cons__txc_addr(const struct refnic_ring_cons *txc,
						      __u32 idx)
{
	return &REFNIC_RING_CAST(const __u64 *, txc->ring)[idx & txc->mask];
}

/* --- Producing: fill, tx ------------------------------------------------------ */

/* Slots free to reserve: at least @nb if there are, reading the kernel's
 * consumer index only when the cached one shows fewer.
 */
static inline __u32 refnic_ring_prod__nb_free(struct refnic_ring_prod *r, __u32 nb)
{
	__u32 free_entries = r->cached_cons - r->cached_prod;

	if (free_entries >= nb)
		return free_entries;
	r->cached_cons = refnic_ring__load_acquire(r->consumer) + r->size;
	return r->cached_cons - r->cached_prod;
}

/* Reserves @nb slots, all or none: returns @nb with the first slot's index
 * in @idx, or 0 when fewer are free.
 */
static inline __u32 refnic_ring_prod__reserve(struct refnic_ring_prod *r, __u32 nb,
					      __u32 *idx)
{
	if (refnic_ring_prod__nb_free(r, nb) < nb)
		return 0;
	*idx = r->cached_prod;
	r->cached_prod += nb;
	return nb;
}

/* Gives back the newest @nb reserved slots unsubmitted. */
static inline void refnic_ring_prod__cancel(struct refnic_ring_prod *r, __u32 nb)
{
	r->cached_prod -= nb;
}

/* Publishes the oldest @nb reserved slots to the kernel: a store-release of
 * the producer index, after their entries.
 */
static inline void refnic_ring_prod__submit(struct refnic_ring_prod *r, __u32 nb)
{
	refnic_ring__store_release(r->producer, *r->producer + nb);
}

/* Submitted entries the kernel has not taken yet. */
static inline __u32 refnic_ring_prod__pending(const struct refnic_ring_prod *r)
{
	return *r->producer - refnic_ring__load_acquire(r->consumer);
}

/* Whether the kernel needs a kick (refnic_bypass_kick()) to see what was
 * submitted. The full fence orders the submit's store before this load of
 * the flags, as the kernel orders setting the flag before its last look at
 * the producer index: either its poll sees the new entries or this sees
 * the flag.
 */
static inline int refnic_ring_prod__needs_wakeup(const struct refnic_ring_prod *r)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return (__atomic_load_n(r->flags, __ATOMIC_RELAXED) &
		REFNIC_BYPASS_RING_NEED_WAKEUP) != 0;
}

static inline int refnic_ring_prod__broken(const struct refnic_ring_prod *r)
{
	return (refnic_ring__load_acquire(r->flags) & REFNIC_BYPASS_RING_BROKEN) != 0;
}

/* --- Consuming: rxc, txc ------------------------------------------------------ */

/* Entries ready to peek, at most @nb, reading the kernel's producer index
 * only when none is cached. Never more than the ring holds, whatever the
 * producer index says.
 */
static inline __u32 refnic_ring_cons__nb_avail(struct refnic_ring_cons *r, __u32 nb)
{
	__u32 entries = r->cached_prod - r->cached_cons;
	__u32 room = r->size - (r->cached_cons - *r->consumer);

	if (entries == 0) {
		r->cached_prod = refnic_ring__load_acquire(r->producer);
		entries = r->cached_prod - r->cached_cons;
	}
	if (entries > room)
		entries = room;
	return entries < nb ? entries : nb;
}

/* Takes up to @nb entries after those peeked already: returns how many, the
 * first one's index in @idx.
 */
static inline __u32 refnic_ring_cons__peek(struct refnic_ring_cons *r, __u32 nb, __u32 *idx)
{
	__u32 entries = refnic_ring_cons__nb_avail(r, nb);

	if (entries > 0) {
		*idx = r->cached_cons;
		r->cached_cons += entries;
	}
	return entries;
}

/* Puts the newest @nb peeked entries back, to be peeked again. */
static inline void refnic_ring_cons__cancel(struct refnic_ring_cons *r, __u32 nb)
{
	r->cached_cons -= nb;
}

/* Gives the oldest @nb peeked entries back to the kernel: a store-release of
 * the consumer index, after reading them.
 */
static inline void refnic_ring_cons__release(struct refnic_ring_cons *r, __u32 nb)
{
	refnic_ring__store_release(r->consumer, *r->consumer + nb);
}

static inline int refnic_ring_cons__broken(const struct refnic_ring_cons *r)
{
	return (refnic_ring__load_acquire(r->flags) & REFNIC_BYPASS_RING_BROKEN) != 0;
}

/* --- A bound session's descriptor ------------------------------------------- */

/* Bytes to mmap() for a ring of @entries entries of @entry_size bytes: the
 * header and the entries, rounded up to the page size.
 */
static inline size_t refnic_ring__mmap_len(__u32 entries, size_t entry_size)
{
	size_t page = REFNIC_RING_CAST(size_t, sysconf(_SC_PAGESIZE));
	size_t len = REFNIC_BYPASS_RING_DESC_OFF + REFNIC_RING_CAST(size_t, entries) * entry_size;

	return (len + page - 1) / page * page;
}

static inline void *refnic_bypass__map(int fd, __u64 offset, __u32 entries,
				       size_t entry_size, size_t *len)
{
	void *map;

	*len = refnic_ring__mmap_len(entries, entry_size);
	map = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   REFNIC_RING_CAST(off_t, offset));
	return map == MAP_FAILED ? NULL : map;
}

static inline int refnic_bypass__map_prod(int fd, __u64 offset, __u32 entries,
					  size_t entry_size, struct refnic_ring_prod *r)
{
	size_t len;
	void *map = refnic_bypass__map(fd, offset, entries, entry_size, &len);
	int err;

	if (!map)
		return -errno;
	err = refnic_ring_prod__init(r, map, entries);
	if (err) {
		munmap(map, len);
		return err;
	}
	r->map_len = len;
	return 0;
}

static inline int refnic_bypass__map_cons(int fd, __u64 offset, __u32 entries,
					  size_t entry_size, struct refnic_ring_cons *r)
{
	size_t len;
	void *map = refnic_bypass__map(fd, offset, entries, entry_size, &len);
	int err;

	if (!map)
		return -errno;
	err = refnic_ring_cons__init(r, map, entries);
	if (err) {
		munmap(map, len);
		return err;
	}
	r->map_len = len;
	return 0;
}

/* Map the rings of a session bound (REFNIC_BYPASS_IOC_BIND) with ring size
 * @size (the bind's fill_size, rxc_size, tx_size, txc_size). 0, or -errno.
 */
static inline int refnic_bypass_map_fill(int fd, __u32 size, struct refnic_ring_prod *fill)
{
	return refnic_bypass__map_prod(fd, REFNIC_BYPASS_OFF_FILL, size, sizeof(__u64), fill);
}

static inline int refnic_bypass_map_rxc(int fd, __u32 size, struct refnic_ring_cons *rxc)
{
	return refnic_bypass__map_cons(fd, REFNIC_BYPASS_OFF_RXC, size,
				       sizeof(struct refnic_bypass_rx_desc), rxc);
}

static inline int refnic_bypass_map_tx(int fd, __u32 size, struct refnic_ring_prod *tx)
{
	return refnic_bypass__map_prod(fd, REFNIC_BYPASS_OFF_TX, size,
				       sizeof(struct refnic_bypass_tx_desc), tx);
}

static inline int refnic_bypass_map_txc(int fd, __u32 size, struct refnic_ring_cons *txc)
{
	return refnic_bypass__map_cons(fd, REFNIC_BYPASS_OFF_TXC, size, sizeof(__u64), txc);
}

/* Unmap what refnic_bypass_map_*() mapped (nothing otherwise). */
static inline void refnic_ring_prod__unmap(struct refnic_ring_prod *r)
{
	if (r->map_len)
		munmap(r->hdr, r->map_len);
	r->map_len = 0;
	r->hdr = NULL;
}

static inline void refnic_ring_cons__unmap(struct refnic_ring_cons *r)
{
	if (r->map_len)
		munmap(r->hdr, r->map_len);
	r->map_len = 0;
	r->hdr = NULL;
}

/* The read-only header area of a session bound with REFNIC_BYPASS_F_HDR_SPLIT
 * and @rxc_size rxc entries: its address (@len bytes), or NULL with errno.
 */
static inline const void *refnic_bypass_map_hdr(int fd, __u32 rxc_size, size_t *len)
{
	void *map;

	*len = REFNIC_RING_CAST(size_t, rxc_size) * REFNIC_BYPASS_HDR_SLOT;
	map = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, REFNIC_BYPASS_OFF_HDR);
	return map == MAP_FAILED ? NULL : map;
}

/* The header slot of rxc entry @idx (REFNIC_BYPASS_HDR_SLOT bytes, the
 * headers of a REFNIC_BYPASS_RX_SPLIT frame), valid until it is released.
 */
static inline const __u8 *refnic_bypass_hdr_slot(const void *hdr_area,
						 const struct refnic_ring_cons *rxc, __u32 idx)
{
	return REFNIC_RING_CAST(const __u8 *, hdr_area) +
	       REFNIC_RING_CAST(size_t, idx & rxc->mask) * REFNIC_BYPASS_HDR_SLOT;
}

/* REFNIC_BYPASS_IOC_BIND: 0, or -errno. */
static inline int refnic_bypass_bind_queue(int fd, const struct refnic_bypass_bind *bind)
{
	return ioctl(fd, REFNIC_BYPASS_IOC_BIND, bind) ? -errno : 0;
}

/* REFNIC_BYPASS_IOC_KICK: the kernel looks at the fill and tx rings.
 * 0, or -errno: -EPIPE for a broken session, -ENXIO once the port went down.
 */
static inline int refnic_bypass_kick(int fd)
{
	while (ioctl(fd, REFNIC_BYPASS_IOC_KICK) != 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/* REFNIC_BYPASS_IOC_STATS: 0, or -errno. */
static inline int refnic_bypass_get_stats(int fd, struct refnic_bypass_stats *stats)
{
	return ioctl(fd, REFNIC_BYPASS_IOC_STATS, stats) ? -errno : 0;
}

#undef REFNIC_RING_CAST

#ifdef __cplusplus
}
#endif

#endif /* REFNIC_BYPASS_H */
