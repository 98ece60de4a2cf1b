// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Driver debugfs, one directory per port, named after the port's bus device
 * (netdev names change and move between namespaces):
 * /sys/kernel/debug/refnic/drv-<device>/
 *
 *   rings        ring positions of every live queue pair, each TX queue's
 *                stop and wake thresholds (free descriptors), each queue
 *                pair a kernel-bypass session holds, and each vector's RX
 *                refill backoff (refill_delay_us, 0 when not backing off)
 *                (read)
 *   ring_tx, ring_rx
 *                the port's name and queue count, then every live queue's
 *                ring indices (read; refnic_dbg_ring_print() has the format;
 *                refnicctl ring show draws the rings from them)
 *   service      the service task (refnic_service.c): how many times it
 *                sampled the port, and its record of each RX queue (read)
 *   reset_queue  "N" restarts queue pair N the way a TX timeout does, "all"
 *                every pair (write)
 *   restart_rxq  "N" replaces RX queue N through netdev_queue_mgmt_ops in
 *                the order the core uses (netdev_rx_queue_restart(), which
 *                refuses a queue with a memory provider, and 6.12 does not
 *                export); "N abort" allocates and frees the new memory
 *                without swapping, as the core does when a memory provider
 *                check fails (write)
 *   hw_gro_idle_us, hw_gro_timeout_us
 *                the hardware GRO timers the driver programs (RX_GRO_IDLE,
 *                RX_GRO_TIMEOUT; 0 to REFNIC_GRO_TIMEOUT_MAX), written to
 *                the device at once and kept across resets (read, write)
 *
 * Test hooks for recovery paths that are otherwise hard to reach, and for
 * tests that need longer GRO windows than hardware uses: under emulation a
 * frame takes tens of microseconds to reach the device.
 */

#include <linux/debugfs.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <net/netdev_queues.h>

#include "refnic.h"
#include "refnic_regs.h"

static int refnic_dbg_rings_show(struct seq_file *m, void *unused)
{
	struct refnic_priv *priv = m->private;
	unsigned int q;

	rtnl_lock();
	netdev_lock(priv->netdev);
	seq_printf(m, "%s: %u queue pairs, running %d\n", priv->netdev->name,
		   priv->cfg.num_queues, netif_running(priv->netdev));
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		struct refnic_txq *txq = priv->txq[q];
		struct refnic_rxq *rxq = priv->rxq[q];

		if (txq)
			seq_printf(m, "txq%u size %u tail %u head %u db %u stop %u wake %u\n",
				   q, txq->size, READ_ONCE(txq->tail),
				   READ_ONCE(txq->head), READ_ONCE(txq->db_tail),
				   REFNIC_TX_STOP_THRESH,
				   txq->wake_thresh);
		if (rxq)
			seq_printf(m, "rxq%u size %u ntu %u ntc %u cq_head %u broken %d pp_napi %d\n",
				   q, rxq->size, READ_ONCE(rxq->ntu),
				   READ_ONCE(rxq->ntc), READ_ONCE(rxq->cq_head),
				   READ_ONCE(rxq->broken), rxq->pp_napi);
		if (priv->bypass_mask & BIT(q))
			seq_printf(m, "bypass%u whole_port %d\n", q,
				   priv->bypass_whole_port == (int)q);
		if (priv->vec[q].added)
			seq_printf(m, "vec%u enabled %d napi_state %#lx intr_status %#x refill_delay_us %u\n",
				   q, priv->vec[q].enabled,
				   READ_ONCE(priv->vec[q].napi.state),
				   refnic_rd32(priv, REFNIC_REG_INTR_STATUS(q)),
				   READ_ONCE(priv->vec[q].refill_delay_us));
	}
	netdev_unlock(priv->netdev);
	rtnl_unlock();

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(refnic_dbg_rings);

/*
 * refnic_dbg_ring_print() - one descriptor ring's indices, free-running as
 * the queue registers count: @clean the driver's next to reap, @head the
 * device's HEAD register (what it has consumed: fetched and, on TX,
 * written back DONE for), @doorbell the last tail written to the device,
 * @tail the driver's next to fill. refnicctl ring show draws the owners
 * from them. Read without the queue's owner (NAPI, the xmit lock), in the
 * order each moves after the one before (clean, head, doorbell, tail), so
 * that a later read never shows less than an earlier one implies; each is
 * a moment old, and the device may commit HEAD after the driver reaped
 * (clean ahead of head).
 */
static void refnic_dbg_ring_print(struct seq_file *m, const char *dir,
				  unsigned int q, u32 size, u32 clean, u32 head,
				  u32 doorbell, u32 tail)
{
	seq_printf(m, "queue %s %u size %u clean %u head %u doorbell %u tail %u\n",
		   dir, q, size, clean, head, doorbell, tail);
}

static void refnic_dbg_ring_tx(struct seq_file *m, struct refnic_priv *priv,
			       unsigned int q)
{
	struct refnic_txq *txq = priv->txq[q];
	u32 clean, head, doorbell;

	if (!txq)
		return;
	/* In order, each index read no earlier than the one it trails. */
	clean = READ_ONCE(txq->head);
	smp_rmb();	/* clean before head */
	head = refnic_rd32(priv, REFNIC_REG_TXQ_HEAD(q));
	smp_rmb();	/* head before doorbell */
	doorbell = READ_ONCE(txq->db_tail);
	smp_rmb();	/* doorbell before tail */
	refnic_dbg_ring_print(m, "tx", q, txq->size, clean, head, doorbell,
			      READ_ONCE(txq->tail));
}

/* RX writes its doorbell right after a refill publishes ntu: its doorbell
 * is its tail (a moment early).
 */
static void refnic_dbg_ring_rx(struct seq_file *m, struct refnic_priv *priv,
			       unsigned int q)
{
	struct refnic_rxq *rxq = priv->rxq[q];
	u32 clean, head, tail;

	if (!rxq)
		return;
	clean = READ_ONCE(rxq->ntc);
	smp_rmb();	/* clean before head, as in refnic_dbg_ring_tx() */
	head = refnic_rd32(priv, REFNIC_REG_RXQ_HEAD(q));
	smp_rmb();	/* head before tail */
	tail = READ_ONCE(rxq->ntu);
	refnic_dbg_ring_print(m, "rx", q, rxq->size, clean, head, tail, tail);
}

static int refnic_dbg_ring_show(struct seq_file *m, bool rx)
{
	struct refnic_priv *priv = m->private;
	unsigned int q;

	rtnl_lock();
	netdev_lock(priv->netdev);
	seq_printf(m, "%s: %u queue pairs\n", priv->netdev->name,
		   priv->cfg.num_queues);
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		if (rx)
			refnic_dbg_ring_rx(m, priv, q);
		else
			refnic_dbg_ring_tx(m, priv, q);
	}
	netdev_unlock(priv->netdev);
	rtnl_unlock();

	return 0;
}

static int refnic_dbg_ring_tx_show(struct seq_file *m, void *unused)
{
	return refnic_dbg_ring_show(m, false);
}
DEFINE_SHOW_ATTRIBUTE(refnic_dbg_ring_tx);

static int refnic_dbg_ring_rx_show(struct seq_file *m, void *unused)
{
	return refnic_dbg_ring_show(m, true);
}
DEFINE_SHOW_ATTRIBUTE(refnic_dbg_ring_rx);

static int refnic_dbg_service_show(struct seq_file *m, void *unused)
{
	struct refnic_priv *priv = m->private;
	unsigned int q;

	rtnl_lock();
	netdev_lock(priv->netdev);
	seq_printf(m, "runs %llu\n", priv->service_runs);
	for (q = 0; q < priv->cfg.num_queues; q++) {
		const struct refnic_queue_watch *w = &priv->watch[q];

		seq_printf(m, "qp%u valid %d frames %u cq_head %u polls %llu stall_samples %u idle_samples %u tx_head %u tx_stuck_ms %u\n",
			   q, w->valid, w->frames, w->cq_head, w->polls,
			   w->stall_samples, w->idle_samples, w->tx_head,
			   w->tx_stuck ?
			   jiffies_to_msecs(jiffies - w->tx_stuck_since) : 0);
	}
	netdev_unlock(priv->netdev);
	rtnl_unlock();

	return 0;
}
DEFINE_SHOW_ATTRIBUTE(refnic_dbg_service);

static ssize_t refnic_dbg_reset_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct refnic_priv *priv = file->private_data;
	char buf[16] = {};
	unsigned int q;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;

	if (sysfs_streq(buf, "all"))
		refnic_schedule_reset(priv, -1);
	else if (!kstrtouint(buf, 0, &q) && q < REFNIC_MAX_QUEUES)
		refnic_schedule_reset(priv, q);
	else
		return -EINVAL;

	return len;
}

static const struct file_operations refnic_dbg_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = refnic_dbg_reset_write,
};

/* The queue ops, called as the core calls them: on 7.x with the queue's
 * current config (refnic_dbg_restart_rxq() reads it once, as the core
 * does), whose rx_page_size a bound memory provider sets.
 */
struct refnic_dbg_qcfg {
#if REFNIC_KERNEL_7
	struct netdev_queue_config qcfg;
#endif
};

static int refnic_dbg_queue_mem_alloc(struct net_device *netdev,
				      struct refnic_dbg_qcfg *cfg, void *mem,
				      unsigned int q)
{
	const struct netdev_queue_mgmt_ops *ops = netdev->queue_mgmt_ops;

#if REFNIC_KERNEL_7
	return ops->ndo_queue_mem_alloc(netdev, &cfg->qcfg, mem, q);
#else
	return ops->ndo_queue_mem_alloc(netdev, mem, q);
#endif
}

static int refnic_dbg_queue_start(struct net_device *netdev,
				  struct refnic_dbg_qcfg *cfg, void *mem,
				  unsigned int q)
{
	const struct netdev_queue_mgmt_ops *ops = netdev->queue_mgmt_ops;

#if REFNIC_KERNEL_7
	return ops->ndo_queue_start(netdev, &cfg->qcfg, mem, q);
#else
	return ops->ndo_queue_start(netdev, mem, q);
#endif
}

/* netdev_rx_queue_restart() without the memory provider check. */
static int refnic_dbg_restart_rxq(struct refnic_priv *priv, unsigned int q,
				  bool abort)
{
	const struct netdev_queue_mgmt_ops *ops = priv->netdev->queue_mgmt_ops;
	struct net_device *netdev = priv->netdev;
	struct refnic_dbg_qcfg cfg;
	void *new_mem, *old_mem;
	int err = -ENOMEM;

	new_mem = kvzalloc(ops->ndo_queue_mem_size, GFP_KERNEL);
	old_mem = kvzalloc(ops->ndo_queue_mem_size, GFP_KERNEL);
	if (!new_mem || !old_mem)
		goto out;

	rtnl_lock();
	netdev_lock(netdev);
	err = -ERANGE;
	if (q >= netdev->real_num_rx_queues)
		goto out_unlock;
#if REFNIC_KERNEL_7
	netdev_queue_config(netdev, q, &cfg.qcfg);
#endif
	err = refnic_dbg_queue_mem_alloc(netdev, &cfg, new_mem, q);
	if (err)
		goto out_unlock;
	if (abort)
		goto out_free_new;
	err = ops->ndo_queue_stop(netdev, old_mem, q);
	if (err)
		goto out_free_new;
	err = refnic_dbg_queue_start(netdev, &cfg, new_mem, q);
	if (err) {
		WARN_ON(refnic_dbg_queue_start(netdev, &cfg, old_mem, q));
		goto out_free_new;
	}
	ops->ndo_queue_mem_free(netdev, old_mem);
	goto out_unlock;

out_free_new:
	ops->ndo_queue_mem_free(netdev, new_mem);
out_unlock:
	netdev_unlock(netdev);
	rtnl_unlock();
out:
	kvfree(old_mem);
	kvfree(new_mem);
	return err;
}

static ssize_t refnic_dbg_restart_rxq_write(struct file *file,
					    const char __user *ubuf,
					    size_t len, loff_t *ppos)
{
	struct refnic_priv *priv = file->private_data;
	char buf[24] = {}, *arg;
	unsigned int q;
	bool abort;
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;

	arg = strim(buf);
	abort = strstr(arg, " abort");
	if (abort)
		*strchr(arg, ' ') = '\0';
	if (kstrtouint(arg, 0, &q))
		return -EINVAL;

	err = refnic_dbg_restart_rxq(priv, q, abort);

	return err ? err : len;
}

static const struct file_operations refnic_dbg_restart_rxq_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = refnic_dbg_restart_rxq_write,
};

static int refnic_dbg_gro_timer_get(struct refnic_priv *priv, u32 *field,
				    u64 *val)
{
	rtnl_lock();
	netdev_lock(priv->netdev);
	*val = *field;
	netdev_unlock(priv->netdev);
	rtnl_unlock();
	return 0;
}

static int refnic_dbg_gro_timer_set(struct refnic_priv *priv, u32 *field,
				    u64 val)
{
	if (val > REFNIC_GRO_TIMEOUT_MAX)
		return -ERANGE;
	rtnl_lock();
	netdev_lock(priv->netdev);
	*field = val;
	refnic_write_gro_timers(priv);
	netdev_unlock(priv->netdev);
	rtnl_unlock();
	return 0;
}

static int refnic_dbg_gro_idle_get(void *data, u64 *val)
{
	struct refnic_priv *priv = data;

	return refnic_dbg_gro_timer_get(priv, &priv->hw_gro_idle_us, val);
}

static int refnic_dbg_gro_idle_set(void *data, u64 val)
{
	struct refnic_priv *priv = data;

	return refnic_dbg_gro_timer_set(priv, &priv->hw_gro_idle_us, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(refnic_dbg_gro_idle_fops, refnic_dbg_gro_idle_get,
			 refnic_dbg_gro_idle_set, "%llu\n");

static int refnic_dbg_gro_timeout_get(void *data, u64 *val)
{
	struct refnic_priv *priv = data;

	return refnic_dbg_gro_timer_get(priv, &priv->hw_gro_timeout_us, val);
}

static int refnic_dbg_gro_timeout_set(void *data, u64 val)
{
	struct refnic_priv *priv = data;

	return refnic_dbg_gro_timer_set(priv, &priv->hw_gro_timeout_us, val);
}
DEFINE_DEBUGFS_ATTRIBUTE(refnic_dbg_gro_timeout_fops,
			 refnic_dbg_gro_timeout_get,
			 refnic_dbg_gro_timeout_set, "%llu\n");

/**
 * refnic_debugfs_port_init() - create the port's debugfs directory
 * @priv: port, registered (as its peer is), RTNL held
 */
void refnic_debugfs_port_init(struct refnic_priv *priv)
{
	char name[48];

	snprintf(name, sizeof(name), "drv-%s", dev_name(priv->dma_dev));
	priv->debugfs = debugfs_create_dir(name, refnic_debugfs_root);
	debugfs_create_file("rings", 0400, priv->debugfs, priv,
			    &refnic_dbg_rings_fops);
	debugfs_create_file("ring_tx", 0400, priv->debugfs, priv,
			    &refnic_dbg_ring_tx_fops);
	debugfs_create_file("ring_rx", 0400, priv->debugfs, priv,
			    &refnic_dbg_ring_rx_fops);
	debugfs_create_file("service", 0400, priv->debugfs, priv,
			    &refnic_dbg_service_fops);
	debugfs_create_file("reset_queue", 0200, priv->debugfs, priv,
			    &refnic_dbg_reset_fops);
	debugfs_create_file("restart_rxq", 0200, priv->debugfs, priv,
			    &refnic_dbg_restart_rxq_fops);
	debugfs_create_file_unsafe("hw_gro_idle_us", 0600, priv->debugfs, priv,
				   &refnic_dbg_gro_idle_fops);
	debugfs_create_file_unsafe("hw_gro_timeout_us", 0600, priv->debugfs,
				   priv, &refnic_dbg_gro_timeout_fops);
	debugfs_create_bool("tx_clean_mmio", 0600, priv->debugfs,
			    &priv->tx_clean_mmio);
	/* Taken by the RX queues when built (ethtool -G, -L), clamped. */
	debugfs_create_u32("rx_refill_batch", 0600, priv->debugfs,
			   &priv->rx_refill_batch);
	/* Taken by the vectors when added (up, ethtool -L), clamped to
	 * 1..REFNIC_NAPI_WEIGHT_MAX; -L while up adds the new ones only.
	 */
	debugfs_create_u32("napi_weight", 0600, priv->debugfs,
			   &priv->napi_weight);
}

/**
 * refnic_debugfs_port_exit() - remove it, waiting for running handlers
 * @priv: port
 */
void refnic_debugfs_port_exit(struct refnic_priv *priv)
{
	debugfs_remove(priv->debugfs);
	priv->debugfs = NULL;
}
