// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The service task: a delayed work that runs every REFNIC_SERVICE_PERIOD
 * (1 s) while the port is up and has not failed, and looks at every queue
 * pair for the ways one goes quiet for good, as upstream drivers'
 * watchdogs do (fbnic's service task, bnxt's missed-IRQ check, ixgbe's and
 * i40e's TX hang checks):
 *
 *   a stall: frames keep arriving at the queue (the device's CNT_RX_FRAMES)
 *     while buffers are posted, yet no completion comes, for
 *     REFNIC_RX_STALL_SAMPLES samples: the device stopped writing the
 *     queue. Counted (rx_stalls), logged, and the queue pair restarted by
 *     the reset work; a queue pair a bypass session holds ends the session
 *     instead, as a halted one does.
 *   a lost interrupt: a completion waits in the RX ring, or the oldest
 *     frame on the TX ring is done, and NAPI did not poll since the sample
 *     before, REFNIC_LOST_IRQ_SAMPLES samples in a row: the vector fired
 *     (it masks itself) and the message never came. NAPI is scheduled,
 *     which unmasks the vector when it completes; counted (lost_irqs) and
 *     logged. (The TX watchdog kicks NAPI the same way before it restarts
 *     a queue whose oldest frame is done.)
 *   a TX hang the netdev watchdog cannot see: frames wait on a TX ring, the
 *     oldest not done by the device and the same for
 *     REFNIC_TX_HANG_SAMPLES samples (the watchdog's 5 s), while the queue
 *     is not stopped. The watchdog only looks at stopped queues, and light
 *     traffic (pings, a TCP flow's ACKs) never fills a ring: its frames
 *     would wait for ever. Counted as a TX timeout (tx_timeouts), logged,
 *     and the queue pair restarted by the reset work. A stopped queue is
 *     the watchdog's; a port without carrier sends nothing to time out.
 *
 * No false alarms on an idle queue: no frame arrives, so nothing counts.
 * Frames the device drops for want of buffers (fewer posted than one frame
 * may take, as while allocation fails) or of completion entries (work
 * waiting) do not count: that queue is the refill's or NAPI's to catch up
 * with. Hardware GRO holds frames at most RX_GRO_TIMEOUT (1 s at most)
 * before their completion, less than the samples a stall takes. A lost
 * interrupt is counted only when NAPI was idle and this task scheduled it:
 * NAPI owned by busy polling or threaded NAPI is scheduled already
 * (napi_schedule() fails). The core's deferral timer (napi_defer_hard_irqs
 * with gro_flush_timeout) polls long before two samples pass; one set
 * longer than that gets its poll early.
 *
 * Locking: everything the task reads of a queue (which ring or bypass
 * session a vector polls, whether it is enabled) changes only under the
 * instance lock, which the task holds: the netdev's instance lock on 7.3,
 * RTNL on 6.12 (refnic_compat.h). RTNL itself is not needed on 7.3: the
 * task changes nothing; the restart it asks for runs in the reset work,
 * which takes both. The ring indices are NAPI's and are read a word at a
 * time without it (struct refnic_rx_progress); the device's counter is a
 * register read, which is why this is a work item (process context). The
 * port's ndo_stop cancels the task without waiting (it holds the lock the
 * task takes); a task already running then finds the port down and does
 * not come back, and the netdev's destructor waits for it. As the port's
 * other work items, the task is disabled from setup until the port is
 * registered (refnic_priv_destructor()): the destructor of a port whose
 * registration failed runs under RTNL, which the task takes on 6.12.
 */

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "refnic.h"
#include "refnic_bypass.h"
#include "refnic_regs.h"

static u64 refnic_service_polls(struct refnic_priv *priv, unsigned int q)
{
	const struct refnic_napi_stats *ns = &priv->nstats[q];
	unsigned int start;
	u64 polls;

	do {
		start = u64_stats_fetch_begin(&ns->syncp);
		polls = u64_stats_read(&ns->polls);
	} while (u64_stats_fetch_retry(&ns->syncp, start));
	return polls;
}

/**
 * struct refnic_tx_sample - what the service task reads of a TX ring
 * @head: the oldest frame on the ring (NAPI's; a moment old)
 * @stuck: frames wait, the oldest not done by the device, and the queue
 *	is not stopped (a stopped one is the netdev watchdog's)
 */
struct refnic_tx_sample {
	u32 head;
	bool stuck;
};

/* The RX ring queue pair @q's vector polls now, if any, and its TX ring; a
 * done frame waiting on the TX ring counts as a completion waiting.
 */
static bool refnic_service_sample(struct refnic_priv *priv, unsigned int q,
				  struct refnic_rx_progress *p,
				  struct refnic_tx_sample *t)
{
	struct refnic_vector *v = &priv->vec[q];
	struct netdev_queue *nq;

	*t = (struct refnic_tx_sample) {};
	if (!v->enabled)
		return false;
	if (v->bp) {
		refnic_bypass_rx_progress(v->bp, p);
		return true;
	}
	if (!v->rxq)
		return false;
	refnic_rx_progress(v->rxq, p);
	if (v->txq) {
		nq = netdev_get_tx_queue(priv->netdev, q);
		/* No xmit fills a slot meanwhile: the tail holds still. */
		__netif_tx_lock_bh(nq);
		t->head = READ_ONCE(v->txq->head);
		if (refnic_tx_done_waiting(v->txq))
			p->pending = true;
		else
			t->stuck = t->head != v->txq->tail &&
				   !netif_xmit_stopped(nq) &&
				   netif_carrier_ok(priv->netdev);
		__netif_tx_unlock_bh(nq);
	}
	return true;
}

/* A completion waited with NAPI idle: schedule it, as the interrupt would
 * have. Counted only if NAPI was idle and nothing else was to run it.
 */
static void refnic_service_kick(struct refnic_priv *priv, unsigned int q)
{
	bool idle;

	local_bh_disable();
	idle = napi_schedule(&priv->vec[q].napi);
	local_bh_enable();
	if (!idle)
		return;
	atomic64_inc(&priv->lost_irqs);
	if (net_ratelimit())
		netdev_warn(priv->netdev,
			    "queue pair %u: completions waiting, NAPI idle for %u s: interrupt lost, NAPI scheduled\n",
			    q, REFNIC_LOST_IRQ_SAMPLES *
			    REFNIC_SERVICE_PERIOD / HZ);
}

static void refnic_service_queue(struct refnic_priv *priv, unsigned int q)
{
	struct refnic_queue_watch *w = &priv->watch[q];
	struct refnic_rx_progress p;
	struct refnic_tx_sample t;
	u32 frames, arrived;
	bool restart = false;
	u64 polls;

	/* A restart asked for already (by this task or another path) is
	 * not counted again: the queue is sampled afresh once it is back.
	 */
	if (test_bit(q, &priv->reset_pending) || READ_ONCE(priv->reset_all) ||
	    !refnic_service_sample(priv, q, &p, &t) || p.broken) {
		w->valid = false;
		return;
	}
	/* The ring before the counter: a frame counted now whose completion
	 * came after the ring was read shows as progress at the next sample,
	 * which starts the count over.
	 */
	frames = refnic_rd32(priv, REFNIC_REG_CNT_RX_FRAMES(q));
	polls = refnic_service_polls(priv, q);
	if (!w->valid) {
		*w = (struct refnic_queue_watch) {
			.valid = true,
			.frames = frames,
			.cq_head = p.cq_head,
			.polls = polls,
			.tx_head = t.head,
		};
		return;
	}
	arrived = frames - w->frames;

	/* Work waiting, and NAPI has not run since the last look. */
	if (p.pending && polls == w->polls && p.cq_head == w->cq_head)
		w->idle_samples++;
	else
		w->idle_samples = 0;

	/* Frames arrived, buffers are posted, nothing waits to be consumed
	 * and nothing was: the device wrote no completion.
	 */
	if (p.cq_head != w->cq_head || p.pending || p.posted < p.min_posted)
		w->stall_samples = 0;
	else if (arrived)
		w->stall_samples++;

	/* The device left the oldest frame undone since the last look. */
	if (t.stuck && t.head == w->tx_head)
		w->tx_hang_samples++;
	else
		w->tx_hang_samples = 0;

	w->frames = frames;
	w->cq_head = p.cq_head;
	w->polls = polls;
	w->tx_head = t.head;

	if (w->idle_samples >= REFNIC_LOST_IRQ_SAMPLES) {
		w->idle_samples = 0;
		refnic_service_kick(priv, q);
	}
	if (w->stall_samples >= REFNIC_RX_STALL_SAMPLES) {
		atomic64_inc(&priv->rx_stalls);
		if (net_ratelimit())
			netdev_warn(priv->netdev,
				    "rxq %u stalled: frames arrive, none completes with %u buffers posted; restarting queue pair %u\n",
				    q, p.posted, q);
		restart = true;
	}
	if (w->tx_hang_samples >= REFNIC_TX_HANG_SAMPLES) {
		atomic64_inc(&priv->tx_timeouts);
		if (net_ratelimit())
			netdev_warn(priv->netdev,
				    "TX queue %u hung: oldest frame not done for %u s, queue not stopped; restarting it\n",
				    q, REFNIC_TX_HANG_SAMPLES *
				    REFNIC_SERVICE_PERIOD / HZ);
		restart = true;
	}
	if (restart) {
		/* Sampled afresh once the queue pair is back. */
		w->valid = false;
		refnic_schedule_reset(priv, q);
	}
}

static void refnic_service_task(struct work_struct *work)
{
	struct refnic_priv *priv = container_of(to_delayed_work(work),
						struct refnic_priv,
						service_task);
	struct net_device *netdev = priv->netdev;
	unsigned int q;

	refnic_instance_lock(netdev);
	/* A failed port's queues are gone; a port going down stops it. */
	if (!netif_running(netdev) || priv->failed)
		goto out;
	for (q = 0; q < priv->cfg.num_queues; q++)
		refnic_service_queue(priv, q);
	priv->service_runs++;
	/* Rounded: the ports' tasks wake together, not one by one. */
	schedule_delayed_work(&priv->service_task,
			      round_jiffies_relative(REFNIC_SERVICE_PERIOD));
out:
	refnic_instance_unlock(netdev);
}

/**
 * refnic_service_init() - set up the port's service task, disabled
 * @priv: port, being set up
 *
 * Until refnic_service_enable(), starting the task does nothing.
 */
void refnic_service_init(struct refnic_priv *priv)
{
	INIT_DELAYED_WORK(&priv->service_task, refnic_service_task);
	disable_delayed_work(&priv->service_task);
}

/**
 * refnic_service_enable() - let the port's service task be started
 * @priv: port, just registered (refnic_port_registered(); RTNL held)
 */
void refnic_service_enable(struct refnic_priv *priv)
{
	enable_delayed_work(&priv->service_task);
}

/**
 * refnic_service_start() - start watching the port's queues
 * @priv: port, just brought up (ndo_open; the instance lock held)
 */
void refnic_service_start(struct refnic_priv *priv)
{
	schedule_delayed_work(&priv->service_task,
			      round_jiffies_relative(REFNIC_SERVICE_PERIOD));
}

/**
 * refnic_service_stop() - stop watching the port's queues
 * @priv: port, going down (ndo_stop; the instance lock held)
 *
 * Does not wait: the task takes the instance lock. One already running
 * finds the port down and does not come back.
 */
void refnic_service_stop(struct refnic_priv *priv)
{
	cancel_delayed_work(&priv->service_task);
}

/**
 * refnic_service_stop_sync() - wait until the service task is gone for good
 * @priv: port, closed and unregistered, or never registered (its
 *	destructor): closed and unregistered, the lock the task takes is not
 *	held; never registered, the task was never enabled and this returns
 *	at once. The task stays disabled: nothing starts it again.
 */
void refnic_service_stop_sync(struct refnic_priv *priv)
{
	disable_delayed_work_sync(&priv->service_task);
}
