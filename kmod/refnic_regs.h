/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * Register access. Every MMIO access of the driver goes through these two
 * helpers, as a PCI driver's go through readl()/writel() on its BAR.
 *
 * Reads are counted: a register read stalls the CPU for a bus round trip on
 * real hardware, so the datapath (xmit, NAPI, IRQ handlers) must learn
 * everything from DMA memory instead. Reads made in hardirq, softirq or
 * BH-disabled context - the only contexts the datapath runs in, threaded
 * NAPI included - count as hot; a test asserts that count stays zero while
 * traffic flows. Slow-path readers (probe, ethtool, stats, link work) run in
 * process context and must not hold a BH-disabling lock while reading.
 *
 * Writes are not counted here: the hot path's writes are doorbells and
 * unmasks, which their queue counts (ethtool -S), without a shared atomic.
 */

#ifndef _REFNIC_REGS_H_
#define _REFNIC_REGS_H_

#include <linux/atomic.h>
#include <linux/preempt.h>

#include "refnic.h"

static inline u32 refnic_rd32(struct refnic_priv *priv, u32 reg)
{
	if (in_interrupt())
		atomic64_inc(&priv->mmio_rd_hot);
	else
		atomic64_inc(&priv->mmio_rd_slow);

	return refnic_bus_rd32(priv->port, reg);
}

static inline void refnic_wr32(struct refnic_priv *priv, u32 reg, u32 val)
{
	refnic_bus_wr32(priv->port, reg, val);
}

/* A 64-bit bus address into its LO and HI registers. */
static inline void refnic_wr64(struct refnic_priv *priv, u32 lo, u32 hi,
			       u64 val)
{
	refnic_wr32(priv, lo, lower_32_bits(val));
	refnic_wr32(priv, hi, upper_32_bits(val));
}

#endif /* _REFNIC_REGS_H_ */
