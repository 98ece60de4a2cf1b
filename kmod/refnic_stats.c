// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Statistics. Counters are kept per queue *index* in the priv, not in the
 * queue memory, so they survive queue swaps (ethtool -G, queue restarts)
 * and down/up. Queue indices above the configured count keep what they
 * counted: that is the "base" of netdev_stat_ops, so the device totals
 * (qstats, ndo_get_stats64, ethtool -S) never go backwards and always
 * agree.
 */

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <net/netdev_queues.h>
#include <net/page_pool/helpers.h>

#include "refnic.h"
#include "refnic_bypass.h"
#include "refnic_regs.h"

/* Snapshots of the per-index blocks, read consistently. */
struct refnic_napi_snap {
	u64 rx_packets, rx_bytes, rx_alloc_fail, rx_alloc_backoffs;
	u64 rx_cmpl_lost, rx_drops;
	u64 rx_csum_unnecessary, rx_csum_none, rx_csum_bad;
	u64 rx_doorbells, rx_dma_bytes;
	u64 rx_hds_split, rx_hds_unparsed, rx_hds_hdr_too_big, rx_hdr_pages;
	u64 rx_devmem_bytes, rx_devmem_unsplit;
	u64 rx_hw_gro_packets, rx_hw_gro_wire_packets, rx_hw_gro_bytes;
	u64 tx_packets, tx_bytes, tx_wakes;
	u64 polls, full_polls, unmasks;
};

struct refnic_xmit_snap {
	u64 doorbells, stops, busy, drops, dma_bytes, devmem_bytes;
	u64 needs_csum, csum_none, gso_packets, gso_bytes;
	u64 gso_wire_packets, gso_wire_bytes;
};

static void refnic_napi_snap(struct refnic_priv *priv, unsigned int q,
			     struct refnic_napi_snap *s)
{
	const struct refnic_napi_stats *ns = &priv->nstats[q];
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&ns->syncp);
		s->rx_packets = u64_stats_read(&ns->rx_packets);
		s->rx_bytes = u64_stats_read(&ns->rx_bytes);
		s->rx_alloc_fail = u64_stats_read(&ns->rx_alloc_fail);
		s->rx_alloc_backoffs = u64_stats_read(&ns->rx_alloc_backoffs);
		s->rx_cmpl_lost = u64_stats_read(&ns->rx_cmpl_lost);
		s->rx_drops = u64_stats_read(&ns->rx_drops);
		s->rx_csum_unnecessary =
			u64_stats_read(&ns->rx_csum_unnecessary);
		s->rx_csum_none = u64_stats_read(&ns->rx_csum_none);
		s->rx_csum_bad = u64_stats_read(&ns->rx_csum_bad);
		s->rx_doorbells = u64_stats_read(&ns->rx_doorbells);
		s->rx_dma_bytes = u64_stats_read(&ns->rx_dma_bytes);
		s->rx_hds_split = u64_stats_read(&ns->rx_hds_split);
		s->rx_hds_unparsed = u64_stats_read(&ns->rx_hds_unparsed);
		s->rx_hds_hdr_too_big = u64_stats_read(&ns->rx_hds_hdr_too_big);
		s->rx_hdr_pages = u64_stats_read(&ns->rx_hdr_pages);
		s->rx_devmem_bytes = u64_stats_read(&ns->rx_devmem_bytes);
		s->rx_devmem_unsplit = u64_stats_read(&ns->rx_devmem_unsplit);
		s->rx_hw_gro_packets = u64_stats_read(&ns->rx_hw_gro_packets);
		s->rx_hw_gro_wire_packets =
			u64_stats_read(&ns->rx_hw_gro_wire_packets);
		s->rx_hw_gro_bytes = u64_stats_read(&ns->rx_hw_gro_bytes);
		s->tx_packets = u64_stats_read(&ns->tx_packets);
		s->tx_bytes = u64_stats_read(&ns->tx_bytes);
		s->tx_wakes = u64_stats_read(&ns->tx_wakes);
		s->polls = u64_stats_read(&ns->polls);
		s->full_polls = u64_stats_read(&ns->full_polls);
		s->unmasks = u64_stats_read(&ns->unmasks);
	} while (u64_stats_fetch_retry(&ns->syncp, start));
}

static void refnic_xmit_snap(struct refnic_priv *priv, unsigned int q,
			     struct refnic_xmit_snap *s)
{
	const struct refnic_xmit_stats *xs = &priv->xstats[q];
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&xs->syncp);
		s->doorbells = u64_stats_read(&xs->doorbells);
		s->stops = u64_stats_read(&xs->stops);
		s->busy = u64_stats_read(&xs->busy);
		s->drops = u64_stats_read(&xs->drops);
		s->dma_bytes = u64_stats_read(&xs->dma_bytes);
		s->devmem_bytes = u64_stats_read(&xs->devmem_bytes);
		s->needs_csum = u64_stats_read(&xs->needs_csum);
		s->csum_none = u64_stats_read(&xs->csum_none);
		s->gso_packets = u64_stats_read(&xs->gso_packets);
		s->gso_bytes = u64_stats_read(&xs->gso_bytes);
		s->gso_wire_packets = u64_stats_read(&xs->gso_wire_packets);
		s->gso_wire_bytes = u64_stats_read(&xs->gso_wire_bytes);
	} while (u64_stats_fetch_retry(&xs->syncp, start));
}

static u64 refnic_irq_snap(struct refnic_priv *priv, unsigned int q)
{
	const struct refnic_irq_stats *is = &priv->vec[q].istats;
	unsigned int start;
	u64 irqs;

	do {
		start = u64_stats_fetch_begin(&is->syncp);
		irqs = u64_stats_read(&is->irqs);
	} while (u64_stats_fetch_retry(&is->syncp, start));

	return irqs;
}

/* Registers of the port-wide counters, by REFNIC_HW_CNT_*. */
static const u32 refnic_hw_port_regs[REFNIC_HW_CNT_NUM] = {
	[REFNIC_HW_CNT_RX_OVERSIZE]	= REFNIC_REG_CNT_RX_OVERSIZE,
	[REFNIC_HW_CNT_RX_FILTERED]	= REFNIC_REG_CNT_RX_FILTERED,
	[REFNIC_HW_CNT_RX_BAD_QUEUE]	= REFNIC_REG_CNT_RX_BAD_QUEUE,
	[REFNIC_HW_CNT_RX_MAC_OFF]	= REFNIC_REG_CNT_RX_MAC_OFF,
	[REFNIC_HW_CNT_TX_LINK_DOWN]	= REFNIC_REG_CNT_TX_LINK_DOWN,
	[REFNIC_HW_CNT_TX_ERRORS]	= REFNIC_REG_CNT_TX_ERRORS,
	[REFNIC_HW_CNT_RX_STEERED]	= REFNIC_REG_CNT_RX_STEERED,
	[REFNIC_HW_CNT_RX_STEER_DROP]	= REFNIC_REG_CNT_RX_STEER_DROP,
};

/* Called with hw_stats_lock held. A value older than the last one folded
 * (another fold read later but took the lock first) is stale, not a wrap:
 * the counters move far less than 2^31 between two folds.
 */
static void refnic_hw_counter_fold(struct refnic_hw_counter *c, u32 raw)
{
	s32 delta = raw - c->raw;

	if (delta <= 0)
		return;
	c->total += delta;
	c->raw = raw;
}

/* The device's wrapping counters, as read in one go. */
struct refnic_hw_raw {
	u32 nobuf[REFNIC_MAX_QUEUES];
	u32 cq_full[REFNIC_MAX_QUEUES];
	u32 port[REFNIC_HW_CNT_NUM];
};

/* Reads them, with no lock held: a read can stall its CPU (the bus model's
 * read cost), which must not happen with interrupts off.
 */
static void refnic_hw_raw_read(struct refnic_priv *priv,
			       struct refnic_hw_raw *raw)
{
	unsigned int i;

	for (i = 0; i < priv->max_queues; i++) {
		raw->nobuf[i] = refnic_rd32(priv, REFNIC_REG_CNT_RX_NOBUF(i));
		raw->cq_full[i] = refnic_rd32(priv, REFNIC_REG_CNT_RX_CQ_FULL(i));
	}
	for (i = 0; i < REFNIC_HW_CNT_NUM; i++)
		raw->port[i] = refnic_rd32(priv, refnic_hw_port_regs[i]);
}

/**
 * refnic_hw_stats_update() - fold the device's counters into 64-bit totals
 * @priv: port
 *
 * The device counts in 32 bits and wraps; each read adds the difference to
 * the last read. The registers are read before hw_stats_lock is taken
 * (refnic_hw_raw_read()).
 */
void refnic_hw_stats_update(struct refnic_priv *priv)
{
	struct refnic_hw_raw raw;
	unsigned long flags;
	unsigned int i;

	refnic_hw_raw_read(priv, &raw);

	spin_lock_irqsave(&priv->hw_stats_lock, flags);
	for (i = 0; i < priv->max_queues; i++) {
		refnic_hw_counter_fold(&priv->hw_nobuf[i], raw.nobuf[i]);
		refnic_hw_counter_fold(&priv->hw_cq_full[i], raw.cq_full[i]);
	}
	for (i = 0; i < REFNIC_HW_CNT_NUM; i++)
		refnic_hw_counter_fold(&priv->hw_port[i], raw.port[i]);
	spin_unlock_irqrestore(&priv->hw_stats_lock, flags);
}

/**
 * refnic_hw_stats_init() - start counting from the counters' current values
 * @priv: port, probed (max_queues known), not yet registered
 *
 * The device's counters run from power-on, not from a reset.
 */
void refnic_hw_stats_init(struct refnic_priv *priv)
{
	struct refnic_hw_raw raw = {};
	unsigned int i;

	refnic_hw_raw_read(priv, &raw);
	for (i = 0; i < REFNIC_MAX_QUEUES; i++) {
		priv->hw_nobuf[i] = (struct refnic_hw_counter){ .raw = raw.nobuf[i] };
		priv->hw_cq_full[i] =
			(struct refnic_hw_counter){ .raw = raw.cq_full[i] };
	}
	for (i = 0; i < REFNIC_HW_CNT_NUM; i++)
		priv->hw_port[i] = (struct refnic_hw_counter){ .raw = raw.port[i] };
}

/* Snapshot of the folded device counters. */
struct refnic_hw_snap {
	u64 nobuf[REFNIC_MAX_QUEUES];
	u64 cq_full[REFNIC_MAX_QUEUES];
	u64 port[REFNIC_HW_CNT_NUM];
};

static void refnic_hw_snap(struct refnic_priv *priv, struct refnic_hw_snap *s)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&priv->hw_stats_lock, flags);
	for (i = 0; i < REFNIC_MAX_QUEUES; i++) {
		s->nobuf[i] = priv->hw_nobuf[i].total;
		s->cq_full[i] = priv->hw_cq_full[i].total;
	}
	for (i = 0; i < REFNIC_HW_CNT_NUM; i++)
		s->port[i] = priv->hw_port[i].total;
	spin_unlock_irqrestore(&priv->hw_stats_lock, flags);
}

/* Frames the device dropped for want of room in RX queue @q. */
static u64 refnic_hw_queue_drops(const struct refnic_hw_snap *hw,
				 unsigned int q)
{
	return hw->nobuf[q] + hw->cq_full[q];
}

/* Frames the device dropped before choosing a queue. */
static u64 refnic_hw_port_drops(const struct refnic_hw_snap *hw)
{
	return hw->port[REFNIC_HW_CNT_RX_OVERSIZE] +
	       hw->port[REFNIC_HW_CNT_RX_BAD_QUEUE] +
	       hw->port[REFNIC_HW_CNT_RX_MAC_OFF] +
	       hw->port[REFNIC_HW_CNT_RX_STEER_DROP];
}

void refnic_get_stats64(struct net_device *netdev,
			struct rtnl_link_stats64 *s)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_napi_snap ns;
	struct refnic_xmit_snap xs;
	struct refnic_hw_snap hw;
	unsigned int q;

	refnic_hw_stats_update(priv);
	refnic_hw_snap(priv, &hw);

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		refnic_napi_snap(priv, q, &ns);
		refnic_xmit_snap(priv, q, &xs);

		s->rx_packets += ns.rx_packets;
		s->rx_bytes += ns.rx_bytes;
		s->rx_dropped += ns.rx_drops;
		s->rx_missed_errors += refnic_hw_queue_drops(&hw, q);
		s->tx_packets += ns.tx_packets;
		s->tx_bytes += ns.tx_bytes;
		s->tx_dropped += xs.drops;
	}
	s->rx_length_errors = hw.port[REFNIC_HW_CNT_RX_OVERSIZE];
	s->rx_dropped += hw.port[REFNIC_HW_CNT_RX_BAD_QUEUE] +
			 hw.port[REFNIC_HW_CNT_RX_MAC_OFF] +
			 hw.port[REFNIC_HW_CNT_RX_STEER_DROP];
	s->rx_errors = s->rx_length_errors;
	s->tx_carrier_errors = hw.port[REFNIC_HW_CNT_TX_LINK_DOWN];
	s->tx_errors = hw.port[REFNIC_HW_CNT_TX_ERRORS] + s->tx_carrier_errors;
}

/* ---- netdev_stat_ops (netdev netlink qstats) ----------------------------- */

static void refnic_qstats_rx(struct refnic_priv *priv, unsigned int q,
			     const struct refnic_hw_snap *hw,
			     struct netdev_queue_stats_rx *rx)
{
	struct refnic_napi_snap ns;

	refnic_napi_snap(priv, q, &ns);
	rx->packets += ns.rx_packets;
	rx->bytes += ns.rx_bytes;
	rx->alloc_fail += ns.rx_alloc_fail;
	rx->hw_drops += refnic_hw_queue_drops(hw, q);
	rx->hw_drop_overruns += refnic_hw_queue_drops(hw, q);
	rx->csum_unnecessary += ns.rx_csum_unnecessary;
	rx->csum_none += ns.rx_csum_none;
	rx->csum_bad += ns.rx_csum_bad;
	rx->hw_gro_packets += ns.rx_hw_gro_packets;
	rx->hw_gro_bytes += ns.rx_hw_gro_bytes;
	rx->hw_gro_wire_packets += ns.rx_hw_gro_wire_packets;
}

static void refnic_qstats_tx(struct refnic_priv *priv, unsigned int q,
			     struct netdev_queue_stats_tx *tx)
{
	struct refnic_napi_snap ns;
	struct refnic_xmit_snap xs;

	refnic_napi_snap(priv, q, &ns);
	refnic_xmit_snap(priv, q, &xs);
	tx->packets += ns.tx_packets;
	tx->bytes += ns.tx_bytes;
	tx->needs_csum += xs.needs_csum;
	tx->csum_none += xs.csum_none;
	tx->hw_gso_packets += xs.gso_packets;
	tx->hw_gso_bytes += xs.gso_bytes;
	tx->hw_gso_wire_packets += xs.gso_wire_packets;
	tx->hw_gso_wire_bytes += xs.gso_wire_bytes;
	tx->stop += xs.stops;
	tx->wake += ns.tx_wakes;
}

static void refnic_get_queue_stats_rx(struct net_device *netdev, int idx,
				      struct netdev_queue_stats_rx *rx)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_hw_snap hw;

	/* The device totals fetch the base first, which reads the device
	 * counters; each queue uses what was read last.
	 */
	refnic_hw_snap(priv, &hw);
	memset(rx, 0, sizeof(*rx));
	refnic_qstats_rx(priv, idx, &hw, rx);
}

static void refnic_get_queue_stats_tx(struct net_device *netdev, int idx,
				      struct netdev_queue_stats_tx *tx)
{
	memset(tx, 0, sizeof(*tx));
	refnic_qstats_tx(refnic_priv(netdev), idx, tx);
}

/* What queues beyond the configured count counted, while they existed. */
static void refnic_get_base_stats(struct net_device *netdev,
				  struct netdev_queue_stats_rx *rx,
				  struct netdev_queue_stats_tx *tx)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_hw_snap hw;
	unsigned int q;

	refnic_hw_stats_update(priv);
	refnic_hw_snap(priv, &hw);
	memset(rx, 0, sizeof(*rx));
	memset(tx, 0, sizeof(*tx));
	for (q = priv->cfg.num_queues; q < REFNIC_MAX_QUEUES; q++) {
		refnic_qstats_rx(priv, q, &hw, rx);
		refnic_qstats_tx(priv, q, tx);
	}
	/* Dropped before a queue was chosen: no queue's. */
	rx->hw_drops += refnic_hw_port_drops(&hw);
}

const struct netdev_stat_ops refnic_stat_ops = {
	.get_queue_stats_rx	= refnic_get_queue_stats_rx,
	.get_queue_stats_tx	= refnic_get_queue_stats_tx,
	.get_base_stats		= refnic_get_base_stats,
};

/* ---- ethtool -S ---------------------------------------------------------- */

static const char * const refnic_port_stat_names[] = {
	"tx_timeouts",
	"tx_hangs",
	"queue_resets",
	"quiesce_failures",
	"rx_stalls",
	"lost_irqs",
	"rx_released",
	"rx_release_calls",
	"mmio_reads_hot",
	"mmio_reads_slow",
	/* the device's port counters, by REFNIC_HW_CNT_* */
	"hw_rx_oversize",
	"hw_rx_filtered",
	"hw_rx_bad_queue",
	"hw_rx_mac_off",
	"hw_tx_link_down",
	"hw_tx_errors",
	"hw_rx_steered",
	"hw_rx_steer_drop",
};

/* Per queue pair N, printed with the pair's number. The order here is the
 * order refnic_ethtool_stats_fill() writes the values in.
 */
static const char * const refnic_queue_stat_names[] = {
	"rx%u_packets",
	"rx%u_bytes",
	"rx%u_nobuf",
	"rx%u_cq_full",
	"rx%u_alloc_fail",
	"rx%u_alloc_backoffs",
	"rx%u_cmpl_lost",
	"rx%u_drops",
	"rx%u_csum_bad",
	"rx%u_doorbells",
	"rx%u_dma_bytes",
	"rx%u_hds_split",
	"rx%u_hds_unparsed",
	"rx%u_hds_hdr_too_big",
	"rx%u_hdr_pages",
	"rx%u_devmem_bytes",
	"rx%u_devmem_unsplit",
	"rx%u_hw_gro_packets",
	"rx%u_hw_gro_wire_packets",
	"tx%u_packets",
	"tx%u_bytes",
	"tx%u_drops",
	"tx%u_busy",
	"tx%u_stops",
	"tx%u_wakes",
	"tx%u_doorbells",
	"tx%u_dma_bytes",
	"tx%u_devmem_bytes",
	"q%u_irqs",
	"q%u_polls",
	"q%u_full_polls",
	"q%u_unmasks",
};

/* The page_pool counters (kernels with CONFIG_PAGE_POOL_STATS: 7.3, not
 * Debian's 6.12) of all RX queues' pools, payload and header, live and
 * destroyed, under the names page_pool gives them (rx_pp_*).
 */
int refnic_ethtool_stats_count(struct refnic_priv *priv)
{
	return ARRAY_SIZE(refnic_port_stat_names) +
	       priv->cfg.num_queues * ARRAY_SIZE(refnic_queue_stat_names) +
	       page_pool_ethtool_stats_get_count();
}

/**
 * refnic_pp_stats_retire() - keep the counters of an RX queue's pools
 * @priv: port
 * @rxq: the queue, whose pools are about to be destroyed
 *
 * Under the instance lock.
 */
void refnic_pp_stats_retire(struct refnic_priv *priv,
			    const struct refnic_rxq *rxq)
{
#ifdef CONFIG_PAGE_POOL_STATS
	page_pool_get_stats(rxq->pp, &priv->pp_stats_gone);
	if (rxq->hdr_pp)
		page_pool_get_stats(rxq->hdr_pp, &priv->pp_stats_gone);
#endif
}

static u64 *refnic_pp_stats_fill(struct refnic_priv *priv, u64 *data)
{
#ifdef CONFIG_PAGE_POOL_STATS
	struct page_pool_stats pps = priv->pp_stats_gone;
	unsigned int q;

	for (q = 0; q < REFNIC_MAX_QUEUES; q++) {
		/* A queue a bypass session holds keeps its pools, parked. */
		const struct refnic_rxq *rxq = priv->rxq[q] ?:
			refnic_bypass_parked_rxq(priv, q);

		if (!rxq)
			continue;
		page_pool_get_stats(rxq->pp, &pps);
		if (rxq->hdr_pp)
			page_pool_get_stats(rxq->hdr_pp, &pps);
	}
	data = page_pool_ethtool_stats_get(data, &pps);
#endif
	return data;
}

void refnic_ethtool_stats_strings(struct refnic_priv *priv, u8 *data)
{
	unsigned int i, q;

	for (i = 0; i < ARRAY_SIZE(refnic_port_stat_names); i++)
		ethtool_puts(&data, refnic_port_stat_names[i]);

	for (q = 0; q < priv->cfg.num_queues; q++)
		for (i = 0; i < ARRAY_SIZE(refnic_queue_stat_names); i++)
			ethtool_sprintf(&data, refnic_queue_stat_names[i], q);
	page_pool_ethtool_stats_get_strings(data);
}

void refnic_ethtool_stats_fill(struct refnic_priv *priv, u64 *data)
{
	struct refnic_napi_snap ns;
	struct refnic_xmit_snap xs;
	struct refnic_hw_snap hw;
	unsigned int i, q;

	refnic_hw_stats_update(priv);
	refnic_hw_snap(priv, &hw);

	*data++ = atomic64_read(&priv->tx_timeouts);
	*data++ = atomic64_read(&priv->tx_hangs);
	*data++ = atomic64_read(&priv->queue_resets);
	*data++ = atomic64_read(&priv->quiesce_failures);
	*data++ = atomic64_read(&priv->rx_stalls);
	*data++ = atomic64_read(&priv->lost_irqs);
	*data++ = atomic64_read(&priv->rx_released);
	*data++ = atomic64_read(&priv->rx_release_calls);
	*data++ = atomic64_read(&priv->mmio_rd_hot);
	*data++ = atomic64_read(&priv->mmio_rd_slow);
	for (i = 0; i < REFNIC_HW_CNT_NUM; i++)
		*data++ = hw.port[i];

	for (q = 0; q < priv->cfg.num_queues; q++) {
		refnic_napi_snap(priv, q, &ns);
		refnic_xmit_snap(priv, q, &xs);

		*data++ = ns.rx_packets;
		*data++ = ns.rx_bytes;
		*data++ = hw.nobuf[q];
		*data++ = hw.cq_full[q];
		*data++ = ns.rx_alloc_fail;
		*data++ = ns.rx_alloc_backoffs;
		*data++ = ns.rx_cmpl_lost;
		*data++ = ns.rx_drops;
		*data++ = ns.rx_csum_bad;
		*data++ = ns.rx_doorbells;
		*data++ = ns.rx_dma_bytes;
		*data++ = ns.rx_hds_split;
		*data++ = ns.rx_hds_unparsed;
		*data++ = ns.rx_hds_hdr_too_big;
		*data++ = ns.rx_hdr_pages;
		*data++ = ns.rx_devmem_bytes;
		*data++ = ns.rx_devmem_unsplit;
		*data++ = ns.rx_hw_gro_packets;
		*data++ = ns.rx_hw_gro_wire_packets;
		*data++ = ns.tx_packets;
		*data++ = ns.tx_bytes;
		*data++ = xs.drops;
		*data++ = xs.busy;
		*data++ = xs.stops;
		*data++ = ns.tx_wakes;
		*data++ = xs.doorbells;
		*data++ = xs.dma_bytes;
		*data++ = xs.devmem_bytes;
		*data++ = refnic_irq_snap(priv, q);
		*data++ = ns.polls;
		*data++ = ns.full_polls;
		*data++ = ns.unmasks;
	}
	refnic_pp_stats_fill(priv, data);
}
