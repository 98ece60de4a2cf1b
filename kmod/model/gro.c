// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Hardware GRO (RX_CTRL.HW_GRO): back-to-back, in-order TCP segments of one
 * flow arriving at one RX queue become one completion - one header, the
 * payloads packed one after the other into the payload buffers - the way
 * NICs with LRO/TPA engines do it.
 *
 * A run opens on a segment that can start one and stays open while the
 * queue's next frame continues it. The rules are Linux's own GRO rules
 * (inet_gro_receive(), ipv6_gro_receive(), tcp_gro_receive()), so that a
 * run is what the stack would have merged:
 *  - same headers but for the IP length, ID and checksum and the TCP
 *    sequence number, checksum, urgent pointer and PSH/FIN flags;
 *  - an IPv4 header without options and with a good checksum;
 *  - IPv4 IDs all the first segment's (fixed) or counting up from it by
 *    one a segment (incrementing), which one decided by the second;
 *  - the sequence number the run expects, a payload no longer than the
 *    first one's;
 *  - a segment with URG, PSH, RST, SYN or FIN opens no run and ends the
 *    one it joins; any other flags (CWR, ECE) must match the run's.
 * Anything else arriving at the queue closes the run first, so frames
 * never overtake each other. A runt padded to the Ethernet minimum joins
 * with its IP payload only (the length comes from the IP header, as on
 * LRO engines), but opens no run. Tunnelled TCP and IPv6 with extension
 * headers are not merged: the driver's GSO set-up takes plain TCP over
 * IPv4 or IPv6 only.
 * A run also closes when its payload or descriptors reach their limits,
 * and at the end of every engine run that delivered to the port
 * (refnic_rx_gro_flush_port()): the model never holds a frame back
 * waiting for the next one, so GRO adds no latency, it only merges what
 * arrives in one burst.
 *
 * Closing a run writes the first segment's headers with the IP total (or
 * payload) length of the whole run and a fresh IPv4 header checksum, then
 * the completion: seg_count segments of gso_size payload bytes. Every
 * segment's TCP checksum was verified on arrival (runs take only verified
 * segments); the merged header's TCP checksum is left as the first
 * segment's, for the driver to replace, as NICs leave it.
 *
 * Everything here runs under the queue's delivery lock (rxq->lock) inside a
 * refnic_rxq_enter()/leave() pair, as every other write into the queue.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/unaligned.h>
#include <net/ip.h>
#include <net/tcp.h>

#include "model.h"

/* Largest IP datagram a run may describe. */
#define REFNIC_GRO_MAX_IP_LEN		0xffff
/* Most descriptors one completion may use: the driver's skb frag limit. */
#define REFNIC_GRO_MAX_BUFS		16

/* TCP flags that end a run (and open none): tcp_gro_receive()'s. */
#define REFNIC_GRO_TCP_END	(TCPHDR_URG | TCPHDR_PSH | TCPHDR_RST | \
				 TCPHDR_SYN | TCPHDR_FIN)
/* TCP flags a segment may have that the run's first has not. */
#define REFNIC_GRO_TCP_MAY_DIFFER	(TCPHDR_PSH | TCPHDR_FIN)

static u8 refnic_gro_tcp_flags(const u8 *hdr, u16 l4_off)
{
	return tcp_flag_byte((const struct tcphdr *)(hdr + l4_off));
}

static u32 refnic_gro_seq(const u8 *hdr, u16 l4_off)
{
	return get_unaligned_be32(hdr + l4_off + offsetof(struct tcphdr, seq));
}

static u16 refnic_gro_ip_id(const u8 *hdr, u16 l3_off)
{
	return get_unaligned_be16(hdr + l3_off + offsetof(struct iphdr, id));
}

/* Is byte @i of a header (IP at @l3, TCP at @l4) one that may differ
 * between the segments of a run: IP length, IPv4 ID (checked on its own)
 * and checksum, TCP sequence number (likewise), checksum and urgent
 * pointer?
 */
static bool refnic_gro_may_differ(u16 i, u16 l3, u16 l4, bool ipv4)
{
	if (ipv4) {
		if ((i >= l3 + offsetof(struct iphdr, tot_len) &&
		     i < l3 + offsetof(struct iphdr, frag_off)) ||
		    (i >= l3 + offsetof(struct iphdr, check) &&
		     i < l3 + offsetof(struct iphdr, saddr)))
			return true;
	} else if (i >= l3 + offsetof(struct ipv6hdr, payload_len) &&
		   i < l3 + offsetof(struct ipv6hdr, nexthdr)) {
		return true;
	}
	return (i >= l4 + offsetof(struct tcphdr, seq) &&
		i < l4 + offsetof(struct tcphdr, ack_seq)) ||
	       (i >= l4 + offsetof(struct tcphdr, check) &&
		i < l4 + sizeof(struct tcphdr));
}

/* TCP payload bytes of a segment, 0 if it cannot join a run. Sets @padded
 * for a runt whose IP datagram ends before the frame's padding.
 */
static u32 refnic_gro_payload(const struct refnic_frame *f,
			      const struct refnic_pkt *pkt, u32 flags,
			      bool *padded)
{
	const u8 *l3 = f->head + pkt->l3_off;
	u32 pay, end;

	if (pkt->l4_proto != IPPROTO_TCP || pkt->frag || !pkt->l4_len ||
	    !(flags & REFNIC_RXC_L4_CSUM_OK) || pkt->l3_off != ETH_HLEN ||
	    pkt->hdr_len > REFNIC_MAX_TSO_HDR || pkt->hdr_len > f->head_len)
		return 0;
	if (pkt->l3_proto == ETH_P_IP) {
		/* inet_gro_receive(): no options, and a header checksum
		 * that verifies (the stack would drop the frame).
		 */
		if (pkt->l4_off != pkt->l3_off + sizeof(struct iphdr) ||
		    csum_fold(csum_partial(l3, sizeof(struct iphdr), 0)))
			return 0;
	} else if (pkt->l4_off != pkt->l3_off + sizeof(struct ipv6hdr)) {
		/* IPv6 extension headers are not looked into. */
		return 0;
	}
	pay = pkt->l4_len - (pkt->hdr_len - pkt->l4_off);
	/* No trailing bytes past the IP datagram, but a runt's padding. */
	end = pkt->hdr_len + pay;
	*padded = end < f->len && f->len == ETH_ZLEN;
	if (end != f->len && !*padded)
		return 0;
	return pay;
}

/* Does @h, a segment's headers, continue the run's? */
static bool refnic_gro_same_flow(const struct refnic_rx_gro *g, const u8 *h)
{
	u16 flags_off = g->l4_off + 13;	/* tcp_flag_byte() */
	bool ipv4 = g->flags & REFNIC_RXC_IPV4;
	u16 i, id_off;

	for (i = 0; i < g->hdr_len; i++) {
		if (h[i] == g->hdr[i] ||
		    refnic_gro_may_differ(i, g->l3_off, g->l4_off, ipv4))
			continue;
		if (i == flags_off &&
		    !((h[i] ^ g->hdr[i]) & ~REFNIC_GRO_TCP_MAY_DIFFER))
			continue;
		return false;
	}
	if (!ipv4)
		return true;
	/* inet_gro_flush(): the second segment decides whether the run's
	 * IDs are fixed or count up by one a segment; the rest follow.
	 */
	id_off = refnic_gro_ip_id(h, g->l3_off) - g->ip_id;
	if (g->segs == 1)
		return id_off <= 1;
	return id_off == (g->ip_fixedid ? 0 : g->segs);
}

/* Write frame bytes [off, off + len) into the run's payload buffers, taking
 * descriptors as it goes. The caller checked that enough are posted.
 */
static int refnic_gro_fill(struct refnic_model_rxq *rxq,
			   struct refnic_rxq_view *view,
			   const struct refnic_frame *f, u32 off, u32 len)
{
	struct refnic_model_port *port = rxq->port;
	struct refnic_rx_gro *g = &rxq->gro;
	struct refnic_rx_desc desc;
	u32 n, total = len;
	u64 addr;
	int err;

	while (len) {
		if (g->cur_off == view->buf_len) {
			addr = view->ring + (u64)(view->head & view->mask) *
					    sizeof(desc);
			err = refnic_dma_read(port, addr, &desc, sizeof(desc));
			if (err)
				return err;
			rxq->stats.desc_fetched++;
			rxq->stats.dma_read_bytes += sizeof(desc);
			view->head++;
			g->nbufs++;
			g->cur = le64_to_cpu(desc.buf_addr);
			g->cur_off = 0;
		}
		n = min(len, view->buf_len - g->cur_off);
		err = refnic_rx_copy(port, f, off, g->cur + g->cur_off, n);
		if (err)
			return err;
		g->cur_off += n;
		g->pay_len += n;
		off += n;
		len -= n;
	}
	rxq->stats.dma_write_bytes += total;
	return 0;
}

/* Descriptors needed to put @len more bytes into the run's buffers. */
static u32 refnic_gro_bufs_needed(const struct refnic_rx_gro *g,
				  const struct refnic_rxq_view *view, u32 len)
{
	u32 room = view->buf_len - g->cur_off;

	return len > room ? DIV_ROUND_UP(len - room, view->buf_len) : 0;
}

/**
 * refnic_rx_gro_flush - close the queue's open run: headers, completion
 * @rxq: the queue, delivery lock held
 * @view: its rings, entered
 * @signal: incremented by the completions written, for the vector
 *
 * Return: 0, or a DMA error (the caller halts the queue).
 */
int refnic_rx_gro_flush(struct refnic_model_rxq *rxq,
			struct refnic_rxq_view *view, u32 *signal)
{
	struct refnic_model_port *port = rxq->port;
	struct refnic_rx_gro *g = &rxq->gro;
	u16 ip_len = g->hdr_len - g->l3_off + g->pay_len -
		     (g->split ? 0 : g->hdr_len);
	struct refnic_rx_cmpl cmpl = {};
	int err;

	if (!g->active)
		return 0;
	WRITE_ONCE(g->active, false);
	if (g->gen != view->gen)
		return 0;	/* the queue was enabled anew: its run is gone */

	if (g->segs > 1) {
		if (g->flags & REFNIC_RXC_IPV4) {
			struct iphdr *iph = (struct iphdr *)(g->hdr + g->l3_off);

			iph->tot_len = htons(ip_len);
			iph->check = 0;
			/* Not ip_fast_csum(): @hdr + 14 is 2-byte aligned. */
			iph->check = csum_fold(csum_partial(iph, iph->ihl * 4, 0));
		} else {
			struct ipv6hdr *ip6 = (struct ipv6hdr *)(g->hdr + g->l3_off);

			ip6->payload_len = htons(ip_len - sizeof(*ip6));
		}
		err = refnic_dma_write(port, g->hdr_dst, g->hdr, g->hdr_len);
		if (err)
			return err;
	}

	/* Injected fault: as for a single frame, the completion is lost. */
	if (refnic_fault_strikes(&port->fault[REFNIC_MODEL_FAULT_DROP_CMPL][rxq->index]))
		return 0;

	cmpl.rss_hash = cpu_to_le32(g->hash);
	cmpl.pay_len = cpu_to_le32(g->pay_len);
	cmpl.hdr_len = cpu_to_le16(g->split ? g->hdr_len : 0);
	cmpl.nbufs = cpu_to_le16(g->nbufs);
	cmpl.seg_count = cpu_to_le16(g->segs);
	cmpl.gso_size = cpu_to_le16(g->segs > 1 ? g->mss : 0);
	cmpl.queue = cpu_to_le16(rxq->index);
	cmpl.split_status = cpu_to_le16(g->split_status);
	cmpl.buf_index = cpu_to_le32(g->first);
	err = refnic_rx_post_cmpl(rxq, view, &cmpl, g->flags);
	if (err)
		return err;
	view->cq_tail++;
	rxq->stats.frames++;
	rxq->stats.csum_ok++;
	if (g->split)
		rxq->stats.hdr_split++;
	else if (view->hdr_len)
		rxq->stats.hdr_not_split++;
	if (g->segs > 1) {
		rxq->stats.gro_runs++;
		rxq->stats.gro_segs += g->segs;
	}
	(*signal)++;
	return 0;
}

/* Open a run on segment @f: its headers and payload go where a single
 * frame's would.
 */
static int refnic_gro_open(struct refnic_model_rxq *rxq,
			   struct refnic_rxq_view *view,
			   const struct refnic_frame *f,
			   const struct refnic_pkt *pkt, u32 flags, u32 hash,
			   u32 hdr_len, u16 split, u32 pay)
{
	struct refnic_model_port *port = rxq->port;
	struct refnic_rx_gro *g = &rxq->gro;
	struct refnic_rx_desc desc;
	u64 addr;
	int err;

	addr = view->ring + (u64)(view->head & view->mask) * sizeof(desc);
	err = refnic_dma_read(port, addr, &desc, sizeof(desc));
	if (err)
		return err;
	rxq->stats.desc_fetched++;
	rxq->stats.dma_read_bytes += sizeof(desc);

	memcpy(g->hdr, f->head, pkt->hdr_len);
	g->hdr_len = pkt->hdr_len;
	g->l3_off = pkt->l3_off;
	g->l4_off = pkt->l4_off;
	g->split = hdr_len != 0;
	g->hdr_dst = le64_to_cpu(g->split ? desc.hdr_addr : desc.buf_addr);
	g->first = view->head;
	g->nbufs = 1;
	g->cur = le64_to_cpu(desc.buf_addr);
	g->cur_off = 0;
	g->pay_len = 0;
	g->segs = 1;
	g->mss = pay;
	g->next_seq = refnic_gro_seq(f->head, pkt->l4_off) + pay;
	if (flags & REFNIC_RXC_IPV4)
		g->ip_id = refnic_gro_ip_id(f->head, pkt->l3_off);
	g->ip_fixedid = false;
	g->flags = flags;
	g->hash = hash;
	g->split_status = split;
	g->gen = view->gen;
	view->head++;

	if (g->split) {
		err = refnic_rx_copy(port, f, 0, g->hdr_dst, hdr_len);
		if (err)
			return err;
	}
	WRITE_ONCE(g->active, true);
	return refnic_gro_fill(rxq, view, f, hdr_len, f->len - hdr_len);
}

/**
 * refnic_rx_gro_put - offer a frame to the queue's hardware GRO
 * @rxq: the queue, delivery lock held
 * @view: its rings, entered, indices checked
 * @f: the frame
 * @pkt: its parsed headers
 * @flags: its completion flags (REFNIC_RXC_*)
 * @hash: its RSS hash
 * @hdr_len: header bytes to split off (0: header split off or not possible)
 * @split: its REFNIC_SPLIT_*
 * @signal: incremented by the completions written, for the vector
 *
 * A frame that cannot join or open a run closes the open one, so that the
 * caller can deliver it on its own, in order.
 *
 * Return: 1 when the frame is in a run, 0 when the caller must deliver it,
 * -ENOBUFS when it had to be dropped for want of descriptors or completion
 * entries (counted), or a DMA error (the caller halts the queue).
 */
int refnic_rx_gro_put(struct refnic_model_rxq *rxq,
		      struct refnic_rxq_view *view,
		      const struct refnic_frame *f,
		      const struct refnic_pkt *pkt, u32 flags, u32 hash,
		      u32 hdr_len, u16 split, u32 *signal)
{
	struct refnic_rx_gro *g = &rxq->gro;
	bool padded = false;
	u32 pay = 0, need;
	u8 tcp_flags = 0;
	int err;

	if (READ_ONCE(rxq->port->rx_ctrl) & REFNIC_RX_CTRL_HW_GRO)
		pay = refnic_gro_payload(f, pkt, flags, &padded);
	/* With header split on, a segment whose headers do not split
	 * opens no run.
	 */
	if (view->hdr_len && !hdr_len)
		pay = 0;
	if (pay)
		tcp_flags = refnic_gro_tcp_flags(f->head, pkt->l4_off);

	if (g->active && g->gen == view->gen && pay && pay <= g->mss &&
	    pkt->hdr_len == g->hdr_len &&
	    refnic_gro_seq(f->head, pkt->l4_off) == g->next_seq &&
	    refnic_gro_same_flow(g, f->head)) {
		need = refnic_gro_bufs_needed(g, view, pay);
		if (g->hdr_len - g->l3_off + g->pay_len + pay <=
		    REFNIC_GRO_MAX_IP_LEN &&
		    g->nbufs + need <= REFNIC_GRO_MAX_BUFS &&
		    refnic_ring_used(view->tail, view->head) >= need) {
			err = refnic_gro_fill(rxq, view, f, pkt->hdr_len, pay);
			if (err)
				return err;
			if (g->segs == 1 && (g->flags & REFNIC_RXC_IPV4))
				g->ip_fixedid = refnic_gro_ip_id(f->head, pkt->l3_off) ==
						g->ip_id;
			g->segs++;
			g->next_seq += pay;
			/* PSH or FIN, or a short segment, ends the run. */
			if (pay < g->mss || (tcp_flags & REFNIC_GRO_TCP_END)) {
				tcp_flag_byte((struct tcphdr *)(g->hdr + g->l4_off)) |=
					tcp_flags;
				return refnic_rx_gro_flush(rxq, view, signal) ?: 1;
			}
			return 1;
		}
	}

	err = refnic_rx_gro_flush(rxq, view, signal);
	if (err || !pay)
		return err;
	/* Nothing can follow it, or it is a runt whose padding would go into
	 * the payload buffers: deliver it alone.
	 */
	if ((tcp_flags & REFNIC_GRO_TCP_END) || padded)
		return 0;

	need = max(1U, DIV_ROUND_UP(f->len - hdr_len, view->buf_len));
	if (refnic_ring_used(view->tail, view->head) < need) {
		rxq->stats.drop_nobuf++;
		return -ENOBUFS;
	}
	if (refnic_ring_used(view->cq_tail, view->cq_head) > view->cq_mask) {
		rxq->stats.drop_cq_full++;
		return -ENOBUFS;
	}
	err = refnic_gro_open(rxq, view, f, pkt, flags, hash, hdr_len, split,
			      pay);
	return err ?: 1;
}

/**
 * refnic_rx_gro_flush_port - close every open run of a port's RX queues
 * @port: the receiving port
 *
 * Called when an engine run that delivered to @port ends.
 */
void refnic_rx_gro_flush_port(struct refnic_model_port *port)
{
	struct refnic_rxq_view view;
	unsigned int q;
	u32 signal;
	int err;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		struct refnic_model_rxq *rxq = &port->rxq[q];

		if (!READ_ONCE(rxq->gro.active))
			continue;
		signal = 0;
		spin_lock(&rxq->lock);
		if (!refnic_rxq_enter(rxq, &view)) {
			WRITE_ONCE(rxq->gro.active, false);
			spin_unlock(&rxq->lock);
			continue;
		}
		err = refnic_rx_gro_flush(rxq, &view, &signal);
		if (err)
			rxq->stats.bad_desc++;
		refnic_rxq_leave(rxq, &view, err != 0);
		spin_unlock(&rxq->lock);
		if (err)
			refnic_rxq_report_halt(rxq, view.head);
		if (signal)
			refnic_vec_signal(port, view.vector, signal);
	}
}
