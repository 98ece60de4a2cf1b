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
#include <net/ipv6.h>
#include <net/page_pool/helpers.h>
#include <net/tcp.h>

#include "refnic.h"
#include "refnic_regs.h"
#include "refnic_trace.h"

/* The phase the device writes in this pass over the completion ring: 1 in
 * the first pass (the ring starts zeroed), flipping on every wrap.
 */
static u32 refnic_rx_phase(const struct refnic_rxq *rxq, u32 cq_head)
{
	return (cq_head & rxq->size) ? 0 : REFNIC_RXC_PHASE;
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
					     rxq->hdr_slot, gfp | __GFP_NOWARN);
	if (unlikely(!netmem))
		return false;
	if (!offset)
		rxq->hdr_pages_new++;
	buf->hdr_netmem = netmem;
	buf->hdr_offset = offset;
	return true;
}

/**
 * refnic_rx_post_max() - refnic_rx_post(), posting at most @max buffers
 * @rxq: the queue
 * @gfp: as for refnic_rx_post()
 * @max: most descriptors to post
 *
 * Without recycle_batch a single free descriptor is enough to post.
 *
 * Return: the number of descriptors posted.
 */
static u32 refnic_rx_post_max(struct refnic_rxq *rxq, gfp_t gfp, u32 max)
{
	struct refnic_drv_fault *fail = &rxq->priv->fail_alloc[rxq->idx];
	u32 want = rxq->size - (rxq->ntu - rxq->ntc);
	bool atomic = !gfpflags_allow_blocking(gfp);
	u32 ntu = rxq->ntu;

	if (want < rxq->refill_batch)
		return 0;
	want = min(want, max);

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
	WRITE_ONCE(rxq->ntu, ntu);	/* the service task samples it */
	return want;
}

/**
 * refnic_rx_post() - put free buffers on the ring, without telling the device
 * @rxq: the queue
 * @gfp: GFP_ATOMIC from NAPI, GFP_KERNEL when the queue is built or started
 *
 * Does nothing until @rxq->refill_batch descriptors are free, so that
 * the doorbell that follows is amortized over a batch. A slot still holding
 * a buffer the device did not write posts that buffer again.
 *
 * Return: the number of descriptors posted.
 */
u32 refnic_rx_post(struct refnic_rxq *rxq, gfp_t gfp)
{
	return refnic_rx_post_max(rxq, gfp, rxq->size);
}

/* NAPI: refill in a batch and ring the doorbell once. Returns false if the
 * ring is left with fewer than REFNIC_RX_MIN_POSTED buffers (allocation
 * failed): the device may complete nothing then, so no interrupt may come,
 * and the refill must be tried again later.
 */
static bool refnic_rx_refill(struct refnic_rxq *rxq)
{
	struct refnic_napi_stats *ns = rxq->stats;
	u32 posted = refnic_rx_post_max(rxq, GFP_ATOMIC,
					rxq->batch ? rxq->size : 1);

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
	while (posted) {
		trace_refnic_rx_refill(rxq->priv->netdev, rxq->idx, posted,
				       rxq->ntu);
		/* Descriptors must be visible before the device is told. */
		dma_wmb();
		refnic_wr32(rxq->priv, REFNIC_REG_RXQ_TAIL(rxq->idx), rxq->ntu);
		refnic_rx_count(rxq, &ns->rx_doorbells);
		/* Without recycle_batch: one doorbell per buffer. */
		posted = rxq->batch ? 0 : refnic_rx_post_max(rxq, GFP_ATOMIC, 1);
	}

	return rxq->ntu - rxq->ntc >= REFNIC_RX_MIN_POSTED;
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
		trace_refnic_rx_devmem(rxq->priv->netdev, rxq->idx, len);
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

/* Checks the IP header at @nh (offset from skb->data) of a hardware GRO
 * skb: IPv4 without options and not a fragment, or IPv6 with only the
 * extension headers GRO takes (hop-by-hop, routing, destination options),
 * its length the rest of the skb, carrying @proto at @next. Pulls it into
 * the linear part. The length must match exactly: ip_rcv() and ipv6_rcv()
 * would trim an skb longer than its header says, leaving gso_size and
 * gso_segs to describe bytes it no longer has (the model's gro-bad-len
 * fault writes such headers).
 */
static bool refnic_rx_gro_ip(struct sk_buff *skb, u32 nh, bool ipv6,
			     u32 next, u8 proto)
{
	const struct ipv6_opt_hdr *oh;
	const struct ipv6hdr *ip6;
	const struct iphdr *iph;
	u8 nexthdr;
	u32 off;

	if (!ipv6) {
		if (!pskb_may_pull(skb, nh + sizeof(*iph)))
			return false;
		iph = (const struct iphdr *)(skb->data + nh);
		return iph->version == 4 && iph->ihl == 5 &&
		       !(iph->frag_off & htons(IP_MF | IP_OFFSET)) &&
		       iph->protocol == proto &&
		       ntohs(iph->tot_len) == skb->len - nh &&
		       next == nh + sizeof(*iph);
	}
	if (!pskb_may_pull(skb, nh + sizeof(*ip6)))
		return false;
	ip6 = (const struct ipv6hdr *)(skb->data + nh);
	if (ip6->version != 6 ||
	    ntohs(ip6->payload_len) != skb->len - nh - sizeof(*ip6))
		return false;
	nexthdr = ip6->nexthdr;
	/* Every step moves on by 8 bytes or more, within the skb. */
	for (off = nh + sizeof(*ip6); off < next; off += ipv6_optlen(oh)) {
		if ((nexthdr != NEXTHDR_HOP && nexthdr != NEXTHDR_ROUTING &&
		     nexthdr != NEXTHDR_DEST) ||
		    !pskb_may_pull(skb, off + sizeof(*oh)))
			return false;
		oh = (const struct ipv6_opt_hdr *)(skb->data + off);
		nexthdr = oh->nexthdr;
	}
	return off == next && nexthdr == proto && pskb_may_pull(skb, next);
}

/* The fixed-ID flags of a run with fixed IPv4 IDs in the header TCP is in:
 * 7.x has one for the outer (or only) and one for the inner IPv4 header,
 * 6.12 one for all (tcp4_gro_complete()).
 */
#if REFNIC_KERNEL_7
static unsigned int refnic_gso_fixedid(u32 flags, bool tunnel)
{
	unsigned int gso_type = 0;

	if (flags & REFNIC_RXC_IPID_FIXED)
		gso_type |= SKB_GSO_TCP_FIXEDID;
	if (flags & REFNIC_RXC_IPID_FIXED_INNER)
		gso_type |= SKB_GSO_TCP_FIXEDID_INNER;
	return gso_type;
}
#else
static unsigned int refnic_gso_fixedid(u32 flags, bool tunnel)
{
	if (flags & (tunnel ? REFNIC_RXC_IPID_FIXED_INNER :
			      REFNIC_RXC_IPID_FIXED))
		return SKB_GSO_TCP_FIXEDID;
	return 0;
}
#endif

/* A completion of @segs coalesced TCP segments (hardware GRO): make the skb
 * a GSO packet the stack can take as one, or segment again if forwarded,
 * as the stack's own GRO completes one (inet_gro_complete(),
 * ipv6_gro_complete(), ipip_gro_complete(), ip6ip6_gro_complete(),
 * tcp_gro_complete()). The device rewrote the IP lengths; the TCP checksum
 * is set up for the whole run. Everything the device claims is checked
 * against the headers first, which are pulled into the linear part.
 *
 * Return: the L2..L4 header length (what each segment had on the wire), or
 * 0 if the completion does not describe a TCP run.
 */
static u32 refnic_rx_hw_gro(struct sk_buff *skb, const struct refnic_rx_cmpl *c,
			    u32 segs, u32 gso_size, u32 flags)
{
	/* The device's offsets count from the Ethernet header, pulled by
	 * eth_type_trans() by now.
	 */
	u32 thoff = le16_to_cpu(c->l4_off) - ETH_HLEN;
	u32 nh = le16_to_cpu(c->l3_off) - ETH_HLEN;
	bool tunnel = flags & REFNIC_RXC_TUNNEL;
	u32 tcp_len, payload, gso_type;
	bool ipv6, inner_ipv6;
	struct tcphdr *th;

	if (!gso_size || !(flags & REFNIC_RXC_TCP) ||
	    !(flags & REFNIC_RXC_L4_CSUM_OK) ||
	    le16_to_cpu(c->l3_off) < ETH_HLEN || nh >= thoff ||
	    thoff >= skb->len)
		return 0;
	if ((flags & REFNIC_RXC_IPV4) && skb->protocol == htons(ETH_P_IP))
		ipv6 = false;
	else if ((flags & REFNIC_RXC_IPV6) && skb->protocol == htons(ETH_P_IPV6))
		ipv6 = true;
	else
		return 0;
	if (tunnel) {
		inner_ipv6 = flags & REFNIC_RXC_INNER_IPV6;
		if (!refnic_rx_gro_ip(skb, 0, ipv6, nh, inner_ipv6 ?
				      IPPROTO_IPV6 : IPPROTO_IPIP))
			return 0;
	} else {
		inner_ipv6 = ipv6;
		if (nh || (flags & REFNIC_RXC_INNER_IPV6))
			return 0;
	}
	if (!refnic_rx_gro_ip(skb, nh, inner_ipv6, thoff, IPPROTO_TCP) ||
	    !pskb_may_pull(skb, thoff + sizeof(*th)))
		return 0;
	th = (struct tcphdr *)(skb->data + thoff);
	if (th->doff < 5 || !pskb_may_pull(skb, thoff + th->doff * 4))
		return 0;
	th = (struct tcphdr *)(skb->data + thoff);
	tcp_len = skb->len - thoff;
	payload = tcp_len - th->doff * 4;
	if (payload <= gso_size * (segs - 1) || payload > gso_size * segs)
		return 0;

	skb_reset_network_header(skb);
	skb_set_transport_header(skb, thoff);
	if (!inner_ipv6) {
		const struct iphdr *iph = (const struct iphdr *)(skb->data + nh);

		th->check = ~tcp_v4_check(tcp_len, iph->saddr, iph->daddr, 0);
		gso_type = SKB_GSO_TCPV4;
	} else {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)(skb->data + nh);

		th->check = ~tcp_v6_check(tcp_len, &ip6->saddr, &ip6->daddr, 0);
		gso_type = SKB_GSO_TCPV6;
	}
	if (tunnel) {
		/* tcp_gro_complete() sets the inner transport header. */
		skb->encapsulation = 1;
		skb_set_inner_protocol(skb, inner_ipv6 ? htons(ETH_P_IPV6) :
							 htons(ETH_P_IP));
		skb_set_inner_network_header(skb, nh);
		gso_type |= ipv6 ? SKB_GSO_IPXIP6 : SKB_GSO_IPXIP4;
	}
	/* Fixed IPv4 IDs, which segmentation must keep fixed, set when the
	 * header TCP is in has them (the device merges fixed IDs there only
	 * if every IPv4 header has DF).
	 */
	if (((flags & REFNIC_RXC_IPID_FIXED) && ipv6) ||
	    ((flags & REFNIC_RXC_IPID_FIXED_INNER) && (!tunnel || inner_ipv6)))
		return 0;
	gso_type |= refnic_gso_fixedid(flags, tunnel);
	skb_shinfo(skb)->gso_type = gso_type;
	skb_shinfo(skb)->gso_size = gso_size;
	/* tcp_gro_complete() takes gso_segs from the GRO control block, and
	 * marks a run whose first segment has CWR: SKB_GSO_TCP_ECN on 6.12
	 * (the device merged no later CWR segment), SKB_GSO_TCP_ACCECN on
	 * 7.x (RX_CTRL.GRO_CWR: every segment had it).
	 */
	NAPI_GRO_CB(skb)->count = segs;
	tcp_gro_complete(skb);

	return ETH_HLEN + thoff + th->doff * 4;
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
	u32 wire_pkts, wire_bytes, gro_hdr;
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
		WRITE_ONCE(rxq->ntc, rxq->ntc + lost);
		refnic_rx_count(rxq, &ns->rx_cmpl_lost);
	}

	/* A split frame's headers hold at least the Ethernet header that
	 * eth_type_trans() pulls; the rest may be unreadable.
	 */
	if (unlikely(!nbufs || nbufs > rxq->ntu - rxq->ntc ||
		     nbufs > MAX_SKB_FRAGS || hlen > rxq->hdr_len ||
		     (hlen && hlen < ETH_HLEN))) {
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
		     len > nbufs * rxq->buf_len ||
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
	WRITE_ONCE(rxq->ntc, rxq->ntc + nbufs);

	u64_stats_update_begin(&ns->syncp);
	u64_stats_add(&ns->rx_dma_bytes, hlen + len);
	if (unlikely(!skb)) {
		u64_stats_inc(&ns->rx_drops);
		u64_stats_update_end(&ns->syncp);
		return true;
	}
	refnic_rx_offloads(rxq, skb, c, flags);
	u64_stats_update_end(&ns->syncp);

	skb_record_rx_queue(skb, rxq->idx);
	skb->protocol = eth_type_trans(skb, rxq->netdev);

	/* Packets and bytes count what came off the wire: a hardware GRO
	 * run is @segs packets, each with its own headers.
	 */
	wire_pkts = 1;
	wire_bytes = hlen + len;
	if (segs > 1) {
		gro_hdr = refnic_rx_hw_gro(skb, c, segs, gso_size, flags);
		if (unlikely(!gro_hdr)) {
			if (net_ratelimit())
				netdev_err(rxq->netdev,
					   "rxq %u: bad hardware GRO completion: %u segments of %u bytes\n",
					   rxq->idx, segs, gso_size);
			refnic_rx_count(rxq, &ns->rx_drops);
			kfree_skb_reason(skb, SKB_DROP_REASON_DEV_HDR);
			return true;
		}
		wire_pkts = segs;
		wire_bytes += (segs - 1) * gro_hdr;
	}

	u64_stats_update_begin(&ns->syncp);
	u64_stats_add(&ns->rx_packets, wire_pkts);
	u64_stats_add(&ns->rx_bytes, wire_bytes);
	if (segs > 1) {
		u64_stats_inc(&ns->rx_hw_gro_packets);
		u64_stats_add(&ns->rx_hw_gro_wire_packets, segs);
		u64_stats_add(&ns->rx_hw_gro_bytes, hlen + len);
	}
	u64_stats_update_end(&ns->syncp);

	/* The stack would checksum an unverified frame itself, which it
	 * cannot do, and WARNs trying, on payload it cannot read. A drop,
	 * so that drop monitors (the kfree_skb tracepoint) see it: the
	 * checksum cannot be computed.
	 */
	if (unlikely(skb->unreadable && skb->ip_summed != CHECKSUM_UNNECESSARY &&
		     skb->ip_summed != CHECKSUM_PARTIAL)) {
		refnic_rx_count(rxq, &ns->rx_drops);
		kfree_skb_reason(skb, SKB_DROP_REASON_SKB_CSUM);
		return true;
	}

	napi_gro_receive(rxq->napi, skb);

	return true;
}

/**
 * refnic_rx_poll() - NAPI: receive up to @budget frames, then refill
 * @rxq: the queue
 * @budget: most frames to hand to the stack
 * @starved: set when the refill left fewer than REFNIC_RX_MIN_POSTED
 *	buffers on the ring for want of memory: the device may complete
 *	nothing, so the caller must try again later (it backs off to a
 *	timer rather than poll on)
 *
 * Return: frames processed; @budget if the budget was used up.
 */
int refnic_rx_poll(struct refnic_rxq *rxq, int budget, bool *starved)
{
	u32 start = rxq->cq_head, cq_head = start;
	int done = 0;

	*starved = false;
	if (unlikely(rxq->broken))
		return 0;

	while (done < budget) {
		const struct refnic_rx_cmpl *c = &rxq->cmpl[cq_head & rxq->mask];
		u32 flags = le32_to_cpu(READ_ONCE(c->flags));

		if ((flags & REFNIC_RXC_PHASE) != refnic_rx_phase(rxq, cq_head))
			break;
		/* The rest of the completion only after its phase. */
		dma_rmb();

		if (unlikely(!refnic_rx_one(rxq, c, flags))) {
			WRITE_ONCE(rxq->broken, true);
			refnic_schedule_reset(rxq->priv, rxq->idx);
			break;
		}
		cq_head++;
		done++;
	}

	if (cq_head != start) {
		/* the service task samples it */
		WRITE_ONCE(rxq->cq_head, cq_head);
		/* Everything read from the consumed completions must be
		 * read before the device may overwrite them.
		 */
		dma_mb();
		refnic_wr32(rxq->priv, REFNIC_REG_RXCQ_HEAD(rxq->idx),
			    cq_head);
		refnic_rx_count(rxq, &rxq->stats->rx_doorbells);
	}

	*starved = !refnic_rx_refill(rxq);

	return done;
}

/**
 * refnic_rx_progress() - an RX ring's progress, for the service task
 * @rxq: the queue, live (the instance lock keeps it so)
 * @p: filled in
 *
 * What NAPI owns is read a word at a time, without NAPI: each value may be
 * a moment old.
 */
void refnic_rx_progress(const struct refnic_rxq *rxq,
			struct refnic_rx_progress *p)
{
	u32 cq_head = READ_ONCE(rxq->cq_head);
	const struct refnic_rx_cmpl *c = &rxq->cmpl[cq_head & rxq->mask];
	u32 phase = refnic_rx_phase(rxq, cq_head);
	u32 ntc = READ_ONCE(rxq->ntc);

	p->cq_head = cq_head;
	/* ntc first: NAPI moves ntu ahead of ntc, never ntc past ntu */
	p->posted = READ_ONCE(rxq->ntu) - ntc;
	p->min_posted = REFNIC_RX_MIN_POSTED;
	p->pending = (le32_to_cpu(READ_ONCE(c->flags)) & REFNIC_RXC_PHASE) ==
		     phase;
	p->broken = READ_ONCE(rxq->broken);
}

/* Pages released together by one page_pool_put_netmem_bulk() call. */
#define REFNIC_RX_RELEASE_BULK		REFNIC_PP_BULK_MAX

/* Releases of one pool outside NAPI, batched or not (recycle_batch):
 * buffers released, and the page_pool calls that released them.
 */
struct refnic_rx_release {
	struct refnic_rxq *rxq;
	struct page_pool *pool;
	netmem_ref bulk[REFNIC_RX_RELEASE_BULK];
	unsigned int n;
	u64 released;
	u64 calls;
};

static void refnic_rx_release_flush(struct refnic_rx_release *r)
{
	if (!r->n)
		return;
	/* At most one ring lock for the whole batch of pages: none if no
	 * page of it goes back to the ring (each still has a fragment in
	 * use elsewhere, or cannot be recycled).
	 */
	page_pool_put_netmem_bulk(r->bulk, r->n);
	trace_refnic_rx_release(r->rxq->netdev, r->rxq->idx, r->n, true);
	r->calls++;
	r->n = 0;
}

static void refnic_rx_release(struct refnic_rx_release *r, netmem_ref netmem)
{
	r->released++;
	/* Batched: page_pool_put_netmem_bulk() drops each page's
	 * reference itself and puts the pages it freed into the ring under
	 * one lock. A buffer whose page the batch holds already drops its
	 * fragment's reference here, lock-free: the batch's reference keeps
	 * the page from being freed, and the batch holds distinct pages.
	 * net_iovs (devmem) have no bulk path before 6.14.
	 */
	if (r->rxq->batch && !netmem_is_net_iov(netmem)) {
		unsigned int i;

		for (i = 0; i < r->n; i++) {
			if (r->bulk[i] == netmem) {
				page_pool_unref_netmem(netmem, 1);
				return;
			}
		}
		r->bulk[r->n++] = netmem;
		if (r->n == REFNIC_RX_RELEASE_BULK)
			refnic_rx_release_flush(r);
		return;
	}
	/* As page_pool_put_full_netmem(): a page shared by fragments goes
	 * back with its last one, and only that call may take the ring lock.
	 */
	if (!page_pool_unref_and_test(netmem))
		return;
	page_pool_put_unrefed_netmem(r->pool, netmem, -1, false);
	trace_refnic_rx_release(r->rxq->netdev, r->rxq->idx, 1, false);
	r->calls++;
}

/**
 * refnic_rx_drain() - give every buffer in the ring back to its pool
 * @rxq: the queue; NAPI disabled and the device's queue STOPPED
 *
 * Completions not yet processed are discarded with their frames. The rings
 * are left empty and zeroed, ready for refnic_rx_post() and a start. Outside
 * NAPI a page going back to a page_pool's ring takes the ring's lock:
 * batched, the pages go back REFNIC_RX_RELEASE_BULK at a time, at most one
 * lock a call. The port's rx_released counts the buffers and
 * rx_release_calls the page_pool calls that released them.
 */
void refnic_rx_drain(struct refnic_rxq *rxq)
{
	struct refnic_rx_release pay = { .rxq = rxq, .pool = rxq->pp };
	struct refnic_rx_release hdr = { .rxq = rxq, .pool = rxq->hdr_pp };
	u32 i;

	/* Posted or kept for posting again: any slot may hold buffers. */
	for (i = 0; i < rxq->size; i++) {
		struct refnic_rx_buf *buf = &rxq->bufs[i];

		if (buf->netmem)
			refnic_rx_release(&pay, buf->netmem);
		if (buf->hdr_netmem)
			refnic_rx_release(&hdr, buf->hdr_netmem);
		buf->netmem = 0;
		buf->hdr_netmem = 0;
	}
	refnic_rx_release_flush(&pay);
	refnic_rx_release_flush(&hdr);
	trace_refnic_rx_drain(rxq->netdev, rxq->idx,
			      pay.released + hdr.released,
			      pay.calls + hdr.calls);
	if (rxq->priv) {
		atomic64_add(pay.released + hdr.released,
			     &rxq->priv->rx_released);
		atomic64_add(pay.calls + hdr.calls,
			     &rxq->priv->rx_release_calls);
	}

	rxq->ntu = 0;
	rxq->ntc = 0;
	rxq->cq_head = 0;
	memset(rxq->cmpl, 0, rxq->size * sizeof(*rxq->cmpl));
}
