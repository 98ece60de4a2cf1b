// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Interrupt vectors: real Linux interrupts.
 *
 * Each port has an irq_domain with one hwirq per vector and the irq_chip
 * "refnic-msix", so the driver request_irq()s them like MSI-X vectors and
 * they show in /proc/interrupts. A vector is raised in hard IRQ context on
 * the CPU of its effective affinity: from the IPI of
 * smp_call_function_single_async() when that is another CPU, from the
 * irq_work self-IPI when it is this one; /proc/irq/N/smp_affinity moves it.
 * (irq_work_queue_on(), which would do both, is not exported.)
 *
 * The flow handler is handle_edge_irq: a vector is a message, an edge. An
 * event that arrives while the core has the IRQ disabled is latched (the
 * core masks the chip and marks it pending) and replayed through
 * irq_retrigger on enable, where handle_simple_irq would drop it and leave
 * the queue's NAPI unscheduled. There is nothing to acknowledge.
 *
 * Two masks gate a vector, as on MSI-X hardware: the device's own (set when
 * the vector fires, "auto-mask", and by INTR_MASK; cleared by INTR_UNMASK)
 * and the irq core's (irq_mask/irq_unmask, the MSI-X table mask bit). An
 * event that finds either set is held (INTR_STATUS.PENDING) and fires on
 * unmask.
 *
 * Moderation (INTR_ITR): the vector fires when ITR_FRAMES events are held,
 * or ITR_USECS after the first held one (an hrtimer), whichever is first;
 * with both 0 it fires on every event.
 *
 * The lose-irq fault (fault.c) loses an interrupt on its way: the vector
 * masks itself as when it fires, and no message is sent.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>

#include "model.h"
#include "hw_trace.h"

static void refnic_vec_handle(struct refnic_model_vec *vec)
{
	generic_handle_domain_irq(vec->port->domain, vec->hwirq);
	atomic_dec(&vec->inflight);
}

static void refnic_vec_work_fn(struct irq_work *work)
{
	refnic_vec_handle(container_of(work, struct refnic_model_vec, work));
}

static void refnic_vec_csd_fn(void *info)
{
	struct refnic_model_vec *vec = info;

	/* A CPU polling in idle runs the call from its idle loop rather than
	 * from the IPI. Hardware would have interrupted it: get a real
	 * interrupt from the irq_work self-IPI, so the handler runs in hard
	 * IRQ context and its softirqs on the way out.
	 */
	if (!in_hardirq()) {
		if (!irq_work_queue(&vec->work))
			atomic_dec(&vec->inflight);
		return;
	}
	refnic_vec_handle(vec);
}

/* Send the interrupt message: run the vector's flow handler in hard IRQ
 * context on its target CPU. A message already on its way to that CPU
 * carries this one too.
 */
static void refnic_vec_deliver(struct refnic_model_vec *vec)
{
	int this, cpu, err;

	atomic_inc(&vec->inflight);
	this = get_cpu();
	cpu = READ_ONCE(vec->cpu);
	if (cpu != this) {
		err = smp_call_function_single_async(cpu, &vec->csd);
		if (!err)
			goto out;
		if (err == -EBUSY) {
			atomic_dec(&vec->inflight);
			goto out;
		}
		/* The target went offline: deliver here rather than lose it. */
	}
	if (!irq_work_queue(&vec->work))
		atomic_dec(&vec->inflight);
out:
	put_cpu();
}

/* Called with vec->lock held. Returns true when the caller must deliver:
 * false for an interrupt the lose-irq fault loses, which masks the vector
 * all the same. @reason: REFNIC_TRACE_IRQ_*, for the trace.
 */
static bool refnic_vec_fire_locked(struct refnic_model_vec *vec, u8 reason)
{
	trace_refnic_hw_irq(vec->port, vec->hwirq, vec->held, reason,
			    vec->lose_next);
	vec->masked = true;
	vec->held = 0;
	if (vec->timer_armed) {
		/* If the callback is running, it finds nothing held. */
		hrtimer_try_to_cancel(&vec->timer);
		vec->timer_armed = false;
	}
	if (unlikely(vec->lose_next)) {
		vec->lose_next = false;
		vec->stats.lost++;
		return false;
	}
	vec->stats.raised++;
	return true;
}

/* Called with vec->lock held and the vector unmasked, @n events just
 * added to vec->held (0: the vector was just unmasked with events held):
 * fire now, or leave it to the moderation timer.
 */
static bool refnic_vec_check_locked(struct refnic_model_vec *vec, u32 n)
{
	u32 frames = FIELD_GET(REFNIC_ITR_FRAMES, vec->itr);
	u32 usecs = FIELD_GET(REFNIC_ITR_USECS, vec->itr);
	u8 why = n ? REFNIC_TRACE_IRQ_NOW : REFNIC_TRACE_IRQ_UNMASK;
	u64 now = 0, due = 0;

	if (!frames && !usecs)
		return refnic_vec_fire_locked(vec, why);
	if (frames && vec->held >= frames)
		return refnic_vec_fire_locked(vec, n ? REFNIC_TRACE_IRQ_FRAMES : why);
	if (usecs) {
		now = ktime_get_ns();
		due = vec->first_ns + (u64)usecs * NSEC_PER_USEC;
		if (now >= due)
			return refnic_vec_fire_locked(vec, n ? REFNIC_TRACE_IRQ_USECS : why);
		if (!vec->timer_armed) {
			vec->timer_armed = true;
			hrtimer_start(&vec->timer, ns_to_ktime(due - now),
				      HRTIMER_MODE_REL_HARD);
		}
	}
	if (n) {
		trace_refnic_hw_irq_moderate(vec->port, vec->hwirq, n, vec->held,
					     due - now);
		vec->stats.moderated += n;
	}
	return false;
}

/**
 * refnic_vec_signal - the engine has events for a vector
 * @port: the port
 * @vector: the vector; out of range (a bad Q_CTRL.VECTOR) signals nothing
 * @n: events (completions written)
 */
void refnic_vec_signal(struct refnic_model_port *port, u32 vector, u32 n)
{
	struct refnic_model_vec *vec;
	unsigned long flags;
	bool fire, lose;

	if (vector >= REFNIC_NUM_VECTORS || !n)
		return;
	vec = &port->vec[vector];
	/* Injected fault, decided here, outside the raw lock: the interrupt
	 * that carries these events is lost.
	 */
	lose = vector < REFNIC_MAX_QUEUES &&
	       refnic_fault_strikes(port, REFNIC_MODEL_FAULT_LOSE_IRQ, vector);

	raw_spin_lock_irqsave(&vec->lock, flags);
	if (unlikely(lose))
		vec->lose_next = true;
	if (!vec->held && FIELD_GET(REFNIC_ITR_USECS, vec->itr))
		vec->first_ns = ktime_get_ns();
	vec->held += n;
	if (vec->masked || vec->chip_masked) {
		vec->stats.suppressed += n;
		fire = false;
	} else {
		fire = refnic_vec_check_locked(vec, n);
	}
	raw_spin_unlock_irqrestore(&vec->lock, flags);

	if (fire)
		refnic_vec_deliver(vec);
}

static enum hrtimer_restart refnic_vec_timer_fn(struct hrtimer *timer)
{
	struct refnic_model_vec *vec = container_of(timer, struct refnic_model_vec,
						    timer);
	unsigned long flags;
	bool fire = false;

	raw_spin_lock_irqsave(&vec->lock, flags);
	vec->timer_armed = false;
	if (vec->held && !vec->masked && !vec->chip_masked)
		fire = refnic_vec_fire_locked(vec, REFNIC_TRACE_IRQ_TIMER);
	raw_spin_unlock_irqrestore(&vec->lock, flags);

	if (fire)
		refnic_vec_deliver(vec);
	return HRTIMER_NORESTART;
}

/* One of the two masks was cleared: held events may fire now. */
static void refnic_vec_unmask(struct refnic_model_vec *vec, bool chip)
{
	unsigned long flags;
	bool fire = false;

	raw_spin_lock_irqsave(&vec->lock, flags);
	if (chip)
		vec->chip_masked = false;
	else
		vec->masked = false;
	if (vec->held && !vec->masked && !vec->chip_masked)
		fire = refnic_vec_check_locked(vec, 0);
	raw_spin_unlock_irqrestore(&vec->lock, flags);

	if (fire)
		refnic_vec_deliver(vec);
}

u32 refnic_vec_reg_read(struct refnic_model_port *port, unsigned int v,
			u32 reg)
{
	struct refnic_model_vec *vec = &port->vec[v];
	unsigned long flags;
	u32 val = 0;

	raw_spin_lock_irqsave(&vec->lock, flags);
	switch (reg) {
	case REFNIC_REG_INTR_ITR(0):
		val = vec->itr;
		break;
	case REFNIC_REG_INTR_STATUS(0):
		if (vec->masked || vec->chip_masked)
			val |= REFNIC_INTR_MASKED;
		if (vec->held)
			val |= REFNIC_INTR_PENDING;
		break;
	}
	raw_spin_unlock_irqrestore(&vec->lock, flags);
	return val;
}

void refnic_vec_reg_write(struct refnic_model_port *port, unsigned int v,
			  u32 reg, u32 val)
{
	struct refnic_model_vec *vec = &port->vec[v];
	unsigned long flags;

	switch (reg) {
	case REFNIC_REG_INTR_MASK(0):
		trace_refnic_hw_irq_mask(port, v, true);
		raw_spin_lock_irqsave(&vec->lock, flags);
		vec->masked = true;
		raw_spin_unlock_irqrestore(&vec->lock, flags);
		break;
	case REFNIC_REG_INTR_UNMASK(0):
		trace_refnic_hw_irq_mask(port, v, false);
		refnic_vec_unmask(vec, false);
		break;
	case REFNIC_REG_INTR_ITR(0):
		raw_spin_lock_irqsave(&vec->lock, flags);
		vec->itr = val;
		raw_spin_unlock_irqrestore(&vec->lock, flags);
		break;
	}
}

/* RESET: every vector masked, nothing held, no moderation. Never waits. */
void refnic_irq_reset(struct refnic_model_port *port)
{
	struct refnic_model_vec *vec;
	unsigned long flags;
	unsigned int v;

	for (v = 0; v < REFNIC_NUM_VECTORS; v++) {
		vec = &port->vec[v];
		raw_spin_lock_irqsave(&vec->lock, flags);
		vec->masked = true;
		vec->held = 0;
		vec->itr = 0;
		vec->lose_next = false;
		if (vec->timer_armed) {
			hrtimer_try_to_cancel(&vec->timer);
			vec->timer_armed = false;
		}
		raw_spin_unlock_irqrestore(&vec->lock, flags);
	}
}

/* ---- irq_chip and irq_domain --------------------------------------------- */

static void refnic_irq_ack(struct irq_data *d)
{
	/* A message-signalled vector has no level to acknowledge. */
}

static void refnic_irq_mask(struct irq_data *d)
{
	struct refnic_model_vec *vec = irq_data_get_irq_chip_data(d);
	unsigned long flags;

	raw_spin_lock_irqsave(&vec->lock, flags);
	vec->chip_masked = true;
	raw_spin_unlock_irqrestore(&vec->lock, flags);
}

static void refnic_irq_unmask(struct irq_data *d)
{
	refnic_vec_unmask(irq_data_get_irq_chip_data(d), true);
}

static int refnic_irq_retrigger(struct irq_data *d)
{
	refnic_vec_deliver(irq_data_get_irq_chip_data(d));
	return 1;
}

static int refnic_irq_set_affinity(struct irq_data *d,
				   const struct cpumask *mask, bool force)
{
	struct refnic_model_vec *vec = irq_data_get_irq_chip_data(d);
	unsigned int cpu, n;

	if (force) {
		cpu = cpumask_first(mask);
	} else {
		/* Spread the vectors that share a mask over its CPUs, as the
		 * x86 vector allocator spreads a device's MSI-X vectors.
		 */
		n = cpumask_weight_and(mask, cpu_online_mask);
		if (!n)
			return -EINVAL;
		cpu = cpumask_nth_and(vec->hwirq % n, mask, cpu_online_mask);
	}
	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	WRITE_ONCE(vec->cpu, cpu);
	irq_data_update_effective_affinity(d, cpumask_of(cpu));
	return IRQ_SET_MASK_OK;
}

static struct irq_chip refnic_irq_chip = {
	.name			= "refnic-msix",
	.irq_ack		= refnic_irq_ack,
	.irq_mask		= refnic_irq_mask,
	.irq_unmask		= refnic_irq_unmask,
	.irq_retrigger		= refnic_irq_retrigger,
	.irq_set_affinity	= refnic_irq_set_affinity,
};

static int refnic_irq_map(struct irq_domain *domain, unsigned int irq,
			  irq_hw_number_t hwirq)
{
	struct refnic_model_port *port = domain->host_data;

	irq_set_chip_data(irq, &port->vec[hwirq]);
	irq_set_chip_and_handler_name(irq, &refnic_irq_chip, handle_edge_irq,
				      "edge");
	/* Retargeting is a store (refnic_irq_set_affinity()): it may happen
	 * right away, not at the next interrupt as for an APIC vector. On 7.3
	 * that is the default: only chips flagged IRQCHIP_MOVE_DEFERRED wait.
	 */
#if REFNIC_KERNEL_7
	irq_modify_status(irq, 0, IRQ_NOPROBE);
#else
	irq_modify_status(irq, 0, IRQ_NOPROBE | IRQ_MOVE_PCNTXT);
#endif
	return 0;
}

static void refnic_irq_unmap(struct irq_domain *domain, unsigned int irq)
{
	irq_set_chip_and_handler(irq, NULL, NULL);
	irq_set_chip_data(irq, NULL);
}

static const struct irq_domain_ops refnic_irq_domain_ops = {
	.map	= refnic_irq_map,
	.unmap	= refnic_irq_unmap,
};

static void refnic_vec_init(struct refnic_model_port *port, unsigned int v)
{
	struct refnic_model_vec *vec = &port->vec[v];

	vec->port = port;
	vec->hwirq = v;
	raw_spin_lock_init(&vec->lock);
	/* The core starts an IRQ masked, and RESET masks the device side. */
	vec->masked = true;
	vec->chip_masked = true;
	hrtimer_setup(&vec->timer, refnic_vec_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
	vec->cpu = cpumask_first(cpu_online_mask);
	atomic_set(&vec->inflight, 0);
	vec->work = IRQ_WORK_INIT_HARD(refnic_vec_work_fn);
	INIT_CSD(&vec->csd, refnic_vec_csd_fn, vec);
}

/* Wait until no interrupt of the vector can still be delivered. */
static void refnic_vec_quiesce(struct refnic_model_vec *vec)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&vec->lock, flags);
	vec->masked = true;
	vec->held = 0;
	raw_spin_unlock_irqrestore(&vec->lock, flags);
	hrtimer_cancel(&vec->timer);
	irq_work_sync(&vec->work);
	while (atomic_read(&vec->inflight))
		usleep_range(10, 100);
}

int refnic_irq_init(struct refnic_model_port *port)
{
	unsigned int v, irq;
	int err;

	for (v = 0; v < REFNIC_NUM_VECTORS; v++)
		refnic_vec_init(port, v);

	port->fwnode = irq_domain_alloc_named_fwnode(port->name);
	if (!port->fwnode)
		return -ENOMEM;
	port->domain = irq_domain_create_linear(port->fwnode,
						REFNIC_NUM_VECTORS,
						&refnic_irq_domain_ops, port);
	if (!port->domain) {
		err = -ENOMEM;
		goto err_free_fwnode;
	}
	for (v = 0; v < REFNIC_NUM_VECTORS; v++) {
		irq = irq_create_mapping(port->domain, v);
		if (!irq) {
			err = -ENOMEM;
			goto err_dispose;
		}
		port->vec[v].irq = irq;
		port->bus.irq[v] = irq;
	}
	return 0;

err_dispose:
	while (v--)
		irq_dispose_mapping(port->vec[v].irq);
	irq_domain_remove(port->domain);
err_free_fwnode:
	irq_domain_free_fwnode(port->fwnode);
	return err;
}

void refnic_irq_fini(struct refnic_model_port *port)
{
	unsigned int v;

	for (v = 0; v < REFNIC_NUM_VECTORS; v++)
		refnic_vec_quiesce(&port->vec[v]);
	for (v = 0; v < REFNIC_NUM_VECTORS; v++) {
		/* The driver must have freed its IRQs (refnic_bus.h). */
		WARN_ON_ONCE(irq_has_action(port->vec[v].irq));
		irq_dispose_mapping(port->vec[v].irq);
		port->bus.irq[v] = 0;
	}
	irq_domain_remove(port->domain);
	irq_domain_free_fwnode(port->fwnode);
}

/**
 * refnic_port_raise_misc - raise the misc vector
 * @port: the port
 * @cause: REFNIC_MISC_* bits to add to MISC_CAUSE
 *
 * The pending causes are written to MISC_CAUSE_ADDR, when set, before the
 * interrupt is sent.
 */
void refnic_port_raise_misc(struct refnic_model_port *port, u32 cause)
{
	u64 addr = (u64)READ_ONCE(port->misc_addr_hi) << 32 |
		   READ_ONCE(port->misc_addr_lo);
	u32 pending = atomic_fetch_or(cause, &port->misc_cause) | cause;

	if (addr && !refnic_dma_write_le32(port, addr, pending))
		dma_wmb();
	refnic_vec_signal(port, REFNIC_MISC_VECTOR, 1);
}
