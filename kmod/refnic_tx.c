// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Transmit: ndo_start_xmit fills descriptors and rings the doorbell; the
 * queue pair's NAPI poll reclaims what the device has finished with.
 *
 * xmit and completion run concurrently on different CPUs, one producer and
 * one consumer of each ring. xmit publishes @tail with a release store
 * after writing the software ring; NAPI reads it with an acquire load.
 * NAPI moves @head; xmit only needs a possibly stale (smaller) free count.
 * Stopping and waking follow netif_txq_maybe_stop() and
 * __netif_txq_completed_wake(), whose barriers pair with each other.
 */

#include <linux/dma-mapping.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/netdev_queues.h>
#include <net/tcp.h>

#include "refnic.h"
#include "refnic_regs.h"
#include "refnic_trace.h"

static u32 refnic_tx_free(const struct refnic_txq *txq)
{
	return txq->size - (txq->tail - READ_ONCE(txq->head));
}

/* A net_iov frag (devmem TX) is the dmabuf binding's mapping, made and
 * unmade by the core: what netmem_dma_unmap_addr_set() and
 * netmem_dma_unmap_page_attrs() do for it (keep no address, unmap
 * nothing), the ring's mapping tag does here.
 */
static void refnic_tx_unmap(struct refnic_txq *txq, struct refnic_tx_buf *buf)
{
	if (buf->mapped == REFNIC_TX_MAP_SINGLE)
		dma_unmap_single(txq->dma_dev, buf->dma, buf->len,
				 DMA_TO_DEVICE);
	else if (buf->mapped == REFNIC_TX_MAP_PAGE)
		dma_unmap_page(txq->dma_dev, buf->dma, buf->len,
			       DMA_TO_DEVICE);
	buf->mapped = REFNIC_TX_MAP_NONE;
}

/* Offload fields of a frame's first descriptor. Returns the wire bytes of
 * the frame (headers replicated per segment for TSO/USO).
 */
static u32 refnic_tx_offloads(struct sk_buff *skb, struct refnic_tx_desc *d,
			      u16 *flags, u16 *segs)
{
	struct skb_shared_info *shinfo = skb_shinfo(skb);
	u32 hdr_len;

	*segs = 1;
	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return skb->len;

	*flags |= REFNIC_TXD_CSUM;
	d->csum_start = cpu_to_le16(skb_checksum_start_offset(skb));
	d->csum_offset = cpu_to_le16(skb->csum_offset);

	if (!skb_is_gso(skb))
		return skb->len;

	if (shinfo->gso_type & SKB_GSO_UDP_L4) {
		*flags |= REFNIC_TXD_USO;
		hdr_len = skb_transport_offset(skb) + sizeof(struct udphdr);
	} else {
		*flags |= REFNIC_TXD_TSO;
		hdr_len = skb_tcp_all_headers(skb);
	}
	if (vlan_get_protocol(skb) == htons(ETH_P_IPV6))
		*flags |= REFNIC_TXD_IPV6;

	d->mss = cpu_to_le16(shinfo->gso_size);
	d->hdr_len = cpu_to_le16(hdr_len);
	*segs = shinfo->gso_segs;

	return skb->len + (*segs - 1) * hdr_len;
}

/* Counts a frame handed to the device, and traces its devmem payload
 * (refnic_tx_devmem). Takes what it needs of the skb as values: once the
 * doorbell rang, the skb may be completed and freed.
 */
static void refnic_tx_count(struct refnic_txq *txq, u32 len, u32 devmem,
			    u16 flags, u32 bytes, u32 segs, bool rang)
{
	struct refnic_xmit_stats *xs = txq->xstats;

	u64_stats_update_begin(&xs->syncp);
	u64_stats_add(&xs->dma_bytes, len);
	if (devmem)
		u64_stats_add(&xs->devmem_bytes, devmem);
	if (flags & REFNIC_TXD_CSUM)
		u64_stats_inc(&xs->needs_csum);
	else
		u64_stats_inc(&xs->csum_none);
	/* A super-packet's own bytes, and the frames the device cuts from it
	 * with their headers repeated (the qstats' hw-gso and hw-gso-wire).
	 */
	if (flags & (REFNIC_TXD_TSO | REFNIC_TXD_USO)) {
		u64_stats_inc(&xs->gso_packets);
		u64_stats_add(&xs->gso_bytes, len);
		u64_stats_add(&xs->gso_wire_packets, segs);
		u64_stats_add(&xs->gso_wire_bytes, bytes);
	}
	if (rang)
		u64_stats_inc(&xs->doorbells);
	u64_stats_update_end(&xs->syncp);
	if (devmem)
		trace_refnic_tx_devmem(txq->priv->netdev, txq->idx, devmem);
}

/**
 * refnic_features_check() - per-skb offload limits (ndo_features_check)
 * @skb: the skb about to be sent
 * @netdev: the device
 * @features: offloads the stack would use
 *
 * The device cuts a TSO/USO frame only if its headers fit its header
 * buffer; a frame with longer headers (IPv6 extension headers, say) is
 * segmented by the stack instead of being dropped by the device.
 *
 * Return: the offloads that may be used for @skb.
 */
netdev_features_t refnic_features_check(struct sk_buff *skb,
					struct net_device *netdev,
					netdev_features_t features)
{
	u32 hdr_len;

	if (skb_is_gso(skb)) {
		if (skb_shinfo(skb)->gso_type & SKB_GSO_UDP_L4)
			hdr_len = skb_transport_offset(skb) +
				  sizeof(struct udphdr);
		else
			hdr_len = skb_tcp_all_headers(skb);
		if (hdr_len > REFNIC_MAX_TSO_HDR)
			features &= ~NETIF_F_GSO_MASK;
	}

	return vlan_features_check(skb, features);
}

static void refnic_tx_count_one(struct refnic_txq *txq, u64_stats_t *ctr)
{
	u64_stats_update_begin(&txq->xstats->syncp);
	u64_stats_inc(ctr);
	u64_stats_update_end(&txq->xstats->syncp);
}

/**
 * refnic_select_queue() - ndo_select_queue: the core's choice, off bypass
 *	queues
 * @netdev: port
 * @skb: frame to send
 * @sb_dev: subordinate device, as for netdev_pick_tx()
 *
 * A queue pair bound to a bypass session (/dev/refnic) is the process's:
 * frames the core would put there go to the next queue the stack owns.
 *
 * Return: TX queue index.
 */
u16 refnic_select_queue(struct net_device *netdev, struct sk_buff *skb,
			struct net_device *sb_dev)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	unsigned long held = READ_ONCE(priv->bypass_mask);
	u16 q = netdev_pick_tx(netdev, skb, sb_dev);
	unsigned int n = netdev->real_num_tx_queues, i;

	if (likely(!(held & BIT(q))))
		return q;
	for (i = 1; i < n; i++)
		if (!(held & BIT((q + i) % n)))
			return (q + i) % n;
	return 0;
}

netdev_tx_t refnic_start_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_txq *txq = READ_ONCE(priv->txq[skb_get_queue_mapping(skb)]);
	struct skb_shared_info *shinfo;
	struct refnic_tx_desc *d0;
	struct refnic_tx_buf *buf;
	u32 bytes, i, len = skb->len, devmem = 0;
	u32 first, pos, nfrags;
	u16 flags = 0, segs;
	bool ring;
	int res;

	/* Only paths that bypass ndo_select_queue (a raw queue mapping)
	 * can pick a queue pair a bypass session holds.
	 */
	if (unlikely(!txq)) {
		dev_core_stats_tx_dropped_inc(netdev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	shinfo = skb_shinfo(skb);
	first = txq->tail;
	pos = first;
	nfrags = shinfo->nr_frags;
	d0 = &txq->desc[first & txq->mask];

	if (unlikely(refnic_tx_free(txq) < nfrags + 1)) {
		/* The queue is stopped before it can get this full; being
		 * here means a wake raced ahead of the space it promised.
		 */
		netif_tx_stop_queue(txq->nq);
		refnic_tx_count_one(txq, &txq->xstats->busy);
		return NETDEV_TX_BUSY;
	}

	memset(d0, 0, sizeof(*d0));
	bytes = refnic_tx_offloads(skb, d0, &flags, &segs);

	/* Linear part. It may be empty when all data sits in frags. */
	if (skb_headlen(skb)) {
		dma_addr_t dma = dma_map_single(txq->dma_dev, skb->data,
						skb_headlen(skb),
						DMA_TO_DEVICE);

		if (unlikely(dma_mapping_error(txq->dma_dev, dma)))
			goto err_drop;
		buf = &txq->bufs[pos & txq->mask];
		buf->dma = dma;
		buf->len = skb_headlen(skb);
		buf->mapped = REFNIC_TX_MAP_SINGLE;
		pos++;
	}

	for (i = 0; i < nfrags; i++) {
		const skb_frag_t *frag = &shinfo->frags[i];
		bool niov = skb_frag_is_net_iov(frag);
		dma_addr_t dma;

		/* devmem TX: for a net_iov, skb_frag_dma_map() gives the
		 * address the dmabuf binding mapped, where the device reads
		 * the dmabuf; nothing is ours to unmap. 6.12 has no netmem
		 * TX and cannot map such a frag.
		 */
		if (niov && !REFNIC_KERNEL_7)
			goto err_unmap;
		dma = skb_frag_dma_map(txq->dma_dev, frag, 0,
				       skb_frag_size(frag), DMA_TO_DEVICE);
		if (!niov && unlikely(dma_mapping_error(txq->dma_dev, dma)))
			goto err_unmap;
		buf = &txq->bufs[pos & txq->mask];
		buf->dma = dma;
		buf->len = skb_frag_size(frag);
		buf->mapped = niov ? REFNIC_TX_MAP_NET_IOV : REFNIC_TX_MAP_PAGE;
		if (niov)
			devmem += buf->len;
		pos++;
	}

	if (unlikely(pos == first))	/* zero-length skb */
		goto err_drop;

	/* Descriptors: offloads on the first (already in d0), EOP on the
	 * last. A slot's status is cleared here: the device sets DONE in
	 * the last descriptor only, and a stale DONE from the slot's
	 * previous use must not be mistaken for this frame's.
	 */
	for (i = first; i != pos; i++) {
		struct refnic_tx_desc *d = &txq->desc[i & txq->mask];
		u16 f = i == first ? flags : 0;

		buf = &txq->bufs[i & txq->mask];
		if (i != first)
			memset(d, 0, sizeof(*d));
		if (i + 1 == pos)
			f |= REFNIC_TXD_EOP;
		d->addr = cpu_to_le64(buf->dma);
		d->len = cpu_to_le32(buf->len);
		d->flags = cpu_to_le16(f);
	}

	buf = &txq->bufs[first & txq->mask];
	buf->skb = skb;
	buf->eop = pos - 1;
	buf->bytes = bytes;
	buf->segs = segs;

	skb_tx_timestamp(skb);

	/* Publish the frame to the completion side (refnic_tx_clean()).
	 * From here on @skb may be freed under us: not touched again.
	 */
	smp_store_release(&txq->tail, pos);

	res = netif_txq_maybe_stop(txq->nq, refnic_tx_free(txq),
				   REFNIC_TX_STOP_THRESH,
				   txq->wake_thresh);
	if (!res)
		refnic_tx_count_one(txq, &txq->xstats->stops);

	/* Ring the doorbell unless more frames follow at once; always when
	 * the queue is stopped, since nothing may follow then.
	 */
	ring = __netdev_tx_sent_queue(txq->nq, bytes, netdev_xmit_more());
	if (ring) {
		/* Descriptors must be visible before the device is told. */
		dma_wmb();
		refnic_wr32(priv, REFNIC_REG_TXQ_TAIL(txq->idx), pos);
		WRITE_ONCE(txq->db_tail, pos);
	}
	refnic_tx_count(txq, len, devmem, flags, bytes, segs, ring);

	return NETDEV_TX_OK;

err_unmap:
	while (pos != first) {
		pos--;
		refnic_tx_unmap(txq, &txq->bufs[pos & txq->mask]);
	}
err_drop:
	refnic_tx_count_one(txq, &txq->xstats->drops);
	dev_kfree_skb_any(skb);
	/* Frames held back by xmit_more must still reach the device. */
	if (!netdev_xmit_more() && txq->db_tail != txq->tail) {
		dma_wmb();
		refnic_wr32(priv, REFNIC_REG_TXQ_TAIL(txq->idx), txq->tail);
		WRITE_ONCE(txq->db_tail, txq->tail);
		refnic_tx_count_one(txq, &txq->xstats->doorbells);
	}
	return NETDEV_TX_OK;
}

/* Frees one frame starting at @head, whose last descriptor is buf->eop.
 * Returns the position after the frame.
 */
static u32 refnic_tx_free_frame(struct refnic_txq *txq, u32 head, int budget,
				bool sent)
{
	struct refnic_tx_buf *first = &txq->bufs[head & txq->mask];
	struct sk_buff *skb = first->skb;
	u32 end = first->eop + 1;

	first->skb = NULL;
	for (; head != end; head++)
		refnic_tx_unmap(txq, &txq->bufs[head & txq->mask]);
	if (sent)
		napi_consume_skb(skb, budget);
	else
		dev_kfree_skb_any(skb);

	return end;
}

/* Whether the frame ending at @eop is done: by its DONE bit in host memory,
 * or (tx_clean_mmio) by the device's HEAD register as read in @hw_head.
 */
static bool refnic_tx_frame_done(struct refnic_txq *txq, u32 eop, bool mmio,
				 u32 hw_head)
{
	if (mmio)
		return (s32)(hw_head - (eop + 1)) >= 0;
	return le16_to_cpu(READ_ONCE(txq->desc[eop & txq->mask].status)) &
	       REFNIC_TXD_STATUS_DONE;
}

/* Reclaims the frames the device has finished reading, learning that from
 * DONE in each frame's last descriptor, in host memory: no register read
 * (but with debugfs tx_clean_mmio on, one read of the HEAD register).
 * Returns the number of wire packets and bytes reclaimed.
 */
static void refnic_tx_reclaim(struct refnic_txq *txq, int budget,
			      u32 *pkts, u32 *bytes)
{
	/* A queue cut loose from its port (refnic_tx_detach()) has no
	 * registers to read: its DONE bits in host memory are all it has.
	 */
	bool mmio = txq->priv && READ_ONCE(txq->priv->tx_clean_mmio);
	u32 head = txq->head, tail, hw_head = 0;

	/* Pairs with the release in xmit: frames up to @tail are filled. */
	tail = smp_load_acquire(&txq->tail);
	*pkts = 0;
	*bytes = 0;
	/* HEAD moves past frames whose DONE write-backs are written. */
	if (mmio && head != tail)
		hw_head = refnic_rd32(txq->priv, REFNIC_REG_TXQ_HEAD(txq->idx));
	while (head != tail) {
		struct refnic_tx_buf *first = &txq->bufs[head & txq->mask];

		if (!refnic_tx_frame_done(txq, first->eop, mmio, hw_head))
			break;
		/* Nothing the device wrote is read past DONE today; the
		 * barrier keeps later reads (e.g. timestamps) after it.
		 */
		dma_rmb();

		*pkts += first->segs;
		*bytes += first->bytes;
		head = refnic_tx_free_frame(txq, head, budget, true);
	}
	WRITE_ONCE(txq->head, head);
}

/**
 * refnic_tx_done_at() - the device finished the frame at @head
 * @txq: a live queue; its TX lock held (no xmit fills a slot meanwhile)
 * @head: the oldest frame on the ring, as the caller read it (NAPI may reap
 *	it at the same time; the answer is then a moment old)
 *
 * For the TX watchdog and the service task, which ask whether an interrupt
 * was lost or the device hung: the frame's DONE, in host memory.
 *
 * Return: true if a frame is at @head and it is done.
 */
bool refnic_tx_done_at(const struct refnic_txq *txq, u32 head)
{
	const struct refnic_tx_desc *eop;

	/* Pairs with the release in xmit: frames up to the tail are filled. */
	if (head == smp_load_acquire(&txq->tail))
		return false;
	eop = &txq->desc[txq->bufs[head & txq->mask].eop & txq->mask];
	return le16_to_cpu(READ_ONCE(eop->status)) & REFNIC_TXD_STATUS_DONE;
}

/**
 * refnic_tx_done_waiting() - the device finished a frame NAPI has not reaped
 * @txq: a live queue; its TX lock held
 *
 * Return: true if the oldest frame on the ring is done.
 */
bool refnic_tx_done_waiting(const struct refnic_txq *txq)
{
	return refnic_tx_done_at(txq, READ_ONCE(txq->head));
}

static void refnic_tx_count_done(struct refnic_txq *txq, u32 pkts, u32 bytes,
				 bool woken)
{
	struct refnic_napi_stats *ns = txq->nstats;

	u64_stats_update_begin(&ns->syncp);
	u64_stats_add(&ns->tx_packets, pkts);
	u64_stats_add(&ns->tx_bytes, bytes);
	if (woken)
		u64_stats_inc(&ns->tx_wakes);
	u64_stats_update_end(&ns->syncp);
}

/**
 * refnic_tx_clean() - NAPI: reclaim sent frames, wake the queue
 * @txq: the queue
 * @budget: NAPI budget, only to tell napi_consume_skb() whether it runs
 *	from NAPI (non-zero) or netpoll (zero); TX cleanup is not budgeted
 *
 * Return: true if frames were reclaimed.
 */
bool refnic_tx_clean(struct refnic_txq *txq, int budget)
{
	u32 pkts, bytes;
	int res;

	refnic_tx_reclaim(txq, budget, &pkts, &bytes);
	if (!pkts)
		return false;

	/* Reports to BQL; its barrier orders the @head update above before
	 * the stopped check, pairing with netif_txq_maybe_stop() in xmit.
	 */
	res = __netif_txq_completed_wake(txq->nq, pkts, bytes,
					 refnic_tx_free(txq),
					 txq->wake_thresh, false);
	refnic_tx_count_done(txq, pkts, bytes, res == 0);
	trace_refnic_tx_clean(txq->priv->netdev, txq->idx, pkts, bytes,
			      res == 0);

	return true;
}

/**
 * refnic_tx_drain() - free every frame still on a stopped queue
 * @txq: the queue; the stack's queue is stopped, NAPI disabled and the
 *	device's queue STOPPED (or, cut loose from its port, the card gone)
 *
 * Frames the device completed are counted as sent; the others are dropped
 * unsent and counted in txN_drops, as fbnic counts what it discards. The
 * queue is not woken. The ring is left empty, ready to start. A queue cut
 * loose from its port (refnic_tx_detach()) counts nothing.
 */
void refnic_tx_drain(struct refnic_txq *txq)
{
	u32 pkts, bytes, dropped = 0;

	refnic_tx_reclaim(txq, 0, &pkts, &bytes);
	if (txq->priv)
		refnic_tx_count_done(txq, pkts, bytes, false);

	while (txq->head != txq->tail) {
		txq->head = refnic_tx_free_frame(txq, txq->head, 0, false);
		dropped++;
	}

	if (txq->priv) {
		if (dropped) {
			u64_stats_update_begin(&txq->xstats->syncp);
			u64_stats_add(&txq->xstats->drops, dropped);
			u64_stats_update_end(&txq->xstats->syncp);
		}
		netdev_tx_reset_queue(txq->nq);
	}
	txq->head = 0;
	txq->tail = 0;
	txq->db_tail = 0;
}

/**
 * refnic_tx_detach() - cut a TX queue loose from its port
 * @txq: the queue; the stack's queue is stopped and NAPI disabled, but the
 *	device did not stop it
 *
 * For a failed port's queue going into the card's quarantine: its frames
 * stay on the ring, mapped, since the device may still read them, but they
 * keep nothing else alive: each skb is orphaned (its socket's charge given
 * back), its route, conntrack entry and extensions dropped and its device
 * cleared. BQL is reset. Afterwards the queue touches only its own memory
 * and the DMA device, and refnic_tx_drain() frees its frames uncounted.
 * A MSG_ZEROCOPY frame's completion (its ubuf) is not given early, since
 * the device may still read the user's pages: it keeps its socket, and so
 * the socket's netns, until the pair is deleted (from either end).
 */
void refnic_tx_detach(struct refnic_txq *txq)
{
	u32 pos = txq->head;

	while (pos != txq->tail) {
		struct refnic_tx_buf *first = &txq->bufs[pos & txq->mask];
		struct sk_buff *skb = first->skb;

		skb_orphan(skb);
		skb_dst_drop(skb);
		nf_reset_ct(skb);
		skb_ext_reset(skb);
		skb->dev = NULL;
		pos = first->eop + 1;
	}

	netdev_tx_reset_queue(txq->nq);
	txq->priv = NULL;
	txq->nq = NULL;
	txq->xstats = NULL;
	txq->nstats = NULL;
}
