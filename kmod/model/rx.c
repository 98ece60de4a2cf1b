// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The RX side of a port: a frame arrives from the link and is filtered,
 * classified (RSS), checked (L4 checksum) and written into the chosen
 * queue's buffers, with a completion entry.
 *
 * Delivery runs in the sender's engine (process context), so the TX queues
 * of the peer port deliver into one RX queue concurrently; rxq->lock puts
 * them in order.
 *
 * A frame that finds no posted buffer, or no free completion entry, is
 * dropped and counted (REFNIC_REG_CNT_RX_NOBUF, REFNIC_REG_CNT_RX_CQ_FULL),
 * as a NIC whose FIFO overflows does: back-pressure would stall the peer's
 * TX queue and with it every flow it carries (head-of-line blocking), and a
 * driver that sizes the completion ring no smaller than the RX ring and
 * returns completions as it refills never sees a full one.
 *
 * Each completion names the ring index of the frame's first buffer
 * (buf_index), so a driver can tell when buffers were consumed for frames
 * whose completions never came (the drop-completion fault, fault.c).
 * Every frame that reaches an enabled queue counts in CNT_RX_FRAMES, so a
 * driver can tell too when frames arrive and nothing completes (the
 * stall-rxq fault: the queue loses every frame until it is disabled).
 *
 * Header split (RXQ_CTRL.HDR_SPLIT): the L2..L4 headers refnic_parse()
 * found go to the first descriptor's header buffer and the L4 payload to
 * the payload buffers, so that payload lands page-aligned wherever the
 * driver put it (a dmabuf, for devmem TCP). A frame that does not parse to
 * TCP or UDP, or whose headers exceed the header buffer, goes whole into
 * the payload buffers with an empty header, and the completion says why
 * (split_status), as idpf and gve hardware do.
 */

#include <linux/etherdevice.h>
#include <linux/udp.h>
#include <linux/unaligned.h>

#include "model.h"
#include "hw_trace.h"

static bool refnic_rx_addr_match(const struct refnic_model_port *port,
				 const u8 *da)
{
	if (is_multicast_ether_addr(da) ||
	    (READ_ONCE(port->rx_ctrl) & REFNIC_RX_CTRL_PROMISC))
		return true;
	return get_unaligned_le32(da) == READ_ONCE(port->mac_lo) &&
	       get_unaligned_le16(da + 4) == (READ_ONCE(port->mac_hi) & 0xffff);
}

/* Copy bytes [off, off + len) of @f to DMA address @addr. */
int refnic_rx_copy(struct refnic_model_port *port,
		   const struct refnic_frame *f, u32 off, u64 addr, u32 len)
{
	const u8 *payload = refnic_frame_fetch(f);
	u32 n;
	int err;

	if (off < f->head_len) {
		n = min(len, f->head_len - off);
		err = refnic_dma_write(port, addr, f->head + off, n);
		if (err)
			return err;
		addr += n;
		off += n;
		len -= n;
	}
	if (len && off < f->head_len + f->data_len) {
		n = min(len, f->head_len + f->data_len - off);
		err = refnic_dma_write(port, addr, payload + off - f->head_len,
				       n);
		if (err)
			return err;
		addr += n;
		len -= n;
	}
	if (len)
		return refnic_dma_write_zero(port, addr, len);
	return 0;
}

/**
 * refnic_rx_fetch_desc() - read the descriptor @i places after view->head
 * @rxq: queue
 * @view: the queue's ring as the engine entered it
 * @i: offset from view->head
 * @desc: where to put it
 *
 * Return: 0 or the DMA read's error.
 */
int refnic_rx_fetch_desc(struct refnic_model_rxq *rxq,
			 const struct refnic_rxq_view *view, u32 i,
			 struct refnic_rx_desc *desc)
{
	u64 addr = view->ring +
		   (u64)((view->head + i) & view->mask) * sizeof(*desc);
	int err;

	err = refnic_dma_read(rxq->port, addr, desc, sizeof(*desc));
	if (err)
		return err;
	trace_refnic_hw_rx_fetch(rxq->port, rxq->index, view->head + i);
	rxq->stats.desc_fetched++;
	rxq->stats.dma_read_bytes += sizeof(*desc);
	return 0;
}

/* Write the frame into @nbufs descriptors from view->head: its first
 * @hdr_len bytes into the first descriptor's header buffer, the rest into
 * the payload buffers in turn.
 */
static int refnic_rx_write_bufs(struct refnic_model_rxq *rxq,
				const struct refnic_rxq_view *view,
				const struct refnic_frame *f, u32 nbufs,
				u32 hdr_len, u32 flen)
{
	struct refnic_model_port *port = rxq->port;
	struct refnic_rx_desc desc;
	u32 i, off = hdr_len, n;
	int err;

	for (i = 0; i < nbufs; i++) {
		err = refnic_rx_fetch_desc(rxq, view, i, &desc);
		if (err)
			return err;

		if (i == 0 && hdr_len) {
			err = refnic_rx_copy(port, f, 0,
					     le64_to_cpu(desc.hdr_addr),
					     hdr_len);
			if (err)
				return err;
		}
		n = min(view->buf_len, flen - off);
		if (!n)
			continue;
		err = refnic_rx_copy(port, f, off, le64_to_cpu(desc.buf_addr), n);
		if (err)
			return err;
		off += n;
	}
	rxq->stats.dma_write_bytes += flen;
	return 0;
}

/**
 * refnic_rx_post_cmpl - write a completion at view->cq_tail
 * @rxq: the queue
 * @view: its rings
 * @cmpl: the entry, flags left to @flags
 * @flags: REFNIC_RXC_* but the phase, which is added here
 *
 * Return: 0 or the DMA error.
 */
int refnic_rx_post_cmpl(struct refnic_model_rxq *rxq,
			const struct refnic_rxq_view *view,
			struct refnic_rx_cmpl *cmpl, u32 flags)
{
	struct refnic_model_port *port = rxq->port;
	u64 addr = view->cq + (u64)(view->cq_tail & view->cq_mask) *
				sizeof(*cmpl);
	const u32 rest = sizeof(*cmpl) - sizeof(cmpl->flags);
	int err;

	BUILD_BUG_ON(offsetof(struct refnic_rx_cmpl, flags) != 0);

	/* The phase is 1 on the first pass over the ring, 0 on the second. */
	if (!(view->cq_tail & (view->cq_mask + 1)))
		flags |= REFNIC_RXC_PHASE;

	err = refnic_dma_write(port, addr + sizeof(cmpl->flags),
			       (u8 *)cmpl + sizeof(cmpl->flags), rest);
	if (err)
		return err;
	/* The driver owns the entry, and the buffers, once it sees the new
	 * phase: everything else must be visible before.
	 */
	dma_wmb();
	err = refnic_dma_write_le32(port, addr, flags);
	if (err)
		return err;
	trace_refnic_hw_rx_cmpl(port, rxq->index, view->cq_tail, flags,
				le32_to_cpu(cmpl->pay_len),
				le16_to_cpu(cmpl->hdr_len),
				le16_to_cpu(cmpl->nbufs),
				le16_to_cpu(cmpl->seg_count),
				le16_to_cpu(cmpl->split_status));
	rxq->stats.cmpl_written++;
	rxq->stats.dma_write_bytes += sizeof(*cmpl);
	return 0;
}

static int refnic_rx_write_cmpl(struct refnic_model_rxq *rxq,
				const struct refnic_rxq_view *view,
				u32 flen, u32 nbufs, u32 hdr_len, u16 split,
				u32 flags, u32 hash)
{
	struct refnic_rx_cmpl cmpl = {
		.rss_hash = cpu_to_le32(hash),
		.pay_len = cpu_to_le32(flen - hdr_len),
		.hdr_len = cpu_to_le16(hdr_len),
		.nbufs = cpu_to_le16(nbufs),
		.seg_count = cpu_to_le16(1),
		.gso_size = 0,
		.queue = cpu_to_le16(rxq->index),
		.split_status = cpu_to_le16(split),
		.buf_index = cpu_to_le32(view->head),
	};

	return refnic_rx_post_cmpl(rxq, view, &cmpl, flags);
}

/**
 * refnic_rxq_report_halt - tell of a queue halted on a bad descriptor
 * @rxq: the queue, left (its delivery lock released)
 * @head: the descriptor index it stopped at
 *
 * As hardware does: the device's log line and an error on the misc vector.
 */
void refnic_rxq_report_halt(struct refnic_model_rxq *rxq, u32 head)
{
	dev_warn_ratelimited(rxq->port->dev, "RX queue %u halted: bad descriptor or index at %u\n",
			     rxq->index, head);
	refnic_port_raise_misc(rxq->port, REFNIC_MISC_ERROR);
}

/* Is @rxq stalled (the stall-rxq fault), or does the fault stall it now?
 * Under rxq->lock, the queue entered. A stall lasts as long as the enabling
 * it struck in.
 */
static bool refnic_rxq_stalled(struct refnic_model_rxq *rxq,
			       const struct refnic_rxq_view *view)
{
	struct refnic_model_port *port = rxq->port;

	if (rxq->stalled && rxq->stall_gen == view->gen)
		return true;
	rxq->stalled = false;
	if (!refnic_fault_strikes(port, REFNIC_MODEL_FAULT_STALL_RXQ, rxq->index))
		return false;
	rxq->stalled = true;
	rxq->stall_gen = view->gen;
	rxq->stats.stalls++;
	dev_info_ratelimited(port->dev, "fault: RX queue %u stalled\n",
			     rxq->index);
	return true;
}

/* Put a classified frame into @rxq. */
static void refnic_rxq_put(struct refnic_model_rxq *rxq,
			   const struct refnic_frame *f,
			   const struct refnic_pkt *pkt, u32 flags, u32 hash)
{
	struct refnic_model_port *port = rxq->port;
	u16 split = REFNIC_SPLIT_DISABLED;
	u32 nbufs, hdr_len = 0, signal = 0, flen = f->len;
	struct refnic_rxq_view view;
	int err = 0, ret;

	spin_lock(&rxq->lock);
	if (!refnic_rxq_enter(rxq, &view)) {
		rxq->stats.drop_disabled++;
		atomic64_inc(&port->cnt.rx_drop_bad_queue);
		spin_unlock(&rxq->lock);
		return;
	}
	rxq->stats.arrived++;
	/* Injected fault: a stalled queue loses the frame without a trace
	 * in the rings, and the driver hears nothing.
	 */
	if (unlikely(refnic_rxq_stalled(rxq, &view))) {
		rxq->stats.stall_drops++;
		goto leave;
	}
	/* Indices the driver could not have produced: halt. */
	if (refnic_ring_used(view.tail, view.head) > view.mask + 1 ||
	    refnic_ring_used(view.cq_tail, view.cq_head) > view.cq_mask + 1) {
		err = -EINVAL;
		goto leave;
	}
	if (view.hdr_len) {
		split = pkt->split;
		if (split == REFNIC_SPLIT_DONE && pkt->hdr_len > view.hdr_len)
			split = REFNIC_SPLIT_HDR_TOO_BIG;
		if (split == REFNIC_SPLIT_DONE)
			hdr_len = pkt->hdr_len;
		/* The payload ends where the IP datagram does: a runt's
		 * padding is not payload (a bare ACK leaves its payload
		 * buffer unused).
		 */
		if (hdr_len && pkt->l4_len)
			flen = min(f->len, (u32)pkt->l4_off + pkt->l4_len);
	}
	/* Hardware GRO takes the frame into a context, or closes the
	 * contexts this frame must follow.
	 */
	ret = refnic_rx_gro_put(rxq, &view, f, pkt, flags, hash, hdr_len,
				split, &signal);
	if (ret) {
		if (ret != 1)
			err = ret;
		goto leave;
	}
	/* A split frame takes one descriptor even without payload. */
	nbufs = max(1U, DIV_ROUND_UP(flen - hdr_len, view.buf_len));
	if (refnic_ring_used(view.tail, view.head) < nbufs) {
		rxq->stats.drop_nobuf++;
		goto leave;
	}
	if (refnic_ring_used(view.cq_tail, view.cq_head) > view.cq_mask) {
		rxq->stats.drop_cq_full++;
		goto leave;
	}
	err = refnic_rx_write_bufs(rxq, &view, f, nbufs, hdr_len, flen);
	if (err)
		goto leave;
	/* Injected fault: the buffers are used up, the completion is never
	 * written and no interrupt raised. The frame is lost; the driver
	 * learns it from the next completion's buf_index.
	 */
	if (refnic_fault_strikes(port, REFNIC_MODEL_FAULT_DROP_CMPL, rxq->index)) {
		view.head += nbufs;
		goto leave;
	}
	err = refnic_rx_write_cmpl(rxq, &view, flen, nbufs, hdr_len, split,
				   flags, hash);
	if (err)
		goto leave;
	view.head += nbufs;
	view.cq_tail++;
	rxq->stats.frames++;
	if (flags & REFNIC_RXC_L4_CSUM_OK)
		rxq->stats.csum_ok++;
	if (flags & REFNIC_RXC_L4_CSUM_BAD)
		rxq->stats.csum_bad++;
	if (hdr_len)
		rxq->stats.hdr_split++;
	else if (view.hdr_len)
		rxq->stats.hdr_not_split++;
	signal++;
leave:
	if (err)
		rxq->stats.bad_desc++;
	refnic_rxq_leave(rxq, &view, err != 0);
	spin_unlock(&rxq->lock);

	if (err)
		refnic_rxq_report_halt(rxq, view.head);
	if (signal)
		refnic_vec_signal(port, view.vector, signal);
}

/* Is the frame's L4 checksum verifiable: known lengths, and not a UDP
 * datagram without checksum?
 */
static bool refnic_rx_csum_checkable(const struct refnic_frame *f,
				     const struct refnic_pkt *pkt)
{
	const u8 *check;

	if (!pkt->l4_proto || !pkt->l4_len)
		return false;
	if (pkt->l4_proto != IPPROTO_UDP)
		return true;
	check = f->head + pkt->l4_off + offsetof(struct udphdr, check);
	return get_unaligned((const __sum16 *)check) != 0;
}

/**
 * refnic_rx_deliver - a frame arrives at a port
 * @port: the receiving port
 * @f: the frame; only valid during the call
 */
void refnic_rx_deliver(struct refnic_model_port *port,
		       const struct refnic_frame *f)
{
	u32 rx_ctrl, max_frame, flags = 0, hash = 0, q = 0;
	unsigned int ctx = 0;
	enum refnic_steer_verdict steer;
	struct refnic_pkt pkt;

	if (!refnic_port_mac_enabled(port)) {
		atomic64_inc(&port->cnt.rx_drop_mac_off);
		return;
	}
	max_frame = min_t(u32, READ_ONCE(port->max_frame), REFNIC_MAX_FRAME);
	if (f->len > max_frame) {
		atomic64_inc(&port->cnt.rx_drop_oversize);
		return;
	}
	if (f->head_len < ETH_HLEN) {
		atomic64_inc(&port->cnt.rx_drop_runt);
		return;
	}
	if (!refnic_rx_addr_match(port, f->head)) {
		atomic64_inc(&port->cnt.rx_drop_filtered);
		return;
	}

	refnic_parse(f->head, f->head_len, f->len, &pkt);
	if (pkt.l3_proto == ETH_P_IP)
		flags |= REFNIC_RXC_IPV4;
	else if (pkt.l3_proto == ETH_P_IPV6)
		flags |= REFNIC_RXC_IPV6;
	if (pkt.l4_proto == IPPROTO_TCP)
		flags |= REFNIC_RXC_TCP;
	else if (pkt.l4_proto == IPPROTO_UDP)
		flags |= REFNIC_RXC_UDP;

	rx_ctrl = READ_ONCE(port->rx_ctrl);
	/* Flow rules first; RSS picks the queue of a frame none matched. */
	steer = refnic_steer_classify(port, f->head, &pkt, &q, &ctx);
	if (steer == REFNIC_STEER_DROP)
		return;
	if ((rx_ctrl & REFNIC_RX_CTRL_RSS) && pkt.l3_proto)
		hash = refnic_rss_hash(port, f->head, &pkt, &flags);
	/* A frame whose flow type selects no field is not hashed, and goes
	 * where a hash of 0 goes; a rule's context is used with RSS off too.
	 */
	if (steer == REFNIC_STEER_RSS ||
	    ((rx_ctrl & REFNIC_RX_CTRL_RSS) && pkt.l3_proto &&
	     steer == REFNIC_STEER_NONE)) {
		q += refnic_rss_lookup(port, ctx, hash);
		if (q >= READ_ONCE(port->rss_queues) || q >= REFNIC_MAX_QUEUES) {
			atomic64_inc(&port->cnt.rx_drop_bad_queue);
			return;
		}
		if (steer == REFNIC_STEER_RSS)
			atomic64_inc(&port->cnt.rx_steered);
	}
	if ((rx_ctrl & REFNIC_RX_CTRL_CSUM) && refnic_rx_csum_checkable(f, &pkt)) {
		if (!f->csum_valid && refnic_frame_l4_csum(f, &pkt))
			flags |= REFNIC_RXC_L4_CSUM_BAD;
		else
			flags |= REFNIC_RXC_L4_CSUM_OK;
	}
	refnic_rxq_put(&port->rxq[q], f, &pkt, flags, hash);
}
