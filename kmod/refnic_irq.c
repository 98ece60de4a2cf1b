// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Interrupt vectors and NAPI. Queue pair N has vector N and one NAPI
 * instance polling both its TX and RX completions. A vector masks itself
 * when it fires, so the hard IRQ handler only schedules NAPI; the poll
 * unmasks the vector when it completes (napi_complete_done() returns true),
 * which keeps the vector masked while busy polling or threaded NAPI own it.
 *
 * When the RX refill leaves the ring short of buffers for want of memory,
 * the poll does not return its whole budget to be run again at once (that
 * spins in softirq for as long as memory is short): it completes, and the
 * vector's refill timer schedules NAPI again after a delay that doubles,
 * from REFNIC_RX_BACKOFF_MIN_US to REFNIC_RX_BACKOFF_MAX_US, while the
 * refill keeps failing (rxN_alloc_backoffs counts each).
 *
 * The misc vector reports link changes and queue errors; its bottom half is
 * a work item, because it reads registers and that belongs in process
 * context (see refnic_regs.h).
 */

#include <linux/bitfield.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>

#include "refnic.h"
#include "refnic_bypass.h"
#include "refnic_regs.h"
#include "refnic_trace.h"

static void refnic_vector_unmask(struct refnic_vector *v)
{
	refnic_wr32(v->priv, REFNIC_REG_INTR_UNMASK(v->idx), 1);
}

/* Try the refill again later, in a soft hrtimer, rather than at once. */
static void refnic_refill_backoff(struct refnic_vector *v,
				  struct refnic_napi_stats *ns)
{
	u32 delay_us = clamp_t(u32, v->refill_delay_us * 2,
			       REFNIC_RX_BACKOFF_MIN_US,
			       REFNIC_RX_BACKOFF_MAX_US);

	WRITE_ONCE(v->refill_delay_us, delay_us);	/* debugfs reads it */
	hrtimer_start(&v->refill_timer,
		      ns_to_ktime((u64)delay_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
	u64_stats_update_begin(&ns->syncp);
	u64_stats_inc(&ns->rx_alloc_backoffs);
	u64_stats_update_end(&ns->syncp);
}

static enum hrtimer_restart refnic_refill_timer_fn(struct hrtimer *timer)
{
	struct refnic_vector *v = container_of(timer, struct refnic_vector,
					       refill_timer);

	/* A no-op while NAPI is scheduled or disabled. */
	napi_schedule(&v->napi);
	return HRTIMER_NORESTART;
}

/**
 * refnic_vector_init() - set up what a vector keeps for the port's lifetime
 * @priv: port
 * @v: vector
 */
void refnic_vector_init(struct refnic_priv *priv, unsigned int v)
{
	struct refnic_vector *vec = &priv->vec[v];

	vec->priv = priv;
	vec->idx = v;
	u64_stats_init(&vec->istats.syncp);
	hrtimer_setup(&vec->refill_timer, refnic_refill_timer_fn,
		      CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	refnic_dim_init(vec);
}

static int refnic_poll(struct napi_struct *napi, int budget)
{
	struct refnic_vector *v = container_of(napi, struct refnic_vector,
					       napi);
	struct refnic_napi_stats *ns = &v->priv->nstats[v->idx];
	struct refnic_rxq *rxq = v->rxq;
	bool starved = false, rearm;
	int done = 0;

	/* Budget 0 is netpoll asking for TX cleanup only; a bypass queue
	 * pair carries none of the stack's frames.
	 */
	if (v->bp) {
		if (unlikely(!budget))
			return 0;
		done = refnic_bypass_poll(v->bp, budget);
		goto out;
	}

	refnic_tx_clean(v->txq, budget);
	if (unlikely(!budget))
		return 0;

	if (rxq)
		done = refnic_rx_poll(rxq, budget, &starved);
out:

	u64_stats_update_begin(&ns->syncp);
	u64_stats_inc(&ns->polls);
	if (done >= budget)
		u64_stats_inc(&ns->full_polls);
	u64_stats_update_end(&ns->syncp);

	if (done >= budget) {
		trace_refnic_napi_poll(v->priv->netdev, v->idx, done, budget,
				       true, false);
		return budget;
	}

	/* Out of memory with the ring short of buffers: the device may
	 * complete nothing, and no interrupt come. Try again later.
	 */
	if (unlikely(starved))
		refnic_refill_backoff(v, ns);
	else if (v->refill_delay_us)
		WRITE_ONCE(v->refill_delay_us, 0);

	rearm = napi_complete_done(napi, done) && !(rxq && rxq->broken);
	trace_refnic_napi_poll(v->priv->netdev, v->idx, done, budget, false,
			       rearm);
	if (rearm) {
		if (!v->bp)
			refnic_dim_sample(v, ns);
		refnic_vector_unmask(v);
		u64_stats_update_begin(&ns->syncp);
		u64_stats_inc(&ns->unmasks);
		u64_stats_update_end(&ns->syncp);
	}

	return done;
}

static irqreturn_t refnic_vector_irq(int irq, void *data)
{
	struct refnic_vector *v = data;

	u64_stats_update_begin(&v->istats.syncp);
	u64_stats_inc(&v->istats.irqs);
	u64_stats_update_end(&v->istats.syncp);

	napi_schedule_irqoff(&v->napi);

	return IRQ_HANDLED;
}

/**
 * refnic_vectors_add() - set up NAPI and the IRQ of vectors
 * @priv: port
 * @first: first vector
 * @count: number of vectors
 *
 * The vectors stay masked and their NAPI disabled until
 * refnic_vector_enable(). Under the instance lock (refnic_compat.h).
 *
 * Return: 0 or a negative errno, with nothing left set up.
 */
int refnic_vectors_add(struct refnic_priv *priv, unsigned int first,
		       unsigned int count)
{
	struct net_device *netdev = priv->netdev;
	const struct cpumask *mask;
	unsigned int i, weight;
	int err;

	weight = clamp(READ_ONCE(priv->napi_weight), 1U,
		       REFNIC_NAPI_WEIGHT_MAX);
	for (i = first; i < first + count; i++) {
		struct refnic_vector *v = &priv->vec[i];
		unsigned int irq = priv->port->irq[i];

		snprintf(v->name, sizeof(v->name), "%s-q%u", netdev->name, i);
		/* With its persistent config (7.3), a vector keeps its NAPI
		 * id and settings (threaded, defer-hard-irqs, gro-flush-timeout)
		 * across close and open, ethtool -L and -G.
		 */
		refnic_napi_add_config_weight(netdev, &v->napi, refnic_poll, i,
					      weight);
		netif_napi_set_irq_locked(&v->napi, irq);

		err = request_irq(irq, refnic_vector_irq, 0, v->name, v);
		if (err) {
			netdev_err(netdev, "request_irq %s: %d\n", v->name,
				   err);
			/* refnic_vectors_del() waits for the grace period. */
			__netif_napi_del_locked(&v->napi);
			goto err_del;
		}
		/* One CPU per queue vector, spread as drivers do at probe, so
		 * that a queue's interrupts and NAPI polls stay on one CPU; set
		 * once, so that an affinity the user (or irqbalance) chose
		 * survives down/up and ethtool -L. The hint stays for them.
		 */
		mask = cpumask_of(cpumask_local_spread(i, NUMA_NO_NODE));
		if (v->spread) {
			irq_update_affinity_hint(irq, mask);
		} else {
			irq_set_affinity_and_hint(irq, mask);
			v->spread = true;
		}
		v->added = true;
	}

	return 0;

err_del:
	refnic_vectors_del(priv, first, i - first);
	return err;
}

/**
 * refnic_vectors_del() - release NAPI and the IRQ of disabled vectors
 * @priv: port
 * @first: first vector
 * @count: number of vectors
 *
 * Under the instance lock. Waits for an RCU grace period, after which the
 * NAPI instances may be added again.
 */
void refnic_vectors_del(struct refnic_priv *priv, unsigned int first,
			unsigned int count)
{
	unsigned int i;

	for (i = first; i < first + count; i++) {
		struct refnic_vector *v = &priv->vec[i];

		if (!v->added)
			continue;
		/* free_irq() warns about a hint left set. */
		irq_update_affinity_hint(priv->port->irq[i], NULL);
		free_irq(priv->port->irq[i], v);
		__netif_napi_del_locked(&v->napi);
		v->added = false;
	}

	/* NAPI lookups by id and the netdev's NAPI list are RCU. */
	synchronize_net();
}

/**
 * refnic_vector_coalesce() - a vector's moderation, direction by direction
 * @priv: port
 * @vec: vector
 * @rx_usecs: RX delay: ethtool's, or DIM's with adaptive-rx on
 * @rx_frames: RX frame threshold, likewise
 * @tx_usecs: TX delay: ethtool's, or DIM's with adaptive-tx on
 * @tx_frames: TX frame threshold, likewise
 *
 * A bypass session's vector is not sampled (refnic_poll()): it keeps the
 * fixed values. DIM's frame threshold is held to half the smaller ring, so
 * that the ring cannot run dry before the vector fires.
 *
 * Values a moment old at worst without priv->itr_lock (ethtool reading).
 */
void refnic_vector_coalesce(struct refnic_priv *priv,
			    struct refnic_vector *vec, u32 *rx_usecs,
			    u32 *rx_frames, u32 *tx_usecs, u32 *tx_frames)
{
	u32 ring = min(priv->cfg.rx_ring_size, priv->cfg.tx_ring_size);
	u32 dim_frames = min(READ_ONCE(vec->dim_frames), ring / 2);
	u32 dim_usecs = READ_ONCE(vec->dim_usecs);
	bool bp = !!READ_ONCE(vec->bp);
	bool rx = READ_ONCE(priv->adaptive_rx) && !bp;
	bool tx = READ_ONCE(priv->adaptive_tx) && !bp;

	*rx_usecs = rx ? dim_usecs : READ_ONCE(priv->rx_usecs);
	*rx_frames = rx ? dim_frames : READ_ONCE(priv->rx_frames);
	*tx_usecs = tx ? dim_usecs : READ_ONCE(priv->tx_usecs);
	*tx_frames = tx ? dim_frames : READ_ONCE(priv->tx_frames);
}

/**
 * refnic_vector_write_itr() - program a vector's interrupt moderation
 * @priv: port
 * @v: vector
 *
 * TX and RX completions share the vector, and the vector has one timer and
 * one frame counter, so the stricter setting of the two directions wins:
 * the delay is the smaller of rx-usecs and tx-usecs, the frame threshold the
 * smaller non-zero one of rx-frames and tx-frames (0 leaves that trigger
 * off). A direction with adaptive moderation on has the values its DIM
 * chose (refnic_dim.c) in place of ethtool's. A delay of 0 means "do not
 * delay" in ethtool terms, so it programs an interrupt per completion
 * whatever the frame thresholds say.
 *
 * Under priv->itr_lock.
 */
void refnic_vector_write_itr(struct refnic_priv *priv, unsigned int v)
{
	struct refnic_vector *vec = &priv->vec[v];
	u32 rx_usecs, rx_frames, tx_usecs, tx_frames, usecs, frames, itr = 0;

	lockdep_assert_held(&priv->itr_lock);

	refnic_vector_coalesce(priv, vec, &rx_usecs, &rx_frames, &tx_usecs,
			       &tx_frames);
	usecs = min(rx_usecs, tx_usecs);
	if (!rx_frames || !tx_frames)
		frames = max(rx_frames, tx_frames);
	else
		frames = min(rx_frames, tx_frames);

	if (usecs)
		itr = FIELD_PREP(REFNIC_ITR_USECS, usecs) |
		      FIELD_PREP(REFNIC_ITR_FRAMES, frames);

	refnic_wr32(priv, REFNIC_REG_INTR_ITR(v), itr);
}

/**
 * refnic_vector_enable() - start polling a vector's queues
 * @priv: port
 * @v: vector, with its txq and rxq installed
 *
 * Under the instance lock. NAPI is scheduled once right away: it polls
 * whatever arrived while the vector was masked and unmasks the vector when
 * done.
 */
void refnic_vector_enable(struct refnic_priv *priv, unsigned int v)
{
	struct refnic_vector *vec = &priv->vec[v];
	struct net_device *netdev = priv->netdev;

	if (vec->enabled)
		return;

	spin_lock(&priv->itr_lock);
	refnic_dim_reset(vec);
	refnic_vector_write_itr(priv, v);
	spin_unlock(&priv->itr_lock);
	/* A new ring, or a bypass session's: the service task starts over. */
	priv->watch[v].valid = false;
	netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_TX, &vec->napi);
	netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_RX, &vec->napi);
	napi_enable_locked(&vec->napi);
	vec->enabled = true;

	local_bh_disable();
	napi_schedule(&vec->napi);
	local_bh_enable();
}

/**
 * refnic_vector_disable() - stop polling a vector's queues
 * @priv: port
 * @v: vector
 *
 * Under the instance lock; does nothing if the vector is disabled already.
 * On return no poll, handler or refill timer of the vector runs and the
 * vector is masked: a poll finishing during napi_disable() may unmask it,
 * so it is masked after, and a handler firing in between finds NAPI
 * disabled and leaves the vector masked; the refill timer, which only the
 * poll arms, is cancelled once no poll runs.
 */
void refnic_vector_disable(struct refnic_priv *priv, unsigned int v)
{
	struct refnic_vector *vec = &priv->vec[v];
	struct net_device *netdev = priv->netdev;

	if (!vec->enabled)
		return;

	napi_disable_locked(&vec->napi);
	vec->enabled = false;
	hrtimer_cancel(&vec->refill_timer);
	refnic_dim_stop(vec);
	WRITE_ONCE(vec->refill_delay_us, 0);
	refnic_wr32(priv, REFNIC_REG_INTR_MASK(v), 1);
	synchronize_irq(priv->port->irq[v]);
	netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_TX, NULL);
	netif_queue_set_napi(netdev, v, NETDEV_QUEUE_TYPE_RX, NULL);
}

/**
 * refnic_link_update() - carrier from STATUS.LINK_UP
 * @priv: port
 *
 * Process context (reads a register).
 */
void refnic_link_update(struct refnic_priv *priv)
{
	u32 status = refnic_rd32(priv, REFNIC_REG_STATUS);

	if (status & REFNIC_STATUS_LINK_UP)
		netif_carrier_on(priv->netdev);
	else
		netif_carrier_off(priv->netdev);
}

/* Misc vector bottom half. */
void refnic_link_work(struct work_struct *work)
{
	struct refnic_priv *priv = container_of(work, struct refnic_priv,
						link_work);
	u32 cause, status;
	unsigned int q;

	/* Clear on read: events after this read raise the vector again
	 * once it is unmasked below.
	 */
	cause = refnic_rd32(priv, REFNIC_REG_MISC_CAUSE);

	if (cause & REFNIC_MISC_ERROR) {
		for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
			status = refnic_rd32(priv, REFNIC_REG_TXQ_STATUS(q)) |
				 refnic_rd32(priv, REFNIC_REG_RXQ_STATUS(q));
			if (status & REFNIC_Q_STATUS_ERROR) {
				netdev_err(priv->netdev,
					   "queue pair %u halted on error\n",
					   q);
				refnic_schedule_reset(priv, q);
			}
		}
	}

	/* The link is read whatever the cause says, so that a change that
	 * raced with the last read is not missed.
	 */
	refnic_link_update(priv);

	refnic_wr32(priv, REFNIC_REG_INTR_UNMASK(REFNIC_MISC_VECTOR), 1);
}

static irqreturn_t refnic_misc_irq(int irq, void *data)
{
	struct refnic_priv *priv = data;

	schedule_work(&priv->link_work);

	return IRQ_HANDLED;
}

/**
 * refnic_misc_irq_request() - request and unmask the misc vector
 * @priv: port
 *
 * Under the instance lock, while the port is up.
 *
 * Return: 0 or a negative errno.
 */
int refnic_misc_irq_request(struct refnic_priv *priv)
{
	unsigned int irq = priv->port->irq[REFNIC_MISC_VECTOR];
	int err;

	snprintf(priv->misc_name, sizeof(priv->misc_name), "%s-misc",
		 priv->netdev->name);
	err = request_irq(irq, refnic_misc_irq, 0, priv->misc_name, priv);
	if (err) {
		netdev_err(priv->netdev, "request_irq %s: %d\n",
			   priv->misc_name, err);
		return err;
	}
	priv->misc_irq = true;
	refnic_wr32(priv, REFNIC_REG_INTR_ITR(REFNIC_MISC_VECTOR), 0);
	refnic_wr32(priv, REFNIC_REG_INTR_UNMASK(REFNIC_MISC_VECTOR), 1);

	return 0;
}

/**
 * refnic_misc_irq_free() - mask and free the misc vector
 * @priv: port
 *
 * Under the instance lock. The link work takes no lock, so it can be
 * waited for.
 */
void refnic_misc_irq_free(struct refnic_priv *priv)
{
	if (!priv->misc_irq)
		return;

	free_irq(priv->port->irq[REFNIC_MISC_VECTOR], priv);
	priv->misc_irq = false;
	/* The handler is gone, so the work is not queued again; once it
	 * has finished it cannot unmask the vector behind our back.
	 */
	cancel_work_sync(&priv->link_work);
	refnic_wr32(priv, REFNIC_REG_INTR_MASK(REFNIC_MISC_VECTOR), 1);
}
