// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Kernel-bypass queues: /dev/refnic hands one queue pair of a port to a
 * process, which drives it through four rings in shared memory
 * (uapi/linux/refnic_bypass.h), the AF_XDP zero-copy model. The hardware
 * queues stay the driver's: the queue pair's NAPI poll moves buffer offsets
 * from the process's fill ring onto the device's RX descriptor ring and
 * frames from its tx ring onto the TX descriptor ring, and turns the
 * device's completions into rxc and txc entries. The device writes and
 * reads the process's pinned pages directly.
 *
 * NAPI is the only kernel context touching the rings and the hardware
 * rings while the queue is bound: every ring is single producer, single
 * consumer, so the datapath takes no lock at all, per buffer or per batch.
 * Everything in shared memory is hostile: indices are checked against the
 * ring size, offsets and lengths against the umem, and a per-buffer
 * ownership bitmap refuses a buffer given to the kernel twice.
 *
 * Binding and unbinding run under RTNL: the stack's queue pair is stopped
 * and parked (its memory kept), and put back unchanged when the session
 * ends - the fd is closed, or the port goes down. A session whose queues the
 * device does not stop (nor a port reset) leaves the memory the device may
 * reach in the card's quarantine, and the port fails (refnic_port_fail()).
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/capability.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/poll.h>
#include <linux/refnic_bypass.h>
#include <linux/rtnetlink.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <net/net_namespace.h>
#include <net/netdev_rx_queue.h>

#include <asm/shmparam.h>

#include "refnic.h"
#include "refnic_bypass.h"
#include "refnic_policy.h"
#include "refnic_regs.h"
#include "refnic_rtnl.h"
#include "refnic_trace.h"

#define REFNIC_BP_UMEM_MAX		SZ_1G

/**
 * struct refnic_bp_ring - the kernel's side of one shared ring
 * @hdr: start of the mapping: indices and flags, written by both sides
 * @entries: the entries, at REFNIC_BYPASS_RING_DESC_OFF
 * @size: entries, a power of two
 * @mask: @size - 1
 * @prod: producer index; the kernel's own for rxc and txc, the last one
 *	read (and checked) for fill and tx
 * @cons: consumer index; the kernel's own for fill and tx, the last one
 *	read (and checked) for rxc and txc
 * @bytes: size of the mapping
 */
struct refnic_bp_ring {
	struct refnic_bypass_ring_hdr *hdr;
	void *entries;
	u32 size;
	u32 mask;
	u32 prod;
	u32 cons;
	size_t bytes;
};

/**
 * struct refnic_bp_dmamem - what of a session the device can reach
 * @rx_desc: the device's RX descriptor ring, @rx_size entries: descriptor
 *	n completes into rxc entry n, so header slot n is its own
 * @rx_cmpl: the device's RX completion ring, @rx_size entries
 * @tx_desc: the device's TX descriptor ring, @tx_size entries
 * @rx_desc_dma: bus address of @rx_desc
 * @rx_cmpl_dma: bus address of @rx_cmpl
 * @tx_desc_dma: bus address of @tx_desc
 * @rx_size: entries of @rx_desc and @rx_cmpl: the rxc ring's size
 * @tx_size: entries of @tx_desc: the tx ring's size
 * @pages: the pinned umem pages
 * @page_dma: their DMA addresses while bound, 0 when not mapped
 * @npages: number of @pages
 * @user: owner of the pinned pages, charged @npages in its locked_vm;
 *	NULL when nothing is charged (CAP_IPC_LOCK)
 * @hdr_area: header slots (header split), REFNIC_BYPASS_HDR_SLOT each,
 *	one per rxc entry; mapped read-only into the process
 * @hdr_dma: DMA address of each page of @hdr_area
 * @hdr_bytes: size of @hdr_area
 *
 * All of it the device may read or write until the session's queues stop,
 * and nothing else of the session. A session whose device does not stop
 * hands it whole to the card's quarantine (refnic_bp_keep()), and the same
 * helpers free it there as in the file: refnic_bp_dma_unmap(),
 * refnic_bp_hw_free(), refnic_bp_dmamem_free(). Whoever holds it holds the
 * pins and the RLIMIT_MEMLOCK charge.
 */
struct refnic_bp_dmamem {
	struct refnic_rx_desc *rx_desc;
	struct refnic_rx_cmpl *rx_cmpl;
	struct refnic_tx_desc *tx_desc;
	dma_addr_t rx_desc_dma;
	dma_addr_t rx_cmpl_dma;
	dma_addr_t tx_desc_dma;
	u32 rx_size;
	u32 tx_size;

	struct page **pages;
	dma_addr_t *page_dma;
	u32 npages;
	struct user_struct *user;

	void *hdr_area;
	dma_addr_t *hdr_dma;
	size_t hdr_bytes;
};

/**
 * struct refnic_bypass - one /dev/refnic file: a session
 * @lock: serializes the file's operations that change or use the binding
 *	(bind, kick, mmap, release); taken after RTNL and the mmap lock,
 *	and neither is taken under it
 * @wq: poll(2) waiters for rxc/txc entries or teardown
 * @priv: the port while bound (RTNL and @lock); NULL before and after.
 *	poll(2) reads it without @lock: NULL once detached is EPOLLHUP
 * @netdev: @priv's netdev, held while bound
 * @dev_tracker: tracker of that reference
 * @queue: bound queue pair
 * @flags: REFNIC_BYPASS_F_*
 * @bound_once: a bind is in progress or done; a file binds once
 * @rings_ready: the rings exist and stay until release (set once a bind
 *	succeeded, store-release; poll(2) reads it without @lock)
 * @broken: the process corrupted a ring, or the device halted the queue;
 *	NAPI no longer looks at the rings
 * @teardown_work: gives a broken session's queue pair back to the stack
 *	(the break is found in NAPI, the unbinding needs RTNL)
 * @kicked: a kick came since NAPI last looked (wakeups_avoided)
 * @indices_read: the last poll read and checked the process's indices
 *	after it asked to be polled again; the next poll works on those
 *	(NAPI only)
 * @dm: what the device can reach: its rings, the umem, the header slots
 * @kept: room for @dm in the card's quarantine, should the device not stop
 *	(refnic_bp_keep()): allocated with the rings, so that a device
 *	that does not stop never finds the kernel out of memory for it
 * @umem_len: umem bytes
 * @buf_size: bytes per buffer
 * @buf_shift: log2(@buf_size)
 * @owned: buffers the kernel owns (posted for RX or in flight for TX),
 *	one bit per buffer; NAPI only
 * @fill: fill ring (process produces buffer offsets)
 * @rxc: RX completion ring (kernel produces)
 * @tx: TX ring (process produces frames)
 * @txc: TX completion ring (kernel produces)
 * @rx_off: umem offset posted in each RX descriptor
 * @rx_ntu: free-running index of the next RX descriptor to post
 * @rx_ntc: next RX descriptor to complete, = @rxc.prod
 * @rx_cq_head: next RX completion
 * @tx_off: umem offset of the frame in each TX descriptor
 * @tx_len: its length
 * @tx_tail: next TX descriptor to fill
 * @tx_head: next TX descriptor to complete
 * @parked: the stack's queue pair, stopped, while the session holds it
 * @irq_base: the vector's interrupt count when bound
 * @kicks: kicks so far
 * @stats: the session's counters; NAPI writes all but kicks and irqs
 */
struct refnic_bypass {
	struct mutex lock;	/* binding state, see above */
	wait_queue_head_t wq;
	struct refnic_priv *priv;
	struct net_device *netdev;
	netdevice_tracker dev_tracker;
	u32 queue;
	u32 flags;
	bool bound_once;
	bool rings_ready;
	bool broken;
	struct work_struct teardown_work;
	bool kicked;
	bool indices_read;

	struct refnic_bp_dmamem dm;
	struct refnic_bp_dmamem *kept;
	u64 umem_len;
	u32 buf_size;
	u32 buf_shift;
	unsigned long *owned;

	struct refnic_bp_ring fill;
	struct refnic_bp_ring rxc;
	struct refnic_bp_ring tx;
	struct refnic_bp_ring txc;

	u64 *rx_off;
	u32 rx_ntu;
	u32 rx_ntc;
	u32 rx_cq_head;

	u64 *tx_off;
	u32 *tx_len;
	u32 tx_tail;
	u32 tx_head;

	struct refnic_qset parked;
	u64 irq_base;
	atomic64_t kicks;
	struct refnic_bypass_stats stats;
};

/* ---- Shared rings --------------------------------------------------------- */

/* A session's memory is charged to the memory cgroup of the process that
 * opens and binds it (the umem's pinned pages to its RLIMIT_MEMLOCK). The
 * kernel charges no DMA-coherent memory: the device's rings, at most
 * REFNIC_BYPASS_RING_MAX entries each, are not; nor, where the data cache
 * aliases, the memory mapped into the process (refnic_bp_vzalloc_user()).
 */

/* Zeroed memory to map into the process (refnic_bp_remap()), at a kernel
 * address aligned to SHMLBA, as vmalloc_user() gives: where the data cache
 * is virtually indexed and aliases (SHMLBA more than a page), the kernel's
 * view of a page and the process's (at the colour of its mmap offset, and
 * REFNIC_BYPASS_OFF_* are all colour 0) must share a cache colour, or
 * neither sees the other's index updates. __vmalloc() charges a memory
 * cgroup but aligns only to a page, which is SHMLBA wherever the cache does
 * not alias; vmalloc_user() aligns but cannot charge; __vmalloc_node(),
 * which does both, is not exported to modules (6.12 nor 7.3). Where the
 * cache aliases, the alignment wins over the charge.
 */
static void *refnic_bp_vzalloc_user(size_t bytes)
{
	if (SHMLBA > PAGE_SIZE)
		return vmalloc_user(bytes);
	return __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_ZERO);
}

static int refnic_bp_ring_alloc(struct refnic_bp_ring *r, u32 size,
				size_t entry_size)
{
	if (size < REFNIC_BYPASS_RING_MIN || size > REFNIC_BYPASS_RING_MAX ||
	    !is_power_of_2(size))
		return -EINVAL;

	r->bytes = PAGE_ALIGN(REFNIC_BYPASS_RING_DESC_OFF + size * entry_size);
	r->hdr = refnic_bp_vzalloc_user(r->bytes);
	if (!r->hdr)
		return -ENOMEM;
	r->entries = (void *)r->hdr + REFNIC_BYPASS_RING_DESC_OFF;
	r->size = size;
	r->mask = size - 1;
	return 0;
}

/* Reads, once, the producer index of a ring the kernel consumes into
 * @r->prod. False if it is more than a ring ahead of what the kernel
 * consumed (or behind it): corrupt.
 */
static bool refnic_bp_ring_read_prod(struct refnic_bp_ring *r)
{
	/* Pairs with the process's store-release: entries before index. */
	u32 prod = smp_load_acquire(&r->hdr->producer);

	if (prod - r->cons > r->size)
		return false;
	r->prod = prod;
	return true;
}

static void refnic_bp_ring_consumed(struct refnic_bp_ring *r, u32 n)
{
	r->cons += n;
	/* The entries are read before the process may reuse their slots. */
	smp_store_release(&r->hdr->consumer, r->cons);
}

/* Reads, once, the consumer index of a ring the kernel produces into
 * @r->cons. False if it is outside what the kernel produced: corrupt.
 */
static bool refnic_bp_ring_read_cons(struct refnic_bp_ring *r)
{
	/* Pairs with the process's store-release: it read the entries. */
	u32 cons = smp_load_acquire(&r->hdr->consumer);

	if (r->prod - cons > r->size)
		return false;
	r->cons = cons;
	return true;
}

static void refnic_bp_ring_publish(struct refnic_bp_ring *r)
{
	/* The entries are written before the process may read them. */
	smp_store_release(&r->hdr->producer, r->prod);
}

static void refnic_bp_ring_flag(struct refnic_bp_ring *r, u32 flag, bool on)
{
	u32 flags = READ_ONCE(r->hdr->flags);

	/* The process may scribble on the word; only our bit matters. */
	if (!!(flags & flag) != on)
		WRITE_ONCE(r->hdr->flags, on ? flags | flag : flags & ~flag);
}

/* The process corrupted a ring: stop using them all and say so. */
static void refnic_bp_break(struct refnic_bypass *bp)
{
	if (READ_ONCE(bp->broken))
		return;
	WRITE_ONCE(bp->broken, true);
	bp->stats.bad_index++;
	refnic_bp_ring_flag(&bp->fill, REFNIC_BYPASS_RING_BROKEN, true);
	refnic_bp_ring_flag(&bp->rxc, REFNIC_BYPASS_RING_BROKEN, true);
	refnic_bp_ring_flag(&bp->tx, REFNIC_BYPASS_RING_BROKEN, true);
	refnic_bp_ring_flag(&bp->txc, REFNIC_BYPASS_RING_BROKEN, true);
	if (net_ratelimit())
		netdev_warn(bp->netdev,
			    "bypass queue %u: ring index out of range, session stopped\n",
			    bp->queue);
	wake_up_interruptible(&bp->wq);
	schedule_work(&bp->teardown_work);
}

/* ---- umem -------------------------------------------------------------- */

static dma_addr_t refnic_bp_buf_dma(const struct refnic_bypass *bp, u64 off)
{
	return bp->dm.page_dma[off >> PAGE_SHIFT] + offset_in_page(off);
}

static dma_addr_t refnic_bp_hdr_dma(const struct refnic_bypass *bp, u32 slot)
{
	u32 off = slot * REFNIC_BYPASS_HDR_SLOT;

	return bp->dm.hdr_dma[off >> PAGE_SHIFT] + offset_in_page(off);
}

/* Pinned pages count against RLIMIT_MEMLOCK, as AF_XDP's umem does. */
static int refnic_bp_umem_account(struct refnic_bp_dmamem *dm, u32 npages)
{
	unsigned long limit;

	if (capable(CAP_IPC_LOCK))
		return 0;
	limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	dm->user = get_uid(current_user());
	if (atomic_long_add_return(npages, &dm->user->locked_vm) > limit) {
		atomic_long_sub(npages, &dm->user->locked_vm);
		free_uid(dm->user);
		dm->user = NULL;
		return -ENOBUFS;
	}
	return 0;
}

static void refnic_bp_umem_unaccount(struct refnic_bp_dmamem *dm)
{
	if (!dm->user)
		return;
	atomic_long_sub(dm->npages, &dm->user->locked_vm);
	free_uid(dm->user);
	dm->user = NULL;
}

static int refnic_bp_umem_pin(struct refnic_bypass *bp, u64 addr, u64 len)
{
	struct refnic_bp_dmamem *dm = &bp->dm;
	u32 done = 0;
	long n;
	int err;

	if (!len || len > REFNIC_BP_UMEM_MAX || !PAGE_ALIGNED(addr) ||
	    !PAGE_ALIGNED(len))
		return -EINVAL;

	err = refnic_bp_umem_account(dm, len >> PAGE_SHIFT);
	if (err)
		return err;
	dm->npages = len >> PAGE_SHIFT;
	dm->pages = kvcalloc(dm->npages, sizeof(*dm->pages),
			     GFP_KERNEL_ACCOUNT);
	dm->page_dma = kvcalloc(dm->npages, sizeof(*dm->page_dma),
				GFP_KERNEL_ACCOUNT);
	bp->owned = bitmap_zalloc(len >> bp->buf_shift, GFP_KERNEL_ACCOUNT);
	if (!dm->pages || !dm->page_dma || !bp->owned)
		return -ENOMEM;

	/* Long-term pins: the device may write the pages at any time while
	 * bound, so they must not move or be reclaimed.
	 */
	while (done < dm->npages) {
		n = pin_user_pages_fast(addr + ((u64)done << PAGE_SHIFT),
					dm->npages - done,
					FOLL_WRITE | FOLL_LONGTERM,
					dm->pages + done);
		if (n <= 0)
			return n ? n : -EFAULT;
		done += n;
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	bp->umem_len = len;
	return 0;
}

/* Unpins the umem, dirty, and gives back its RLIMIT_MEMLOCK charge. */
static void refnic_bp_umem_unpin(struct refnic_bp_dmamem *dm)
{
	u32 pinned = 0;

	/* Pinned in order from the start: the first NULL ends them. */
	while (dm->pages && pinned < dm->npages && dm->pages[pinned])
		pinned++;
	/* The device wrote into them behind the page tables' back: dirty
	 * them, or a shmem page already written to swap would be dropped
	 * clean and the process read stale data, as AF_XDP and RDMA umems
	 * do on release.
	 */
	if (pinned)
		unpin_user_pages_dirty_lock(dm->pages, pinned, true);
	refnic_bp_umem_unaccount(dm);
	kvfree(dm->pages);
	dm->pages = NULL;
	kvfree(dm->page_dma);
	dm->page_dma = NULL;
	dm->npages = 0;
}

static void refnic_bp_dma_unmap(struct refnic_bp_dmamem *dm,
				struct device *dev)
{
	u32 i;

	for (i = 0; i < dm->npages; i++) {
		if (!dm->page_dma[i])
			continue;
		/* Synced range by range while bound: a whole-page sync
		 * here would copy stale bytes over the process's own.
		 */
		dma_unmap_page_attrs(dev, dm->page_dma[i], PAGE_SIZE,
				     DMA_BIDIRECTIONAL, DMA_ATTR_SKIP_CPU_SYNC);
		dm->page_dma[i] = 0;
	}
	for (i = 0; dm->hdr_dma && i < dm->hdr_bytes >> PAGE_SHIFT; i++) {
		if (!dm->hdr_dma[i])
			continue;
		dma_unmap_page(dev, dm->hdr_dma[i], PAGE_SIZE, DMA_FROM_DEVICE);
		dm->hdr_dma[i] = 0;
	}
}

static int refnic_bp_dma_map(struct refnic_bp_dmamem *dm, struct device *dev)
{
	dma_addr_t dma;
	u32 i;

	for (i = 0; i < dm->npages; i++) {
		dma = dma_map_page_attrs(dev, dm->pages[i], 0, PAGE_SIZE,
					 DMA_BIDIRECTIONAL,
					 DMA_ATTR_SKIP_CPU_SYNC);
		if (dma_mapping_error(dev, dma))
			goto err;
		dm->page_dma[i] = dma;
	}
	for (i = 0; dm->hdr_dma && i < dm->hdr_bytes >> PAGE_SHIFT; i++) {
		dma = dma_map_page(dev, vmalloc_to_page(dm->hdr_area +
							i * PAGE_SIZE),
				   0, PAGE_SIZE, DMA_FROM_DEVICE);
		if (dma_mapping_error(dev, dma))
			goto err;
		dm->hdr_dma[i] = dma;
	}
	return 0;

err:
	refnic_bp_dma_unmap(dm, dev);
	return -ENOMEM;
}

/* What is left of @dm once it is unmapped and its hardware rings freed:
 * the umem pins and charge, the header slots. @dm is empty afterwards.
 */
static void refnic_bp_dmamem_free(struct refnic_bp_dmamem *dm)
{
	refnic_bp_umem_unpin(dm);
	vfree(dm->hdr_area);
	kfree(dm->hdr_dma);
	memset(dm, 0, sizeof(*dm));
}

/* Buffer index of umem offset @off. */
static u32 refnic_bp_buf(const struct refnic_bypass *bp, u64 off)
{
	return off >> bp->buf_shift;
}

/* ---- Datapath (NAPI) ------------------------------------------------------- */

static u32 refnic_bp_rx_phase(const struct refnic_bypass *bp)
{
	return (bp->rx_cq_head & bp->rxc.size) ? 0 : REFNIC_RXC_PHASE;
}

/* Writes the rxc entry of RX descriptor @bp->rx_ntc and moves on. */
static void refnic_bp_rx_emit(struct refnic_bypass *bp, u32 len, u32 hlen,
			      u16 flags, u32 hash)
{
	struct refnic_bypass_rx_desc *e;
	u32 slot = bp->rx_ntc & bp->rxc.mask;
	struct device *dev = bp->priv->dma_dev;
	u64 off = bp->rx_off[slot];

	__clear_bit(refnic_bp_buf(bp, off), bp->owned);
	if (len)
		dma_sync_single_range_for_cpu(dev,
					      bp->dm.page_dma[off >> PAGE_SHIFT],
					      offset_in_page(off), len,
					      DMA_BIDIRECTIONAL);
	if (hlen)
		dma_sync_single_for_cpu(dev, refnic_bp_hdr_dma(bp, slot), hlen,
					DMA_FROM_DEVICE);

	e = (struct refnic_bypass_rx_desc *)bp->rxc.entries +
	    (bp->rxc.prod & bp->rxc.mask);
	e->addr = off;
	e->len = len;
	e->hdr_len = hlen;
	e->flags = flags;
	e->rss_hash = hash;
	e->reserved = 0;
	bp->rxc.prod++;
	WRITE_ONCE(bp->rx_ntc, bp->rx_ntc + 1);
}

/* One device completion: one rxc entry per descriptor it used. Returns
 * false if the completion cannot be trusted.
 */
static bool refnic_bp_rx_one(struct refnic_bypass *bp,
			     const struct refnic_rx_cmpl *c, u32 cflags)
{
	u32 nbufs = le16_to_cpu(c->nbufs), len = le32_to_cpu(c->pay_len);
	u32 lost = le32_to_cpu(c->buf_index) - bp->rx_ntc;
	u32 hlen = le16_to_cpu(c->hdr_len);
	u32 hash = le32_to_cpu(c->rss_hash);
	bool bad = cflags & REFNIC_RXC_TRUNCATED;
	u16 flags = 0;
	u32 i, n;

	if (lost > bp->rx_ntu - bp->rx_ntc || !nbufs ||
	    nbufs > bp->rx_ntu - bp->rx_ntc - lost ||
	    hlen > (bp->dm.hdr_dma ? REFNIC_BYPASS_HDR_SLOT : 0) ||
	    len > nbufs * bp->buf_size) {
		netdev_err(bp->netdev,
			   "bypass queue %u: bad completion: buffer %u of %u posted, %u bufs, %u bytes\n",
			   bp->queue, le32_to_cpu(c->buf_index),
			   bp->rx_ntu - bp->rx_ntc, nbufs, len);
		return false;
	}
	/* Buffers the device used for frames it wrote no completion for
	 * go back to the process empty.
	 */
	for (i = 0; i < lost; i++)
		refnic_bp_rx_emit(bp, 0, 0, REFNIC_BYPASS_RX_ERROR, 0);
	bp->stats.rx_errors += lost;

	if (cflags & REFNIC_RXC_RSS_VALID)
		flags |= REFNIC_BYPASS_RX_RSS_VALID;
	if (cflags & REFNIC_RXC_L4_CSUM_OK)
		flags |= REFNIC_BYPASS_RX_CSUM_OK;
	if (cflags & REFNIC_RXC_L4_CSUM_BAD)
		flags |= REFNIC_BYPASS_RX_CSUM_BAD;
	if (bad) {
		flags |= REFNIC_BYPASS_RX_ERROR;
		bp->stats.rx_errors++;
	} else {
		bp->stats.rx_frames++;
		bp->stats.rx_bytes += len + hlen;
	}

	for (i = 0; i < nbufs; i++) {
		u16 f = flags;

		n = min(len, bp->buf_size);
		len -= n;
		if (i + 1 < nbufs)
			f |= REFNIC_BYPASS_RX_MORE;
		if (!i && hlen)
			f |= REFNIC_BYPASS_RX_SPLIT;
		refnic_bp_rx_emit(bp, n, i ? 0 : hlen, f, hash);
	}
	return true;
}

static int refnic_bp_rx_complete(struct refnic_bypass *bp, int budget)
{
	struct refnic_priv *priv = bp->priv;
	u32 start = bp->rx_cq_head;
	int done = 0;

	while (done < budget) {
		const struct refnic_rx_cmpl *c =
			&bp->dm.rx_cmpl[bp->rx_cq_head & bp->rxc.mask];
		u32 flags = le32_to_cpu(READ_ONCE(c->flags));

		if ((flags & REFNIC_RXC_PHASE) != refnic_bp_rx_phase(bp))
			break;
		dma_rmb();
		if (!refnic_bp_rx_one(bp, c, flags)) {
			/* The device is lying: stop the session rather
			 * than hand the process garbage.
			 */
			refnic_bp_break(bp);
			break;
		}
		/* the service task samples it */
		WRITE_ONCE(bp->rx_cq_head, bp->rx_cq_head + 1);
		done++;
	}

	if (bp->rx_cq_head != start) {
		refnic_bp_ring_publish(&bp->rxc);
		dma_mb();
		refnic_wr32(priv, REFNIC_REG_RXCQ_HEAD(bp->queue), bp->rx_cq_head);
		bp->stats.rx_doorbells++;
	}
	return done;
}

/* Fill ring to RX descriptors, one doorbell for the batch. Returns the
 * fill entries consumed.
 */
static u32 refnic_bp_refill(struct refnic_bypass *bp)
{
	/* Both indices as this poll read and checked them. */
	u32 avail = bp->fill.prod - bp->fill.cons;
	struct device *dev = bp->priv->dma_dev;
	const u64 *fill = bp->fill.entries;
	u32 ntu = bp->rx_ntu, i, n;
	s64 room;

	/* RX descriptor n completes into rxc entry n: post only what the
	 * rxc ring has room for, so no completion is ever without a slot
	 * and header slot n is free until the process releases entry n.
	 */
	room = (s64)bp->rxc.size - (u32)(ntu - bp->rxc.cons);
	n = clamp_t(s64, min_t(s64, avail, room), 0, U32_MAX);
	if (!n)
		return 0;

	for (i = 0; i < n; i++) {
		u64 off = READ_ONCE(fill[(bp->fill.cons + i) & bp->fill.mask]);
		u32 slot = ntu & bp->rxc.mask;
		struct refnic_rx_desc *d = &bp->dm.rx_desc[slot];

		if (unlikely(off >= bp->umem_len)) {
			bp->stats.bad_addr++;
			continue;
		}
		if (unlikely(off & (bp->buf_size - 1))) {
			bp->stats.bad_align++;
			continue;
		}
		if (unlikely(__test_and_set_bit(refnic_bp_buf(bp, off),
						bp->owned))) {
			bp->stats.dup_buf++;
			continue;
		}
		bp->rx_off[slot] = off;
		/* The process wrote the buffer last: its cache lines go
		 * before the device writes (a no-op where DMA is coherent).
		 */
		dma_sync_single_range_for_device(dev,
						 bp->dm.page_dma[off >> PAGE_SHIFT],
						 offset_in_page(off), bp->buf_size,
						 DMA_BIDIRECTIONAL);
		d->buf_addr = cpu_to_le64(refnic_bp_buf_dma(bp, off));
		d->hdr_addr = 0;
		if (bp->dm.hdr_dma) {
			dma_sync_single_for_device(dev,
						   refnic_bp_hdr_dma(bp, slot),
						   REFNIC_BYPASS_HDR_SLOT,
						   DMA_FROM_DEVICE);
			d->hdr_addr = cpu_to_le64(refnic_bp_hdr_dma(bp, slot));
		}
		ntu++;
	}
	refnic_bp_ring_consumed(&bp->fill, n);
	bp->stats.fill_batches++;
	bp->stats.fill_bufs += ntu - bp->rx_ntu;

	if (ntu != bp->rx_ntu) {
		WRITE_ONCE(bp->rx_ntu, ntu);
		/* Descriptors before the doorbell. */
		dma_wmb();
		refnic_wr32(bp->priv, REFNIC_REG_RXQ_TAIL(bp->queue), ntu);
		bp->stats.rx_doorbells++;
	}
	return n;
}

/* Sent frames' buffers back to the process through txc. */
static void refnic_bp_tx_reclaim(struct refnic_bypass *bp)
{
	u64 *txc = bp->txc.entries;
	u32 head = bp->tx_head;

	while (head != bp->tx_tail) {
		struct refnic_tx_desc *d = &bp->dm.tx_desc[head & bp->tx.mask];
		u32 slot = head & bp->tx.mask;
		u64 off = bp->tx_off[slot];

		if (!(le16_to_cpu(READ_ONCE(d->status)) &
		      REFNIC_TXD_STATUS_DONE))
			break;
		dma_rmb();
		__clear_bit(refnic_bp_buf(bp, off), bp->owned);
		txc[bp->txc.prod++ & bp->txc.mask] = off;
		bp->stats.tx_frames++;
		bp->stats.tx_bytes += bp->tx_len[slot];
		head++;
	}
	if (head != bp->tx_head) {
		bp->tx_head = head;
		refnic_bp_ring_publish(&bp->txc);
	}
}

static bool refnic_bp_tx_valid(struct refnic_bypass *bp,
			       const struct refnic_bypass_tx_desc *e)
{
	u32 max = READ_ONCE(bp->netdev->mtu) + ETH_HLEN + VLAN_HLEN;

	if (unlikely(e->flags)) {
		bp->stats.bad_flags++;
		return false;
	}
	if (unlikely(e->addr >= bp->umem_len)) {
		bp->stats.bad_addr++;
		return false;
	}
	if (unlikely(e->len < ETH_HLEN || e->len > max ||
		     (e->addr & (bp->buf_size - 1)) + e->len > bp->buf_size)) {
		bp->stats.bad_len++;
		return false;
	}
	if (unlikely(__test_and_set_bit(refnic_bp_buf(bp, e->addr),
					bp->owned))) {
		bp->stats.dup_buf++;
		return false;
	}
	return true;
}

/* tx ring to TX descriptors. Returns the tx entries consumed. */
static u32 refnic_bp_tx_post(struct refnic_bypass *bp, u32 budget)
{
	const struct refnic_bypass_tx_desc *ring = bp->tx.entries;
	/* Both indices as this poll read and checked them. */
	u32 avail = bp->tx.prod - bp->tx.cons;
	u32 inflight = bp->tx_tail - bp->tx_head;
	struct device *dev = bp->priv->dma_dev;
	u32 tail = bp->tx_tail, i, n;
	s64 room;

	/* Every frame in flight needs a txc slot when it completes. */
	room = (s64)bp->txc.size - (u32)(bp->txc.prod - bp->txc.cons) -
	       inflight;
	room = min_t(s64, room, (s64)bp->tx.size - inflight);
	room = min_t(s64, room, budget);
	if (min_t(s64, avail, room) <= 0)
		return 0;
	n = min_t(s64, avail, room);

	for (i = 0; i < n; i++) {
		struct refnic_bypass_tx_desc e;
		struct refnic_tx_desc *d;
		u32 slot = tail & bp->tx.mask;
		dma_addr_t dma;

		/* One copy: the process may rewrite the entry meanwhile. */
		memcpy(&e, &ring[(bp->tx.cons + i) & bp->tx.mask], sizeof(e));
		barrier();
		if (!refnic_bp_tx_valid(bp, &e))
			continue;

		dma = refnic_bp_buf_dma(bp, e.addr);
		dma_sync_single_for_device(dev, dma, e.len, DMA_BIDIRECTIONAL);
		d = &bp->dm.tx_desc[slot];
		memset(d, 0, sizeof(*d));
		d->addr = cpu_to_le64(dma);
		d->len = cpu_to_le32(e.len);
		d->flags = cpu_to_le16(REFNIC_TXD_EOP);
		bp->tx_off[slot] = e.addr;
		bp->tx_len[slot] = e.len;
		tail++;
	}
	refnic_bp_ring_consumed(&bp->tx, n);

	if (tail != bp->tx_tail) {
		bp->tx_tail = tail;
		dma_wmb();
		refnic_wr32(bp->priv, REFNIC_REG_TXQ_TAIL(bp->queue), tail);
		bp->stats.tx_doorbells++;
	}
	return n;
}

/* Reads each index the process writes once, and checks it: the fill and
 * tx producers, the rxc and txc consumers. What the poll does and whether
 * it asks to run again follow from these values alone, never from a second
 * look at shared memory the process may have changed meanwhile. A corrupt
 * index breaks the session. Returns false then.
 */
static bool refnic_bp_read_indices(struct refnic_bypass *bp)
{
	if (refnic_bp_ring_read_prod(&bp->fill) &&
	    refnic_bp_ring_read_cons(&bp->rxc) &&
	    refnic_bp_ring_read_prod(&bp->tx) &&
	    refnic_bp_ring_read_cons(&bp->txc))
		return true;
	refnic_bp_break(bp);
	return false;
}

/* Would the next poll find work on the process's rings, by the indices
 * refnic_bp_read_indices() read last? The same limits as refill and
 * tx_post, or a full rxc or txc ring would keep NAPI polling until the
 * process drains it; and refill and tx_post use these very values, so a
 * poll asked for takes at least one entry.
 */
static bool refnic_bp_pending(const struct refnic_bypass *bp)
{
	u32 txc_used = bp->txc.prod - bp->txc.cons;
	u32 inflight = bp->tx_tail - bp->tx_head;

	if (bp->fill.prod != bp->fill.cons &&
	    bp->rx_ntu - bp->rxc.cons < bp->rxc.size)
		return true;
	return bp->tx.prod != bp->tx.cons &&
	       inflight < bp->tx.size && txc_used + inflight < bp->txc.size;
}

static void refnic_bp_need_wakeup(struct refnic_bypass *bp, bool on)
{
	refnic_bp_ring_flag(&bp->fill, REFNIC_BYPASS_RING_NEED_WAKEUP, on);
	refnic_bp_ring_flag(&bp->tx, REFNIC_BYPASS_RING_NEED_WAKEUP, on);
}

/**
 * refnic_bypass_poll() - NAPI poll of a queue pair bound to a session
 * @bp: the session
 * @budget: most RX completions to handle
 *
 * Return: completions handled, or @budget to be polled again.
 */
int refnic_bypass_poll(struct refnic_bypass *bp, int budget)
{
	u32 found, posted, refilled;
	u32 txc_prod = bp->txc.prod, rxc_prod = bp->rxc.prod;
	int done;

	if (unlikely(READ_ONCE(bp->broken)))
		return 0;

	bp->stats.polls++;
	refnic_bp_need_wakeup(bp, false);

	/* The indices the last poll read when it asked for this one, or
	 * fresh ones.
	 */
	if (!bp->indices_read && !refnic_bp_read_indices(bp)) {
		trace_refnic_bypass_poll(bp->priv->netdev, bp->queue, 0, 0, 0);
		return 0;
	}
	bp->indices_read = false;

	refnic_bp_tx_reclaim(bp);
	posted = refnic_bp_tx_post(bp, budget);
	done = refnic_bp_rx_complete(bp, budget);
	refilled = refnic_bp_refill(bp);
	trace_refnic_bypass_poll(bp->priv->netdev, bp->queue, posted, done,
				 refilled);
	found = posted + refilled;
	if (found && !xchg(&bp->kicked, false))
		bp->stats.wakeups_avoided += found;

	if (bp->txc.prod != txc_prod || bp->rxc.prod != rxc_prod)
		if (wq_has_sleeper(&bp->wq))
			wake_up_interruptible(&bp->wq);

	if (done >= budget || unlikely(READ_ONCE(bp->broken)))
		return done;

	/* About to stop polling: from now on the process must kick. Tell
	 * it first, then look once more, or entries it produced before
	 * seeing the flag would wait for the next interrupt.
	 */
	refnic_bp_need_wakeup(bp, true);
	/* Flag store before the index loads; the process pairs it with a
	 * full barrier between its index store and its flag load.
	 */
	smp_mb();
	/* These reads are the next poll's: it works on what made it run,
	 * so a process flipping an index cannot keep NAPI polling for
	 * nothing, and a corrupt one ends the session here.
	 */
	if (!refnic_bp_read_indices(bp) || !refnic_bp_pending(bp))
		return done;
	bp->indices_read = true;
	return budget;
}

/**
 * refnic_bypass_rx_progress() - a bound queue's RX ring, for the service task
 * @bp: the session, bound (the instance lock keeps it so)
 * @p: filled in
 *
 * What NAPI owns is read a word at a time, without NAPI: each value may be
 * a moment old. The buffers the session has posted are those the process
 * gave it; fewer than one frame at the MTU may complete nothing.
 */
void refnic_bypass_rx_progress(const struct refnic_bypass *bp,
			       struct refnic_rx_progress *p)
{
	u32 cq_head = READ_ONCE(bp->rx_cq_head);
	const struct refnic_rx_cmpl *c =
		&bp->dm.rx_cmpl[cq_head & bp->rxc.mask];
	u32 phase = (cq_head & bp->rxc.size) ? 0 : REFNIC_RXC_PHASE;
	u32 frame = READ_ONCE(bp->netdev->mtu) + ETH_HLEN + VLAN_HLEN;
	u32 ntc = READ_ONCE(bp->rx_ntc);

	p->cq_head = cq_head;
	/* ntc first: NAPI moves ntu ahead of ntc, never ntc past ntu */
	p->posted = READ_ONCE(bp->rx_ntu) - ntc;
	p->min_posted = DIV_ROUND_UP(frame, bp->buf_size);
	p->pending = (le32_to_cpu(READ_ONCE(c->flags)) & REFNIC_RXC_PHASE) ==
		     phase;
	p->broken = READ_ONCE(bp->broken);
}

/* ---- Binding ----------------------------------------------------------- */

static void refnic_bp_hw_free(struct refnic_bp_dmamem *dm, struct device *dev)
{
	if (dm->tx_desc)
		dma_free_coherent(dev, dm->tx_size * sizeof(*dm->tx_desc),
				  dm->tx_desc, dm->tx_desc_dma);
	if (dm->rx_cmpl)
		dma_free_coherent(dev, dm->rx_size * sizeof(*dm->rx_cmpl),
				  dm->rx_cmpl, dm->rx_cmpl_dma);
	if (dm->rx_desc)
		dma_free_coherent(dev, dm->rx_size * sizeof(*dm->rx_desc),
				  dm->rx_desc, dm->rx_desc_dma);
	dm->tx_desc = NULL;
	dm->rx_cmpl = NULL;
	dm->rx_desc = NULL;
}

/* The device's rings: @rx_size RX descriptors and completions, @tx_size
 * TX descriptors.
 */
static int refnic_bp_hw_alloc(struct refnic_bp_dmamem *dm, struct device *dev,
			      u32 rx_size, u32 tx_size)
{
	dm->rx_size = rx_size;
	dm->tx_size = tx_size;
	dm->rx_desc = dma_alloc_coherent(dev, rx_size * sizeof(*dm->rx_desc),
					 &dm->rx_desc_dma, GFP_KERNEL);
	dm->rx_cmpl = dma_alloc_coherent(dev, rx_size * sizeof(*dm->rx_cmpl),
					 &dm->rx_cmpl_dma, GFP_KERNEL);
	dm->tx_desc = dma_alloc_coherent(dev, tx_size * sizeof(*dm->tx_desc),
					 &dm->tx_desc_dma, GFP_KERNEL);
	if (!dm->rx_desc || !dm->rx_cmpl || !dm->tx_desc) {
		refnic_bp_hw_free(dm, dev);
		return -ENOMEM;
	}
	return 0;
}

/* Programs and enables the device's queues of the pair for the session. */
static void refnic_bp_hw_start(struct refnic_bypass *bp)
{
	struct refnic_priv *priv = bp->priv;
	u32 q = bp->queue;

	refnic_wr64(priv, REFNIC_REG_TXQ_BASE_LO(q), REFNIC_REG_TXQ_BASE_HI(q),
		    bp->dm.tx_desc_dma);
	refnic_wr32(priv, REFNIC_REG_TXQ_SIZE(q), bp->tx.size);
	refnic_wr32(priv, REFNIC_REG_TXQ_CTRL(q),
		    FIELD_PREP(REFNIC_Q_CTRL_VECTOR, q) | REFNIC_Q_CTRL_ENABLE);

	refnic_wr64(priv, REFNIC_REG_RXQ_BASE_LO(q), REFNIC_REG_RXQ_BASE_HI(q),
		    bp->dm.rx_desc_dma);
	refnic_wr32(priv, REFNIC_REG_RXQ_SIZE(q), bp->rxc.size);
	refnic_wr32(priv, REFNIC_REG_RXQ_BUF_LEN(q), bp->buf_size);
	refnic_wr32(priv, REFNIC_REG_RXQ_HDR_LEN(q),
		    bp->dm.hdr_dma ? REFNIC_BYPASS_HDR_SLOT : 0);
	refnic_wr64(priv, REFNIC_REG_RXCQ_BASE_LO(q),
		    REFNIC_REG_RXCQ_BASE_HI(q), bp->dm.rx_cmpl_dma);
	refnic_wr32(priv, REFNIC_REG_RXCQ_SIZE(q), bp->rxc.size);
	refnic_wr32(priv, REFNIC_REG_RXCQ_HEAD(q), 0);
	refnic_wr32(priv, REFNIC_REG_RXQ_CTRL(q),
		    FIELD_PREP(REFNIC_Q_CTRL_VECTOR, q) | REFNIC_Q_CTRL_ENABLE |
		    (bp->dm.hdr_dma ? REFNIC_Q_CTRL_HDR_SPLIT : 0));
	/* No buffers yet: the process fills and kicks. */
	refnic_bp_need_wakeup(bp, true);
}

static int refnic_bp_check(struct refnic_bypass *bp, struct refnic_priv *priv,
			   u32 q)
{
	struct net_device *netdev = priv->netdev;
	const char *why;
	int err;

	err = -ENETDOWN;
	why = "the port is down";
	if (!netif_running(netdev))
		goto refuse;
	err = -EIO;
	why = "the port failed: its device did not stop its DMA";
	if (priv->failed)
		goto refuse;
	err = -ERANGE;
	why = "no such queue pair in use (ethtool -l)";
	if (q >= priv->cfg.num_queues)
		goto refuse;
	err = -EINVAL;
	why = "queue 0 carries what RSS cannot hash (ARP, non-IP)";
	if (!q)
		goto refuse;
	err = -EBUSY;
	why = "the queue is already bound to a bypass session";
	if (priv->bypass[q])
		goto refuse;
	why = "a dmabuf is bound to the queue (devmem)";
	if (__netif_get_rx_queue(netdev, q)->mp_params.mp_priv)
		goto refuse;
	why = "a whole-port session holds the port";
	if (priv->bypass_whole_port >= 0)
		goto refuse;
	why = "the stack needs a queue of its own";
	if (!(bp->flags & REFNIC_BYPASS_F_WHOLE_PORT) &&
	    hweight_long(priv->bypass_mask) + 2 > priv->cfg.num_queues)
		goto refuse;
	why = "a whole-port session needs the only bypass queue";
	if ((bp->flags & REFNIC_BYPASS_F_WHOLE_PORT) && priv->bypass_mask)
		goto refuse;
	why = "hardware GRO merges frames: ethtool -K DEV rx-gro-hw off";
	if (netdev->features & NETIF_F_GRO_HW)
		goto refuse;
	why = "RSS steers flows away from the queue: ethtool -K DEV rxhash on";
	if (!(netdev->features & NETIF_F_RXHASH))
		goto refuse;
	err = -EOPNOTSUPP;
	why = "the device cannot split headers";
	if ((bp->flags & REFNIC_BYPASS_F_HDR_SPLIT) &&
	    !(priv->caps & REFNIC_CAP_HDR_SPLIT))
		goto refuse;
	return 0;

refuse:
	if (net_ratelimit())
		netdev_info(netdev, "bypass bind of queue %u refused: %s\n",
			    q, why);
	return err;
}

const struct refnic_rxq *refnic_bypass_parked_rxq(struct refnic_priv *priv,
						  unsigned int q)
{
	netdev_assert_locked(priv->netdev);
	return priv->bypass[q] ? priv->bypass[q]->parked.rxq[q] : NULL;
}

/* Under RTNL, the port's instance lock and @bp->lock. */
static int refnic_bp_attach(struct refnic_bypass *bp, struct net_device *netdev,
			    u32 q)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_qset parked = { .cfg = priv->cfg };
	int err;

	err = refnic_bp_check(bp, priv, q);
	if (err)
		return err;

	err = refnic_bp_hw_alloc(&bp->dm, priv->dma_dev, bp->rxc.size,
				 bp->tx.size);
	if (err)
		return err;
	err = refnic_bp_dma_map(&bp->dm, priv->dma_dev);
	if (err)
		goto err_hw;

	/* The stack's queue pair: stopped and kept, to come back intact. */
	err = refnic_qpairs_stop(priv, &parked, q, 1, false);
	if (err) {
		/* Left live but disabled: the reset work restarts the port. */
		refnic_schedule_reset(priv, -1);
		goto err_unmap;
	}

	bp->priv = priv;
	bp->netdev = netdev;
	bp->queue = q;
	netdev_hold(netdev, &bp->dev_tracker, GFP_KERNEL);
	bp->parked = parked;
	bp->irq_base = u64_stats_read(&priv->vec[q].istats.irqs);

	WRITE_ONCE(priv->bypass_mask, priv->bypass_mask | BIT(q));
	if (bp->flags & REFNIC_BYPASS_F_WHOLE_PORT)
		priv->bypass_whole_port = q;
	priv->bypass[q] = bp;
	priv->vec[q].bp = bp;

	refnic_bp_hw_start(bp);
	refnic_vector_enable(priv, q);
	/* The stack never picks the queue now (refnic_select_queue()); it
	 * stays started so that the TX watchdog leaves it alone.
	 */
	netif_tx_start_queue(netdev_get_tx_queue(netdev, q));
	refnic_rss_program(priv);

	netdev_info(netdev, "queue pair %u bound to a bypass session (pid %d)\n",
		    q, task_pid_nr(current));
	return 0;

err_unmap:
	refnic_bp_dma_unmap(&bp->dm, priv->dma_dev);
err_hw:
	refnic_bp_hw_free(&bp->dm, priv->dma_dev);
	return err;
}

/* The device did not stop the session's queues, nor a port reset: what it
 * may still reach - its hardware rings, the umem pages with their DMA
 * mappings and pins, the header slots - moves to the card's quarantine, to
 * be freed by refnic_bypass_kept_free() once the card is unplugged; the
 * file keeps the rest (the shared rings, mapped into the process). It goes
 * into @bp->kept, allocated at bind: this needs no memory.
 */
static void refnic_bp_keep(struct refnic_bypass *bp, struct refnic_priv *priv)
{
	struct refnic_bp_dmamem *kept = bp->kept;

	/* A move: the pins and the memlock charge change hands once. */
	*kept = bp->dm;
	memset(&bp->dm, 0, sizeof(bp->dm));
	bp->kept = NULL;
	refnic_quarantine_get(priv)->bp[bp->queue] = kept;
}

/* Under RTNL, the port's instance lock and @bp->lock: gives the queue pair
 * back to the stack, or, if the device does not stop, fails the port.
 */
static void refnic_bp_detach(struct refnic_bypass *bp)
{
	struct refnic_priv *priv = bp->priv;
	struct net_device *netdev = bp->netdev;
	struct netdev_queue *nq;
	u32 q = bp->queue;
	bool keep;

	refnic_vector_disable(priv, q);
	/* A failed port's device is trusted to stop nothing. */
	keep = priv->failed;
	if (!keep && refnic_qpair_hw_stop(priv, q)) {
		/* A device still writing must not find the pages freed:
		 * reset the port (the reset work rebuilds its queues); if
		 * even that fails, the port fails and the memory is kept.
		 */
		netdev_err(netdev, "bypass queue %u did not stop: resetting the port\n",
			   q);
		keep = refnic_hw_reset(priv) < 0;
		if (!keep) {
			refnic_hw_program(priv);
			refnic_schedule_reset(priv, -1);
		}
	}

	priv->vec[q].bp = NULL;
	priv->bypass[q] = NULL;
	if (priv->bypass_whole_port == q)
		priv->bypass_whole_port = -1;
	WRITE_ONCE(priv->bypass_mask, priv->bypass_mask & ~BIT(q));

	if (!keep) {
		refnic_bp_dma_unmap(&bp->dm, priv->dma_dev);
		refnic_bp_hw_free(&bp->dm, priv->dma_dev);
	} else {
		refnic_bp_keep(bp, priv);
	}

	/* The stack's queue stayed started while bound; stop it under its
	 * lock so that a raw-mapped transmit (pktgen) cannot ring a queue
	 * refnic_qpairs_start() has published but not yet programmed. That
	 * wakes it again once the queue pair is live.
	 */
	nq = netdev_get_tx_queue(netdev, q);
	__netif_tx_lock_bh(nq);
	netif_tx_stop_queue(nq);
	__netif_tx_unlock_bh(nq);
	if (keep) {
		/* Parked while the device still stopped: nothing of it is
		 * the device's, but it never goes back to a failed port.
		 */
		refnic_qset_free(priv, &bp->parked, q, 1);
		refnic_port_fail(priv);
	} else {
		refnic_qpairs_start(priv, &bp->parked, q, 1);
		refnic_rss_program(priv);
	}
	netdev_update_features(netdev);

	bp->stats.irqs = u64_stats_read(&priv->vec[q].istats.irqs) -
			 bp->irq_base;
	/* Pairs with refnic_bp_poll(): the queue pair's restart (or its
	 * memory's move to the quarantine) is done before EPOLLHUP says so.
	 */
	smp_store_release(&bp->priv, NULL);
	netdev_put(netdev, &bp->dev_tracker);
	wake_up_interruptible(&bp->wq);
	netdev_info(netdev, "queue pair %u back from its bypass session\n", q);
}

/**
 * refnic_bypass_detach_all() - end the bindings of a port's queue pairs
 * @priv: port
 *
 * Under RTNL and the instance lock.
 */
void refnic_bypass_detach_all(struct refnic_priv *priv)
{
	unsigned int q;

	ASSERT_RTNL();
	netdev_assert_locked(priv->netdev);
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		struct refnic_bypass *bp = priv->bypass[q];

		if (!bp)
			continue;
		mutex_lock(&bp->lock);
		refnic_bp_detach(bp);
		mutex_unlock(&bp->lock);
	}
}

/**
 * refnic_bypass_detach_queue() - end the binding of one queue pair
 * @priv: port
 * @q: queue pair, held by a session
 *
 * For a queue the device halted, or stalled (the service task found frames
 * arriving and none completing): the session sees EPOLLERR | EPOLLHUP and
 * the stack gets the queue pair back, restarted. Under RTNL and the
 * instance lock.
 */
void refnic_bypass_detach_queue(struct refnic_priv *priv, unsigned int q)
{
	struct refnic_bypass *bp = priv->bypass[q];

	ASSERT_RTNL();
	netdev_assert_locked(priv->netdev);
	if (!bp)
		return;
	netdev_warn(priv->netdev, "bypass queue %u halted or stalled by the device: session ended\n",
		    q);
	mutex_lock(&bp->lock);
	WRITE_ONCE(bp->broken, true);
	refnic_bp_detach(bp);
	mutex_unlock(&bp->lock);
}

/**
 * refnic_bypass_port_failed() - end every session of a port that failed
 * @priv: port, failed
 *
 * Each session still bound is told (its rings flagged BROKEN, EPOLLERR),
 * its poll stops, and its teardown work detaches it (EPOLLHUP): that finds
 * the port failed and moves the session's memory to the quarantine. Not done here,
 * under the session's lock: the caller may hold another session's. Under
 * RTNL and the instance lock.
 */
void refnic_bypass_port_failed(struct refnic_priv *priv)
{
	unsigned int q;

	netdev_assert_locked(priv->netdev);
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		struct refnic_bypass *bp = priv->bypass[q];

		if (!bp || READ_ONCE(bp->broken))
			continue;
		WRITE_ONCE(bp->broken, true);
		refnic_bp_ring_flag(&bp->fill, REFNIC_BYPASS_RING_BROKEN, true);
		refnic_bp_ring_flag(&bp->rxc, REFNIC_BYPASS_RING_BROKEN, true);
		refnic_bp_ring_flag(&bp->tx, REFNIC_BYPASS_RING_BROKEN, true);
		refnic_bp_ring_flag(&bp->txc, REFNIC_BYPASS_RING_BROKEN, true);
		wake_up_interruptible(&bp->wq);
		schedule_work(&bp->teardown_work);
	}
}

int refnic_bypass_busy(struct refnic_priv *priv,
		       struct netlink_ext_ack *extack)
{
	if (!READ_ONCE(priv->bypass_mask))
		return 0;
	NL_SET_ERR_MSG(extack, "a bypass session holds a queue pair (/dev/refnic)");
	netdev_info(priv->netdev,
		    "a bypass session holds a queue pair: close it first\n");
	return -EBUSY;
}

static int refnic_bp_alloc_rings(struct refnic_bypass *bp,
				 const struct refnic_bypass_bind *req)
{
	int err;

	err = refnic_bp_ring_alloc(&bp->fill, req->fill_size, sizeof(u64));
	err = err ?: refnic_bp_ring_alloc(&bp->rxc, req->rxc_size,
					  sizeof(struct refnic_bypass_rx_desc));
	err = err ?: refnic_bp_ring_alloc(&bp->tx, req->tx_size,
					  sizeof(struct refnic_bypass_tx_desc));
	err = err ?: refnic_bp_ring_alloc(&bp->txc, req->txc_size, sizeof(u64));
	if (err)
		return err;

	bp->rx_off = kvcalloc(bp->rxc.size, sizeof(*bp->rx_off),
			      GFP_KERNEL_ACCOUNT);
	bp->tx_off = kvcalloc(bp->tx.size, sizeof(*bp->tx_off),
			      GFP_KERNEL_ACCOUNT);
	bp->tx_len = kvcalloc(bp->tx.size, sizeof(*bp->tx_len),
			      GFP_KERNEL_ACCOUNT);
	/* Where @dm goes if the device does not stop (refnic_bp_keep()). */
	bp->kept = kzalloc(sizeof(*bp->kept), GFP_KERNEL_ACCOUNT);
	if (!bp->rx_off || !bp->tx_off || !bp->tx_len || !bp->kept)
		return -ENOMEM;

	if (!(req->flags & REFNIC_BYPASS_F_HDR_SPLIT))
		return 0;
	bp->dm.hdr_bytes = PAGE_ALIGN(bp->rxc.size * REFNIC_BYPASS_HDR_SLOT);
	bp->dm.hdr_area = refnic_bp_vzalloc_user(bp->dm.hdr_bytes);
	bp->dm.hdr_dma = kcalloc(bp->dm.hdr_bytes >> PAGE_SHIFT,
				 sizeof(*bp->dm.hdr_dma), GFP_KERNEL_ACCOUNT);
	if (!bp->dm.hdr_area || !bp->dm.hdr_dma)
		return -ENOMEM;
	return 0;
}

/* What the file owns, once unbound; it may be bound again afterwards. */
static void refnic_bp_free_mem(struct refnic_bypass *bp)
{
	struct refnic_bp_ring *rings[] = { &bp->fill, &bp->rxc, &bp->tx,
					   &bp->txc };
	unsigned int i;

	/* Empty if the device did not stop: the quarantine holds it. */
	refnic_bp_dmamem_free(&bp->dm);
	kfree(bp->kept);
	bp->kept = NULL;
	bitmap_free(bp->owned);
	bp->owned = NULL;
	for (i = 0; i < ARRAY_SIZE(rings); i++) {
		vfree(rings[i]->hdr);
		memset(rings[i], 0, sizeof(*rings[i]));
	}
	kvfree(bp->rx_off);
	bp->rx_off = NULL;
	kvfree(bp->tx_off);
	bp->tx_off = NULL;
	kvfree(bp->tx_len);
	bp->tx_len = NULL;
}

/**
 * refnic_bypass_kept_free() - free a session's memory a failed port kept
 * @kept: from refnic_bp_keep()
 * @dev: the DMA device it is mapped for
 *
 * Once the card is unplugged, when no engine can reach it any more.
 */
void refnic_bypass_kept_free(struct refnic_bp_dmamem *kept,
			     struct device *dev)
{
	refnic_bp_dma_unmap(kept, dev);
	refnic_bp_hw_free(kept, dev);
	refnic_bp_dmamem_free(kept);
	kfree(kept);
}

static int refnic_bp_bind(struct refnic_bypass *bp,
			  struct refnic_bypass_bind __user *ureq)
{
	struct refnic_bypass_bind req;
	struct net_device *netdev;
	int err;

	if (copy_from_user(&req, ureq, sizeof(req)))
		return -EFAULT;
	if (req.abi_version != REFNIC_BYPASS_ABI_VERSION)
		return -EPROTO;
	if (req.reserved || req.flags & ~(REFNIC_BYPASS_F_HDR_SPLIT |
					  REFNIC_BYPASS_F_WHOLE_PORT))
		return -EINVAL;
	if (req.buf_size != 2048 && req.buf_size != 4096)
		return -EINVAL;
	if (req.buf_size > PAGE_SIZE)
		return -EINVAL;

	/* Who may bind, before anything is allocated or pinned: CAP_NET_ADMIN
	 * over the port's namespace, checked again under RTNL, where it
	 * counts, and in the initial user namespace unless allow_userns
	 * (refnic_policy.c), which does not depend on the port. The binding
	 * process's credentials count, not the opener's: the fd of a bound
	 * session may be handed to another process, as a tun fd is.
	 */
	netdev = dev_get_by_index(current->nsproxy->net_ns, req.ifindex);
	if (!netdev)
		return -ENODEV;
	err = !refnic_is_port(netdev) ? -ENODEV :
	      !ns_capable(dev_net(netdev)->user_ns, CAP_NET_ADMIN) ? -EPERM : 0;
	dev_put(netdev);
	if (!err)
		err = refnic_admin_check(NULL, "bypass bind", NULL);
	if (err)
		return err;

	/* Claim the file, then do what may sleep long or fault on the
	 * process's memory without @bp->lock: mmap() takes it under the
	 * mmap lock, which pinning takes. No other bind gets past the
	 * claim, and mmap() refuses until the bind is done.
	 */
	mutex_lock(&bp->lock);
	err = bp->bound_once ? -EBUSY : 0;
	bp->bound_once = true;
	mutex_unlock(&bp->lock);
	if (err)
		return err;

	bp->flags = req.flags;
	bp->buf_size = req.buf_size;
	bp->buf_shift = ilog2(req.buf_size);
	err = refnic_bp_alloc_rings(bp, &req);
	if (!err)
		err = refnic_bp_umem_pin(bp, req.umem_addr, req.umem_len);

	/* RTNL, the port's instance lock, then the session's lock. */
	rtnl_lock();
	if (err)
		goto out_rtnl;
	err = -ENODEV;
	netdev = __dev_get_by_index(current->nsproxy->net_ns, req.ifindex);
	if (!netdev || !refnic_is_port(netdev))
		goto out_rtnl;
	err = -EPERM;
	if (!ns_capable(dev_net(netdev)->user_ns, CAP_NET_ADMIN))
		goto out_rtnl;
	netdev_lock(netdev);
	mutex_lock(&bp->lock);
	err = refnic_bp_attach(bp, netdev, req.queue);
	if (!err) {
		/* Pairs with poll(2)'s load-acquire: rings before flag. */
		smp_store_release(&bp->rings_ready, true);
	}
	mutex_unlock(&bp->lock);
	netdev_unlock(netdev);
out_rtnl:
	if (err) {
		/* A refused file holds nothing and may try again. */
		mutex_lock(&bp->lock);
		refnic_bp_free_mem(bp);
		bp->bound_once = false;
		mutex_unlock(&bp->lock);
	}
	rtnl_unlock();
	return err;
}

/* Ends @bp's binding, if it has one. @bp->priv changes only under RTNL
 * (and @bp->lock), so under RTNL it names the port whose instance lock
 * goes before @bp->lock.
 */
static void refnic_bp_unbind(struct refnic_bypass *bp)
{
	struct net_device *netdev;

	rtnl_lock();
	if (bp->priv) {
		netdev = bp->priv->netdev;
		netdev_lock(netdev);
		mutex_lock(&bp->lock);
		refnic_bp_detach(bp);
		mutex_unlock(&bp->lock);
		netdev_unlock(netdev);
	}
	rtnl_unlock();
}

/* A broken session's queue pair goes back to the stack at once; the file
 * keeps its rings (and their BROKEN flags) until it is closed.
 */
static void refnic_bp_teardown_work(struct work_struct *work)
{
	struct refnic_bypass *bp = container_of(work, struct refnic_bypass,
						teardown_work);

	refnic_bp_unbind(bp);
}

static int refnic_bp_kick(struct refnic_bypass *bp)
{
	int err = 0;

	atomic64_inc(&bp->kicks);
	mutex_lock(&bp->lock);
	if (READ_ONCE(bp->broken)) {
		err = -EPIPE;
	} else if (!bp->priv) {
		err = -ENXIO;
	} else {
		WRITE_ONCE(bp->kicked, true);
		local_bh_disable();
		napi_schedule(&bp->priv->vec[bp->queue].napi);
		local_bh_enable();
	}
	mutex_unlock(&bp->lock);
	return err;
}

static int refnic_bp_get_stats(struct refnic_bypass *bp,
			       struct refnic_bypass_stats __user *ustats)
{
	struct refnic_bypass_stats s;

	mutex_lock(&bp->lock);
	/* Each field is written by one context and read whole. */
	memcpy(&s, &bp->stats, sizeof(s));
	if (bp->priv)
		s.irqs = u64_stats_read(&bp->priv->vec[bp->queue].istats.irqs) -
			 bp->irq_base;
	mutex_unlock(&bp->lock);
	s.kicks = atomic64_read(&bp->kicks);

	return copy_to_user(ustats, &s, sizeof(s)) ? -EFAULT : 0;
}

/* ---- The character device -------------------------------------------- */

static int refnic_bp_open(struct inode *inode, struct file *file)
{
	struct refnic_bypass *bp;

	bp = kzalloc(sizeof(*bp), GFP_KERNEL_ACCOUNT);
	if (!bp)
		return -ENOMEM;
	mutex_init(&bp->lock);
	init_waitqueue_head(&bp->wq);
	INIT_WORK(&bp->teardown_work, refnic_bp_teardown_work);
	atomic64_set(&bp->kicks, 0);
	file->private_data = bp;
	return nonseekable_open(inode, file);
}

static int refnic_bp_release(struct inode *inode, struct file *file)
{
	struct refnic_bypass *bp = file->private_data;

	refnic_bp_unbind(bp);
	/* Unbound, so NAPI breaks nothing more; a queued teardown finds
	 * nothing to do.
	 */
	cancel_work_sync(&bp->teardown_work);

	refnic_bp_free_mem(bp);
	mutex_destroy(&bp->lock);
	kfree(bp);
	return 0;
}

static long refnic_bp_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct refnic_bypass *bp = file->private_data;

	switch (cmd) {
	case REFNIC_BYPASS_IOC_BIND:
		return refnic_bp_bind(bp, (void __user *)arg);
	case REFNIC_BYPASS_IOC_KICK:
		return refnic_bp_kick(bp);
	case REFNIC_BYPASS_IOC_STATS:
		return refnic_bp_get_stats(bp, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static ssize_t refnic_bp_write(struct file *file, const char __user *buf,
			       size_t len, loff_t *ppos)
{
	int err = refnic_bp_kick(file->private_data);

	return err ? err : len;
}

static __poll_t refnic_bp_poll(struct file *file, poll_table *wait)
{
	struct refnic_bypass *bp = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &bp->wq, wait);
	/* Not bound yet, or a bind in progress or failing: the rings may
	 * be half built. Once ready they stay until release.
	 */
	if (!smp_load_acquire(&bp->rings_ready))
		return EPOLLERR;
	/* A hint only: the indices are the process's to move. */
	if (READ_ONCE(bp->rxc.hdr->consumer) != READ_ONCE(bp->rxc.prod) ||
	    READ_ONCE(bp->txc.hdr->consumer) != READ_ONCE(bp->txc.prod))
		mask |= EPOLLIN | EPOLLRDNORM;
	/* Detached for good: the kernel uses neither the rings nor the
	 * queue pair. A broken session is detached by its teardown work, a
	 * moment after it broke.
	 */
	if (!smp_load_acquire(&bp->priv))
		mask |= EPOLLERR | EPOLLHUP;
	else if (READ_ONCE(bp->broken))
		mask |= EPOLLERR;
	return mask;
}

/* Pages refnic_bp_remap() hands vm_insert_pages() at a time, on the stack:
 * a ring is at most 97 KiB (rxc), a header area 1 MiB.
 */
#define REFNIC_BP_REMAP_BATCH	32

/* remap_vmalloc_range() for refnic_bp_vzalloc_user() memory, which lacks
 * the VM_USERMAP of vmalloc_user()'s unless it comes from there: maps the
 * length of @vma, checked against the size of @mem by the caller, from the
 * start of @mem, a batch of pages at a time: the page table lock is taken
 * once a batch rather than once a page.
 */
static int refnic_bp_remap(struct vm_area_struct *vma, void *mem)
{
	struct page *pages[REFNIC_BP_REMAP_BATCH];
	unsigned long addr = vma->vm_start;
	unsigned long left = vma_pages(vma);
	unsigned long i, n, rest;
	int err;

	while (left) {
		n = min_t(unsigned long, left, ARRAY_SIZE(pages));
		for (i = 0; i < n; i++, mem += PAGE_SIZE)
			pages[i] = vmalloc_to_page(mem);
		/* In: pages to map; out: pages it did not map. */
		rest = n;
		err = vm_insert_pages(vma, addr, pages, &rest);
		if (err)
			return err;
		addr += n << PAGE_SHIFT;
		left -= n;
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return 0;
}

static int refnic_bp_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct refnic_bypass *bp = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	size_t len = vma->vm_end - vma->vm_start;
	void *mem = NULL;
	size_t bytes = 0;
	int err = -EINVAL;

	mutex_lock(&bp->lock);
	/* Mappable while bound; mappings made then outlive the binding,
	 * and the memory stays until release.
	 */
	if (!bp->priv)
		goto out;
	if (off == REFNIC_BYPASS_OFF_FILL) {
		mem = bp->fill.hdr;
		bytes = bp->fill.bytes;
	} else if (off == REFNIC_BYPASS_OFF_RXC) {
		mem = bp->rxc.hdr;
		bytes = bp->rxc.bytes;
	} else if (off == REFNIC_BYPASS_OFF_TX) {
		mem = bp->tx.hdr;
		bytes = bp->tx.bytes;
	} else if (off == REFNIC_BYPASS_OFF_TXC) {
		mem = bp->txc.hdr;
		bytes = bp->txc.bytes;
	} else if (off == REFNIC_BYPASS_OFF_HDR && bp->dm.hdr_area) {
		/* The device writes header slots; the process only reads. */
		err = -EPERM;
		if (vma->vm_flags & VM_WRITE)
			goto out;
		vm_flags_clear(vma, VM_MAYWRITE);
		mem = bp->dm.hdr_area;
		bytes = bp->dm.hdr_bytes;
	}
	err = -EINVAL;
	if (!mem || len > bytes)
		goto out;
	err = refnic_bp_remap(vma, mem);
out:
	mutex_unlock(&bp->lock);
	return err;
}

static const struct file_operations refnic_bp_fops = {
	.owner		= THIS_MODULE,
	.open		= refnic_bp_open,
	.release	= refnic_bp_release,
	.unlocked_ioctl	= refnic_bp_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.write		= refnic_bp_write,
	.poll		= refnic_bp_poll,
	.mmap		= refnic_bp_mmap,
};

/* Anyone may open it: binding checks the caller's privileges
 * (refnic_bp_bind()). An open file costs a struct refnic_bypass, charged to
 * the opener's memory cgroup, and a file descriptor.
 */
static struct miscdevice refnic_bp_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= REFNIC_DRV_NAME,
	.fops	= &refnic_bp_fops,
	.mode	= 0666,
};

int refnic_bypass_init(void)
{
	return misc_register(&refnic_bp_misc);
}

void refnic_bypass_exit(void)
{
	misc_deregister(&refnic_bp_misc);
}
