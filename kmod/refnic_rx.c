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
 * skb shape: the headers (or a whole small frame) go into a small skb head;
 * the payload stays in the page_pool buffers and is attached as frags with
 * skb_add_rx_frag_netmem(). Without header split the head is filled by
 * copying the headers out of the first payload buffer; with it, from the
 * header slot the device wrote them to, and the payload buffers hold
 * payload only. That is what devmem TCP needs: on a queue with a dmabuf
 * bound the payload buffers are the dmabuf's net_iovs, which the CPU never
 * reads, and the skb carries them as unreadable frags.
 */

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/gro.h>
#include <net/ip6_checksum.h>
#include <net/page_pool/helpers.h>
#include <net/tcp.h>

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

/* A header slot for @buf. Slots come from page fragments: offset 0 means
 * the pool started carving a page, recycled or new.
 */
static bool refnic_rx_alloc_hdr(struct refnic_rxq *rxq,
				struct refnic_rx_buf *buf, gfp_t gfp)
{
	unsigned int offset;
	netmem_ref netmem;

	netmem = page_pool_alloc_frag_netmem(rxq->hdr_pp, &offset,
					     REFNIC_RX_HDR_SLOT,
					     gfp | __GFP_NOWARN);
	if (unlikely(!netmem))
		return false;
	if (!offset)
		rxq->hdr_pages_new++;
	buf->hdr_netmem = netmem;
	buf->hdr_offset = offset;
	return true;
}

/**
 * refnic_rx_post() - put free buffers on the ring, without telling the device
 * @rxq: the queue
 * @gfp: GFP_ATOMIC from NAPI, GFP_KERNEL when the queue is built or started
 *
 * Does nothing until REFNIC_RX_REFILL_BATCH descriptors are free, so that
 * the doorbell that follows is amortized over a batch. A slot still holding
 * a buffer the device did not write posts that buffer again.
 *
 * Return: the number of descriptors posted.
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

		if (!buf->netmem) {
			/* The fail-alloc fault hits where allocations
			 * really fail under pressure: NAPI's atomic
			 * refills, never the queue's bring-up.
			 */
			if (atomic && unlikely(refnic_fault_strikes(fail)))
				netmem = 0;
			else
				netmem = page_pool_alloc_frag_netmem(rxq->pp,
								     &offset,
								     rxq->buf_len,
								     gfp | __GFP_NOWARN);
			if (unlikely(!netmem)) {
				/* Counted by NAPI, the stats' only writer. */
				rxq->alloc_failed = true;
				break;
			}
			buf->netmem = netmem;
			buf->offset = offset;
		}
		if (rxq->hdr_pp && !buf->hdr_netmem &&
		    unlikely(!refnic_rx_alloc_hdr(rxq, buf, gfp))) {
			rxq->alloc_failed = true;
			break;
		}
		d->hdr_addr = buf->hdr_netmem ?
			cpu_to_le64(page_pool_get_dma_addr_netmem(buf->hdr_netmem) +
				    buf->hdr_offset) : 0;
		d->buf_addr = cpu_to_le64(page_pool_get_dma_addr_netmem(buf->netmem) +
					  buf->offset);
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
	struct refnic_napi_stats *ns = rxq->stats;
	u32 posted = refnic_rx_post(rxq, GFP_ATOMIC);

	if (unlikely(rxq->alloc_failed)) {
		rxq->alloc_failed = false;
		refnic_rx_count(rxq, &ns->rx_alloc_fail);
	}
	if (rxq->hdr_pages_new) {
		u64_stats_update_begin(&ns->syncp);
		u64_stats_add(&ns->rx_hdr_pages, rxq->hdr_pages_new);
		u64_stats_update_end(&ns->syncp);
		rxq->hdr_pages_new = 0;
	}
	if (posted) {
		/* Descriptors must be visible before the device is told. */
		dma_wmb();
		refnic_wr32(rxq->priv, REFNIC_REG_RXQ_TAIL(rxq->idx), rxq->ntu);
		refnic_rx_count(rxq, &ns->rx_doorbells);
	}

	return rxq->ntu != rxq->ntc;
}

/* Gives the payload buffers of @n descriptors from ring position @pos back
 * to the pool. Header slots stay: only a split frame's first one was
 * written, and refnic_rx_build_split() consumes that itself.
 */
static void refnic_rx_put_bufs(struct refnic_rxq *rxq, u32 pos, u32 n,
			       bool napi)
{
	for (; n; n--, pos++) {
		struct refnic_rx_buf *buf = &rxq->bufs[pos & rxq->mask];

		page_pool_put_full_netmem(rxq->pp, buf->netmem, napi);
		buf->netmem = 0;
	}
}

/* Attaches the payload buffers of @nbufs descriptors from ring position
 * @pos to @skb as frags, @len bytes in all. A net_iov (devmem) is attached
 * without a CPU sync: the CPU never reads it.
 */
static void refnic_rx_add_frags(struct refnic_rxq *rxq, struct sk_buff *skb,
				u32 pos, u32 nbufs, u32 len)
{
	u32 i;

	for (i = 0; i < nbufs; i++) {
		struct refnic_rx_buf *buf = &rxq->bufs[(pos + i) & rxq->mask];
		u32 blen = min(len, rxq->buf_len);

		page_pool_dma_sync_netmem_for_cpu(rxq->pp, buf->netmem,
						  buf->offset, blen);
		skb_add_rx_frag_netmem(skb, skb_shinfo(skb)->nr_frags,
				       buf->netmem, buf->offset, blen,
				       rxq->buf_len);
		buf->netmem = 0;
		len -= blen;
	}
}

/* Builds the skb of an unsplit frame spread over @nbufs buffers from ring
 * position rxq->ntc, @len bytes in all. Consumes the buffers: they end up
 * in the skb or back in the pool.
 */
static struct sk_buff *refnic_rx_build_skb(struct refnic_rxq *rxq, u32 nbufs,
					   u32 len)
{
	struct refnic_rx_buf *buf = &rxq->bufs[rxq->ntc & rxq->mask];
	u32 len0 = min(len, rxq->buf_len), hlen;
	struct sk_buff *skb;
	void *va;

	/* A frame the device did not split went whole into the payload
	 * buffers; on a dmabuf-bound queue those are net_iovs the CPU cannot
	 * read, so not even its headers can be looked at.
	 */
	if (unlikely(netmem_is_net_iov(buf->netmem))) {
		refnic_rx_count(rxq, &rxq->stats->rx_devmem_unsplit);
		refnic_rx_put_bufs(rxq, rxq->ntc, nbufs, true);
		return NULL;
	}

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

	refnic_rx_add_frags(rxq, skb, rxq->ntc + 1, nbufs - 1, len - len0);
	skb_mark_for_recycle(skb);
	return skb;
}

/* Builds the skb of a split frame: @hlen header bytes in the first
 * descriptor's header slot, copied into the skb head (the slot goes straight
 * back to its page, so that one page serves many headers), and @len payload
 * bytes in @nbufs payload buffers, attached as frags: page_pool pages, or a
 * dmabuf's net_iovs. Headers all linear and no payload byte in the head is
 * the shape devmem TCP needs. A frame without payload leaves its payload
 * buffer in the ring, unwritten, to be posted again.
 */
static struct sk_buff *refnic_rx_build_split(struct refnic_rxq *rxq,
					     u32 nbufs, u32 hlen, u32 len)
{
	struct refnic_rx_buf *buf = &rxq->bufs[rxq->ntc & rxq->mask];
	struct sk_buff *skb;
	void *va;

	page_pool_dma_sync_netmem_for_cpu(rxq->hdr_pp, buf->hdr_netmem,
					  buf->hdr_offset, hlen);
	va = page_address(netmem_to_page(buf->hdr_netmem)) + buf->hdr_offset;
	net_prefetch(va);

	skb = napi_alloc_skb(rxq->napi, hlen);
	if (likely(skb))
		skb_put_data(skb, va, hlen);
	page_pool_put_full_netmem(rxq->hdr_pp, buf->hdr_netmem, true);
	buf->hdr_netmem = 0;

	if (!len)
		return skb;
	if (unlikely(!skb)) {
		refnic_rx_put_bufs(rxq, rxq->ntc, nbufs, true);
		return NULL;
	}
	if (netmem_is_net_iov(buf->netmem)) {
		u64_stats_update_begin(&rxq->stats->syncp);
		u64_stats_add(&rxq->stats->rx_devmem_bytes, len);
		u64_stats_update_end(&rxq->stats->syncp);
	}
	refnic_rx_add_frags(rxq, skb, rxq->ntc, nbufs, len);
	skb_mark_for_recycle(skb);
	return skb;
}

/* Counts how header split treated a frame. */
static void refnic_rx_count_split(struct refnic_rxq *rxq, u32 hlen,
				  u16 split)
{
	struct refnic_napi_stats *ns = rxq->stats;

	if (hlen)
		refnic_rx_count(rxq, &ns->rx_hds_split);
	else if (split == REFNIC_SPLIT_HDR_TOO_BIG)
		refnic_rx_count(rxq, &ns->rx_hds_hdr_too_big);
	else
		refnic_rx_count(rxq, &ns->rx_hds_unparsed);
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

/* A completion of @segs coalesced TCP segments (hardware GRO): make the skb
 * a GSO packet the stack can take as one, or segment again if forwarded.
 * The device rewrote the IP length; the TCP checksum is set up for the
 * whole run, as tcp_gro_complete() does for software GRO.
 */
static void refnic_rx_hw_gro(struct sk_buff *skb, u32 segs, u32 gso_size,
			     u32 flags)
{
	struct tcphdr *th;
	u32 tcp_len;

	skb_reset_network_header(skb);
	if (flags & REFNIC_RXC_IPV4) {
		const struct iphdr *iph = ip_hdr(skb);

		skb_set_transport_header(skb, iph->ihl * 4);
		tcp_len = skb->len - skb_transport_offset(skb);
		th = tcp_hdr(skb);
		th->check = ~tcp_v4_check(tcp_len, iph->saddr, iph->daddr, 0);
		skb_shinfo(skb)->gso_type = SKB_GSO_TCPV4;
	} else {
		const struct ipv6hdr *ip6 = ipv6_hdr(skb);

		skb_set_transport_header(skb, sizeof(*ip6));
		tcp_len = skb->len - skb_transport_offset(skb);
		th = tcp_hdr(skb);
		th->check = ~tcp_v6_check(tcp_len, &ip6->saddr, &ip6->daddr, 0);
		skb_shinfo(skb)->gso_type = SKB_GSO_TCPV6;
	}
	skb_shinfo(skb)->gso_size = gso_size;
	NAPI_GRO_CB(skb)->count = segs;
	tcp_gro_complete(skb);
}

/* Handles one completion. Returns false if the completion is malformed and
 * the queue must be reset.
 */
static bool refnic_rx_one(struct refnic_rxq *rxq,
			  const struct refnic_rx_cmpl *c, u32 flags)
{
	u32 nbufs = le16_to_cpu(c->nbufs), len = le32_to_cpu(c->pay_len);
	u32 lost = le32_to_cpu(c->buf_index) - rxq->ntc;
	u32 hlen = le16_to_cpu(c->hdr_len);
	u32 segs = le16_to_cpu(c->seg_count);
	u32 gso_size = le16_to_cpu(c->gso_size);
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
		     nbufs > MAX_SKB_FRAGS || hlen > rxq->hdr_len)) {
		netdev_err(rxq->netdev,
			   "rxq %u: bad completion: %u bufs, %u posted, %u header bytes\n",
			   rxq->idx, nbufs, rxq->ntu - rxq->ntc, hlen);
		return false;
	}
	if (rxq->hdr_len)
		refnic_rx_count_split(rxq, hlen, le16_to_cpu(c->split_status));

	/* A frame fills each buffer before the next: @nbufs must be
	 * exactly what @len needs (a split frame takes a descriptor even
	 * without payload), or the lengths cannot be trusted.
	 */
	if (unlikely((flags & REFNIC_RXC_TRUNCATED) ||
		     nbufs != max(DIV_ROUND_UP(len, rxq->buf_len),
				  hlen ? 1U : 0U) ||
		     (!hlen && len < ETH_HLEN))) {
		if (hlen) {
			page_pool_put_full_netmem(rxq->hdr_pp,
						  rxq->bufs[rxq->ntc & rxq->mask].hdr_netmem,
						  true);
			rxq->bufs[rxq->ntc & rxq->mask].hdr_netmem = 0;
		}
		refnic_rx_put_bufs(rxq, rxq->ntc, nbufs, true);
		skb = NULL;
	} else if (hlen) {
		skb = refnic_rx_build_split(rxq, nbufs, hlen, len);
	} else {
		skb = refnic_rx_build_skb(rxq, nbufs, len);
	}
	rxq->ntc += nbufs;

	u64_stats_update_begin(&ns->syncp);
	u64_stats_add(&ns->rx_dma_bytes, hlen + len);
	if (unlikely(!skb)) {
		u64_stats_inc(&ns->rx_drops);
		u64_stats_update_end(&ns->syncp);
		return true;
	}
	u64_stats_inc(&ns->rx_packets);
	u64_stats_add(&ns->rx_bytes, hlen + len);
	refnic_rx_offloads(rxq, skb, c, flags);
	u64_stats_update_end(&ns->syncp);

	skb_record_rx_queue(skb, rxq->idx);
	skb->protocol = eth_type_trans(skb, rxq->netdev);
	if (segs > 1 && gso_size && (flags & REFNIC_RXC_L4_CSUM_OK) &&
	    (flags & REFNIC_RXC_TCP)) {
		refnic_rx_hw_gro(skb, segs, gso_size, flags);
		u64_stats_update_begin(&ns->syncp);
		u64_stats_inc(&ns->rx_hw_gro_packets);
		u64_stats_add(&ns->rx_hw_gro_wire_packets, segs);
		u64_stats_add(&ns->rx_hw_gro_bytes, skb->len);
		u64_stats_update_end(&ns->syncp);
	}

	/* The stack would checksum an unverified frame itself, which it
	 * cannot do, and WARNs trying, on payload it cannot read.
	 */
	if (unlikely(skb->unreadable && skb->ip_summed != CHECKSUM_UNNECESSARY &&
		     skb->ip_summed != CHECKSUM_PARTIAL)) {
		refnic_rx_count(rxq, &ns->rx_drops);
		napi_consume_skb(skb, 1);
		return true;
	}

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
 * refnic_rx_drain() - give every buffer in the ring back to its pool
 * @rxq: the queue; NAPI disabled and the device's queue STOPPED
 *
 * Completions not yet processed are discarded with their frames. The rings
 * are left empty and zeroed, ready for refnic_rx_post() and a start.
 */
void refnic_rx_drain(struct refnic_rxq *rxq)
{
	u32 i;

	/* Posted or kept for posting again: any slot may hold buffers. */
	for (i = 0; i < rxq->size; i++) {
		struct refnic_rx_buf *buf = &rxq->bufs[i];

		if (buf->netmem)
			page_pool_put_full_netmem(rxq->pp, buf->netmem, false);
		if (buf->hdr_netmem)
			page_pool_put_full_netmem(rxq->hdr_pp, buf->hdr_netmem,
						  false);
		buf->netmem = 0;
		buf->hdr_netmem = 0;
	}
	rxq->ntu = 0;
	rxq->ntc = 0;
	rxq->cq_head = 0;
	memset(rxq->cmpl, 0, rxq->size * sizeof(*rxq->cmpl));
}
