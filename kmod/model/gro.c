// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Hardware GRO (RX_CTRL.HW_GRO): in-order TCP segments of one flow arriving
 * at one RX queue become one completion - one header, the payloads packed
 * one after the other into the payload buffers - the way NICs with
 * LRO/TPA engines do it.
 *
 * Contexts. Each RX queue has a table of aggregation contexts, one per
 * flow (addresses and TCP ports, outer and inner for IP-in-IP), found by
 * hash, so that flows interleaved on a queue each merge. An open context
 * keeps its aggregate in the device's packet buffer (cells chained as it
 * grows), as a NIC's on-chip buffer does; only closing it takes
 * descriptors and a completion, so completions stay in ring order and the
 * ring protocol is the single frames'. An aggregate that finds too few
 * posted descriptors or a full completion ring is dropped, each segment
 * counted as a dropped frame. The queue's control work allocates the table
 * when the queue is enabled with HW_GRO on, and frees it when the queue is
 * disabled or HW_GRO cleared: the engine runs on a reclaim workqueue and
 * must not allocate.
 *
 * Order. A frame of a flow with an open context that cannot join it closes
 * that context first, so a flow's data never overtakes itself; frames of
 * other flows, and frames that are neither TCP nor IP fragments, pass by.
 * A frame whose flow cannot be told (an IP fragment of anything but UDP,
 * an unparsed TCP segment, a tunnel the engine does not take apart) closes
 * every context first, oldest first.
 *
 * Closing. A context closes on a short, PSH or FIN segment (as
 * tcp_gro_receive() flushes), at 64 KiB of IP datagram or 16 descriptors,
 * when the table or the buffer has no room (the oldest is evicted), once
 * the queue has had no frame for RX_GRO_IDLE (as the stack flushes when a
 * poll finds the ring empty), RX_GRO_TIMEOUT after its first segment, and
 * at once when HW_GRO is cleared. The timers' reset values are an LRO
 * engine's: tens of microseconds span hundreds of frames at 10-100 Gb/s
 * and hold nothing near TCP's minimum RTO. Both 0: every context closes at
 * the end of each engine run that delivered to the port. A queue disable
 * or port reset drops the open contexts without writing (gro_dropped): the
 * driver may free its buffers once it reads STOPPED.
 *
 * Rules. A context opens on a segment that can start one and stays open
 * while segments continue it. The rules are Linux's own GRO rules
 * (inet_gro_receive(), ipv6_gro_receive(), tcp_gro_receive()), so that an
 * aggregate is what the stack would have merged:
 *  - same headers but for the IP length, ID and checksum and the TCP
 *    sequence number, checksum, urgent pointer and PSH/FIN flags;
 *  - an IPv4 header without options and with a good checksum;
 *  - IPv4 IDs all the first segment's (fixed) or counting up from it by
 *    one a segment (incrementing), which one decided by the second; with
 *    RX_CTRL.GRO_FIXEDID_NODF clear, fixed only when every IPv4 header of
 *    the run has DF (Linux 6.12's inet_gro_flush() and inet_gso_segment()
 *    take fixed IDs only with DF, with one flag for all IPv4 headers);
 *  - the sequence number the context expects, a payload no longer than
 *    the first one's;
 *  - a segment with URG, PSH, RST, SYN or FIN opens no context and ends
 *    the one it joins; any other flags (CWR, ECE) must match the first's.
 *    With RX_CTRL.GRO_CWR clear, a segment with CWR joins no context while
 *    the first may have CWR the rest have not (6.12's tcp_gro_receive(),
 *    whose tcp_gso_segment() clears CWR in all but the first segment).
 * A runt padded to the Ethernet minimum joins with its IP payload only
 * (the length comes from the IP header, as on LRO engines), but opens no
 * context.
 * IPv6 hop-by-hop, routing and destination options headers are walked
 * (ipv6_gro_pull_exthdrs() takes those) and must be the same in every
 * segment. IP-in-IP (IPv4 or IPv6 in IPv4 or IPv6, as ipip_gro_receive()
 * and sit_ip6ip6/ip4ip6_gro_receive() take one level of it) merges by the
 * same rules applied to the outer and the inner IP header each, with the
 * IPv4 ID decision made for each on its own (gro_receive_network_flush());
 * the device verifies the inner TCP checksum itself, as the outer header
 * has none. The completion says so (REFNIC_RXC_TUNNEL) and where the inner
 * and TCP headers are, for the driver's GSO set-up.
 *
 * Closing a context writes the first segment's headers with the IP total
 * (or payload) length of the whole aggregate in each IP header and fresh
 * IPv4 header checksums, then the payloads, then the completion: seg_count
 * segments of gso_size payload bytes. Every segment's TCP checksum was
 * verified on arrival (contexts take only verified segments); the merged
 * header's TCP checksum is left as the first segment's, for the driver to
 * replace, as NICs leave it. A context of one segment is delivered as the
 * frame alone would have been. The gro-bad-len fault (fault.c) writes IP
 * lengths one segment short, for the driver to catch.
 *
 * Every write into the queue is made under its delivery lock (rxq->lock)
 * inside a refnic_rxq_enter()/leave() pair, as elsewhere.
 */

#include <linux/jhash.h>
#include <linux/slab.h>
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

/* ---- The context table ---------------------------------------------------- */

/* Packet buffer cell; a segment's headers fit in the first one. */
#define REFNIC_GRO_CELL		REFNIC_MAX_TSO_HDR
#define REFNIC_GRO_NCELLS	(REFNIC_GRO_BUFFER / REFNIC_GRO_CELL)
/* Cells of the largest aggregate (its IP datagram behind an Ethernet
 * header): a buffer at least this big always has room once every other
 * context is evicted.
 */
#define REFNIC_GRO_MAX_CELLS	DIV_ROUND_UP(ETH_HLEN + REFNIC_GRO_MAX_IP_LEN, \
					     REFNIC_GRO_CELL)
#define REFNIC_GRO_END		U16_MAX		/* end of a chain */

/* A flow: IP addresses (outer, then inner of IP-in-IP), TCP ports, and the
 * IP versions, as words.
 */
struct refnic_gro_key {
	u32 w[18];
};

/**
 * struct refnic_gro_ctx - an aggregation context
 * @node: in the table's open list (oldest first) or free list
 * @key: its flow
 * @khash: hash of @key
 * @hnext: next context in the hash bucket
 * @cell: first packet buffer cell of the aggregate
 * @last: last cell
 * @len: bytes of the aggregate in the cells: @hdr_len, then the payloads
 * @deadline: when the context times out (ktime_get_ns())
 * @hdr: the first segment's headers (in @cell), patched when closed
 * @hdr_len: bytes at @hdr (L2..L4)
 * @l3_off: IP header offset in @hdr (the outer one of IP-in-IP)
 * @il3_off: offset of the IP header TCP is in: the inner one of IP-in-IP,
 *	else @l3_off
 * @l4_off: TCP header offset in @hdr
 * @ipv4: bit 0: the IP header at @l3_off is IPv4, bit 1: the one at
 *	@il3_off is
 * @split: @hdr goes into the first descriptor's header buffer, not into
 *	the payload buffers
 * @pay_len: payload bytes after @hdr
 * @segs: segments in the aggregate
 * @mss: payload bytes of the first segment: every one but the last has it
 * @next_seq: TCP sequence number the next segment must have
 * @ip_id: IPv4 IDs of the first segment, [0] at @l3_off, [1] at @il3_off
 * @ip_fixedid: bit 0 (@l3_off), bit 1 (@il3_off, IP-in-IP only): the
 *	IPv4 IDs of that header are all @ip_id's, rather than counting up by
 *	one a segment (decided by the second segment), as inet_gro_flush()
 *	does; never set for an IPv6 header
 * @flags: REFNIC_RXC_* of the first segment
 * @hash: its RSS hash
 * @split_status: its REFNIC_SPLIT_*
 */
struct refnic_gro_ctx {
	struct list_head node;
	struct refnic_gro_key key;
	u32 khash;
	u16 hnext;
	u16 cell;
	u16 last;
	u32 len;
	u64 deadline;
	u8 *hdr;
	u16 hdr_len;
	u16 l3_off;
	u16 il3_off;
	u16 l4_off;
	u8 ipv4;
	bool split;
	u32 pay_len;
	u32 segs;
	u32 mss;
	u32 next_seq;
	u16 ip_id[2];
	u8 ip_fixedid;
	u32 flags;
	u32 hash;
	u16 split_status;
};

/**
 * struct refnic_gro_table - a queue's contexts and packet buffer
 * @gen: the queue's gate generation the contexts belong to
 * @last: when the last frame arrived at the queue (ktime_get_ns())
 * @open: open contexts, oldest first
 * @free: free contexts
 * @free_cell: first free cell
 * @free_cells: free cells
 * @bucket: first context of each hash bucket
 * @next_cell: the chains of cells (aggregates and the free list)
 * @ctx: the contexts
 * @buf: the packet buffer
 */
struct refnic_gro_table {
	u32 gen;
	u64 last;
	struct list_head open;
	struct list_head free;
	u16 free_cell;
	u32 free_cells;
	u16 bucket[REFNIC_GRO_CONTEXTS];
	u16 next_cell[REFNIC_GRO_NCELLS];
	struct refnic_gro_ctx ctx[REFNIC_GRO_CONTEXTS];
	u8 buf[REFNIC_GRO_BUFFER];
};

/* Empty the table: as many contexts and cells free as the port's debugfs
 * knobs allow (all of them unless a test lowered them).
 */
static void refnic_gro_table_reset(struct refnic_model_rxq *rxq,
				   struct refnic_gro_table *tab, u32 gen)
{
	u32 nctx = READ_ONCE(rxq->port->gro_contexts);
	u32 ncells = READ_ONCE(rxq->port->gro_buffer) / REFNIC_GRO_CELL;
	unsigned int i;

	tab->gen = gen;
	INIT_LIST_HEAD(&tab->open);
	INIT_LIST_HEAD(&tab->free);
	for (i = 0; i < REFNIC_GRO_CONTEXTS; i++)
		tab->bucket[i] = REFNIC_GRO_END;
	for (i = 0; i < nctx; i++)
		list_add_tail(&tab->ctx[i].node, &tab->free);
	for (i = 0; i < ncells; i++)
		tab->next_cell[i] = i + 1 < ncells ? i + 1 : REFNIC_GRO_END;
	tab->free_cell = 0;
	tab->free_cells = ncells;
}

static u8 *refnic_gro_cell(struct refnic_gro_table *tab, u16 cell)
{
	return tab->buf + (size_t)cell * REFNIC_GRO_CELL;
}

/* Cells @c needs for @len more bytes. */
static u32 refnic_gro_cells_needed(const struct refnic_gro_ctx *c, u32 len)
{
	u32 room = c->len % REFNIC_GRO_CELL ?
		   REFNIC_GRO_CELL - c->len % REFNIC_GRO_CELL : 0;

	return len > room ? DIV_ROUND_UP(len - room, REFNIC_GRO_CELL) : 0;
}

/* Bytes [off, off + len) of @f to @dst. */
static void refnic_gro_frame_copy(const struct refnic_frame *f, u32 off,
				  u8 *dst, u32 len)
{
	u32 n;

	if (off < f->head_len) {
		refnic_frame_fetch(f);
		n = min(len, f->head_len - off);
		memcpy(dst, f->head + off, n);
		dst += n;
		off += n;
		len -= n;
	}
	if (len && off < f->head_len + f->data_len) {
		n = min(len, f->head_len + f->data_len - off);
		/* A segment that joins a run is not fetched: its payload goes
		 * from the sender's buffers straight into the cells. They were
		 * found readable before the frame was cut (refnic_frame_fetch()).
		 */
		if (f->sg && !f->gso->fetched)
			WARN_ON_ONCE(refnic_sg_read(f->sg, f->sg_off + off -
						    f->head_len, dst, n));
		else
			memcpy(dst, refnic_frame_fetch(f) + off - f->head_len,
			       n);
		dst += n;
		len -= n;
	}
	memset(dst, 0, len);
}

/* Append bytes [off, off + len) of @f to @c's aggregate; the caller made
 * sure the cells are free.
 */
static void refnic_gro_stage(struct refnic_gro_table *tab,
			     struct refnic_gro_ctx *c,
			     const struct refnic_frame *f, u32 off, u32 len)
{
	u32 pos, n;
	u16 cell;

	while (len) {
		pos = c->len % REFNIC_GRO_CELL;
		if (!pos) {
			cell = tab->free_cell;
			tab->free_cell = tab->next_cell[cell];
			tab->free_cells--;
			tab->next_cell[cell] = REFNIC_GRO_END;
			if (c->len)
				tab->next_cell[c->last] = cell;
			else
				c->cell = cell;
			c->last = cell;
		}
		n = min(len, REFNIC_GRO_CELL - pos);
		refnic_gro_frame_copy(f, off, refnic_gro_cell(tab, c->last) + pos,
				      n);
		c->len += n;
		off += n;
		len -= n;
	}
}

static u32 refnic_gro_bucket(u32 khash)
{
	return khash & (REFNIC_GRO_CONTEXTS - 1);
}

static struct refnic_gro_ctx *
refnic_gro_lookup(struct refnic_gro_table *tab, const struct refnic_gro_key *k,
		  u32 khash)
{
	struct refnic_gro_ctx *c;
	u16 i;

	for (i = tab->bucket[refnic_gro_bucket(khash)]; i != REFNIC_GRO_END;
	     i = c->hnext) {
		c = &tab->ctx[i];
		if (c->khash == khash && !memcmp(&c->key, k, sizeof(*k)))
			return c;
	}
	return NULL;
}

/* Return @c and its cells to the table. */
static void refnic_gro_release(struct refnic_model_rxq *rxq,
			       struct refnic_gro_table *tab,
			       struct refnic_gro_ctx *c)
{
	u16 *p = &tab->bucket[refnic_gro_bucket(c->khash)];
	u16 idx = c - tab->ctx;

	while (*p != idx)
		p = &tab->ctx[*p].hnext;
	*p = c->hnext;
	if (c->len) {
		tab->next_cell[c->last] = tab->free_cell;
		tab->free_cell = c->cell;
		tab->free_cells += DIV_ROUND_UP(c->len, REFNIC_GRO_CELL);
	}
	list_move(&c->node, &tab->free);
	WRITE_ONCE(rxq->gro_open, rxq->gro_open - 1);
}

/* Drop every open context: the queue was disabled or reset. */
static void refnic_gro_drop_all(struct refnic_model_rxq *rxq,
				struct refnic_gro_table *tab, u32 gen)
{
	struct refnic_gro_ctx *c;

	list_for_each_entry(c, &tab->open, node)
		rxq->stats.gro_dropped += c->segs;
	WRITE_ONCE(rxq->gro_open, 0);
	refnic_gro_table_reset(rxq, tab, gen);
}

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
static bool refnic_gro_may_differ(const struct refnic_gro_ctx *g, u16 i)
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
static u8 refnic_gro_ipv4_hdrs(const struct refnic_gro_ctx *g)
{
	return g->il3_off == g->l3_off ? g->ipv4 & 1 : g->ipv4;
}

/* May the run's IPv4 IDs be fixed? With RX_CTRL.GRO_FIXEDID_NODF clear,
 * only if every IPv4 header has DF (the same in every segment).
 */
static bool refnic_gro_fixedid_ok(const struct refnic_gro_ctx *g, u32 rx_ctrl)
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
static bool refnic_gro_same_flow(const struct refnic_gro_ctx *g, const u8 *h,
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

/* ---- Closing a context ----------------------------------------------------- */

/* Where the next bytes of an aggregate come from. */
struct refnic_gro_cursor {
	struct refnic_gro_table *tab;
	u16 cell;
	u32 pos;
};

static int refnic_gro_out(struct refnic_model_port *port,
			  struct refnic_gro_cursor *cur, u64 addr, u32 len)
{
	u32 n;
	int err;

	while (len) {
		if (cur->pos == REFNIC_GRO_CELL) {
			cur->cell = cur->tab->next_cell[cur->cell];
			cur->pos = 0;
		}
		n = min(len, REFNIC_GRO_CELL - cur->pos);
		err = refnic_dma_write(port, addr,
				       refnic_gro_cell(cur->tab, cur->cell) +
				       cur->pos, n);
		if (err)
			return err;
		cur->pos += n;
		addr += n;
		len -= n;
	}
	return 0;
}

/* Write the aggregate into descriptors from view->head: the headers into
 * the first one's header buffer (split) or ahead of the payloads.
 */
static int refnic_gro_write_bufs(struct refnic_model_rxq *rxq,
				 const struct refnic_rxq_view *view,
				 struct refnic_gro_table *tab,
				 const struct refnic_gro_ctx *c, u32 nbufs)
{
	struct refnic_gro_cursor cur = { .tab = tab, .cell = c->cell };
	struct refnic_model_port *port = rxq->port;
	u32 i, n, left = c->len;
	struct refnic_rx_desc desc;
	int err;

	for (i = 0; i < nbufs; i++) {
		err = refnic_rx_fetch_desc(rxq, view, i, &desc);
		if (err)
			return err;
		if (i == 0 && c->split) {
			err = refnic_gro_out(port, &cur,
					     le64_to_cpu(desc.hdr_addr),
					     c->hdr_len);
			if (err)
				return err;
			left -= c->hdr_len;
		}
		n = min(view->buf_len, left);
		if (!n)
			continue;
		err = refnic_gro_out(port, &cur, le64_to_cpu(desc.buf_addr), n);
		if (err)
			return err;
		left -= n;
	}
	rxq->stats.dma_write_bytes += c->len;
	return 0;
}

/* Descriptors an aggregate of @len bytes needs. */
static u32 refnic_gro_nbufs(const struct refnic_gro_ctx *c,
			    const struct refnic_rxq_view *view, u32 len)
{
	if (c->split)
		return max(1U, DIV_ROUND_UP(len - c->hdr_len, view->buf_len));
	return DIV_ROUND_UP(len, view->buf_len);
}

/**
 * refnic_gro_close - write a context's aggregate and completion, free it
 * @rxq: the queue, delivery lock held
 * @view: its rings, entered
 * @tab: its table
 * @c: the open context
 * @signal: incremented by the completions written, for the vector
 *
 * Return: 0, or a DMA error (the caller halts the queue).
 */
static int refnic_gro_close(struct refnic_model_rxq *rxq,
			    struct refnic_rxq_view *view,
			    struct refnic_gro_table *tab,
			    struct refnic_gro_ctx *c, u32 *signal)
{
	struct refnic_model_port *port = rxq->port;
	u16 ip_len = c->hdr_len - c->l3_off + c->pay_len;
	u8 fixedid = c->ip_fixedid & refnic_gro_ipv4_hdrs(c);
	struct refnic_rx_cmpl cmpl = {};
	u32 flags = c->flags, nbufs;
	int err = 0;

	nbufs = refnic_gro_nbufs(c, view, c->len);
	if (refnic_ring_used(view->tail, view->head) < nbufs) {
		rxq->stats.drop_nobuf += c->segs;
		goto out;
	}
	if (refnic_ring_used(view->cq_tail, view->cq_head) > view->cq_mask) {
		rxq->stats.drop_cq_full += c->segs;
		goto out;
	}
	if (c->segs > 1) {
		/* Injected fault: a run one segment longer than its headers
		 * say. The payload written and the completion stay true.
		 */
		if (refnic_fault_strikes(port, REFNIC_MODEL_FAULT_GRO_BAD_LEN, rxq->index))
			ip_len -= c->mss;
		refnic_gro_set_ip_len(c->hdr, c->l3_off, c->ipv4 & 1, ip_len);
		if (c->il3_off != c->l3_off) {
			refnic_gro_set_ip_len(c->hdr, c->il3_off, c->ipv4 & 2,
					      ip_len - (c->il3_off - c->l3_off));
			/* The inner TCP segment, verified on arrival. */
			flags |= REFNIC_RXC_TCP | REFNIC_RXC_L4_CSUM_OK |
				 REFNIC_RXC_TUNNEL;
			if (!(c->ipv4 & 2))
				flags |= REFNIC_RXC_INNER_IPV6;
		}
		if (fixedid & 1)
			flags |= REFNIC_RXC_IPID_FIXED;
		if (fixedid & 2)
			flags |= REFNIC_RXC_IPID_FIXED_INNER;
		cmpl.l3_off = cpu_to_le16(c->il3_off);
		cmpl.l4_off = cpu_to_le16(c->l4_off);
	}
	err = refnic_gro_write_bufs(rxq, view, tab, c, nbufs);
	if (err)
		goto out;

	/* Injected fault: as for a single frame, the buffers are used up and
	 * the completion is lost.
	 */
	if (refnic_fault_strikes(port, REFNIC_MODEL_FAULT_DROP_CMPL, rxq->index)) {
		view->head += nbufs;
		goto out;
	}

	cmpl.rss_hash = cpu_to_le32(c->hash);
	cmpl.pay_len = cpu_to_le32(c->len - (c->split ? c->hdr_len : 0));
	cmpl.hdr_len = cpu_to_le16(c->split ? c->hdr_len : 0);
	cmpl.nbufs = cpu_to_le16(nbufs);
	cmpl.seg_count = cpu_to_le16(c->segs);
	cmpl.gso_size = cpu_to_le16(c->segs > 1 ? c->mss : 0);
	cmpl.queue = cpu_to_le16(rxq->index);
	cmpl.split_status = cpu_to_le16(c->split_status);
	cmpl.buf_index = cpu_to_le32(view->head);
	err = refnic_rx_post_cmpl(rxq, view, &cmpl, flags);
	if (err)
		goto out;
	view->head += nbufs;
	view->cq_tail++;
	rxq->stats.frames++;
	/* An aggregate of one segment is reported as the frame alone would be. */
	if (flags & REFNIC_RXC_L4_CSUM_OK)
		rxq->stats.csum_ok++;
	if (c->split)
		rxq->stats.hdr_split++;
	else if (view->hdr_len)
		rxq->stats.hdr_not_split++;
	if (c->segs > 1) {
		rxq->stats.gro_runs++;
		rxq->stats.gro_segs += c->segs;
	}
	(*signal)++;
out:
	refnic_gro_release(rxq, tab, c);
	return err;
}

static struct refnic_gro_ctx *refnic_gro_oldest(struct refnic_gro_table *tab)
{
	return list_first_entry_or_null(&tab->open, struct refnic_gro_ctx,
					node);
}

/* Close every open context, oldest first. */
static int refnic_gro_close_all(struct refnic_model_rxq *rxq,
				struct refnic_rxq_view *view,
				struct refnic_gro_table *tab, u32 *signal)
{
	struct refnic_gro_ctx *c;
	int err;

	while ((c = refnic_gro_oldest(tab))) {
		err = refnic_gro_close(rxq, view, tab, c, signal);
		if (err)
			return err;
	}
	return 0;
}

/* Close the oldest contexts but @keep until @cells cells are free. */
static int refnic_gro_make_room(struct refnic_model_rxq *rxq,
				struct refnic_rxq_view *view,
				struct refnic_gro_table *tab,
				struct refnic_gro_ctx *keep, u32 cells,
				u32 *signal)
{
	struct refnic_gro_ctx *c, *tmp;
	int err;

	list_for_each_entry_safe(c, tmp, &tab->open, node) {
		if (tab->free_cells >= cells)
			break;
		if (c == keep)
			continue;
		rxq->stats.gro_evicted++;
		err = refnic_gro_close(rxq, view, tab, c, signal);
		if (err)
			return err;
	}
	return 0;
}

/* ---- Frames ----------------------------------------------------------------- */

enum refnic_gro_class {
	REFNIC_GRO_OTHER,	/* no flow a context may hold: passes by */
	REFNIC_GRO_FLOW,	/* a TCP segment of the flow in the key */
	REFNIC_GRO_UNKNOWN,	/* may belong to any flow: closes all */
};

static void refnic_gro_key_addrs(const u8 *h, const struct refnic_pkt *p,
				 u32 *w)
{
	if (p->l3_proto == ETH_P_IP)
		memcpy(w, h + p->l3_off + offsetof(struct iphdr, saddr), 8);
	else
		memcpy(w, h + p->l3_off + offsetof(struct ipv6hdr, saddr), 32);
}

/* What the frame is to the contexts; the flow in @k for a TCP segment. */
static enum refnic_gro_class
refnic_gro_classify(const struct refnic_frame *f, const struct refnic_pkt *pkt,
		    struct refnic_gro_key *k)
{
	const struct refnic_pkt *tcp = pkt;
	struct refnic_pkt inner;

	if (!pkt->l3_proto)
		return REFNIC_GRO_OTHER;
	if (pkt->frag)
		return pkt->ip_proto == IPPROTO_UDP ? REFNIC_GRO_OTHER :
						       REFNIC_GRO_UNKNOWN;
	switch (pkt->ip_proto) {
	case IPPROTO_TCP:
		if (pkt->l4_proto != IPPROTO_TCP)
			return REFNIC_GRO_UNKNOWN;
		break;
	case IPPROTO_IPIP:
	case IPPROTO_IPV6:
		if (!refnic_parse_inner(f->head, f->head_len, pkt, &inner) ||
		    inner.l4_proto != IPPROTO_TCP)
			return REFNIC_GRO_UNKNOWN;
		tcp = &inner;
		break;
	default:
		return REFNIC_GRO_OTHER;
	}
	if (pkt->l3_off != ETH_HLEN)
		return REFNIC_GRO_UNKNOWN;
	memset(k, 0, sizeof(*k));
	refnic_gro_key_addrs(f->head, pkt, &k->w[0]);
	if (tcp != pkt)
		refnic_gro_key_addrs(f->head, tcp, &k->w[8]);
	memcpy(&k->w[16], f->head + tcp->l4_off, 4);	/* the ports */
	k->w[17] = (u32)pkt->l3_proto << 16 | (tcp != pkt ? tcp->l3_proto : 0);
	return REFNIC_GRO_FLOW;
}

/* Open a context on segment @f; the caller made room for it. */
static struct refnic_gro_ctx *
refnic_gro_open(struct refnic_model_rxq *rxq, struct refnic_gro_table *tab,
		const struct refnic_frame *f, const struct refnic_gro_seg *s,
		const struct refnic_gro_key *k, u32 khash, u32 flags, u32 hash,
		u32 hdr_len, u16 split, u32 pay)
{
	struct refnic_gro_ctx *c;
	u32 bucket = refnic_gro_bucket(khash);

	c = list_first_entry(&tab->free, struct refnic_gro_ctx, node);
	list_move_tail(&c->node, &tab->open);
	WRITE_ONCE(rxq->gro_open, rxq->gro_open + 1);
	c->key = *k;
	c->khash = khash;
	c->hnext = tab->bucket[bucket];
	tab->bucket[bucket] = c - tab->ctx;
	c->len = 0;
	c->deadline = ktime_get_ns() +
		      (u64)READ_ONCE(rxq->port->gro_timeout) * NSEC_PER_USEC;
	c->hdr_len = s->hdr_len;
	c->l3_off = s->l3_off;
	c->il3_off = s->il3_off;
	c->l4_off = s->l4_off;
	c->ipv4 = s->ipv4;
	c->split = hdr_len != 0;
	c->pay_len = pay;
	c->segs = 1;
	c->mss = pay;
	c->next_seq = refnic_gro_seq(f->head, s->l4_off) + pay;
	c->ip_id[0] = refnic_gro_ip_id(f->head, s->l3_off);
	c->ip_id[1] = refnic_gro_ip_id(f->head, s->il3_off);
	c->ip_fixedid = 0;
	c->flags = flags;
	c->hash = hash;
	c->split_status = split;
	refnic_gro_stage(tab, c, f, 0, s->hdr_len + pay);
	c->hdr = refnic_gro_cell(tab, c->cell);
	return c;
}

/* When the queue's contexts must close for quiet (RX_GRO_IDLE), U64_MAX if
 * never.
 */
static u64 refnic_gro_idle_end(struct refnic_model_rxq *rxq,
			       const struct refnic_gro_table *tab)
{
	u32 idle = READ_ONCE(rxq->port->gro_idle);

	return idle ? tab->last + (u64)idle * NSEC_PER_USEC : U64_MAX;
}

/* Arm the queue's timer for the earlier of its oldest context's deadline
 * and the end of the quiet. Later frames move the quiet's end without
 * rearming it, to keep hrtimer calls off the frame path: the work looks
 * again when it fires.
 */
static void refnic_gro_arm(struct refnic_model_rxq *rxq,
			   struct refnic_gro_table *tab)
{
	struct refnic_gro_ctx *c = refnic_gro_oldest(tab);
	u64 when;

	if (!c)
		return;
	when = READ_ONCE(rxq->port->gro_timeout) ? c->deadline : U64_MAX;
	when = min(when, refnic_gro_idle_end(rxq, tab));
	if (when == U64_MAX)
		return;
	if (hrtimer_is_queued(&rxq->gro_timer) &&
	    ktime_to_ns(hrtimer_get_expires(&rxq->gro_timer)) <= when)
		return;
	hrtimer_start(&rxq->gro_timer, ns_to_ktime(when), HRTIMER_MODE_ABS);
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
 * A frame that cannot join or open a context closes its flow's open one
 * (or all of them if its flow is unknown), so that the caller can deliver
 * it on its own, in order.
 *
 * Return: 1 when the frame is in a context, 0 when the caller must deliver
 * it, or a DMA error (the caller halts the queue).
 */
int refnic_rx_gro_put(struct refnic_model_rxq *rxq,
		      struct refnic_rxq_view *view,
		      const struct refnic_frame *f,
		      const struct refnic_pkt *pkt, u32 flags, u32 hash,
		      u32 hdr_len, u16 split, u32 *signal)
{
	u32 rx_ctrl = READ_ONCE(rxq->port->rx_ctrl);
	struct refnic_gro_table *tab = rxq->gro;
	enum refnic_gro_class class;
	struct refnic_gro_seg s = {};
	struct refnic_gro_ctx *c;
	struct refnic_gro_key k;
	u32 pay = 0, need, khash;
	u8 tcp_flags = 0;
	unsigned int j;
	u64 now;
	int err;

	if (!tab)
		return 0;
	if (unlikely(tab->gen != view->gen))
		refnic_gro_drop_all(rxq, tab, view->gen);
	if (!(rx_ctrl & REFNIC_RX_CTRL_HW_GRO))
		return rxq->gro_open ?
		       refnic_gro_close_all(rxq, view, tab, signal) : 0;

	/* The queue went quiet: whatever the timer's work has not closed
	 * yet closes before this frame.
	 */
	now = ktime_get_ns();
	if (rxq->gro_open && now >= refnic_gro_idle_end(rxq, tab)) {
		rxq->stats.gro_timeouts += rxq->gro_open;
		err = refnic_gro_close_all(rxq, view, tab, signal);
		if (err)
			return err;
	}
	tab->last = now;

	class = refnic_gro_classify(f, pkt, &k);
	if (class == REFNIC_GRO_OTHER)
		return 0;
	if (class == REFNIC_GRO_UNKNOWN)
		return refnic_gro_close_all(rxq, view, tab, signal);

	pay = refnic_gro_payload(f, pkt, flags, rx_ctrl, &s);
	/* With header split on, a segment whose headers do not split
	 * opens no context.
	 */
	if (view->hdr_len && !hdr_len)
		pay = 0;
	if (pay)
		tcp_flags = refnic_gro_tcp_flags(f->head, s.l4_off);

	khash = jhash2(k.w, ARRAY_SIZE(k.w), 0);
	c = rxq->gro_open ? refnic_gro_lookup(tab, &k, khash) : NULL;
	/* Timed out, though the timer's work has not run yet: the segment
	 * joins nothing older than RX_GRO_TIMEOUT.
	 */
	if (c && READ_ONCE(rxq->port->gro_timeout) && now >= c->deadline) {
		rxq->stats.gro_timeouts++;
		err = refnic_gro_close(rxq, view, tab, c, signal);
		if (err)
			return err;
		c = NULL;
	}
	if (c && pay && pay <= c->mss && s.hdr_len == c->hdr_len &&
	    s.l3_off == c->l3_off && s.il3_off == c->il3_off &&
	    s.l4_off == c->l4_off && !!hdr_len == c->split &&
	    refnic_gro_seq(f->head, s.l4_off) == c->next_seq &&
	    refnic_gro_same_flow(c, f->head, rx_ctrl) &&
	    c->hdr_len - c->l3_off + c->pay_len + pay <= REFNIC_GRO_MAX_IP_LEN &&
	    refnic_gro_nbufs(c, view, c->len + pay) <= REFNIC_GRO_MAX_BUFS) {
		need = refnic_gro_cells_needed(c, pay);
		err = refnic_gro_make_room(rxq, view, tab, c, need, signal);
		if (err)
			return err;
		refnic_gro_stage(tab, c, f, s.hdr_len, pay);
		/* IDs equal to the first's at the second segment: fixed, as
		 * refnic_gro_same_flow() allowed.
		 */
		for (j = 0; c->segs == 1 && j < 2; j++)
			if ((refnic_gro_ipv4_hdrs(c) & BIT(j)) &&
			    refnic_gro_ip_id(f->head, j ? s.il3_off : s.l3_off) ==
			    c->ip_id[j])
				c->ip_fixedid |= BIT(j);
		c->segs++;
		c->pay_len += pay;
		c->next_seq += pay;
		/* PSH or FIN, or a short segment, ends the aggregate. */
		if (pay < c->mss || (tcp_flags & REFNIC_GRO_TCP_END)) {
			tcp_flag_byte((struct tcphdr *)(c->hdr + c->l4_off)) |=
				tcp_flags;
			return refnic_gro_close(rxq, view, tab, c, signal) ?: 1;
		}
		return 1;
	}

	/* The flow's context cannot take the frame: it goes first. */
	if (c) {
		err = refnic_gro_close(rxq, view, tab, c, signal);
		if (err)
			return err;
	}
	/* Nothing can follow it, or it is a runt whose padding would go into
	 * the payload buffers: deliver it alone.
	 */
	if (!pay || (tcp_flags & REFNIC_GRO_TCP_END) || s.padded)
		return 0;

	/* The table is full: the oldest context makes way. */
	if (list_empty(&tab->free)) {
		rxq->stats.gro_evicted++;
		err = refnic_gro_close(rxq, view, tab, refnic_gro_oldest(tab),
				       signal);
		if (err)
			return err;
	}
	need = DIV_ROUND_UP(s.hdr_len + pay, REFNIC_GRO_CELL);
	err = refnic_gro_make_room(rxq, view, tab, NULL, need, signal);
	if (err)
		return err;
	refnic_gro_open(rxq, tab, f, &s, &k, khash, flags, hash, hdr_len,
			split, pay);
	refnic_gro_arm(rxq, tab);
	return 1;
}

/* Does the queue want a context table: enabled, with HW_GRO on? */
static bool refnic_gro_wanted(struct refnic_model_rxq *rxq)
{
	return READ_ONCE(rxq->gate.enabled) &&
	       (READ_ONCE(rxq->port->rx_ctrl) & REFNIC_RX_CTRL_HW_GRO);
}

/**
 * refnic_gro_service - close contexts of a queue outside a frame's delivery
 * @rxq: the queue, its delivery lock not held
 * @all: close every open context, not only those the timers made due
 * @release: then take the table from a queue that no longer wants one
 *
 * A queue that cannot be entered (disabled, halted) loses its contexts:
 * nothing may be written into it.
 *
 * Return: the table taken (@release), for the caller to free, or NULL.
 */
static struct refnic_gro_table *
refnic_gro_service(struct refnic_model_rxq *rxq, bool all, bool release)
{
	struct refnic_gro_table *tab, *ret = NULL;
	struct refnic_rxq_view view;
	struct refnic_gro_ctx *c;
	bool entered = false, idle = false;
	u32 signal = 0;
	u64 now;
	int err = 0;

	spin_lock(&rxq->lock);
	tab = rxq->gro;
	if (!tab)
		goto unlock;
	entered = refnic_rxq_enter(rxq, &view);
	if (!entered) {
		refnic_gro_drop_all(rxq, tab, tab->gen);
		goto release;
	}
	if (tab->gen != view.gen)
		refnic_gro_drop_all(rxq, tab, view.gen);
	/* HW_GRO cleared: no context stays open. */
	if (!(READ_ONCE(rxq->port->rx_ctrl) & REFNIC_RX_CTRL_HW_GRO))
		all = true;
	now = ktime_get_ns();
	if (now >= refnic_gro_idle_end(rxq, tab))
		idle = true;
	else if (!READ_ONCE(rxq->port->gro_timeout))
		now = 0;	/* no deadline */
	while ((c = refnic_gro_oldest(tab)) &&
	       (all || idle || c->deadline <= now)) {
		if (!all)
			rxq->stats.gro_timeouts++;
		err = refnic_gro_close(rxq, &view, tab, c, &signal);
		if (err) {
			rxq->stats.bad_desc++;
			break;
		}
	}
	if (!err)
		refnic_gro_arm(rxq, tab);
	refnic_rxq_leave(rxq, &view, err != 0);
release:
	if (release && !refnic_gro_wanted(rxq)) {
		if (rxq->gro_open)
			refnic_gro_drop_all(rxq, tab, tab->gen);
		WRITE_ONCE(rxq->gro, NULL);
		ret = tab;
	}
unlock:
	spin_unlock(&rxq->lock);
	if (!tab || !entered)
		return ret;
	if (err)
		refnic_rxq_report_halt(rxq, view.head);
	if (signal)
		refnic_vec_signal(rxq->port, view.vector, signal);
	return ret;
}

static void refnic_gro_work(struct work_struct *work)
{
	struct refnic_model_rxq *rxq = container_of(work,
						    struct refnic_model_rxq,
						    gro_work);

	refnic_gro_service(rxq, false, false);
}

static enum hrtimer_restart refnic_gro_timer_fn(struct hrtimer *timer)
{
	struct refnic_model_rxq *rxq = container_of(timer,
						    struct refnic_model_rxq,
						    gro_timer);

	queue_work(refnic_engine_wq, &rxq->gro_work);
	return HRTIMER_NORESTART;
}

/* Give the queue its table, or take it back, as refnic_gro_wanted() says.
 * Runs on the system workqueue: the engine's is a reclaim workqueue, whose
 * work must not wait for memory, and the table is ~700 KiB, charged to the
 * memory cgroup of whoever plugged the card in.
 */
static void refnic_gro_ctl_work(struct work_struct *work)
{
	struct refnic_model_rxq *rxq = container_of(work,
						    struct refnic_model_rxq,
						    gro_ctl_work);
	struct refnic_gro_table *tab;

	if (!refnic_gro_wanted(rxq)) {
		kvfree(refnic_gro_service(rxq, true, true));
		return;
	}
	if (READ_ONCE(rxq->gro))
		return;
	/* On failure the queue aggregates nothing until it is enabled anew. */
	tab = refnic_card_vzalloc(rxq->port->card, sizeof(*tab));
	if (!tab)
		return;
	spin_lock(&rxq->lock);
	if (!rxq->gro && refnic_gro_wanted(rxq)) {
		refnic_gro_table_reset(rxq, tab, READ_ONCE(rxq->gate.gen));
		WRITE_ONCE(rxq->gro, tab);
		tab = NULL;
	}
	spin_unlock(&rxq->lock);
	kvfree(tab);
}

/**
 * refnic_rx_gro_flush_port - close every open context of a port's RX queues
 * @port: the receiving port
 *
 * Called when an engine run that delivered to @port ends: with
 * RX_GRO_TIMEOUT and RX_GRO_IDLE 0 nothing stays open past it.
 */
void refnic_rx_gro_flush_port(struct refnic_model_port *port)
{
	unsigned int q;

	if (READ_ONCE(port->gro_timeout) || READ_ONCE(port->gro_idle))
		return;
	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		if (READ_ONCE(port->rxq[q].gro_open))
			refnic_gro_service(&port->rxq[q], true, false);
}

/**
 * refnic_rx_gro_update - the queue was enabled, disabled or reset
 * @rxq: the queue; any context (MMIO)
 */
void refnic_rx_gro_update(struct refnic_model_rxq *rxq)
{
	schedule_work(&rxq->gro_ctl_work);
}

/**
 * refnic_rx_gro_ctrl_changed - RX_CTRL.HW_GRO was set or cleared
 * @port: the port; any context (MMIO)
 */
void refnic_rx_gro_ctrl_changed(struct refnic_model_port *port)
{
	unsigned int q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		if (READ_ONCE(port->rxq[q].gate.enabled))
			refnic_rx_gro_update(&port->rxq[q]);
}

/**
 * refnic_rx_gro_set_contexts - debugfs gro_contexts: contexts per queue
 * @port: the port
 * @val: 1 to REFNIC_GRO_CONTEXTS
 *
 * Return: 0, or -ERANGE.
 */
int refnic_rx_gro_set_contexts(struct refnic_model_port *port, u64 val)
{
	if (!val || val > REFNIC_GRO_CONTEXTS)
		return -ERANGE;
	WRITE_ONCE(port->gro_contexts, val);
	return 0;
}

/**
 * refnic_rx_gro_set_buffer - debugfs gro_buffer: packet buffer per queue
 * @port: the port
 * @val: bytes, from one largest aggregate's cells to REFNIC_GRO_BUFFER;
 *	rounded down to whole cells
 *
 * Return: 0, or -ERANGE.
 */
int refnic_rx_gro_set_buffer(struct refnic_model_port *port, u64 val)
{
	if (val < REFNIC_GRO_MAX_CELLS * REFNIC_GRO_CELL ||
	    val > REFNIC_GRO_BUFFER)
		return -ERANGE;
	WRITE_ONCE(port->gro_buffer, rounddown(val, REFNIC_GRO_CELL));
	return 0;
}

void refnic_rx_gro_init(struct refnic_model_rxq *rxq)
{
	/* Cell and context numbers are u16, REFNIC_GRO_END not one. */
	BUILD_BUG_ON(max(REFNIC_GRO_NCELLS, REFNIC_GRO_CONTEXTS) >=
		     REFNIC_GRO_END);
	/* Buckets are found by masking the flow's hash. */
	BUILD_BUG_ON(!is_power_of_2(REFNIC_GRO_CONTEXTS));
	/* A context's headers are read in place, in its first cell. */
	BUILD_BUG_ON(REFNIC_GRO_CELL < REFNIC_MAX_TSO_HDR);
	BUILD_BUG_ON(REFNIC_GRO_BUFFER % REFNIC_GRO_CELL);
	/* Evicting every other context makes room for any aggregate. */
	BUILD_BUG_ON(REFNIC_GRO_NCELLS < REFNIC_GRO_MAX_CELLS);
	/* The IP lengths written at close are 16 bits. */
	BUILD_BUG_ON(REFNIC_GRO_MAX_IP_LEN > U16_MAX);
	/* The key: two IPv6 address pairs, the ports, the IP versions. */
	BUILD_BUG_ON(sizeof(struct refnic_gro_key) <
		     4 * sizeof(struct in6_addr) + 4 + 4);
	INIT_WORK(&rxq->gro_work, refnic_gro_work);
	INIT_WORK(&rxq->gro_ctl_work, refnic_gro_ctl_work);
	hrtimer_setup(&rxq->gro_timer, refnic_gro_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);
}

/**
 * refnic_rx_gro_stop - stop a queue's GRO timer and work, free its table
 * @rxq: the queue, disabled; nothing delivers into it any more
 */
void refnic_rx_gro_stop(struct refnic_model_rxq *rxq)
{
	cancel_work_sync(&rxq->gro_ctl_work);
	/* The work may arm the timer and the timer queue the work. */
	cancel_work_sync(&rxq->gro_work);
	hrtimer_cancel(&rxq->gro_timer);
	cancel_work_sync(&rxq->gro_work);
	kvfree(rxq->gro);
	rxq->gro = NULL;
	rxq->gro_open = 0;
}
