// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The host bus cost model: what the card's PCIe link would cost, charged
 * when it is switched on (refnic_model_bus_set()), nothing when it is off.
 *
 * - A register read is a non-posted transaction: the CPU waits for the
 *   completion. refnic_bus_rd32() spins read_ns here before returning the
 *   value, plus remote_ns when the reading CPU is on another NUMA node than
 *   the card; with interrupts off where the driver reads under a spinlock,
 *   which is why the costs stop at 100 us and only the initial namespace's
 *   admin sets them. A write is posted: the CPU goes on at once, and
 *   nothing is charged (counted only).
 * - DMA is cut into TLPs of at most REFNIC_PCIE_MPS bytes, each carrying
 *   REFNIC_PCIE_TLP_OVERHEAD bytes of header and framing. With a generation
 *   and lane count set, each direction of the link carries so many bytes a
 *   second: the time each transfer occupies its direction is added to that
 *   direction's backlog, which drains at real time. A TX queue whose next
 *   frame finds either direction more than REFNIC_PCIE_BURST_NS behind
 *   waits (refnic_pcie_admit()), so the card's DMA is capped at the link's
 *   bandwidth: both ports of a card share the link, and a frame crosses it
 *   twice, read from host memory by the sender (host to card) and written
 *   into the receiver's buffers (card to host).
 * - A TLP to memory of another NUMA node than the card's occupies the link
 *   remote_ns longer.
 *
 * Every charge is counted, in nanoseconds, so that tests assert what was
 * charged rather than time it (selftests/net/bus_cost.sh).
 */

#include <linux/math64.h>
#include <linux/nodemask.h>
#include <linux/delay.h>
#include <linux/dma-direct.h>
#include <linux/mm.h>

#include "model.h"

/* Payload bytes per second per lane, after line coding (128b/130b). */
static u64 refnic_pcie_lane_bps(u32 gen)
{
	switch (gen) {
	case 3:
		return 984615384;	/* 8 GT/s */
	case 4:
		return 1969230769;	/* 16 GT/s */
	case 5:
		return 3938461538;	/* 32 GT/s */
	}
	return 0;
}

/**
 * refnic_pcie_valid() - whether a generation and lane count make a link
 * @gen: 0 (no bandwidth cap) or 3..5
 * @lanes: 1, 2, 4, 8 or 16
 */
bool refnic_pcie_valid(u32 gen, u32 lanes)
{
	if (gen && !refnic_pcie_lane_bps(gen))
		return false;
	return lanes >= 1 && lanes <= 16 && is_power_of_2(lanes);
}

void refnic_pcie_init(struct refnic_model_card *card)
{
	struct refnic_model_pcie *pcie = &card->pcie;

	spin_lock_init(&pcie->dir[REFNIC_PCIE_TO_CARD].lock);
	spin_lock_init(&pcie->dir[REFNIC_PCIE_TO_HOST].lock);
	pcie->lanes = REFNIC_PCIE_DEFAULT_LANES;
	pcie->node = NUMA_NO_NODE;
}

/* Spin @ns (at most 2 x REFNIC_MODEL_MAX_BUS_NS): a stalled load, not a
 * sleep. Returns the time it took, by the kernel's clock.
 */
static u64 refnic_pcie_stall(u32 ns)
{
	u64 start = ktime_get_ns();

	if (ns >= NSEC_PER_USEC)
		udelay(ns / NSEC_PER_USEC);
	ndelay(ns % NSEC_PER_USEC);
	return ktime_get_ns() - start;
}

/**
 * refnic_pcie_read() - charge a register read, before its value is returned
 * @card: the card read
 */
void refnic_pcie_read(struct refnic_model_card *card)
{
	struct refnic_model_pcie *pcie = &card->pcie;
	int node = READ_ONCE(pcie->node);
	u32 ns = READ_ONCE(pcie->read_ns);

	if (node != NUMA_NO_NODE && numa_node_id() != node) {
		ns += READ_ONCE(pcie->remote_ns);
		atomic64_inc(&pcie->cnt.remote_reads);
	}
	atomic64_inc(&pcie->cnt.reads);
	atomic64_add(ns, &pcie->cnt.read_ns);
	if (ns)
		atomic64_add(refnic_pcie_stall(ns), &pcie->cnt.read_waited_ns);
}

/**
 * refnic_pcie_write() - count a posted register write: it costs nothing
 * @card: the card written
 */
void refnic_pcie_write(struct refnic_model_card *card)
{
	atomic64_inc(&card->pcie.cnt.writes);
}

/**
 * refnic_pcie_dma() - charge a DMA transfer of host memory
 * @port: the port doing it
 * @addr: its DMA address (dma-direct: a physical address, dma.c)
 * @len: bytes
 * @way: REFNIC_PCIE_TO_CARD for a read of host memory, REFNIC_PCIE_TO_HOST
 *	for a write
 */
void refnic_pcie_dma(struct refnic_model_port *port, u64 addr, u32 len,
		     enum refnic_pcie_way way)
{
	struct refnic_model_pcie *pcie = &port->card->pcie;
	struct refnic_pcie_dir *d = &pcie->dir[way];
	u64 bps = refnic_pcie_lane_bps(READ_ONCE(pcie->gen));
	int node = READ_ONCE(pcie->node);
	u32 tlps = max(DIV_ROUND_UP(len, REFNIC_PCIE_MPS), 1U);
	u64 bytes = len + (u64)tlps * REFNIC_PCIE_TLP_OVERHEAD;
	unsigned long pfn, flags;
	u64 ns = 0, now;

	atomic64_add(tlps, &pcie->cnt.dma_tlps);
	atomic64_add(bytes, &pcie->cnt.dma_bytes);
	if (node != NUMA_NO_NODE) {
		pfn = PHYS_PFN(dma_to_phys(port->dev, addr));
		if (pfn_valid(pfn) && pfn_to_nid(pfn) != node) {
			atomic64_add(tlps, &pcie->cnt.dma_remote_tlps);
			ns += (u64)tlps * READ_ONCE(pcie->remote_ns);
		}
	}
	/* Rounded up: a 2-byte status write costs its nanosecond. bytes
	 * stays under 2^33, so the product under 2^63.
	 */
	if (bps)
		ns += DIV64_U64_ROUND_UP(bytes * NSEC_PER_SEC,
					 bps * READ_ONCE(pcie->lanes));
	if (!ns)
		return;
	atomic64_add(ns, &pcie->cnt.dma_ns);

	/* The engine runs in its workqueue and in the link's hrtimer. */
	spin_lock_irqsave(&d->lock, flags);
	now = ktime_get_ns();
	WRITE_ONCE(d->busy_until, max(d->busy_until, now) + ns);
	spin_unlock_irqrestore(&d->lock, flags);
}

/**
 * refnic_pcie_admit() - whether a TX queue may start its next frame
 * @port: the sending port
 * @wait_ns: when not, how long until the link has room
 *
 * Return: true when neither direction of the card's link is more than
 * REFNIC_PCIE_BURST_NS behind; false with @wait_ns set if one is.
 */
bool refnic_pcie_admit(struct refnic_model_port *port, u64 *wait_ns)
{
	struct refnic_model_pcie *pcie = &port->card->pcie;
	u64 now = ktime_get_ns(), until = 0;
	int i;

	if (!READ_ONCE(pcie->gen) && !READ_ONCE(pcie->remote_ns))
		return true;
	for (i = 0; i < ARRAY_SIZE(pcie->dir); i++)
		until = max(until, READ_ONCE(pcie->dir[i].busy_until));
	if (until <= now + REFNIC_PCIE_BURST_NS)
		return true;
	/* Queues held back look again at least every REFNIC_PCIE_MAX_WAIT_NS:
	 * whichever finds room first goes, as on a real link's arbiter.
	 */
	*wait_ns = min_t(u64, until - now - REFNIC_PCIE_BURST_NS,
			 REFNIC_PCIE_MAX_WAIT_NS);
	atomic64_inc(&pcie->cnt.dma_throttled);
	return false;
}

/**
 * refnic_model_bus_get() - a card's bus cost model and its counters
 * @port: either port of the card
 * @cfg: filled with the configuration
 * @stats: filled with the counters
 */
void refnic_model_bus_get(struct refnic_model_port *port,
			  struct refnic_model_bus_cfg *cfg,
			  struct refnic_model_bus_stats *stats)
{
	struct refnic_model_pcie *pcie = &port->card->pcie;

	cfg->read_ns = READ_ONCE(pcie->read_ns);
	cfg->gen = READ_ONCE(pcie->gen);
	cfg->lanes = READ_ONCE(pcie->lanes);
	cfg->node = READ_ONCE(pcie->node);
	cfg->remote_ns = READ_ONCE(pcie->remote_ns);

	stats->reads = atomic64_read(&pcie->cnt.reads);
	stats->remote_reads = atomic64_read(&pcie->cnt.remote_reads);
	stats->read_ns = atomic64_read(&pcie->cnt.read_ns);
	stats->writes = atomic64_read(&pcie->cnt.writes);
	stats->dma_tlps = atomic64_read(&pcie->cnt.dma_tlps);
	stats->dma_bytes = atomic64_read(&pcie->cnt.dma_bytes);
	stats->dma_remote_tlps = atomic64_read(&pcie->cnt.dma_remote_tlps);
	stats->dma_ns = atomic64_read(&pcie->cnt.dma_ns);
	stats->dma_throttled = atomic64_read(&pcie->cnt.dma_throttled);
	stats->read_waited_ns = atomic64_read(&pcie->cnt.read_waited_ns);
}

/**
 * refnic_model_bus_set() - configure a card's bus cost model
 * @port: either port of the card
 * @cfg: the configuration; refnic_pcie_valid() gen and lanes, an online
 *	node or NUMA_NO_NODE, costs up to REFNIC_MODEL_MAX_BUS_NS
 *
 * Return: 0, or -EINVAL for a configuration out of range.
 */
int refnic_model_bus_set(struct refnic_model_port *port,
			 const struct refnic_model_bus_cfg *cfg)
{
	struct refnic_model_card *card = port->card;
	struct refnic_model_pcie *pcie = &card->pcie;
	unsigned long flags;
	int i;

	if (!refnic_pcie_valid(cfg->gen, cfg->lanes) ||
	    cfg->read_ns > REFNIC_MODEL_MAX_BUS_NS ||
	    cfg->remote_ns > REFNIC_MODEL_MAX_BUS_NS ||
	    (cfg->node != NUMA_NO_NODE &&
	     (cfg->node < 0 || cfg->node >= nr_node_ids ||
	      !node_online(cfg->node))))
		return -EINVAL;

	mutex_lock(&card->link_lock);
	WRITE_ONCE(pcie->read_ns, cfg->read_ns);
	WRITE_ONCE(pcie->lanes, cfg->lanes);
	WRITE_ONCE(pcie->gen, cfg->gen);
	WRITE_ONCE(pcie->node, cfg->node);
	WRITE_ONCE(pcie->remote_ns, cfg->remote_ns);
	/* Read last by the datapath: the costs are in place when it sees it. */
	smp_store_release(&pcie->on, cfg->read_ns || cfg->gen ||
			  cfg->remote_ns);
	/* The old costs' backlog goes with them; queues held back find room
	 * at their next look (REFNIC_PCIE_MAX_WAIT_NS at most).
	 */
	for (i = 0; i < ARRAY_SIZE(pcie->dir); i++) {
		spin_lock_irqsave(&pcie->dir[i].lock, flags);
		WRITE_ONCE(pcie->dir[i].busy_until, 0);
		spin_unlock_irqrestore(&pcie->dir[i].lock, flags);
	}
	mutex_unlock(&card->link_lock);
	return 0;
}
