// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The TX engine: one work item per TX queue.
 *
 * A TXQ_TAIL doorbell queues the queue's work on refnic_engine_wq, on the
 * next online CPU after the one that rang it: the driver's xmit path goes on
 * while the "hardware" sends, as with a real NIC, and with the RX interrupt
 * of the peer on yet another CPU (its affinity) TX, engine and RX proceed in
 * parallel. The work item serializes the engine per queue; several queues
 * run concurrently.
 *
 * Per frame the engine fetches the descriptor chain (descriptors are cached
 * ahead, up to one maximal chain), reads the frame whole through DMA,
 * writes DONE into the chain's last descriptor, applies the offloads and
 * puts each resulting frame on the link to the peer port, which delivers it
 * into an RX queue synchronously. A run stops after a budget of frames or
 * bytes and requeues itself, so that one busy queue does not hold its CPU.
 *
 * An injected hang (debugfs fault_tx_hang, queue.c) makes the engine leave
 * the queue alone from the next frame boundary on, as a wedged DMA engine
 * would: doorbells are accepted and counted, but no descriptor is consumed
 * and no DONE written. The queue still stops cleanly when ENABLE is
 * cleared, which ends the hang.
 *
 * Faults armed by the control plane (fault.c) strike here too: stall-txq
 * hangs the queue at the start of an engine run, a bad DMA address makes
 * the read of a frame fault, which halts the queue as any bad descriptor
 * does, and wedge-txq wedges the engine inside the queue at the first DONE
 * write-back of a run: it keeps the queue busy and holds the write until
 * the fault is cleared or the card is removed, then does it late
 * (refnic_tx_unwedge()).
 */

#include <linux/slab.h>

#include "model.h"
#include "hw_trace.h"

static const struct refnic_tx_desc *refnic_tx_dc(struct refnic_model_txq *txq,
						 u32 index)
{
	return &txq->dc[index % REFNIC_MAX_TX_DESC_PER_FRAME];
}

/* Make descriptors [view->head, view->head + want) cached. */
static int refnic_tx_fetch(struct refnic_model_txq *txq,
			   const struct refnic_txq_view *view, u32 want)
{
	u32 end = view->head + want;
	u32 index, slot, n;
	int err;

	if (txq->dc_gen != view->gen) {
		txq->dc_gen = view->gen;
		txq->dc_end = view->head;
	}
	txq->dc_start = view->head;
	/* The cache never runs ahead of TAIL, so a queue reset by a new
	 * enable (dc_gen) is the only way for head to pass dc_end.
	 */
	while ((s32)(end - txq->dc_end) > 0) {
		index = txq->dc_end;
		slot = index % REFNIC_MAX_TX_DESC_PER_FRAME;
		n = end - index;
		n = min(n, view->mask + 1 - (index & view->mask));
		n = min(n, REFNIC_MAX_TX_DESC_PER_FRAME - slot);
		err = refnic_dma_read(txq->port, view->ring +
				      (u64)(index & view->mask) * sizeof(txq->dc[0]),
				      &txq->dc[slot], n * sizeof(txq->dc[0]));
		if (err)
			return err;
		trace_refnic_hw_tx_fetch(txq->port, txq->index, index, n);
		txq->dc_end += n;
		txq->stats.desc_fetched += n;
		txq->stats.dma_read_bytes += n * sizeof(txq->dc[0]);
	}
	return 0;
}

/* Where the DONE of the frame at view->head goes. */
static u64 refnic_tx_status_addr(const struct refnic_txq_view *view,
				 u32 ndesc)
{
	u32 last = (view->head + ndesc - 1) & view->mask;

	return view->ring + (u64)last * sizeof(struct refnic_tx_desc) +
	       offsetof(struct refnic_tx_desc, status);
}

/* Injected fault: does the engine wedge holding the DONE of the frame at
 * view->head? Asked once a run, before the frame is sent.
 */
static bool refnic_tx_wedges(struct refnic_model_txq *txq,
			     const struct refnic_txq_view *view, u32 ndesc)
{
	if (!txq->wedge_check)
		return false;
	txq->wedge_check = false;
	if (!refnic_fault_strikes(txq->port, REFNIC_MODEL_FAULT_WEDGE_TXQ,
				  txq->index))
		return false;
	txq->wedge_addr = refnic_tx_status_addr(view, ndesc);
	txq->wedge_ndesc = ndesc;
	return true;
}

/* The frame at view->head is consumed: tell the driver. */
static int refnic_tx_done(struct refnic_model_txq *txq,
			  struct refnic_txq_view *view, u32 ndesc)
{
	u64 addr = refnic_tx_status_addr(view, ndesc);
	int err;

	if (refnic_tx_wedges(txq, view, ndesc))
		return -EINPROGRESS;

	/* DONE lets the driver unmap and free the frame's buffers: every
	 * read of them must be complete before the store is visible.
	 */
	dma_mb();
	err = refnic_dma_write_le16(txq->port, addr, REFNIC_TXD_STATUS_DONE);
	if (err)
		return err;
	trace_refnic_hw_tx_done(txq->port, txq->index, view->head,
				ndesc);
	txq->stats.desc_written++;
	txq->stats.dma_write_bytes += sizeof(__le16);
	txq->stats.frames++;
	view->head += ndesc;
	return 0;
}

/* Apply the offloads of a frame read whole into @buf (or, cut through,
 * only its headers, the rest in @sg), and send it, on the wire fast path
 * if @fast. Return: 0, or -EINVAL when its offload request is bad (none of
 * it sent).
 */
static int refnic_tx_send(struct refnic_model_txq *txq,
			  const struct refnic_tx_desc *first, u8 *buf, u32 len,
			  const struct refnic_tx_sg *sg, bool fast)
{
	struct refnic_model_port *port = txq->port;
	u16 flags = le16_to_cpu(first->flags);
	struct refnic_frame f = {};
	struct refnic_gso gso;

	if (flags & (REFNIC_TXD_TSO | REFNIC_TXD_USO)) {
		if (refnic_gso_init(&gso, buf, len, sg,
				    txq->seg_hdr + REFNIC_TX_BUF_ALIGN, first)) {
			txq->stats.errors++;
			return -EINVAL;
		}
		if (fast)
			gso.defer_csum = true;
		while (refnic_gso_next(&gso, &f)) {
			refnic_link_xmit(port, &f);
			txq->stats.segments++;
			/* Joined a GRO run, or dropped: nobody used it. */
			if (gso.csum_pending)
				txq->stats.csum_elided++;
		}
		return 0;
	}

	if ((flags & REFNIC_TXD_CSUM) &&
	    refnic_tx_csum(buf, len, le16_to_cpu(first->csum_start),
			   le16_to_cpu(first->csum_offset))) {
		txq->stats.errors++;
		return -EINVAL;
	}
	f.head = buf;
	f.head_len = len;
	f.pad = len < ETH_ZLEN ? ETH_ZLEN - len : 0;
	f.len = len + f.pad;
	refnic_link_xmit(port, &f);
	txq->stats.segments++;
	return 0;
}

/*
 * The wire fast path (docs/datapath.md): TSO segments' TCP checksums are
 * computed only when something reads their headers, and TSO frames are cut
 * through: payload goes from the sender's buffers straight to where the
 * peer's queue puts it (a GRO run's packet buffer, or the RX buffers), not
 * through the engine's frame buffer first, and DONE is written once the
 * last segment has left. Decided once a frame, and taken only where it
 * saves a pass (the peer merges segments: hardware GRO) and nothing could
 * tell the difference: no fault armed on either port, no bus cost model
 * charging each read where it happens, no link model shaping frames, no
 * tracepoint showing when DONE is written. Off unless asked (debugfs).
 */
static bool refnic_tx_fast(const struct refnic_model_txq *txq)
{
	struct refnic_model_port *port = txq->port;

	return READ_ONCE(port->wire_fast) &&
	       (READ_ONCE(port->peer->rx_ctrl) & REFNIC_RX_CTRL_HW_GRO) &&
	       !atomic_read(&port->faults_set) &&
	       !atomic_read(&port->peer->faults_set) &&
	       !refnic_pcie_on(port->card) && !READ_ONCE(port->link.shaped) &&
	       !trace_refnic_hw_tx_done_enabled();
}

/* A TCP TSO frame whose headers fit the engine's header buffer. */
static bool refnic_tx_cut_through(u16 flags, u32 hdr_len, u32 len)
{
	return (flags & (REFNIC_TXD_TSO | REFNIC_TXD_USO)) == REFNIC_TXD_TSO &&
	       hdr_len && hdr_len <= REFNIC_MODEL_MAX_HDR && hdr_len < len;
}

/* Send the TSO frame at view->head cut through; as refnic_tx_frame(). */
static int refnic_tx_frame_cut(struct refnic_model_txq *txq,
			       struct refnic_txq_view *view,
			       const struct refnic_tx_desc *first, u32 ndesc,
			       u32 hdr_len, u32 len, u32 *bytes)
{
	struct refnic_tx_sg *sg = &txq->sg;
	const struct refnic_tx_desc *d;
	u32 i;
	int err;

	sg->port = txq->port;
	sg->n = 0;
	for (i = 0; i < ndesc; i++) {
		d = refnic_tx_dc(txq, view->head + i);
		if (!d->len)
			continue;
		sg->addr[sg->n] = le64_to_cpu(d->addr);
		sg->len[sg->n] = le32_to_cpu(d->len);
		/* A buffer the whole read would fault on halts the queue
		 * before any segment leaves, as it does then.
		 */
		if (!refnic_dma_readable(txq->port, sg->addr[sg->n],
					 sg->len[sg->n]))
			return -EFAULT;
		sg->n++;
	}
	err = refnic_sg_read(sg, 0, txq->buf + REFNIC_TX_BUF_ALIGN, hdr_len);
	if (err)
		return err;
	txq->stats.dma_read_bytes += len;
	*bytes = len;
	/* A wedge holds this frame's DONE before any of it leaves, as it
	 * does when the frame is read whole first.
	 */
	if (refnic_tx_wedges(txq, view, ndesc))
		return -EINPROGRESS;
	if (!refnic_tx_send(txq, first, txq->buf + REFNIC_TX_BUF_ALIGN, len,
			    sg, true))
		txq->stats.cut_through++;
	/* DONE lets the driver free the buffers: only now are they read. */
	return refnic_tx_done(txq, view, ndesc);
}

static void refnic_tx_throttle(struct refnic_model_txq *txq, u64 wait_ns)
{
	WRITE_ONCE(txq->throttled, true);
	txq->stats.throttled++;
	hrtimer_start(&txq->throttle, ns_to_ktime(wait_ns), HRTIMER_MODE_REL);
}

/**
 * refnic_tx_frame - send the frame at the queue's head
 * @txq: the queue
 * @view: the run's view; head advances past the frame
 * @bytes: bytes read for it
 *
 * Return: 0 when the frame was consumed (sent or dropped), -EAGAIN when it
 * cannot go yet (not all of its descriptors are posted, or the rate limit
 * holds it), -EINPROGRESS when the engine wedged on it (wedge-txq), another
 * error for a bad descriptor: the queue must halt.
 */
static int refnic_tx_frame(struct refnic_model_txq *txq,
			   struct refnic_txq_view *view, u32 *bytes)
{
	struct refnic_model_port *port = txq->port;
	u32 avail = refnic_ring_used(view->tail, view->head);
	u32 want = min_t(u32, avail, REFNIC_MAX_TX_DESC_PER_FRAME);
	const struct refnic_tx_desc *first, *d;
	u32 ndesc, i, len, off, limit, wire;
	u16 flags, hdr_len, mss;
	u64 total = 0, wait_ns, addr;
	bool bad_addr, fast;
	int err;

	*bytes = 0;
	/* A TAIL beyond the ring is a driver bug the device cannot follow. */
	if (avail > view->mask + 1)
		return -EINVAL;
	err = refnic_tx_fetch(txq, view, want);
	if (err)
		return err;
	for (ndesc = 1; ndesc <= want; ndesc++) {
		d = refnic_tx_dc(txq, view->head + ndesc - 1);
		total += le32_to_cpu(d->len);
		if (le16_to_cpu(d->flags) & REFNIC_TXD_EOP)
			break;
	}
	if (ndesc > want)
		return want == REFNIC_MAX_TX_DESC_PER_FRAME ? -E2BIG : -EAGAIN;

	first = refnic_tx_dc(txq, view->head);
	flags = le16_to_cpu(first->flags);
	hdr_len = le16_to_cpu(first->hdr_len);
	mss = le16_to_cpu(first->mss);

	/* Frames the MAC does not send are consumed all the same. */
	if (!refnic_port_mac_enabled(port)) {
		txq->stats.drop_mac_off++;
		return refnic_tx_done(txq, view, ndesc);
	}
	if (!refnic_link_up(port)) {
		txq->stats.drop_link_down++;
		return refnic_tx_done(txq, view, ndesc);
	}
	limit = flags & (REFNIC_TXD_TSO | REFNIC_TXD_USO) ?
		REFNIC_TX_BUF_SIZE : REFNIC_MAX_FRAME;
	if (total < ETH_HLEN || total > limit) {
		txq->stats.errors++;
		return refnic_tx_done(txq, view, ndesc);
	}
	len = total;

	if (flags & (REFNIC_TXD_TSO | REFNIC_TXD_USO))
		wire = refnic_gso_wire_bytes(len, hdr_len, mss);
	else
		wire = max_t(u32, len, ETH_ZLEN);
	/* The card's PCIe link has its own bandwidth (pcie.c); asked first,
	 * since the link's shaper takes the frame's tokens when it admits.
	 */
	if (refnic_pcie_on(port->card) && !refnic_pcie_admit(port, &wait_ns)) {
		refnic_tx_throttle(txq, wait_ns);
		return -EAGAIN;
	}
	if (!refnic_link_admit(port, wire, &wait_ns)) {
		refnic_tx_throttle(txq, wait_ns);
		return -EAGAIN;
	}

	fast = refnic_tx_fast(txq);
	if (fast && refnic_tx_cut_through(flags, hdr_len, len))
		return refnic_tx_frame_cut(txq, view, first, ndesc, hdr_len, len,
					   bytes);

	/* Injected fault: the first buffer's address comes with a bit
	 * flipped, which no RAM answers: the read faults as a master abort
	 * would, and the queue halts.
	 */
	bad_addr = refnic_fault_strikes(port, REFNIC_MODEL_FAULT_BAD_DMA, txq->index);
	off = REFNIC_TX_BUF_ALIGN;
	for (i = 0; i < ndesc; i++) {
		d = refnic_tx_dc(txq, view->head + i);
		if (!d->len)
			continue;
		addr = le64_to_cpu(d->addr);
		if (bad_addr) {
			addr ^= BIT_ULL(REFNIC_MODEL_FAULT_DMA_BIT);
			bad_addr = false;
		}
		err = refnic_dma_read(port, addr, txq->buf + off,
				      le32_to_cpu(d->len));
		if (err)
			return err;
		off += le32_to_cpu(d->len);
	}
	txq->stats.dma_read_bytes += len;
	*bytes = len;

	/* Offloads work on the copy: DONE can go before the frame does. */
	err = refnic_tx_done(txq, view, ndesc);
	if (err)
		return err;
	refnic_tx_send(txq, first, txq->buf + REFNIC_TX_BUF_ALIGN, len, NULL,
		       fast);
	return 0;
}

static void refnic_tx_work(struct work_struct *work)
{
	struct refnic_model_txq *txq = container_of(work, struct refnic_model_txq,
						    work);
	struct refnic_model_port *port = txq->port;
	u32 frames = 0, bytes = 0, done = 0, len;
	struct refnic_txq_view view;
	bool halt = false, more = false, wedged = false;
	u64 start;
	int err;

	/* Wedged inside the queue (wedge-txq): nothing runs on it until the
	 * wedge is to end, and then only the held write and the leave.
	 */
	if (READ_ONCE(txq->wedged)) {
		if (!refnic_txq_unwedge_due(txq)) {
			txq->stats.wedge_stalls++;
			return;
		}
		refnic_tx_unwedge(txq);
		/* Serve what was rung meanwhile, if the queue still runs. */
		queue_work(refnic_engine_wq, &txq->work);
		return;
	}

	/* An armed stall-txq fault hangs the queue as fault_tx_hang does. */
	if (!READ_ONCE(txq->hang) &&
	    refnic_fault_strikes(port, REFNIC_MODEL_FAULT_STALL_TXQ, txq->index))
		refnic_txq_fault_hang(txq);

	/* An injected hang (fault_tx_hang): doorbells are taken, nothing is
	 * consumed, no DONE is written, no interrupt raised.
	 */
	if (READ_ONCE(txq->hang)) {
		txq->stats.hang_stalls++;
		return;
	}
	if (!refnic_txq_enter(txq, &view))
		return;
	start = ktime_get_ns();
	txq->stats.runs++;
	txq->wedge_check = true;

	while (view.head != view.tail) {
		if (frames >= REFNIC_TX_BUDGET_FRAMES ||
		    bytes >= REFNIC_TX_BUDGET_BYTES) {
			more = true;
			break;
		}
		/* Stop promptly when the driver disables the queue, and at
		 * the first frame boundary of an injected hang.
		 */
		if (!READ_ONCE(txq->gate.enabled))
			break;
		if (READ_ONCE(txq->hang)) {
			txq->stats.hang_stalls++;
			break;
		}
		err = refnic_tx_frame(txq, &view, &len);
		if (err == -EAGAIN)
			break;
		if (err == -EINPROGRESS) {
			txq->wedge_view = view;
			refnic_txq_wedge(txq);
			wedged = true;
			break;
		}
		if (err) {
			halt = true;
			txq->stats.bad_desc++;
			break;
		}
		frames++;
		bytes += len;
		done++;
	}
	/* A wedged engine stays inside the queue. */
	if (!wedged)
		refnic_txq_leave(txq, &view, halt);
	txq->stats.busy_ns += ktime_get_ns() - start;
	if (wedged)
		return;

	if (halt) {
		dev_warn_ratelimited(port->dev, "TX queue %u halted: bad descriptor at %u\n",
				     txq->index, view.head);
		refnic_port_raise_misc(port, REFNIC_MISC_ERROR);
	}
	refnic_vec_signal(port, view.vector, done);
	/* The burst is over: with both GRO timers 0, hardware GRO holds
	 * nothing back past it.
	 */
	if (frames && port->peer)
		refnic_rx_gro_flush_port(port->peer);
	if (more)
		queue_work(refnic_engine_wq, &txq->work);
}

static enum hrtimer_restart refnic_tx_throttle_fn(struct hrtimer *timer)
{
	struct refnic_model_txq *txq = container_of(timer, struct refnic_model_txq,
						    throttle);

	WRITE_ONCE(txq->throttled, false);
	queue_work(refnic_engine_wq, &txq->work);
	return HRTIMER_NORESTART;
}

/* Doorbell: run the queue's engine on another CPU than the caller's. */
void refnic_tx_kick(struct refnic_model_txq *txq)
{
	unsigned int cpu;

	/* The throttle timer restarts the engine; a doorbell cannot make the
	 * rate limit pass sooner.
	 */
	if (READ_ONCE(txq->throttled))
		return;
	cpu = cpumask_next(raw_smp_processor_id(), cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	queue_work_on(cpu, refnic_engine_wq, &txq->work);
}

void refnic_tx_init(struct refnic_model_txq *txq)
{
	INIT_WORK(&txq->work, refnic_tx_work);
	hrtimer_setup(&txq->throttle, refnic_tx_throttle_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
}

/**
 * refnic_tx_unwedge - end a wedge: the held write lands, the engine leaves
 * @txq: the queue, its engine wedged inside
 *
 * The DONE write-back the engine held goes to the address it had when it
 * wedged, whatever the driver did with that memory since: a driver that
 * freed the ring after a stop and a reset that never completed finds it
 * written (a use after free KASAN reports). Then the engine leaves the
 * queue; its progress commits only if the queue was not enabled anew or
 * reset meanwhile. From the queue's work, or with the work stopped.
 */
void refnic_tx_unwedge(struct refnic_model_txq *txq)
{
	struct refnic_txq_view view = txq->wedge_view;

	if (!refnic_dma_write_le16(txq->port, txq->wedge_addr,
				   REFNIC_TXD_STATUS_DONE)) {
		trace_refnic_hw_tx_done(txq->port, txq->index, view.head,
					txq->wedge_ndesc);
		txq->stats.desc_written++;
		txq->stats.dma_write_bytes += sizeof(__le16);
	}
	txq->stats.late_writes++;
	view.head += txq->wedge_ndesc;
	refnic_txq_leave(txq, &view, false);
	dev_info(txq->port->dev,
		 "fault: TX engine unwedged from queue %u: its held DONE write-back landed now\n",
		 txq->index);
}

/* Wait until the engine is off a queue for good; the queue is disabled. A
 * wedged engine leaves it here, its held write done (card removal).
 */
void refnic_tx_stop(struct refnic_model_txq *txq)
{
	/* The work may arm the timer and the timer queue the work: cancel
	 * the work again once the timer cannot fire.
	 */
	cancel_work_sync(&txq->work);
	hrtimer_cancel(&txq->throttle);
	cancel_work_sync(&txq->work);
	WRITE_ONCE(txq->throttled, false);
	if (READ_ONCE(txq->wedged))
		refnic_tx_unwedge(txq);
}
