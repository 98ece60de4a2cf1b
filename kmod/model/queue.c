// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Queue registers and the enable/stop handshake.
 *
 * The driver programs a disabled queue and sets ENABLE; the device latches
 * the ring configuration then and starts from index 0 (HEAD, and for RX the
 * completion producer, whose phase starts at 1). TAIL and RXCQ_HEAD are the
 * driver's free-running indices; they read 0 from the moment ENABLE is
 * cleared, so the driver may post buffers before or after enabling the
 * queue again. A configuration the device cannot use (ring base 0, a size
 * that is not a power of two in [REFNIC_MIN_RING_SIZE,
 * REFNIC_MAX_RING_SIZE], RX buffer length 0) halts the queue at enable with
 * STATUS.ERROR and the misc vector's ERROR cause, as does a bad descriptor
 * later. Clearing ENABLE stops the engine on the queue and clears ERROR at
 * the next enable.
 *
 * Clearing ENABLE is a posted write: it cannot wait for the engine, which
 * may be in the middle of a frame on another CPU. The queue reads STOPPED
 * once the engine has left it (struct refnic_qgate); the engine does no DMA
 * on a queue it is not inside of, so after STOPPED the driver may free the
 * rings and buffers.
 *
 * Doorbells are stored with release semantics and loaded with acquire, as
 * writel() orders the driver's descriptor writes before the doorbell: the
 * engine sees every descriptor the driver wrote before ringing.
 *
 * Fault injection: a TX queue can be hung on purpose (debugfs
 * fault_tx_hang). The engine then consumes nothing from it until the
 * driver resets the queue: clearing ENABLE (or CTRL.RESET) ends the hang,
 * and the queue reads STOPPED as usual, since the engine is not inside it.
 * A hang armed on a disabled queue takes effect once the queue is enabled.
 *
 * A wedge (the control plane's wedge-txq) is worse: the engine stops inside
 * the queue, its gate busy, holding the DONE write-back of a frame. Nothing
 * the driver writes gets it out, so the queue never reads STOPPED and the
 * port never RESET_DONE; it ends when the fault is cleared or the card is
 * removed, and the held write lands then (tx.c).
 */

#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/log2.h>

#include "model.h"
#include "hw_trace.h"

static bool refnic_ring_size_ok(u32 size)
{
	return is_power_of_2(size) && size >= REFNIC_MIN_RING_SIZE &&
	       size <= REFNIC_MAX_RING_SIZE;
}

static u32 refnic_gate_status(struct refnic_qgate *gate)
{
	unsigned long flags;
	u32 status = 0;

	spin_lock_irqsave(&gate->lock, flags);
	if (!gate->enabled && !gate->busy)
		status |= REFNIC_Q_STATUS_STOPPED;
	if (gate->halted)
		status |= REFNIC_Q_STATUS_ERROR;
	spin_unlock_irqrestore(&gate->lock, flags);
	return status;
}

static bool refnic_gate_busy(struct refnic_qgate *gate)
{
	unsigned long flags;
	bool busy;

	spin_lock_irqsave(&gate->lock, flags);
	busy = gate->busy;
	spin_unlock_irqrestore(&gate->lock, flags);
	return busy;
}

/* Called with gate->lock held. */
static void refnic_gate_open(struct refnic_qgate *gate)
{
	gate->enabled = true;
	gate->halted = false;
	gate->gen++;
}

/* ---- TX ------------------------------------------------------------------ */

/* Called with txq->gate.lock held: the queue is reset, an injected hang
 * ends. Returns whether there was one.
 */
static bool refnic_txq_unhang(struct refnic_model_txq *txq)
{
	if (!txq->hang)
		return false;
	WRITE_ONCE(txq->hang, false);
	txq->stats.hang_cleared++;
	return true;
}

/**
 * refnic_txq_fault_hang - hang a TX queue (fault injection)
 * @txq: the queue
 *
 * From the next frame boundary on, the engine consumes nothing from the
 * queue until ENABLE is cleared or the port is reset. Any context.
 */
void refnic_txq_fault_hang(struct refnic_model_txq *txq)
{
	unsigned long flags;
	bool armed = false;

	spin_lock_irqsave(&txq->gate.lock, flags);
	if (!txq->hang) {
		WRITE_ONCE(txq->hang, true);
		txq->stats.hang_injected++;
		armed = true;
	}
	spin_unlock_irqrestore(&txq->gate.lock, flags);
	if (armed)
		dev_info(txq->port->dev, "fault: TX queue %u hung\n",
			 txq->index);
}

/**
 * refnic_txq_fault_clear - end an injected hang without a queue reset
 * @txq: the queue
 *
 * The engine resumes where it stopped: doorbells taken during the hang are
 * served now. Process context.
 */
void refnic_txq_fault_clear(struct refnic_model_txq *txq)
{
	unsigned long flags;
	bool cleared, kick;

	spin_lock_irqsave(&txq->gate.lock, flags);
	cleared = refnic_txq_unhang(txq);
	kick = cleared && txq->gate.enabled && !txq->gate.halted;
	spin_unlock_irqrestore(&txq->gate.lock, flags);
	if (cleared)
		dev_info(txq->port->dev, "fault: TX queue %u hang cleared\n",
			 txq->index);
	if (kick)
		refnic_tx_kick(txq);
}

static void refnic_txq_ctrl(struct refnic_model_txq *txq, u32 val)
{
	struct refnic_qgate *gate = &txq->gate;
	bool kick = false, error = false, unhung = false;
	unsigned long flags;

	spin_lock_irqsave(&gate->lock, flags);
	WRITE_ONCE(txq->ctrl, val);
	if ((val & REFNIC_Q_CTRL_ENABLE) && !gate->enabled) {
		txq->ring = (u64)txq->base_hi << 32 | txq->base_lo;
		txq->ring_size = txq->size;
		txq->vector = FIELD_GET(REFNIC_Q_CTRL_VECTOR, val);
		txq->head = 0;
		refnic_gate_open(gate);
		if (!txq->ring || !refnic_ring_size_ok(txq->ring_size)) {
			gate->halted = true;
			error = true;
		}
		kick = !error && READ_ONCE(txq->tail);
	} else if (!(val & REFNIC_Q_CTRL_ENABLE) && gate->enabled) {
		gate->enabled = false;
		WRITE_ONCE(txq->tail, 0);
		unhung = refnic_txq_unhang(txq);
	}
	spin_unlock_irqrestore(&gate->lock, flags);

	if (unhung)
		dev_info(txq->port->dev,
			 "fault: TX queue %u hang cleared by queue disable\n",
			 txq->index);
	if (error)
		refnic_port_raise_misc(txq->port, REFNIC_MISC_ERROR);
	if (kick)
		refnic_tx_kick(txq);
}

static u32 refnic_txq_read(struct refnic_model_txq *txq, u32 reg)
{
	switch (reg) {
	case REFNIC_REG_TXQ_BASE_LO(0):
		return READ_ONCE(txq->base_lo);
	case REFNIC_REG_TXQ_BASE_HI(0):
		return READ_ONCE(txq->base_hi);
	case REFNIC_REG_TXQ_SIZE(0):
		return READ_ONCE(txq->size);
	case REFNIC_REG_TXQ_TAIL(0):
		return READ_ONCE(txq->tail);
	case REFNIC_REG_TXQ_HEAD(0):
		return READ_ONCE(txq->head);
	case REFNIC_REG_TXQ_CTRL(0):
		return READ_ONCE(txq->ctrl);
	case REFNIC_REG_TXQ_STATUS(0):
		return refnic_gate_status(&txq->gate);
	}
	return 0;
}

static void refnic_txq_write(struct refnic_model_txq *txq, u32 reg, u32 val)
{
	struct refnic_model_port *port = txq->port;

	switch (reg) {
	case REFNIC_REG_TXQ_BASE_LO(0):
		WRITE_ONCE(txq->base_lo, val);
		break;
	case REFNIC_REG_TXQ_BASE_HI(0):
		WRITE_ONCE(txq->base_hi, val);
		break;
	case REFNIC_REG_TXQ_SIZE(0):
		WRITE_ONCE(txq->size, val);
		break;
	case REFNIC_REG_TXQ_TAIL(0):
		this_cpu_inc(port->mmio->tx_doorbells[txq->index]);
		trace_refnic_hw_doorbell(port, txq->index,
					 REFNIC_TRACE_DB_TXQ_TAIL, val);
		/* Pairs with refnic_txq_enter(): descriptors first. */
		smp_store_release(&txq->tail, val);
		if (READ_ONCE(txq->gate.enabled))
			refnic_tx_kick(txq);
		break;
	case REFNIC_REG_TXQ_CTRL(0):
		refnic_txq_ctrl(txq, val);
		break;
	}
}

/**
 * refnic_txq_enter - the engine starts a run on a TX queue
 * @txq: the queue
 * @view: its rings and indices, for the run
 *
 * Return: false when the queue is disabled or halted: no DMA on it then.
 */
bool refnic_txq_enter(struct refnic_model_txq *txq,
		      struct refnic_txq_view *view)
{
	struct refnic_qgate *gate = &txq->gate;
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&gate->lock, flags);
	ok = gate->enabled && !gate->halted;
	if (ok) {
		gate->busy = true;
		view->ring = txq->ring;
		view->mask = txq->ring_size - 1;
		view->vector = txq->vector;
		view->head = txq->head;
		/* Pairs with the TXQ_TAIL doorbell. */
		view->tail = smp_load_acquire(&txq->tail);
		view->gen = gate->gen;
	}
	spin_unlock_irqrestore(&gate->lock, flags);
	return ok;
}

/**
 * refnic_txq_leave - the engine ends a run on a TX queue
 * @txq: the queue
 * @view: the run's progress, committed unless the queue was enabled anew
 * @halt: a bad descriptor was found: halt the queue (STATUS.ERROR)
 *
 * Also the end of a wedge: the engine is out of the queue.
 */
void refnic_txq_leave(struct refnic_model_txq *txq,
		      const struct refnic_txq_view *view, bool halt)
{
	struct refnic_qgate *gate = &txq->gate;
	unsigned long flags;

	spin_lock_irqsave(&gate->lock, flags);
	gate->busy = false;
	WRITE_ONCE(txq->wedged, false);
	txq->unwedge = false;
	if (view->gen == gate->gen) {
		WRITE_ONCE(txq->head, view->head);
		if (halt)
			gate->halted = true;
	}
	spin_unlock_irqrestore(&gate->lock, flags);
}

/**
 * refnic_txq_wedge - the engine wedges inside a TX queue (wedge-txq)
 * @txq: the queue, entered by the engine, which saved what it holds in
 *	@txq->wedge_view, @txq->wedge_addr and @txq->wedge_ndesc
 *
 * The engine does not leave: the gate stays busy, so the queue never reads
 * STOPPED and the port never RESET_DONE, whatever the driver writes. Engine
 * only.
 */
void refnic_txq_wedge(struct refnic_model_txq *txq)
{
	unsigned long flags;

	spin_lock_irqsave(&txq->gate.lock, flags);
	WRITE_ONCE(txq->wedged, true);
	txq->unwedge = false;
	spin_unlock_irqrestore(&txq->gate.lock, flags);
	txq->stats.wedges++;
	dev_info(txq->port->dev, "fault: TX engine wedged inside queue %u\n",
		 txq->index);
}

/* Is the end of the wedge asked for? Engine only. */
bool refnic_txq_unwedge_due(struct refnic_model_txq *txq)
{
	unsigned long flags;
	bool due;

	spin_lock_irqsave(&txq->gate.lock, flags);
	due = txq->unwedge;
	spin_unlock_irqrestore(&txq->gate.lock, flags);
	return due;
}

/**
 * refnic_txq_unwedge_request - end a wedge (wedge-txq cleared)
 * @txq: the queue
 *
 * The engine's next run does the held write and leaves the queue; nothing
 * happens when the engine is not wedged there. Process context.
 */
void refnic_txq_unwedge_request(struct refnic_model_txq *txq)
{
	unsigned long flags;
	bool wedged;

	spin_lock_irqsave(&txq->gate.lock, flags);
	wedged = txq->wedged;
	if (wedged)
		txq->unwedge = true;
	spin_unlock_irqrestore(&txq->gate.lock, flags);
	if (wedged)
		queue_work(refnic_engine_wq, &txq->work);
}

/* ---- RX ------------------------------------------------------------------ */

static void refnic_rxq_ctrl(struct refnic_model_rxq *rxq, u32 val)
{
	struct refnic_qgate *gate = &rxq->gate;
	bool error = false, changed = false;
	unsigned long flags;

	spin_lock_irqsave(&gate->lock, flags);
	WRITE_ONCE(rxq->ctrl, val);
	if ((val & REFNIC_Q_CTRL_ENABLE) && !gate->enabled) {
		rxq->ring = (u64)rxq->base_hi << 32 | rxq->base_lo;
		rxq->cq = (u64)rxq->cq_base_hi << 32 | rxq->cq_base_lo;
		rxq->ring_size = rxq->size;
		rxq->cq_ring_size = rxq->cq_size;
		rxq->buf_size = rxq->buf_len;
		/* Header split needs a header buffer to split into. */
		rxq->hdr_size = (val & REFNIC_Q_CTRL_HDR_SPLIT) ?
				rxq->hdr_len : 0;
		rxq->vector = FIELD_GET(REFNIC_Q_CTRL_VECTOR, val);
		rxq->head = 0;
		rxq->cq_tail = 0;
		refnic_gate_open(gate);
		changed = true;
		if (!rxq->ring || !refnic_ring_size_ok(rxq->ring_size) ||
		    !rxq->cq || !refnic_ring_size_ok(rxq->cq_ring_size) ||
		    !rxq->buf_size || rxq->buf_size > REFNIC_RXQ_BUF_LEN_MAX) {
			gate->halted = true;
			error = true;
		}
	} else if (!(val & REFNIC_Q_CTRL_ENABLE) && gate->enabled) {
		gate->enabled = false;
		WRITE_ONCE(rxq->tail, 0);
		WRITE_ONCE(rxq->cq_head, 0);
		changed = true;
	}
	spin_unlock_irqrestore(&gate->lock, flags);

	if (changed)
		refnic_rx_gro_update(rxq);

	if (error)
		refnic_port_raise_misc(rxq->port, REFNIC_MISC_ERROR);
}

static u32 refnic_rxq_read(struct refnic_model_rxq *rxq, u32 reg)
{
	switch (reg) {
	case REFNIC_REG_RXQ_BASE_LO(0):
		return READ_ONCE(rxq->base_lo);
	case REFNIC_REG_RXQ_BASE_HI(0):
		return READ_ONCE(rxq->base_hi);
	case REFNIC_REG_RXQ_SIZE(0):
		return READ_ONCE(rxq->size);
	case REFNIC_REG_RXQ_TAIL(0):
		return READ_ONCE(rxq->tail);
	case REFNIC_REG_RXQ_HEAD(0):
		return READ_ONCE(rxq->head);
	case REFNIC_REG_RXQ_CTRL(0):
		return READ_ONCE(rxq->ctrl);
	case REFNIC_REG_RXQ_STATUS(0):
		return refnic_gate_status(&rxq->gate);
	case REFNIC_REG_RXQ_BUF_LEN(0):
		return READ_ONCE(rxq->buf_len);
	case REFNIC_REG_RXQ_HDR_LEN(0):
		return READ_ONCE(rxq->hdr_len);
	case REFNIC_REG_RXCQ_BASE_LO(0):
		return READ_ONCE(rxq->cq_base_lo);
	case REFNIC_REG_RXCQ_BASE_HI(0):
		return READ_ONCE(rxq->cq_base_hi);
	case REFNIC_REG_RXCQ_SIZE(0):
		return READ_ONCE(rxq->cq_size);
	case REFNIC_REG_RXCQ_HEAD(0):
		return READ_ONCE(rxq->cq_head);
	}
	return 0;
}

static void refnic_rxq_write(struct refnic_model_rxq *rxq, u32 reg, u32 val)
{
	struct refnic_model_port *port = rxq->port;

	switch (reg) {
	case REFNIC_REG_RXQ_BASE_LO(0):
		WRITE_ONCE(rxq->base_lo, val);
		break;
	case REFNIC_REG_RXQ_BASE_HI(0):
		WRITE_ONCE(rxq->base_hi, val);
		break;
	case REFNIC_REG_RXQ_SIZE(0):
		WRITE_ONCE(rxq->size, val);
		break;
	case REFNIC_REG_RXQ_TAIL(0):
		/* Buffers are looked for when a frame arrives: nothing to
		 * kick. A frame that found none was dropped and counted.
		 */
		this_cpu_inc(port->mmio->rx_doorbells[rxq->index]);
		trace_refnic_hw_doorbell(port, rxq->index,
					 REFNIC_TRACE_DB_RXQ_TAIL, val);
		/* Pairs with refnic_rxq_enter(): descriptors first. */
		smp_store_release(&rxq->tail, val);
		break;
	case REFNIC_REG_RXQ_CTRL(0):
		refnic_rxq_ctrl(rxq, val);
		break;
	case REFNIC_REG_RXQ_BUF_LEN(0):
		WRITE_ONCE(rxq->buf_len, val);
		break;
	case REFNIC_REG_RXQ_HDR_LEN(0):
		WRITE_ONCE(rxq->hdr_len, val);
		break;
	case REFNIC_REG_RXCQ_BASE_LO(0):
		WRITE_ONCE(rxq->cq_base_lo, val);
		break;
	case REFNIC_REG_RXCQ_BASE_HI(0):
		WRITE_ONCE(rxq->cq_base_hi, val);
		break;
	case REFNIC_REG_RXCQ_SIZE(0):
		WRITE_ONCE(rxq->cq_size, val);
		break;
	case REFNIC_REG_RXCQ_HEAD(0):
		this_cpu_inc(port->mmio->cq_doorbells[rxq->index]);
		trace_refnic_hw_doorbell(port, rxq->index,
					 REFNIC_TRACE_DB_RXCQ_HEAD, val);
		/* Pairs with refnic_rxq_enter(): the driver is done
		 * reading the completions it returns.
		 */
		smp_store_release(&rxq->cq_head, val);
		break;
	}
}

/**
 * refnic_rxq_enter - the engine starts delivering a frame into an RX queue
 * @rxq: the queue; the caller holds @rxq->lock
 * @view: its rings and indices, for the delivery
 *
 * Return: false when the queue is disabled or halted: no DMA on it then.
 */
bool refnic_rxq_enter(struct refnic_model_rxq *rxq,
		      struct refnic_rxq_view *view)
{
	struct refnic_qgate *gate = &rxq->gate;
	unsigned long flags;
	bool ok;

	lockdep_assert_held(&rxq->lock);
	spin_lock_irqsave(&gate->lock, flags);
	ok = gate->enabled && !gate->halted;
	if (ok) {
		gate->busy = true;
		view->ring = rxq->ring;
		view->cq = rxq->cq;
		view->mask = rxq->ring_size - 1;
		view->cq_mask = rxq->cq_ring_size - 1;
		view->buf_len = rxq->buf_size;
		view->hdr_len = rxq->hdr_size;
		view->vector = rxq->vector;
		view->head = rxq->head;
		/* Pairs with the RXQ_TAIL doorbell. */
		view->tail = smp_load_acquire(&rxq->tail);
		view->cq_tail = rxq->cq_tail;
		/* Pairs with the RXCQ_HEAD doorbell. */
		view->cq_head = smp_load_acquire(&rxq->cq_head);
		view->gen = gate->gen;
	}
	spin_unlock_irqrestore(&gate->lock, flags);
	return ok;
}

/**
 * refnic_rxq_leave - the engine is done with an RX queue
 * @rxq: the queue; the caller holds @rxq->lock
 * @view: the delivery's progress, committed unless the queue was enabled
 *	anew meanwhile
 * @halt: a bad descriptor was found: halt the queue (STATUS.ERROR)
 */
void refnic_rxq_leave(struct refnic_model_rxq *rxq,
		      const struct refnic_rxq_view *view, bool halt)
{
	struct refnic_qgate *gate = &rxq->gate;
	unsigned long flags;

	spin_lock_irqsave(&gate->lock, flags);
	gate->busy = false;
	if (view->gen == gate->gen) {
		WRITE_ONCE(rxq->head, view->head);
		rxq->cq_tail = view->cq_tail;
		if (halt)
			gate->halted = true;
	}
	spin_unlock_irqrestore(&gate->lock, flags);
}

/* ---- Port-wide ------------------------------------------------------------ */

u32 refnic_queue_reg_read(struct refnic_model_port *port, unsigned int q,
			  u32 reg)
{
	if (reg < REFNIC_REG_RXQ_BASE_LO(0))
		return refnic_txq_read(&port->txq[q], reg);
	return refnic_rxq_read(&port->rxq[q], reg);
}

void refnic_queue_reg_write(struct refnic_model_port *port, unsigned int q,
			    u32 reg, u32 val)
{
	if (reg < REFNIC_REG_RXQ_BASE_LO(0))
		refnic_txq_write(&port->txq[q], reg, val);
	else
		refnic_rxq_write(&port->rxq[q], reg, val);
}

/* Disable every queue and clear its registers; never waits (MMIO). */
void refnic_queues_reset(struct refnic_model_port *port)
{
	struct refnic_model_txq *txq;
	struct refnic_model_rxq *rxq;
	unsigned long flags;
	unsigned int q;
	bool unhung;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		txq = &port->txq[q];
		spin_lock_irqsave(&txq->gate.lock, flags);
		txq->gate.enabled = false;
		txq->gate.halted = false;
		unhung = refnic_txq_unhang(txq);
		/* Work begun before the reset commits nothing. */
		txq->gate.gen++;
		WRITE_ONCE(txq->base_lo, 0);
		WRITE_ONCE(txq->base_hi, 0);
		WRITE_ONCE(txq->size, 0);
		WRITE_ONCE(txq->ctrl, 0);
		WRITE_ONCE(txq->tail, 0);
		WRITE_ONCE(txq->head, 0);
		spin_unlock_irqrestore(&txq->gate.lock, flags);
		if (unhung)
			dev_info(port->dev,
				 "fault: TX queue %u hang cleared by port reset\n",
				 q);

		rxq = &port->rxq[q];
		spin_lock_irqsave(&rxq->gate.lock, flags);
		rxq->gate.enabled = false;
		rxq->gate.halted = false;
		rxq->gate.gen++;
		WRITE_ONCE(rxq->base_lo, 0);
		WRITE_ONCE(rxq->base_hi, 0);
		WRITE_ONCE(rxq->size, 0);
		WRITE_ONCE(rxq->ctrl, 0);
		WRITE_ONCE(rxq->buf_len, 0);
		WRITE_ONCE(rxq->hdr_len, 0);
		WRITE_ONCE(rxq->cq_base_lo, 0);
		WRITE_ONCE(rxq->cq_base_hi, 0);
		WRITE_ONCE(rxq->cq_size, 0);
		WRITE_ONCE(rxq->tail, 0);
		WRITE_ONCE(rxq->cq_head, 0);
		WRITE_ONCE(rxq->head, 0);
		spin_unlock_irqrestore(&rxq->gate.lock, flags);
		refnic_rx_gro_update(rxq);
	}
}

/* Is the engine still inside any queue (doing DMA)? */
bool refnic_queues_busy(struct refnic_model_port *port)
{
	unsigned int q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		if (refnic_gate_busy(&port->txq[q].gate) ||
		    refnic_gate_busy(&port->rxq[q].gate))
			return true;
	}
	return false;
}

void refnic_queues_init(struct refnic_model_port *port)
{
	struct refnic_model_txq *txq;
	struct refnic_model_rxq *rxq;
	unsigned int q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		txq = &port->txq[q];
		txq->port = port;
		txq->index = q;
		spin_lock_init(&txq->gate.lock);
		refnic_tx_init(txq);

		rxq = &port->rxq[q];
		rxq->port = port;
		rxq->index = q;
		spin_lock_init(&rxq->lock);
		spin_lock_init(&rxq->gate.lock);
		refnic_rx_gro_init(rxq);
	}
}
