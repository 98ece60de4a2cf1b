// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Fault injection for the control plane (the refnic netlink family's
 * fault-set): faults a real card shows when it misbehaves, armed per queue
 * with a rate (events per million, chosen at random) or a count (the next N
 * events), and counted when they strike. What each fault does is described
 * with enum refnic_model_fault; the engine asks refnic_fault_strikes() at
 * the point where it would happen.
 *
 * debugfs fault_tx_hang (debugfs.c) stays what it is: an immediate hang of
 * a TX queue for tests that drive the model directly.
 */

#include <linux/random.h>

#include "model.h"
#include "hw_trace.h"

static const char * const refnic_fault_names[REFNIC_MODEL_NUM_FAULTS] = {
	[REFNIC_MODEL_FAULT_DROP_CMPL]		= "drop-completion",
	[REFNIC_MODEL_FAULT_BAD_DMA]		= "corrupt-dma-addr",
	[REFNIC_MODEL_FAULT_STALL_TXQ]		= "stall-txq",
	[REFNIC_MODEL_FAULT_WEDGE_TXQ]		= "wedge-txq",
	[REFNIC_MODEL_FAULT_GRO_BAD_LEN]	= "gro-bad-len",
	[REFNIC_MODEL_FAULT_STALL_RXQ]		= "stall-rxq",
	[REFNIC_MODEL_FAULT_LOSE_IRQ]		= "lose-irq",
};

/**
 * refnic_fault_site_strike - decide whether an armed fault strikes
 * @port: the port
 * @fault: which fault
 * @queue: of which queue (or vector)
 *
 * Any context. A count is consumed atomically, so concurrent events never
 * strike more often than it says.
 *
 * Return: true when the fault takes effect on this event (counted).
 */
bool refnic_fault_site_strike(struct refnic_model_port *port,
			      enum refnic_model_fault fault, unsigned int queue)
{
	struct refnic_fault_site *site = &port->fault[fault][queue];
	u32 rate = READ_ONCE(site->rate_ppm);

	if (rate) {
		if (get_random_u32_below(REFNIC_MODEL_PPM) >= rate)
			return false;
	} else if (atomic_dec_if_positive(&site->count) < 0) {
		return false;
	}
	atomic64_inc(&site->injected);
	trace_refnic_hw_fault(port, fault, queue);
	return true;
}

static struct refnic_fault_site *
refnic_fault_site(struct refnic_model_port *port,
		  enum refnic_model_fault fault, unsigned int queue)
{
	if (fault >= REFNIC_MODEL_NUM_FAULTS || queue >= REFNIC_MAX_QUEUES)
		return NULL;
	return &port->fault[fault][queue];
}

/**
 * refnic_model_fault_set - arm or clear a fault of a port's queue
 * @port: the port
 * @fault: which fault
 * @queue: the queue it strikes on
 * @rate_ppm: strike on this many events per million, until cleared
 * @count: with @rate_ppm 0, strike on the next @count events, then disarm
 *
 * Both 0 clears the fault; a fault that already struck is not undone (a
 * queue it hung or stalled stays so until the driver resets it, an
 * interrupt it marked is lost), but for wedge-txq:
 * clearing it ends a wedge of the queue, whose engine then does its held
 * write and leaves the queue. The injected count is kept. Process context.
 *
 * Return: 0, or -EINVAL for an unknown fault or queue, a rate above
 * REFNIC_MODEL_PPM, or both a rate and a count.
 */
int refnic_model_fault_set(struct refnic_model_port *port,
			   enum refnic_model_fault fault, unsigned int queue,
			   u32 rate_ppm, u32 count)
{
	struct refnic_fault_site *site = refnic_fault_site(port, fault, queue);
	unsigned int bit;

	if (!site || rate_ppm > REFNIC_MODEL_PPM || (rate_ppm && count) ||
	    count > INT_MAX)
		return -EINVAL;

	/* Disarmed while it changes: an event in between sees no fault
	 * rather than half of the new one.
	 */
	WRITE_ONCE(site->rate_ppm, 0);
	atomic_set(&site->count, count);
	WRITE_ONCE(site->rate_ppm, rate_ppm);

	/* The wire fast path only runs while nothing is armed anywhere. */
	bit = fault * REFNIC_MAX_QUEUES + queue;
	if (rate_ppm || count) {
		if (!test_and_set_bit(bit, port->fault_set))
			atomic_inc(&port->faults_set);
	} else if (test_and_clear_bit(bit, port->fault_set)) {
		atomic_dec(&port->faults_set);
	}

	if (rate_ppm || count)
		dev_info_ratelimited(port->dev,
				     "fault: %s armed on queue %u: rate %u ppm, count %u\n",
				     refnic_fault_names[fault], queue, rate_ppm,
				     count);
	else
		dev_info_ratelimited(port->dev,
				     "fault: %s cleared on queue %u\n",
				     refnic_fault_names[fault], queue);

	/* Nothing but this (or pulling the card) gets a wedged engine out. */
	if (fault == REFNIC_MODEL_FAULT_WEDGE_TXQ && !rate_ppm && !count)
		refnic_txq_unwedge_request(&port->txq[queue]);
	return 0;
}

/**
 * refnic_model_fault_get - read a fault of a port's queue
 * @port: the port
 * @fault: which fault
 * @queue: the queue
 * @state: filled in
 *
 * Return: 0, or -EINVAL for an unknown fault or queue.
 */
int refnic_model_fault_get(struct refnic_model_port *port,
			   enum refnic_model_fault fault, unsigned int queue,
			   struct refnic_model_fault_state *state)
{
	struct refnic_fault_site *site = refnic_fault_site(port, fault, queue);

	if (!site)
		return -EINVAL;
	state->rate_ppm = READ_ONCE(site->rate_ppm);
	state->count = state->rate_ppm ? 0 : atomic_read(&site->count);
	state->injected = atomic64_read(&site->injected);
	return 0;
}
