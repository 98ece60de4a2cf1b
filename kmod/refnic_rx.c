// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Receive: the queue pair's NAPI poll walks the completion ring (new entries
 * are told apart by their phase bit, so no register is read), builds skbs
 * and hands them to GRO, then refills the buffer ring in a batch with one
 * RXQ_TAIL doorbell.
 *
 * A completion names the ring index of its frame's first buffer; when that
 * is ahead of the driver's, the device used buffers for frames whose
 * completions were lost: the frames are dropped, their buffers recycled and
 * the loss counted (rxN_cmpl_lost), with no queue reset.
 *
 * skb shape: the headers (or a whole small frame) are copied into a small
 * skb head; the payload stays in the page_pool buffers and is attached as
 * frags with skb_add_rx_frag_netmem(). Header-data split will fill the head
 * from the header buffer instead of copying, and devmem payload (net_iov
 * netmem the CPU cannot read) then slots into the same frag path.
 */

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/page_pool/helpers.h>

#include "refnic.h"
#include "refnic_regs.h"

/* The phase the device writes in this pass over the completion ring: 1 in
 * the first pass (the ring starts zeroed), flipping on every wrap.
 */
static u32 refnic_rx_phase(const struct refnic_rxq *rxq)
{
	return (rxq->cq_head & rxq->size) ? 0 : REFNIC_RXC_PHASE;
}

static void refnic_rx_count(struct refnic_rxq *rxq, u64_stats_t *ctr)
{
	u64_stats_update_begin(&rxq->stats->syncp);
	u64_stats_inc(ctr);
	u64_stats_update_end(&rxq->stats->syncp);
}

/**
 * refnic_rx_post() - put free buffers on the ring, without telling the device
 * @rxq: the queue
 * @gfp: GFP_ATOMIC from NAPI, GFP_KERNEL when the queue is built or started
 *
 * Does nothing until REFNIC_RX_REFILL_BATCH descriptors are free, so that
 * the doorbell that follows is amortized over a batch.
 *
 * Return: the number of buffers posted.
 */
u32 refnic_rx_post(struct refnic_rxq *rxq, gfp_t gfp)
{
	struct refnic_drv_fault *fail = &rxq->priv->fail_alloc[rxq->idx];
	u32 want = rxq->size - (rxq->ntu - rxq->ntc);
	bool atomic = !gfpflags_allow_blocking(gfp);
	u32 ntu = rxq->ntu;

	if (want < REFNIC_RX_REFILL_BATCH)
		return 0;

	while (want--) {
		struct refnic_rx_buf *buf = &rxq->bufs[ntu & rxq->mask];
		struct refnic_rx_desc *d = &rxq->desc[ntu & rxq->mask];
		unsigned int offset;
		netmem_ref netmem;

		/* The fail-alloc fault hits where allocations really fail
		 * under pressure: NAPI's atomic refills, never the queue's
		 * bring-up.
		 */
		if (atomic && unlikely(refnic_fault_strikes(fail)))
			netmem = 0;
		else
			netmem = page_pool_alloc_frag_netmem(rxq->pp, &offset,
							     rxq->buf_len,
							     gfp | __GFP_NOWARN);
		if (unlikely(!netmem)) {
			/* Counted by NAPI, the only writer of the stats. */
			rxq->alloc_failed = true;
			break;
		}
		buf->netmem = netmem;
		buf->offset = offset;
		d->hdr_addr = 0;
		d->buf_addr = cpu_to_le64(page_pool_get_dma_addr_netmem(netmem) +
					  offset);
		ntu++;
	}

	want = ntu - rxq->ntu;
	rxq->ntu = ntu;
	return want;
}

/* NAPI: refill in a batch and ring the doorbell once. Returns false if the
 * ring is left without any buffer (allocation failed): the device cannot
 * complete anything then, so no interrupt would come and the poll must
 * retry.
 */
static bool refnic_rx_refill(struct refnic_rxq *rxq)
{
	u32 posted = refnic_rx_post(rxq, GFP_ATOMIC);

	if (unlikely(rxq->alloc_failed)) {
		rxq->alloc_failed = false;
		refnic_rx_count(rxq, &rxq->stats->rx_alloc_fail);
	}
	if (posted) {
		/* Descriptors must be visible before the device is told. */
		dma_wmb();
		refnic_wr32(rxq->priv, REFNIC_REG_RXQ_TAIL(rxq->idx), rxq->ntu);
		refnic_rx_count(rxq, &rxq->stats->rx_doorbells);
	}

	return rxq->ntu != rxq->ntc;
}

/* Gives @n buffers starting at ring position @pos back to the pool. */
static void refnic_rx_put_bufs(struct refnic_rxq *rxq, u32 pos, u32 n,
			       bool napi)
{
	for (; n; n--, pos++) {
		struct refnic_rx_buf *buf = &rxq->bufs[pos & rxq->mask];

		page_pool_put_full_netmem(rxq->pp, buf->netmem, napi);
		buf->netmem = 0;
	}
}

/* Builds the skb of a frame spread over @nbufs buffers from ring position
 * rxq->ntc, @len bytes in all. Consumes the buffers: they end up in the skb
 * or back in the pool.
 */
static struct sk_buff *refnic_rx_build_skb(struct refnic_rxq *rxq, u32 nbufs,
					   u32 len)
{
	struct refnic_rx_buf *buf = &rxq->bufs[rxq->ntc & rxq->mask];
	u32 len0 = min(len, rxq->buf_len), hlen, i;
	struct sk_buff *skb;
	void *va;

	/* The first buffer is read by the CPU (headers); later buffers are
	 * payload the stack may never touch, synced when attached.
	 */
	page_pool_dma_sync_netmem_for_cpu(rxq->pp, buf->netmem, buf->offset,
					  len0);
	va = page_address(netmem_to_page(buf->netmem)) + buf->offset;
	net_prefetch(va);

	skb = napi_alloc_skb(rxq->napi, REFNIC_RX_HDR_MAX);
	if (unlikely(!skb)) {
		refnic_rx_put_bufs(rxq, rxq->ntc, nbufs, true);
		return NULL;
	}

	if (len <= REFNIC_RX_COPYBREAK)
		hlen = len;
	else
		hlen = eth_get_headlen(rxq->netdev, va,
				       min(len0, REFNIC_RX_HDR_MAX));
	skb_put_data(skb, va, hlen);

	if (hlen < len0)
		skb_add_rx_frag_netmem(skb, 0, buf->netmem, buf->offset + hlen,
				       len0 - hlen, rxq->buf_len);
	else
		page_pool_put_full_netmem(rxq->pp, buf->netmem, true);
	buf->netmem = 0;
	len -= len0;

	for (i = 1; i < nbufs; i++) {
		u32 blen = min(len, rxq->buf_len);

		buf = &rxq->bufs[(rxq->ntc + i) & rxq->mask];
		page_pool_dma_sync_netmem_for_cpu(rxq->pp, buf->netmem,
						  buf->offset, blen);
		skb_add_rx_frag_netmem(skb, skb_shinfo(skb)->nr_frags,
				       buf->netmem, buf->offset, blen,
				       rxq->buf_len);
		buf->netmem = 0;
		len -= blen;
	}

	skb_mark_for_recycle(skb);
	return skb;
}

static void refnic_rx_offloads(struct refnic_rxq *rxq, struct sk_buff *skb,
			       const struct refnic_rx_cmpl *c, u32 flags)
{
	struct refnic_napi_stats *ns = rxq->stats;
	netdev_features_t features = rxq->netdev->features;

	if ((features & NETIF_F_RXHASH) && (flags & REFNIC_RXC_RSS_VALID))
		skb_set_hash(skb, le32_to_cpu(c->rss_hash),
			     (flags & REFNIC_RXC_HASH_L4) ?
			     PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);

	/* A bad checksum is left for the stack to verify again and drop, so
	 * it shows up in the protocol's counters too.
	 */
	if ((features & NETIF_F_RXCSUM) && (flags & REFNIC_RXC_L4_CSUM_OK)) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		u64_stats_inc(&ns->rx_csum_unnecessary);
	} else if (flags & REFNIC_RXC_L4_CSUM_BAD) {
		u64_stats_inc(&ns->rx_csum_bad);
	} else {
		u64_stats_inc(&ns->rx_csum_none);
	}
}

/* Handles one completion. Returns false if the completion is malformed and
 * the queue must be reset.
 */
static bool refnic_rx_one(struct refnic_rxq *rxq,
			  const struct refnic_rx_cmpl *c, u32 flags)
{
	u32 nbufs = le16_to_cpu(c->nbufs), len = le32_to_cpu(c->pay_len);
	u32 lost = le32_to_cpu(c->buf_index) - rxq->ntc;
	struct refnic_napi_stats *ns = rxq->stats;
	struct sk_buff *skb;

	/* Completions come in ring order, so the frame starts at ntc unless
	 * the device used buffers for frames whose completions it never
	 * wrote. Those frames are gone; their buffers come back to the
	 * pool and the ring resynchronizes here, as a NIC's driver does
	 * with its completions' buffer ids. An index outside the posted
	 * buffers cannot be trusted: reset.
	 */
	if (unlikely(lost)) {
		if (lost > rxq->ntu - rxq->ntc) {
			netdev_err(rxq->netdev,
				   "rxq %u: completion for buffer %u, expected %u, %u posted\n",
				   rxq->idx, le32_to_cpu(c->buf_index),
				   rxq->ntc, rxq->ntu - rxq->ntc);
			return false;
		}
		if (net_ratelimit())
			netdev_info(rxq->netdev,
				    "rxq %u: %u buffers used without completion, resynchronized\n",
				    rxq->idx, lost);
		refnic_rx_put_bufs(rxq, rxq->ntc, lost, true);
		rxq->ntc += lost;
		refnic_rx_count(rxq, &ns->rx_cmpl_lost);
	}

	if (unlikely(!nbufs || nbufs > rxq->ntu - rxq->ntc ||
		     nbufs > MAX_SKB_FRAGS || le16_to_cpu(c->hdr_len))) {
		netdev_err(rxq->netdev,
			   "rxq %u: bad completion: %u bufs, %u posted\n",
			   rxq->idx, nbufs, rxq->ntu - rxq->ntc);
		return false;
	}

	/* A frame fills each buffer before the next: @nbufs must be
	 * exactly what @len needs, or the lengths cannot be trusted.
	 */
	if (unlikely((flags & REFNIC_RXC_TRUNCATED) ||
		     nbufs != DIV_ROUND_UP(len, rxq->buf_len))) {
		refnic_rx_put_bufs(rxq, rxq->ntc, nbufs, true);
		skb = NULL;
	} else {
		skb = refnic_rx_build_skb(rxq, nbufs, len);
	}
	rxq->ntc += nbufs;

	u64_stats_update_begin(&ns->syncp);
	u64_stats_add(&ns->rx_dma_bytes, len);
	if (unlikely(!skb)) {
		u64_stats_inc(&ns->rx_drops);
		u64_stats_update_end(&ns->syncp);
		return true;
	}
	u64_stats_inc(&ns->rx_packets);
	u64_stats_add(&ns->rx_bytes, len);
	refnic_rx_offloads(rxq, skb, c, flags);
	u64_stats_update_end(&ns->syncp);

	skb_record_rx_queue(skb, rxq->idx);
	skb->protocol = eth_type_trans(skb, rxq->netdev);
	napi_gro_receive(rxq->napi, skb);

	return true;
}

/**
 * refnic_rx_poll() - NAPI: receive up to @budget frames, then refill
 * @rxq: the queue
 * @budget: most frames to hand to the stack
 *
 * Return: frames processed, or @budget if the poll must run again (budget
 * used up, or the ring is empty and could not be refilled).
 */
int refnic_rx_poll(struct refnic_rxq *rxq, int budget)
{
	u32 start = rxq->cq_head;
	int done = 0;

	if (unlikely(rxq->broken))
		return 0;

	while (done < budget) {
		const struct refnic_rx_cmpl *c =
			&rxq->cmpl[rxq->cq_head & rxq->mask];
		u32 flags = le32_to_cpu(READ_ONCE(c->flags));

		if ((flags & REFNIC_RXC_PHASE) != refnic_rx_phase(rxq))
			break;
		/* The rest of the completion only after its phase. */
		dma_rmb();

		if (unlikely(!refnic_rx_one(rxq, c, flags))) {
			rxq->broken = true;
			refnic_schedule_reset(rxq->priv, rxq->idx);
			break;
		}
		rxq->cq_head++;
		done++;
	}

	if (rxq->cq_head != start) {
		/* Everything read from the consumed completions must be
		 * read before the device may overwrite them.
		 */
		dma_mb();
		refnic_wr32(rxq->priv, REFNIC_REG_RXCQ_HEAD(rxq->idx),
			    rxq->cq_head);
		refnic_rx_count(rxq, &rxq->stats->rx_doorbells);
	}

	if (!refnic_rx_refill(rxq))
		return budget;

	return done;
}

/**
 * refnic_rx_drain() - give every posted buffer back to the pool
 * @rxq: the queue; NAPI disabled and the device's queue STOPPED
 *
 * Completions not yet processed are discarded with their frames. The rings
 * are left empty and zeroed, ready for refnic_rx_refill() and a start.
 */
void refnic_rx_drain(struct refnic_rxq *rxq)
{
	refnic_rx_put_bufs(rxq, rxq->ntc, rxq->ntu - rxq->ntc, false);
	rxq->ntu = 0;
	rxq->ntc = 0;
	rxq->cq_head = 0;
	memset(rxq->cmpl, 0, rxq->size * sizeof(*rxq->cmpl));
}
