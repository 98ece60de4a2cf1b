// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Queue lifecycle, in four separate steps:
 *
 *   alloc  builds a queue's memory - rings, software rings, page_pool, the
 *          posted RX buffers - without touching the device or live state;
 *   start  programs the device's queue registers, enables the queue and
 *          lets its vector poll it;
 *   stop   quiesces the vector, disables the queue, waits for STOPPED and
 *          takes the memory back out of the live state, emptied;
 *   free   releases the memory.
 *
 * Every reconfiguration is built from these: open and close, ethtool -L
 * and -G while traffic runs (new set allocated first, so a failure leaves
 * the old one running), a queue pair reset after a TX timeout, and the
 * core's per-RX-queue restart (netdev_queue_mgmt_ops, used by devmem
 * binding). All of it runs under the netdev instance lock (RTNL on 6.12,
 * see refnic_compat.h).
 *
 * A device that does not stop: when a queue pair does not report STOPPED
 * and the port reset meant to force it times out too, the device may still
 * read and write every ring and buffer it was given, so none of them may
 * be freed. The port fails (refnic_port_fail()): its queues go into the
 * card's quarantine, freed once the card is unplugged, and nothing brings
 * the port back until it is deleted.
 */

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/ethtool_netlink.h>
#include <linux/iopoll.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>
#include <net/page_pool/helpers.h>

#include "refnic.h"
#include "refnic_bypass.h"
#include "refnic_regs.h"

static int refnic_wait_stopped(struct refnic_priv *priv, u32 reg)
{
	u32 val;

	return read_poll_timeout(refnic_rd32, val,
				 val & REFNIC_Q_STATUS_STOPPED, 10,
				 REFNIC_STOP_TIMEOUT_US, false, priv, reg);
}

/* ---- TX queue ----------------------------------------------------------- */

/* Touches nothing of the port: also frees a failed port's kept queues. */
static void refnic_txq_free(struct refnic_txq *txq)
{
	dma_free_coherent(txq->dma_dev, txq->size * sizeof(*txq->desc),
			  txq->desc, txq->desc_dma);
	kvfree(txq->bufs);
	kfree(txq);
}

/* The queues' host memory is charged to the memory cgroup of whoever
 * builds them (`ip link set up`, ethtool -L/-G; nobody's for the reset
 * work). The kernel charges neither DMA-coherent rings nor page_pool
 * pages: those are bounded by the queue count and ring sizes.
 */
static struct refnic_txq *refnic_txq_alloc(struct refnic_priv *priv,
					   unsigned int idx, u32 size)
{
	struct refnic_txq *txq;

	txq = kzalloc(sizeof(*txq), GFP_KERNEL_ACCOUNT);
	if (!txq)
		return NULL;

	txq->bufs = kvcalloc(size, sizeof(*txq->bufs), GFP_KERNEL_ACCOUNT);
	if (!txq->bufs)
		goto err_free_txq;

	txq->desc = dma_alloc_coherent(priv->dma_dev,
				       size * sizeof(*txq->desc),
				       &txq->desc_dma, GFP_KERNEL);
	if (!txq->desc)
		goto err_free_bufs;

	txq->size = size;
	txq->mask = size - 1;
	txq->wake_thresh = refnic_tx_wake_thresh(size);
	txq->idx = idx;
	txq->priv = priv;
	txq->dma_dev = priv->dma_dev;
	txq->nq = netdev_get_tx_queue(priv->netdev, idx);
	txq->xstats = &priv->xstats[idx];
	txq->nstats = &priv->nstats[idx];

	return txq;

err_free_bufs:
	kvfree(txq->bufs);
err_free_txq:
	kfree(txq);
	return NULL;
}

static void refnic_txq_start(struct refnic_priv *priv, struct refnic_txq *txq)
{
	unsigned int q = txq->idx;

	refnic_wr64(priv, REFNIC_REG_TXQ_BASE_LO(q), REFNIC_REG_TXQ_BASE_HI(q),
		    txq->desc_dma);
	refnic_wr32(priv, REFNIC_REG_TXQ_SIZE(q), txq->size);
	refnic_wr32(priv, REFNIC_REG_TXQ_CTRL(q),
		    FIELD_PREP(REFNIC_Q_CTRL_VECTOR, q) | REFNIC_Q_CTRL_ENABLE);
}

/* ---- RX queue ----------------------------------------------------------- */

/* page_pool_destroy() and page_pool_disable_direct_recycling() require the
 * pool's NAPI not to run. A pool built beside a live queue and never
 * started (an allocation that failed half way, a restart the core
 * aborted) still points at that queue's running NAPI, so it is paused for
 * the moment.
 */
static void refnic_rxq_unhook_napi(struct refnic_priv *priv,
				   struct refnic_rxq *rxq)
{
	struct refnic_vector *v = &priv->vec[rxq->idx];
	bool live = v->enabled;

	if (!rxq->pp_napi)
		return;

	if (live)
		napi_disable_locked(&v->napi);
	page_pool_disable_direct_recycling(rxq->pp);
	if (rxq->hdr_pp)
		page_pool_disable_direct_recycling(rxq->hdr_pp);
	rxq->pp_napi = false;
	if (live) {
		napi_enable_locked(&v->napi);
		local_bh_disable();
		napi_schedule(&v->napi);
		local_bh_enable();
	}
}

/* A queue stopped and started again (parked for a bypass session, a
 * reconfiguration rolled back) had its pools unlinked from the NAPI when it
 * stopped: link them again, or it recycles the slow way for good. The
 * vector is disabled (refnic_qpairs_start(), refnic_queue_start()): its
 * NAPI cannot be running, and the refill that follows allocates from
 * process context.
 */
static void refnic_rxq_hook_napi(struct refnic_priv *priv,
				 struct refnic_rxq *rxq)
{
	if (rxq->pp_napi)
		return;

	WARN_ON_ONCE(priv->vec[rxq->idx].enabled);
	page_pool_enable_direct_recycling(rxq->pp, rxq->napi);
	if (rxq->hdr_pp)
		page_pool_enable_direct_recycling(rxq->hdr_pp, rxq->napi);
	rxq->pp_napi = true;
}

/* Destroys an RX queue's pools, its buffers back in them (refnic_rx_drain()),
 * and frees its rings. Touches nothing of the port: also frees a failed
 * port's kept queues.
 */
static void refnic_rxq_release(struct refnic_rxq *rxq)
{
	if (rxq->hdr_pp)
		page_pool_destroy(rxq->hdr_pp);
	page_pool_destroy(rxq->pp);
	dma_free_coherent(rxq->dma_dev, rxq->size * sizeof(*rxq->cmpl),
			  rxq->cmpl, rxq->cmpl_dma);
	dma_free_coherent(rxq->dma_dev, rxq->size * sizeof(*rxq->desc),
			  rxq->desc, rxq->desc_dma);
	kvfree(rxq->bufs);
	kfree(rxq);
}

static void refnic_rxq_free(struct refnic_priv *priv, struct refnic_rxq *rxq)
{
	refnic_rxq_unhook_napi(priv, rxq);
	refnic_rx_drain(rxq);
	refnic_pp_stats_retire(priv, rxq);
	refnic_rxq_release(rxq);
}

/* Is a memory provider (a devmem dmabuf binding) set on RX queue @idx? The
 * core sets it under the instance lock before it restarts the queue.
 */
static bool refnic_rxq_bound(struct refnic_priv *priv, unsigned int idx)
{
	return !!__netif_get_rx_queue(priv->netdev, idx)->mp_params.mp_priv;
}

/**
 * refnic_rxq_bound_any() - is a dmabuf bound to any RX queue of the port
 * @priv: port
 * @first: first queue index to look at
 *
 * Return: the lowest bound queue index >= @first, or -1.
 */
int refnic_rxq_bound_any(struct refnic_priv *priv, unsigned int first)
{
	unsigned int i;

	netdev_assert_locked(priv->netdev);
	for (i = first; i < priv->netdev->real_num_rx_queues; i++)
		if (refnic_rxq_bound(priv, i))
			return i;
	return -1;
}

/**
 * refnic_lend_dma_dev() - the port's DMA device, for a dmabuf the core maps
 * @priv: port; the instance lock held (RTNL on 6.12)
 *
 * The core maps a dmabuf bound for devmem (RX or TX) against this device and
 * unmaps it when the binding ends: when its netlink socket closes, which may
 * be after the pair is deleted and refnic unloaded. It takes no reference on
 * the device and tells the driver nothing, so the first time the device is
 * lent it is kept for good (refnic_bus.h): a device's worth of memory per
 * port, against an unmap on freed memory.
 *
 * Return: the device, or NULL when the bus keeps as many devices as it may.
 */
struct device *refnic_lend_dma_dev(struct refnic_priv *priv)
{
	if (priv->dma_dev_lent)
		return priv->dma_dev;
	if (refnic_bus_port_keep_dev(priv->port)) {
		netdev_err_once(priv->netdev,
				"%u port devices are kept for dmabuf bindings already, the most refnic keeps: no devmem until reboot\n",
				REFNIC_BUS_KEPT_DEVS_MAX);
		return NULL;
	}
	priv->dma_dev_lent = true;
	return priv->dma_dev;
}

/* What an RX queue's pools share: pages DMA-mapped for the device and
 * synced whole when recycled, recycled directly into the queue pair's NAPI
 * context; order 0, which a bound payload pool changes.
 */
static void refnic_rx_pp_params(struct refnic_priv *priv, unsigned int idx,
				struct page_pool_params *pp)
{
	/* page_pool_destroy() unmaps what is in flight only if each page
	 * can carry its mapping's index (refnic_compat.h).
	 */
	BUILD_BUG_ON(!PP_DMA_INDEX_BITS);

	*pp = (struct page_pool_params) {
		.order = 0,
		.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.nid = dev_to_node(priv->dma_dev),
		.dev = priv->dma_dev,
		.napi = &priv->vec[idx].napi,
		.dma_dir = DMA_FROM_DEVICE,
		.max_len = PAGE_SIZE,
		.offset = 0,
		.netdev = priv->netdev,
	};
}

/* The header pool: page fragments of REFNIC_RX_HDR_SLOT bytes. */
static struct page_pool *refnic_hdr_pool_create(struct refnic_priv *priv,
						unsigned int idx, u32 size)
{
	struct page_pool_params pp;

	refnic_rx_pp_params(priv, idx, &pp);
	/* One page serves PAGE_SIZE / REFNIC_RX_HDR_SLOT slots. */
	pp.pool_size = max(size * REFNIC_RX_HDR_SLOT / PAGE_SIZE, 64UL);

	return page_pool_create(&pp);
}

/* The payload buffer size RX queue @idx is to have with a memory provider
 * bound: 7.x lets the provider ask for larger net_iovs (rx_page_size, from
 * the core's queue config); 6.12's are always a page.
 */
static u32 refnic_rxq_page_size(struct refnic_priv *priv, unsigned int idx)
{
#if REFNIC_KERNEL_7
	struct netdev_queue_config qcfg;

	netdev_queue_config(priv->netdev, idx, &qcfg);
	return qcfg.rx_page_size;
#else
	return PAGE_SIZE;
#endif
}

/**
 * refnic_rxq_alloc() - build an RX queue's rings, pools and buffers
 * @priv: port
 * @idx: queue index
 * @cfg: ring sizes and header split
 * @page_size: payload buffer size if a memory provider is bound to the
 *	queue: a power of 2 from PAGE_SIZE to REFNIC_RXQ_BUF_LEN_MAX, checked
 *	by refnic_queue_validate_qcfg() (ignored without a provider)
 *
 * Return: the queue, or an ERR_PTR().
 */
static struct refnic_rxq *refnic_rxq_alloc(struct refnic_priv *priv,
					   unsigned int idx,
					   const struct refnic_qcfg *cfg,
					   u32 page_size)
{
	bool hds = cfg->tcp_data_split == ETHTOOL_TCP_DATA_SPLIT_ENABLED;
	bool bound = refnic_rxq_bound(priv, idx);
	u32 size = cfg->rx_ring_size;
	struct page_pool_params pp;
	struct refnic_rxq *rxq;
	int err;

	/* The payload pool hands out REFNIC_RX_BUF_LEN fragments of pages;
	 * one whose queue has a memory provider bound hands out its net_iovs
	 * instead (PP_FLAG_ALLOW_UNREADABLE_NETMEM, looked up by netdev and
	 * queue_idx), @page_size bytes each.
	 */
	refnic_rx_pp_params(priv, idx, &pp);
	pp.flags |= PP_FLAG_ALLOW_UNREADABLE_NETMEM;
	pp.queue_idx = idx;
	pp.pool_size = size;

	/* devmem payload is unreadable: it only works with the headers
	 * split off into readable buffers. The 6.12 core does not check
	 * this when binding and has no extack here, so say it in the log.
	 */
	if (bound && !hds) {
		netdev_err(priv->netdev,
			   "rxq %u: a dmabuf needs header split: ethtool -G %s tcp-data-split on\n",
			   idx, priv->netdev->name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	/* SO_DEVMEM_DONTNEED returns buffers from process context, a
	 * ring lock each; a ring deep enough for bursts keeps them out of
	 * the provider's slow path (the 6.12 cap is 16384).
	 */
	if (bound) {
		pp.pool_size = min(4 * size, 16384U);
		/* The provider checks the pool's order against its net_iov
		 * size; the header pool stays order 0.
		 */
		pp.order = get_order(page_size);
		pp.max_len = page_size;
		/* The core mapped the dmabuf against this device when it
		 * bound it (6.12's takes the netdev's parent): keep it. An
		 * io_uring provider holds a reference of its own, but this
		 * cannot tell the two apart.
		 */
		if (!refnic_lend_dma_dev(priv))
			return ERR_PTR(-ENOSPC);
	}

	rxq = kzalloc(sizeof(*rxq), GFP_KERNEL_ACCOUNT);
	if (!rxq)
		return ERR_PTR(-ENOMEM);
	/* Set first: the error paths below use them. */
	rxq->size = size;
	rxq->mask = size - 1;
	rxq->idx = idx;
	rxq->priv = priv;
	rxq->netdev = priv->netdev;
	rxq->napi = &priv->vec[idx].napi;
	rxq->stats = &priv->nstats[idx];
	rxq->dma_dev = priv->dma_dev;
	rxq->batch = READ_ONCE(refnic_recycle_batch);
	rxq->refill_batch = rxq->batch ?
		clamp(READ_ONCE(priv->rx_refill_batch), 1U,
		      min(REFNIC_RX_REFILL_BATCH_MAX, size / 2)) : 1;
	rxq->hdr_slot = rxq->batch ? REFNIC_RX_HDR_SLOT : PAGE_SIZE;
	/* A buffer is a whole net_iov: fragments of it would only multiply
	 * the tokens a devmem socket must give back.
	 */
	rxq->buf_len = bound ? page_size : REFNIC_RX_BUF_LEN;

	err = -ENOMEM;
	rxq->bufs = kvcalloc(size, sizeof(*rxq->bufs), GFP_KERNEL_ACCOUNT);
	if (!rxq->bufs)
		goto err_free_rxq;

	rxq->desc = dma_alloc_coherent(priv->dma_dev,
				       size * sizeof(*rxq->desc),
				       &rxq->desc_dma, GFP_KERNEL);
	if (!rxq->desc)
		goto err_free_bufs;

	rxq->cmpl = dma_alloc_coherent(priv->dma_dev,
				       size * sizeof(*rxq->cmpl),
				       &rxq->cmpl_dma, GFP_KERNEL);
	if (!rxq->cmpl)
		goto err_free_desc;

	/* A memory provider's errors (devmem) come back as they are. */
	rxq->pp = page_pool_create(&pp);
	if (IS_ERR(rxq->pp)) {
		err = PTR_ERR(rxq->pp);
		goto err_free_cmpl;
	}
	rxq->pp_napi = true;

	if (hds) {
		rxq->hdr_pp = refnic_hdr_pool_create(priv, idx, size);
		if (IS_ERR(rxq->hdr_pp)) {
			err = PTR_ERR(rxq->hdr_pp);
			rxq->hdr_pp = NULL;
			goto err_free_pool;
		}
		rxq->hdr_len = REFNIC_RX_HDR_SLOT;
	}

	/* A queue that cannot get a single buffer is useless; one that got
	 * some runs, and NAPI tops it up later.
	 */
	err = -ENOMEM;
	if (!refnic_rx_post(rxq, GFP_KERNEL))
		goto err_free_pool;

	return rxq;

err_free_pool:
	refnic_rxq_unhook_napi(priv, rxq);
	refnic_rx_drain(rxq);
	if (rxq->hdr_pp)
		page_pool_destroy(rxq->hdr_pp);
	page_pool_destroy(rxq->pp);
err_free_cmpl:
	dma_free_coherent(priv->dma_dev, size * sizeof(*rxq->cmpl),
			  rxq->cmpl, rxq->cmpl_dma);
err_free_desc:
	dma_free_coherent(priv->dma_dev, size * sizeof(*rxq->desc),
			  rxq->desc, rxq->desc_dma);
err_free_bufs:
	kvfree(rxq->bufs);
err_free_rxq:
	kfree(rxq);
	return ERR_PTR(err);
}

static void refnic_rxq_start(struct refnic_priv *priv, struct refnic_rxq *rxq)
{
	unsigned int q = rxq->idx;

	refnic_rxq_hook_napi(priv, rxq);

	/* A queue restarted after a stop was emptied by it. */
	refnic_rx_post(rxq, GFP_KERNEL);
	rxq->broken = false;

	refnic_wr64(priv, REFNIC_REG_RXQ_BASE_LO(q), REFNIC_REG_RXQ_BASE_HI(q),
		    rxq->desc_dma);
	refnic_wr32(priv, REFNIC_REG_RXQ_SIZE(q), rxq->size);
	refnic_wr32(priv, REFNIC_REG_RXQ_BUF_LEN(q), rxq->buf_len);
	refnic_wr32(priv, REFNIC_REG_RXQ_HDR_LEN(q), rxq->hdr_len);
	refnic_wr64(priv, REFNIC_REG_RXCQ_BASE_LO(q),
		    REFNIC_REG_RXCQ_BASE_HI(q), rxq->cmpl_dma);
	refnic_wr32(priv, REFNIC_REG_RXCQ_SIZE(q), rxq->size);
	refnic_wr32(priv, REFNIC_REG_RXCQ_HEAD(q), rxq->cq_head);
	refnic_wr32(priv, REFNIC_REG_RXQ_CTRL(q),
		    FIELD_PREP(REFNIC_Q_CTRL_VECTOR, q) | REFNIC_Q_CTRL_ENABLE |
		    (rxq->hdr_len ? REFNIC_Q_CTRL_HDR_SPLIT : 0));

	/* Descriptors must be visible before the device is told. */
	dma_wmb();
	refnic_wr32(priv, REFNIC_REG_RXQ_TAIL(q), rxq->ntu);
}

/* ---- Queue pairs -------------------------------------------------------- */

/**
 * refnic_qset_alloc() - build the memory of queue pairs
 * @priv: port
 * @set: where to put the queues; @set->cfg gives the ring sizes
 * @first: first queue pair
 * @count: number of queue pairs
 *
 * Touches no live state; the vectors of the pairs must exist (their NAPI
 * instances are the page_pools' consumers).
 *
 * Return: 0, or a negative errno with nothing left allocated: -ENOMEM, or
 * -EOPNOTSUPP when a queue with a dmabuf bound would lose header split.
 */
int refnic_qset_alloc(struct refnic_priv *priv, struct refnic_qset *set,
		      unsigned int first, unsigned int count)
{
	struct refnic_rxq *rxq;
	unsigned int i;
	int err;

	for (i = first; i < first + count; i++) {
		set->txq[i] = refnic_txq_alloc(priv, i, set->cfg.tx_ring_size);
		if (!set->txq[i]) {
			err = -ENOMEM;
			goto err_free;
		}
		rxq = refnic_rxq_alloc(priv, i, &set->cfg,
				       refnic_rxq_page_size(priv, i));
		if (IS_ERR(rxq)) {
			err = PTR_ERR(rxq);
			goto err_free;
		}
		set->rxq[i] = rxq;
	}

	return 0;

err_free:
	refnic_qset_free(priv, set, first, count);
	return err;
}

/**
 * refnic_qset_free() - release the memory of queue pairs
 * @priv: port
 * @set: the queues; entries may be NULL
 * @first: first queue pair
 * @count: number of queue pairs
 */
void refnic_qset_free(struct refnic_priv *priv, struct refnic_qset *set,
		      unsigned int first, unsigned int count)
{
	unsigned int i;

	for (i = first; i < first + count; i++) {
		if (set->rxq[i])
			refnic_rxq_free(priv, set->rxq[i]);
		set->rxq[i] = NULL;
		if (set->txq[i])
			refnic_txq_free(set->txq[i]);
		set->txq[i] = NULL;
	}
}

/**
 * refnic_qpairs_start() - make queue pairs live
 * @priv: port
 * @set: the queues, from refnic_qset_alloc() or refnic_qpairs_stop()
 * @first: first queue pair
 * @count: number of queue pairs
 *
 * The vectors must exist and be disabled. Wakes the stack's TX queues.
 * The queues now belong to the live state; @set no longer owns them.
 */
void refnic_qpairs_start(struct refnic_priv *priv, struct refnic_qset *set,
			 unsigned int first, unsigned int count)
{
	unsigned int i;

	for (i = first; i < first + count; i++) {
		struct refnic_vector *v = &priv->vec[i];

		priv->txq[i] = set->txq[i];
		priv->rxq[i] = set->rxq[i];
		v->txq = set->txq[i];
		v->rxq = set->rxq[i];
		set->txq[i] = NULL;
		set->rxq[i] = NULL;

		refnic_txq_start(priv, priv->txq[i]);
		refnic_rxq_start(priv, priv->rxq[i]);
	}

	for (i = first; i < first + count; i++)
		refnic_vector_enable(priv, i);

	for (i = first; i < first + count; i++)
		netif_tx_wake_queue(netdev_get_tx_queue(priv->netdev, i));
}

/* Disables the device's queues of a pair and waits for them to go idle. */
int refnic_qpair_hw_stop(struct refnic_priv *priv, unsigned int q)
{
	int err_tx, err_rx;

	refnic_wr32(priv, REFNIC_REG_TXQ_CTRL(q), 0);
	refnic_wr32(priv, REFNIC_REG_RXQ_CTRL(q), 0);

	err_tx = refnic_wait_stopped(priv, REFNIC_REG_TXQ_STATUS(q));
	err_rx = refnic_wait_stopped(priv, REFNIC_REG_RXQ_STATUS(q));
	if (err_tx || err_rx) {
		netdev_err(priv->netdev, "queue pair %u did not stop\n", q);
		return -ETIMEDOUT;
	}

	return 0;
}

/**
 * refnic_qpairs_stop() - take queue pairs out of the live state
 * @priv: port
 * @set: receives the stopped queues, emptied: TX frames freed, RX buffers
 *	back in their pools
 * @first: first queue pair
 * @count: number of queue pairs
 * @may_reset: the caller stops every queue pair of the port, so a pair that
 *	does not stop may be forced by resetting the port
 *
 * Order: NAPI first (so it cannot wake a TX queue stopped next), then the
 * stack's TX queues, then the device, and only once the device reports the
 * queues idle, the memory it was DMAing to and from.
 *
 * Return: 0; 1 if the port was reset (the caller reprograms it with
 * refnic_hw_program()); -ETIMEDOUT if a pair did not stop and @may_reset
 * is false, in which case the queues are left in the live state, disabled;
 * -EIO if the reset timed out too, or the port had failed already: the
 * port failed (refnic_port_fail()), its queues are in the card's
 * quarantine and @set gets none of them.
 */
int refnic_qpairs_stop(struct refnic_priv *priv, struct refnic_qset *set,
		       unsigned int first, unsigned int count, bool may_reset)
{
	unsigned int i;
	int ret = 0;

	/* A failed port's queues are in the quarantine, not ours to stop. */
	if (priv->failed)
		return -EIO;
	for (i = first; i < first + count; i++)
		refnic_vector_disable(priv, i);

	for (i = first; i < first + count; i++) {
		struct netdev_queue *nq = netdev_get_tx_queue(priv->netdev, i);

		__netif_tx_lock_bh(nq);
		netif_tx_stop_queue(nq);
		__netif_tx_unlock_bh(nq);
	}

	for (i = first; i < first + count; i++)
		if (refnic_qpair_hw_stop(priv, i))
			ret = -ETIMEDOUT;

	if (ret && !may_reset)
		return ret;
	if (ret) {
		/* A reset stops every DMA engine of the port. One that does
		 * not complete leaves the device free to go on writing any
		 * ring or buffer it was given: keep them all.
		 */
		if (refnic_hw_reset(priv)) {
			refnic_port_fail(priv);
			return -EIO;
		}
		ret = 1;
	}

	for (i = first; i < first + count; i++) {
		struct refnic_vector *v = &priv->vec[i];

		if (WARN_ON_ONCE(!priv->txq[i] || !priv->rxq[i]))
			continue;
		set->txq[i] = priv->txq[i];
		set->rxq[i] = priv->rxq[i];
		priv->txq[i] = NULL;
		priv->rxq[i] = NULL;
		v->txq = NULL;
		v->rxq = NULL;

		refnic_tx_drain(set->txq[i]);
		refnic_rxq_unhook_napi(priv, set->rxq[i]);
		refnic_rx_drain(set->rxq[i]);
	}

	return ret;
}

/* ---- Whole-port operations ---------------------------------------------- */

/* The stack's TX queues above the ones in use carry no traffic but are
 * still watched by the TX watchdog (it checks every allocated queue): leave
 * none of them stopped, or a queue given up by ethtool -L "times out".
 */
static void refnic_tx_start_unused(struct refnic_priv *priv)
{
	struct net_device *netdev = priv->netdev;
	unsigned int i;

	for (i = priv->cfg.num_queues; i < netdev->num_tx_queues; i++)
		netif_tx_start_queue(netdev_get_tx_queue(netdev, i));
}

/**
 * refnic_up() - bring the port's queues and the device up (ndo_open)
 * @priv: port
 *
 * Return: 0 or a negative errno, with everything undone.
 */
int refnic_up(struct refnic_priv *priv)
{
	struct refnic_qset set = { .cfg = priv->cfg };
	unsigned int n = priv->cfg.num_queues;
	int err;

	err = refnic_vectors_add(priv, 0, n);
	if (err)
		return err;

	err = refnic_qset_alloc(priv, &set, 0, n);
	if (err)
		goto err_vectors;

	refnic_hw_program(priv);
	refnic_qpairs_start(priv, &set, 0, n);
	refnic_tx_start_unused(priv);

	err = refnic_misc_irq_request(priv);
	if (err)
		goto err_stop;
	refnic_link_update(priv);

	return 0;

err_stop:
	refnic_wr32(priv, REFNIC_REG_CTRL, 0);
	refnic_qpairs_stop(priv, &set, 0, n, true);
	refnic_qset_free(priv, &set, 0, n);
err_vectors:
	refnic_vectors_del(priv, 0, n);
	return err;
}

/**
 * refnic_down() - quiesce the device and free the queues (ndo_stop)
 * @priv: port
 */
void refnic_down(struct refnic_priv *priv)
{
	struct refnic_qset set = { .cfg = priv->cfg };
	unsigned int n = priv->cfg.num_queues;

	/* Bypass sessions lose their queue pairs first, which go back to
	 * the stack to be stopped with the rest.
	 */
	refnic_bypass_detach_all(priv);
	refnic_misc_irq_free(priv);
	netif_carrier_off(priv->netdev);

	/* A failed port's queues are in the card's quarantine already; a
	 * stop that fails puts them there and leaves @set empty.
	 */
	if (!priv->failed) {
		/* MAC off first: no new frames in or out. */
		refnic_wr32(priv, REFNIC_REG_CTRL, 0);
		refnic_qpairs_stop(priv, &set, 0, n, true);
		refnic_qset_free(priv, &set, 0, n);
	}
	refnic_vectors_del(priv, 0, n);
}

static int refnic_set_real_num_queues(struct refnic_priv *priv,
				      unsigned int n)
{
	int err;

	err = netif_set_real_num_tx_queues(priv->netdev, n);
	if (err)
		return err;

	err = netif_set_real_num_rx_queues(priv->netdev, n);
	if (err)
		netif_set_real_num_tx_queues(priv->netdev,
					     priv->cfg.num_queues);
	return err;
}

/**
 * refnic_reconfigure() - apply a new ring configuration (ethtool -L, -G)
 * @priv: port
 * @cfg: the new configuration
 *
 * On a running port the new queues are built first, beside the running
 * ones, and swapped in; if anything fails, the old configuration keeps
 * running. Traffic pauses only for the swap itself. The exception is a
 * device that does not stop the old queues: the port fails.
 *
 * Return: 0 or a negative errno; -EIO when the port failed, now or before.
 */
int refnic_reconfigure(struct refnic_priv *priv,
		       const struct refnic_qcfg *cfg)
{
	struct refnic_qset old = { .cfg = priv->cfg }, new = { .cfg = *cfg };
	unsigned int on = priv->cfg.num_queues, nn = cfg->num_queues;
	struct net_device *netdev = priv->netdev;
	int err, reset;

	netdev_assert_locked(netdev);

	if (priv->failed)
		return -EIO;
	/* A bypass session's queue pair is not the stack's to rebuild. */
	if (priv->bypass_mask)
		return -EBUSY;

	if (!netif_running(netdev)) {
		err = refnic_set_real_num_queues(priv, nn);
		if (err)
			return err;
		priv->cfg = *cfg;
		refnic_rss_set_queues(priv, nn);
		return 0;
	}

	if (nn > on) {
		err = refnic_vectors_add(priv, on, nn - on);
		if (err)
			return err;
	}

	err = refnic_qset_alloc(priv, &new, 0, nn);
	if (err)
		goto err_vectors;

	/* Growing the stack's queue arrays may fail: do it while the old
	 * queues still run, which is harmless for RX. TX grows only once
	 * the old queues are stopped, as xmit may pick any queue below the
	 * real number.
	 */
	if (nn > on) {
		err = netif_set_real_num_rx_queues(netdev, nn);
		if (err)
			goto err_free_new;
	}

	reset = refnic_qpairs_stop(priv, &old, 0, on, true);
	if (reset < 0) {
		/* The port failed: the old queues are kept, the new ones
		 * never reached the device.
		 */
		if (nn > on)
			netif_set_real_num_rx_queues(netdev, on);
		err = reset;
		goto err_free_new;
	}

	err = netif_set_real_num_tx_queues(netdev, nn);
	if (err) {
		if (reset)
			refnic_hw_program(priv);
		refnic_qpairs_start(priv, &old, 0, on);
		netif_set_real_num_rx_queues(netdev, on);
		goto err_free_new;
	}
	if (nn < on)
		netif_set_real_num_rx_queues(netdev, nn);

	priv->cfg = *cfg;
	refnic_rss_set_queues(priv, nn);
	if (reset)
		refnic_hw_program(priv);

	refnic_qpairs_start(priv, &new, 0, nn);
	refnic_tx_start_unused(priv);
	refnic_qset_free(priv, &old, 0, on);
	if (nn < on)
		refnic_vectors_del(priv, nn, on - nn);

	return 0;

err_free_new:
	refnic_qset_free(priv, &new, 0, nn);
err_vectors:
	if (nn > on)
		refnic_vectors_del(priv, on, nn - on);
	return err;
}

/**
 * refnic_qpair_restart() - replace one queue pair with fresh memory
 * @priv: port, running
 * @q: the queue pair
 *
 * For a TX timeout or a queue the device halted. The other pairs keep
 * running.
 *
 * Return: 0 or a negative errno; -ETIMEDOUT means the pair would not stop
 * and the whole port needs a restart; -EIO that the port failed.
 */
int refnic_qpair_restart(struct refnic_priv *priv, unsigned int q)
{
	struct refnic_qset old = { .cfg = priv->cfg }, new = { .cfg = priv->cfg };
	int err;

	if (priv->failed)
		return -EIO;
	err = refnic_qset_alloc(priv, &new, q, 1);
	if (err)
		return err;

	err = refnic_qpairs_stop(priv, &old, q, 1, false);
	if (err) {
		refnic_qset_free(priv, &new, q, 1);
		return err;
	}

	refnic_qpairs_start(priv, &new, q, 1);
	refnic_qset_free(priv, &old, q, 1);

	return 0;
}

/* ---- A device that does not stop ----------------------------------------- */

/**
 * refnic_quarantine_get() - the card's quarantine for a port's memory
 * @priv: port
 *
 * Holds the port's DMA device for as long as the quarantine keeps anything.
 * Under the instance lock.
 *
 * Return: the quarantine of @priv's port.
 */
struct refnic_quarantine *refnic_quarantine_get(struct refnic_priv *priv)
{
	struct refnic_quarantine *kept = &priv->pair->kept[priv->port->index];

	netdev_assert_locked(priv->netdev);
	if (!kept->dma_dev)
		kept->dma_dev = get_device(priv->dma_dev);
	return kept;
}

/* Cuts an RX queue loose from the port: its pools no longer recycle into
 * the pair's NAPI, their counters stay with the port, and the queue keeps
 * no pointer into the priv or the netdev. The buffers stay posted.
 */
static void refnic_rxq_detach(struct refnic_priv *priv, struct refnic_rxq *rxq)
{
	refnic_rxq_unhook_napi(priv, rxq);
	refnic_pp_stats_retire(priv, rxq);
	rxq->priv = NULL;
	rxq->netdev = NULL;
	rxq->napi = NULL;
	rxq->stats = NULL;
}

/**
 * refnic_port_fail() - give up on a device that does not stop its DMA
 * @priv: port
 *
 * A queue pair did not stop and the port reset timed out: the device may
 * still read and write every ring and buffer it was given. Each queue pair
 * still live goes into the card's quarantine as it is (rings, page_pools
 * with their posted buffers, the frames on the TX ring, all still mapped),
 * to be freed once the card is unplugged. The port fails for good: the
 * misc vector is freed (no link event turns the carrier back on), the
 * carrier goes off (the TX watchdog stops watching), NAPI stops, every TX
 * queue is stopped, the MAC is turned off, bypass sessions on other queue
 * pairs end (their memory kept as they detach), and everything that would
 * start queues again refuses (refnic_port_check_failed()) until the port is
 * deleted. One log
 * line and ethtool -S quiesce_failures say so. Under RTNL and the instance
 * lock; the pairs' vectors stay allocated until ndo_stop.
 */
void refnic_port_fail(struct refnic_priv *priv)
{
	struct net_device *netdev = priv->netdev;
	struct refnic_quarantine *kept;
	unsigned int q;

	netdev_assert_locked(netdev);
	if (!priv->failed) {
		priv->failed = true;
		atomic64_inc(&priv->quiesce_failures);
		netdev_err(netdev,
			   "port failed: the device did not stop its DMA; its queue memory is kept until the pair is deleted (from either end)\n");
	}

	refnic_misc_irq_free(priv);
	netif_carrier_off(netdev);
	/* As refnic_qpairs_stop(): NAPI first, so that no poll wakes a TX
	 * queue stopped next; then no transmit runs on a queue detached.
	 * From a bypass detach the stack's other queue pairs are still live.
	 */
	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		if (priv->txq[q] || priv->rxq[q])
			refnic_vector_disable(priv, q);
	for (q = 0; q < netdev->num_tx_queues; q++) {
		struct netdev_queue *nq = netdev_get_tx_queue(netdev, q);

		__netif_tx_lock_bh(nq);
		netif_tx_stop_queue(nq);
		__netif_tx_unlock_bh(nq);
	}
	refnic_wr32(priv, REFNIC_REG_CTRL, 0);
	/* Sessions on other queue pairs end too, their memory kept. */
	refnic_bypass_port_failed(priv);

	kept = refnic_quarantine_get(priv);
	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		struct refnic_vector *v = &priv->vec[q];

		if (!priv->txq[q] && !priv->rxq[q])
			continue;
		if (priv->txq[q]) {
			refnic_tx_detach(priv->txq[q]);
			kept->txq[q] = priv->txq[q];
		}
		if (priv->rxq[q]) {
			refnic_rxq_detach(priv, priv->rxq[q]);
			kept->rxq[q] = priv->rxq[q];
		}
		/* refnic_start_xmit() reads it without the instance lock */
		WRITE_ONCE(priv->txq[q], NULL);
		priv->rxq[q] = NULL;
		v->txq = NULL;
		v->rxq = NULL;
	}
}

/**
 * refnic_port_check_failed() - refuse to bring queues up on a failed port
 * @priv: port
 * @extack: for the message, or NULL (it is logged then, rate-limited: a
 *	user may ask again and again)
 *
 * Under the instance lock.
 *
 * Return: 0, or -EIO if the port failed.
 */
int refnic_port_check_failed(struct refnic_priv *priv,
			     struct netlink_ext_ack *extack)
{
	if (!priv->failed)
		return 0;
	NL_SET_ERR_MSG_MOD(extack,
			   "port failed: the device did not stop its DMA; delete the pair and create it again");
	if (!extack && net_ratelimit())
		netdev_err(priv->netdev,
			   "port failed: the device did not stop its DMA; delete the pair and create it again\n");
	return -EIO;
}

/**
 * refnic_quarantine_release() - free what a failed port's device kept
 * @kept: a card's quarantine of one port
 *
 * Once the card is unplugged: no engine runs, and one that was wedged did
 * its last write into this memory while it was stopped. Buffers go back to
 * their pools, the pools are destroyed, TX frames are unmapped and freed,
 * rings are freed, and the DMA device is let go.
 */
void refnic_quarantine_release(struct refnic_quarantine *kept)
{
	unsigned int q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		if (kept->rxq[q]) {
			refnic_rx_drain(kept->rxq[q]);
			refnic_rxq_release(kept->rxq[q]);
			kept->rxq[q] = NULL;
		}
		if (kept->txq[q]) {
			refnic_tx_drain(kept->txq[q]);
			refnic_txq_free(kept->txq[q]);
			kept->txq[q] = NULL;
		}
		if (kept->bp[q]) {
			refnic_bypass_kept_free(kept->bp[q], kept->dma_dev);
			kept->bp[q] = NULL;
		}
	}
	put_device(kept->dma_dev);
	kept->dma_dev = NULL;
}

/* ---- netdev_queue_mgmt_ops: restart of one RX queue --------------------- */

/* What the core allocates per queue for us: the queue memory is ours. */
struct refnic_qmem {
	struct refnic_rxq *rxq;
};

#if REFNIC_KERNEL_7
static int refnic_queue_mem_alloc(struct net_device *netdev,
				  struct netdev_queue_config *qcfg, void *mem,
				  int idx)
#else
static int refnic_queue_mem_alloc(struct net_device *netdev, void *mem,
				  int idx)
#endif
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_qmem *qm = mem;

	/* The memory of a queue exists only while the port is up, and a
	 * failed port has none of its own: down as far as queues go, which
	 * also lets the core unbind a dmabuf from it without a fuss (7.3
	 * refuses a binding before this, in refnic_queue_validate_qcfg()).
	 */
	if (!netif_running(netdev))
		return -ENETDOWN;
	if (priv->failed) {
		if (net_ratelimit())
			netdev_info(netdev,
				    "rxq %d: the port failed, its queues stay down\n",
				    idx);
		return -ENETDOWN;
	}
	if (idx >= priv->cfg.num_queues)
		return -ERANGE;
	if (priv->bypass[idx]) {
		netdev_err(netdev, "rxq %d is held by a bypass session\n", idx);
		return -EBUSY;
	}

#if REFNIC_KERNEL_7
	qm->rxq = refnic_rxq_alloc(priv, idx, &priv->cfg, qcfg->rx_page_size);
#else
	qm->rxq = refnic_rxq_alloc(priv, idx, &priv->cfg, PAGE_SIZE);
#endif
	if (IS_ERR(qm->rxq)) {
		int err = PTR_ERR(qm->rxq);

		qm->rxq = NULL;
		return err;
	}
	return 0;
}

static void refnic_queue_mem_free(struct net_device *netdev, void *mem)
{
	struct refnic_qmem *qm = mem;

	if (qm->rxq)
		refnic_rxq_free(refnic_priv(netdev), qm->rxq);
	qm->rxq = NULL;
}

static int refnic_queue_stop(struct net_device *netdev, void *mem, int idx)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_qmem *qm = mem;
	struct refnic_rxq *rxq = priv->rxq[idx];
	int err;

	/* The pair's NAPI also serves its TX queue: TX completions wait
	 * until the new RX queue is started.
	 */
	refnic_vector_disable(priv, idx);

	refnic_wr32(priv, REFNIC_REG_RXQ_CTRL(idx), 0);
	err = refnic_wait_stopped(priv, REFNIC_REG_RXQ_STATUS(idx));
	if (err) {
		netdev_err(netdev, "rxq %d did not stop\n", idx);
		refnic_schedule_reset(priv, -1);
		refnic_vector_enable(priv, idx);
		return err;
	}

	priv->rxq[idx] = NULL;
	priv->vec[idx].rxq = NULL;
	refnic_rxq_unhook_napi(priv, rxq);
	refnic_rx_drain(rxq);
	qm->rxq = rxq;

	return 0;
}

#if REFNIC_KERNEL_7
static int refnic_queue_start(struct net_device *netdev,
			      struct netdev_queue_config *qcfg, void *mem,
			      int idx)
#else
static int refnic_queue_start(struct net_device *netdev, void *mem, int idx)
#endif
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_qmem *qm = mem;

	priv->rxq[idx] = qm->rxq;
	priv->vec[idx].rxq = qm->rxq;
	qm->rxq = NULL;

	refnic_rxq_start(priv, priv->rxq[idx]);
	refnic_vector_enable(priv, idx);

	return 0;
}

#if REFNIC_KERNEL_7
/* The device the core maps a dmabuf against, for devmem RX and TX and for
 * io_uring zero-copy receive. An RX queue keeps the device once its
 * provider is installed (refnic_rxq_alloc()); a TX binding has no queue,
 * so a port that offers netmem TX keeps it here, before the core knows
 * whether the bind will succeed.
 */
static struct device *refnic_queue_get_dma_dev(struct net_device *netdev,
					       int idx)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	if (netdev->netmem_tx == NETMEM_TX_NONE)
		return priv->dma_dev;
	return refnic_lend_dma_dev(priv);
}

/* 7.3 asks before it binds a memory provider (devmem, io_uring zero-copy
 * receive) to a queue, with an extack: a failed port says why there, and
 * a provider asking for net_iovs the device cannot fill is refused. 7.3's
 * only caller is the provider's open (__netif_mp_open_rxq()); io_uring
 * passes no extack.
 */
static int refnic_queue_validate_qcfg(struct net_device *netdev,
				      struct netdev_queue_config *qcfg,
				      struct netlink_ext_ack *extack)
{
	u32 len = qcfg->rx_page_size;
	int err;

	/* The default, a page, must be one the device takes. */
	static_assert(PAGE_SIZE <= REFNIC_RXQ_BUF_LEN_MAX);

	err = refnic_port_check_failed(refnic_priv(netdev), extack);
	if (err)
		return err;
	/* A provider's net_iov is one payload buffer: the device takes up
	 * to REFNIC_RXQ_BUF_LEN_MAX, the pool whole pages of an order.
	 */
	if (!is_power_of_2(len) || len < PAGE_SIZE ||
	    len > REFNIC_RXQ_BUF_LEN_MAX) {
		/* io_uring passes no extack: say it in the log then. */
		if (extack)
			NL_SET_ERR_MSG_FMT_MOD(extack,
					       "rx page size %u: refnic takes a power of 2 from %lu to %u",
					       len, PAGE_SIZE, REFNIC_RXQ_BUF_LEN_MAX);
		else if (net_ratelimit())
			netdev_info(netdev,
				    "rx page size %u refused: refnic takes a power of 2 from %lu to %u\n",
				    len, PAGE_SIZE, REFNIC_RXQ_BUF_LEN_MAX);
		return -ERANGE;
	}
	return 0;
}

/* A queue without a provider: the page size a provider's net_iovs default
 * to (it is not the size of refnic's own buffers, REFNIC_RX_BUF_LEN).
 */
static void refnic_queue_default_qcfg(struct net_device *netdev,
				      struct netdev_queue_config *qcfg)
{
	qcfg->rx_page_size = PAGE_SIZE;
}
#endif

const struct netdev_queue_mgmt_ops refnic_queue_mgmt_ops = {
	.ndo_queue_mem_size	= sizeof(struct refnic_qmem),
	.ndo_queue_mem_alloc	= refnic_queue_mem_alloc,
	.ndo_queue_mem_free	= refnic_queue_mem_free,
	.ndo_queue_start	= refnic_queue_start,
	.ndo_queue_stop		= refnic_queue_stop,
#if REFNIC_KERNEL_7
	.ndo_default_qcfg	= refnic_queue_default_qcfg,
	.ndo_validate_qcfg	= refnic_queue_validate_qcfg,
	.ndo_queue_get_dma_dev	= refnic_queue_get_dma_dev,
	.supported_params	= QCFG_RX_PAGE_SIZE,
#endif
};
