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
 *    one a segment (incrementing), which one decided by the second; with
 *    RX_CTRL.GRO_FIXEDID_NODF clear, fixed only when every IPv4 header of
 *    the run has DF (Linux 6.12's inet_gro_flush() and inet_gso_segment()
 *    take fixed IDs only with DF, with one flag for all IPv4 headers);
 *  - the sequence number the run expects, a payload no longer than the
 *    first one's;
 *  - a segment with URG, PSH, RST, SYN or FIN opens no run and ends the
 *    one it joins; any other flags (CWR, ECE) must match the run's. With
 *    RX_CTRL.GRO_CWR clear, a segment with CWR joins no run while the
 *    first may have CWR the rest have not (6.12's tcp_gro_receive(), whose
 *    tcp_gso_segment() clears CWR in all but the first segment).
 * Anything else arriving at the queue closes the run first, so frames
 * never overtake each other. A runt padded to the Ethernet minimum joins
 * with its IP payload only (the length comes from the IP header, as on
 * LRO engines), but opens no run.
 * IPv6 hop-by-hop, routing and destination options headers are walked
 * (ipv6_gro_pull_exthdrs() takes those) and must be the same in every
 * segment. IP-in-IP (IPv4 or IPv6 in IPv4 or IPv6, as ipip_gro_receive()
 * and sit_ip6ip6/ip4ip6_gro_receive() take one level of it) merges by the
 * same rules applied to the outer and the inner IP header each, with the
 * IPv4 ID decision made for each on its own (gro_receive_network_flush());
 * the device verifies the inner TCP checksum itself, as the outer header
 * has none. The completion says so (REFNIC_RXC_TUNNEL) and where the inner
 * and TCP headers are, for the driver's GSO set-up.
 * A run also closes when its payload or descriptors reach their limits,
 * and at the end of every engine run that delivered to the port
 * (refnic_rx_gro_flush_port()): the model never holds a frame back
 * waiting for the next one, so GRO adds no latency, it only merges what
 * arrives in one burst.
 *
 * Closing a run writes the first segment's headers with the IP total (or
 * payload) length of the whole run in each IP header and fresh IPv4 header
 * checksums, then the completion: seg_count segments of gso_size payload
 * bytes. Every segment's TCP checksum was verified on arrival (runs take
 * only verified segments); the merged header's TCP checksum is left as the
 * first segment's, for the driver to replace, as NICs leave it.
 *
 * Everything here runs under the queue's delivery lock (rxq->lock) inside a
 * refnic_rxq_enter()/leave() pair, as every other write into the queue.
 */

#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/unaligned.h>
#include <net/ip.h>
#include <net/ipv6.h>
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

/* Is byte @i of a segment's headers in an IP header at @l3 (IPv4 if @ipv4)
 * one that may differ between the segments of a run: the length, IPv4 ID
 * (checked on its own) and checksum?
 */
static bool refnic_gro_ip_may_differ(u16 i, u16 l3, bool ipv4)
{
	if (ipv4)
		return (i >= l3 + offsetof(struct iphdr, tot_len) &&
			i < l3 + offsetof(struct iphdr, frag_off)) ||
		       (i >= l3 + offsetof(struct iphdr, check) &&
			i < l3 + offsetof(struct iphdr, saddr));
	return i >= l3 + offsetof(struct ipv6hdr, payload_len) &&
	       i < l3 + offsetof(struct ipv6hdr, nexthdr);
}

/* Is byte @i of a run's headers one that may differ between its segments:
 * in each IP header as above, the TCP sequence number (checked on its own),
 * checksum and urgent pointer?
 */
static bool refnic_gro_may_differ(const struct refnic_rx_gro *g, u16 i)
{
	u16 l4 = g->l4_off;

	if (refnic_gro_ip_may_differ(i, g->l3_off, g->ipv4 & 1) ||
	    (g->il3_off != g->l3_off &&
	     refnic_gro_ip_may_differ(i, g->il3_off, g->ipv4 & 2)))
		return true;
	return (i >= l4 + offsetof(struct tcphdr, seq) &&
		i < l4 + offsetof(struct tcphdr, ack_seq)) ||
	       (i >= l4 + offsetof(struct tcphdr, check) &&
		i < l4 + sizeof(struct tcphdr));
}

/* Can the IP header at @l3, followed by the header at @next, be in a run?
 * inet_gro_receive(): IPv4 without options, not a fragment (no flag but
 * DF), and a header checksum that verifies (the stack would drop the
 * frame). ipv6_gro_receive(): only extension headers it pulls.
 */
static bool refnic_gro_ip_ok(const u8 *h, u16 l3, u16 next, bool ipv4)
{
	const struct ipv6hdr *ip6;
	u16 off;
	u8 nexthdr;

	if (ipv4) {
		const struct iphdr *iph = (const void *)(h + l3);

		return next == l3 + sizeof(*iph) &&
		       !(iph->frag_off & ~htons(IP_DF)) &&
		       !csum_fold(csum_partial(iph, sizeof(*iph), 0));
	}
	ip6 = (const void *)(h + l3);
	off = l3 + sizeof(*ip6);
	nexthdr = ip6->nexthdr;
	/* refnic_parse() walked the chain already: its lengths are sane. */
	while (off < next) {
		if (nexthdr != NEXTHDR_HOP && nexthdr != NEXTHDR_ROUTING &&
		    nexthdr != NEXTHDR_DEST)
			return false;
		nexthdr = h[off];
		off += (h[off + 1] + 1) * 8;
	}
	return off == next;
}

/**
 * struct refnic_gro_seg - a segment as the GRO engine sees it
 * @l3_off: its IP header (the outer one of IP-in-IP)
 * @il3_off: the IP header TCP is in (the inner one), else @l3_off
 * @l4_off: its TCP header
 * @hdr_len: L2..TCP header bytes
 * @ipv4: bit 0: @l3_off is IPv4, bit 1: @il3_off is
 * @padded: a runt whose IP datagram ends before the frame's padding
 */
struct refnic_gro_seg {
	u16 l3_off;
	u16 il3_off;
	u16 l4_off;
	u16 hdr_len;
	u8 ipv4;
	bool padded;
};

/* TCP payload bytes of a segment, 0 if it cannot join a run; @s says
 * where its headers are.
 */
static u32 refnic_gro_payload(const struct refnic_frame *f,
			      const struct refnic_pkt *pkt, u32 flags,
			      u32 rx_ctrl, struct refnic_gro_seg *s)
{
	const struct refnic_pkt *tcp = pkt;
	struct refnic_pkt inner;
	u32 pay, end;

	memset(s, 0, sizeof(*s));
	if (pkt->l3_off != ETH_HLEN)
		return 0;
	if (refnic_parse_inner(f->head, f->head_len, pkt, &inner)) {
		/* IP-in-IP: RX checksum verification took the outer header
		 * alone; verify the inner TCP checksum here.
		 */
		if (inner.l4_proto != IPPROTO_TCP || inner.frag ||
		    !inner.l4_len || !(rx_ctrl & REFNIC_RX_CTRL_CSUM) ||
		    !refnic_gro_ip_ok(f->head, pkt->l3_off, pkt->l4_off,
				      pkt->l3_proto == ETH_P_IP) ||
		    refnic_frame_l4_csum(f, &inner))
			return 0;
		tcp = &inner;
	} else if (pkt->l4_proto != IPPROTO_TCP ||
		   !(flags & REFNIC_RXC_L4_CSUM_OK)) {
		return 0;
	}
	if (tcp->frag || !tcp->l4_len ||
	    tcp->hdr_len > REFNIC_MAX_TSO_HDR || tcp->hdr_len > f->head_len ||
	    !refnic_gro_ip_ok(f->head, tcp->l3_off, tcp->l4_off,
			      tcp->l3_proto == ETH_P_IP))
		return 0;
	s->l3_off = pkt->l3_off;
	s->il3_off = tcp->l3_off;
	s->l4_off = tcp->l4_off;
	s->hdr_len = tcp->hdr_len;
	s->ipv4 = (pkt->l3_proto == ETH_P_IP) |
		  (tcp->l3_proto == ETH_P_IP) << 1;
	pay = tcp->l4_len - (tcp->hdr_len - tcp->l4_off);
	/* No trailing bytes past the IP datagram, but a runt's padding. */
	end = tcp->hdr_len + pay;
	s->padded = end < f->len && f->len == ETH_ZLEN;
	if (end != f->len && !s->padded)
		return 0;
	return pay;
}

/* The run's IPv4 headers: bit 0 the outer (or only) one, bit 1 the inner
 * one of IP-in-IP.
 */
static u8 refnic_gro_ipv4_hdrs(const struct refnic_rx_gro *g)
{
	return g->il3_off == g->l3_off ? g->ipv4 & 1 : g->ipv4;
}

/* May the run's IPv4 IDs be fixed? With RX_CTRL.GRO_FIXEDID_NODF clear,
 * only if every IPv4 header has DF (the same in every segment).
 */
static bool refnic_gro_fixedid_ok(const struct refnic_rx_gro *g, u32 rx_ctrl)
{
	u8 v4 = refnic_gro_ipv4_hdrs(g);
	const struct iphdr *iph;
	unsigned int j;

	if (rx_ctrl & REFNIC_RX_CTRL_GRO_FIXEDID_NODF)
		return true;
	for (j = 0; j < 2; j++) {
		if (!(v4 & BIT(j)))
			continue;
		iph = (const void *)(g->hdr + (j ? g->il3_off : g->l3_off));
		if (!(iph->frag_off & htons(IP_DF)))
			return false;
	}
	return true;
}

/* Does @h, a segment's headers, continue the run's? */
static bool refnic_gro_same_flow(const struct refnic_rx_gro *g, const u8 *h,
				 u32 rx_ctrl)
{
	u8 may_differ = REFNIC_GRO_TCP_MAY_DIFFER;
	u16 flags_off = g->l4_off + 13;	/* tcp_flag_byte() */
	u8 v4 = refnic_gro_ipv4_hdrs(g);
	u16 i, id_off, min_off;
	unsigned int j;

	if (!(rx_ctrl & REFNIC_RX_CTRL_GRO_CWR)) {
		if (h[flags_off] & TCPHDR_CWR)
			return false;
		may_differ |= TCPHDR_CWR;
	}
	for (i = 0; i < g->hdr_len; i++) {
		if (h[i] == g->hdr[i] || refnic_gro_may_differ(g, i))
			continue;
		if (i == flags_off && !((h[i] ^ g->hdr[i]) & ~may_differ))
			continue;
		return false;
	}
	/* inet_gro_flush(), for the outer and the inner IPv4 header each:
	 * the second segment decides whether the run's IDs are fixed or
	 * count up by one a segment; the rest follow.
	 */
	min_off = refnic_gro_fixedid_ok(g, rx_ctrl) ? 0 : 1;
	for (j = 0; j < 2; j++) {
		if (!(v4 & BIT(j)))
			continue;
		id_off = refnic_gro_ip_id(h, j ? g->il3_off : g->l3_off) -
			 g->ip_id[j];
		if (g->segs == 1 ? id_off > 1 || id_off < min_off :
		    id_off != ((g->ip_fixedid & BIT(j)) ? 0 : g->segs))
			return false;
	}
	return true;
}

/* Rewrite the IP header at @l3 (IPv4 if @ipv4) for @len bytes from it. */
static void refnic_gro_set_ip_len(u8 *hdr, u16 l3, bool ipv4, u16 len)
{
	if (ipv4) {
		struct iphdr *iph = (struct iphdr *)(hdr + l3);

		iph->tot_len = htons(len);
		iph->check = 0;
		/* Not ip_fast_csum(): @hdr + 14 is 2-byte aligned. */
		iph->check = csum_fold(csum_partial(iph, iph->ihl * 4, 0));
	} else {
		struct ipv6hdr *ip6 = (struct ipv6hdr *)(hdr + l3);

		ip6->payload_len = htons(len - sizeof(*ip6));
	}
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
	u8 fixedid = g->ip_fixedid & refnic_gro_ipv4_hdrs(g);
	struct refnic_rx_cmpl cmpl = {};
	u32 flags = g->flags;
	int err;

	if (!g->active)
		return 0;
	WRITE_ONCE(g->active, false);
	if (g->gen != view->gen)
		return 0;	/* the queue was enabled anew: its run is gone */

	if (g->segs > 1) {
		refnic_gro_set_ip_len(g->hdr, g->l3_off, g->ipv4 & 1, ip_len);
		if (g->il3_off != g->l3_off) {
			refnic_gro_set_ip_len(g->hdr, g->il3_off, g->ipv4 & 2,
					      ip_len - (g->il3_off - g->l3_off));
			/* The inner TCP segment, verified on arrival. */
			flags |= REFNIC_RXC_TCP | REFNIC_RXC_L4_CSUM_OK |
				 REFNIC_RXC_TUNNEL;
			if (!(g->ipv4 & 2))
				flags |= REFNIC_RXC_INNER_IPV6;
		}
		if (fixedid & 1)
			flags |= REFNIC_RXC_IPID_FIXED;
		if (fixedid & 2)
			flags |= REFNIC_RXC_IPID_FIXED_INNER;
		err = refnic_dma_write(port, g->hdr_dst, g->hdr, g->hdr_len);
		if (err)
			return err;
		cmpl.l3_off = cpu_to_le16(g->il3_off);
		cmpl.l4_off = cpu_to_le16(g->l4_off);
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
	err = refnic_rx_post_cmpl(rxq, view, &cmpl, flags);
	if (err)
		return err;
	view->cq_tail++;
	rxq->stats.frames++;
	/* A run of one segment is reported as the frame alone would be. */
	if (flags & REFNIC_RXC_L4_CSUM_OK)
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
			   const struct refnic_gro_seg *s, u32 flags, u32 hash,
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

	memcpy(g->hdr, f->head, s->hdr_len);
	g->hdr_len = s->hdr_len;
	g->l3_off = s->l3_off;
	g->il3_off = s->il3_off;
	g->l4_off = s->l4_off;
	g->ipv4 = s->ipv4;
	g->split = hdr_len != 0;
	g->hdr_dst = le64_to_cpu(g->split ? desc.hdr_addr : desc.buf_addr);
	g->first = view->head;
	g->nbufs = 1;
	g->cur = le64_to_cpu(desc.buf_addr);
	g->cur_off = 0;
	g->pay_len = 0;
	g->segs = 1;
	g->mss = pay;
	g->next_seq = refnic_gro_seq(f->head, s->l4_off) + pay;
	g->ip_id[0] = refnic_gro_ip_id(f->head, s->l3_off);
	g->ip_id[1] = refnic_gro_ip_id(f->head, s->il3_off);
	g->ip_fixedid = 0;
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
	u32 rx_ctrl = READ_ONCE(rxq->port->rx_ctrl);
	struct refnic_gro_seg s = {};
	u32 pay = 0, need;
	u8 tcp_flags = 0;
	unsigned int j;
	int err;

	if (rx_ctrl & REFNIC_RX_CTRL_HW_GRO)
		pay = refnic_gro_payload(f, pkt, flags, rx_ctrl, &s);
	/* With header split on, a segment whose headers do not split
	 * opens no run.
	 */
	if (view->hdr_len && !hdr_len)
		pay = 0;
	if (pay)
		tcp_flags = refnic_gro_tcp_flags(f->head, s.l4_off);

	if (g->active && g->gen == view->gen && pay && pay <= g->mss &&
	    s.hdr_len == g->hdr_len && s.l3_off == g->l3_off &&
	    s.il3_off == g->il3_off && s.l4_off == g->l4_off &&
	    refnic_gro_seq(f->head, s.l4_off) == g->next_seq &&
	    refnic_gro_same_flow(g, f->head, rx_ctrl)) {
		need = refnic_gro_bufs_needed(g, view, pay);
		if (g->hdr_len - g->l3_off + g->pay_len + pay <=
		    REFNIC_GRO_MAX_IP_LEN &&
		    g->nbufs + need <= REFNIC_GRO_MAX_BUFS &&
		    refnic_ring_used(view->tail, view->head) >= need) {
			err = refnic_gro_fill(rxq, view, f, s.hdr_len, pay);
			if (err)
				return err;
			/* IDs equal to the first's at the second segment:
			 * fixed, as refnic_gro_same_flow() allowed.
			 */
			for (j = 0; g->segs == 1 && j < 2; j++)
				if ((refnic_gro_ipv4_hdrs(g) & BIT(j)) &&
				    refnic_gro_ip_id(f->head, j ? s.il3_off : s.l3_off) ==
				    g->ip_id[j])
					g->ip_fixedid |= BIT(j);
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
	if ((tcp_flags & REFNIC_GRO_TCP_END) || s.padded)
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
	err = refnic_gro_open(rxq, view, f, &s, flags, hash, hdr_len, split,
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
