// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The register file (BAR 0): refnic_bus_rd32() and refnic_bus_wr32(), the
 * only way the driver reaches the device. Every access is counted, per port
 * and, for a queue's or a queue pair's vector's registers, per queue.
 *
 * Accesses outside the BAR or not 32-bit aligned read all ones and are
 * ignored, as a bus error would be; offsets inside the BAR that name no
 * register read 0 and ignore writes. With the card's bus cost model on
 * (pcie.c), a read makes the CPU wait its round trip; a write is posted.
 */

#include <linux/etherdevice.h>
#include <linux/unaligned.h>

#include "model.h"
#include "hw_trace.h"

bool refnic_port_mac_enabled(const struct refnic_model_port *port)
{
	return READ_ONCE(port->ctrl) & REFNIC_CTRL_ENABLE;
}

/* The queue a register belongs to, or -1. */
static int refnic_reg_queue(u32 reg)
{
	if (reg >= REFNIC_REG_VEC_BASE &&
	    reg < REFNIC_REG_VEC(REFNIC_MAX_QUEUES, 0))
		return (reg - REFNIC_REG_VEC_BASE) / REFNIC_REG_VEC_STRIDE;
	if (reg >= REFNIC_REG_Q_BASE &&
	    reg < REFNIC_REG_Q(REFNIC_MAX_QUEUES, 0))
		return (reg - REFNIC_REG_Q_BASE) / REFNIC_REG_Q_STRIDE;
	if (reg >= REFNIC_REG_CNT_RX_NOBUF(0) &&
	    reg < REFNIC_REG_CNT_RX_NOBUF(REFNIC_MAX_QUEUES))
		return (reg - REFNIC_REG_CNT_RX_NOBUF(0)) / 4;
	if (reg >= REFNIC_REG_CNT_RX_CQ_FULL(0) &&
	    reg < REFNIC_REG_CNT_RX_CQ_FULL(REFNIC_MAX_QUEUES))
		return (reg - REFNIC_REG_CNT_RX_CQ_FULL(0)) / 4;
	if (reg >= REFNIC_REG_CNT_RX_FRAMES(0) &&
	    reg < REFNIC_REG_CNT_RX_FRAMES(REFNIC_MAX_QUEUES))
		return (reg - REFNIC_REG_CNT_RX_FRAMES(0)) / 4;
	return -1;
}

/* The factory address: locally administered, unique per port. */
static void refnic_port_default_mac(struct refnic_model_port *port)
{
	u32 id = port->card->id * 2 + port->bus.index;
	u8 mac[ETH_ALEN] = { 0x02, 'R', 'F', id >> 16, id >> 8, id };

	WRITE_ONCE(port->mac_lo, get_unaligned_le32(mac));
	WRITE_ONCE(port->mac_hi, get_unaligned_le16(mac + 4));
}

/**
 * refnic_port_reset - CTRL.RESET: back to power-on state
 * @port: the port
 *
 * Disables every queue, masks every vector, restores every register and
 * empties the flow steering table (its hit counters too); the other
 * counters and the link keep going. Never waits (an MMIO write):
 * STATUS.RESET_DONE reads 1 once the engine has left every queue.
 */
void refnic_port_reset(struct refnic_model_port *port)
{
	WRITE_ONCE(port->reset_pending, true);
	refnic_queues_reset(port);
	refnic_irq_reset(port);

	WRITE_ONCE(port->ctrl, 0);
	refnic_port_default_mac(port);
	WRITE_ONCE(port->max_frame, REFNIC_RESET_MAX_FRAME);
	WRITE_ONCE(port->rx_ctrl, 0);
	WRITE_ONCE(port->gro_timeout, REFNIC_GRO_TIMEOUT_RESET);
	WRITE_ONCE(port->gro_idle, REFNIC_GRO_IDLE_RESET);
	WRITE_ONCE(port->rss_queues, 1);
	WRITE_ONCE(port->misc_addr_lo, 0);
	WRITE_ONCE(port->misc_addr_hi, 0);
	refnic_rss_reset(port);
	refnic_steer_reset(port);
	atomic_set(&port->misc_cause, 0);
	atomic64_inc(&port->cnt.resets);
	if (trace_refnic_hw_reset_enabled())
		trace_refnic_hw_reset(port, refnic_queues_busy(port));
}

static u32 refnic_port_status(struct refnic_model_port *port)
{
	u32 status = 0;

	if (refnic_link_up(port))
		status |= REFNIC_STATUS_LINK_UP;
	if (READ_ONCE(port->reset_pending) && !refnic_queues_busy(port))
		WRITE_ONCE(port->reset_pending, false);
	if (!READ_ONCE(port->reset_pending))
		status |= REFNIC_STATUS_RESET_DONE;
	return status;
}

static u32 refnic_global_read(struct refnic_model_port *port, u32 reg)
{
	if (reg >= REFNIC_REG_RSS_KEY(0) &&
	    reg < REFNIC_REG_RSS_KEY(ARRAY_SIZE(port->rss_key)))
		return READ_ONCE(port->rss_key[(reg - REFNIC_REG_RSS_KEY(0)) / 4]);
	if (reg >= REFNIC_REG_RSS_TABLE(0) &&
	    reg < REFNIC_REG_RSS_TABLE(ARRAY_SIZE(port->rss_table)))
		return READ_ONCE(port->rss_table[(reg - REFNIC_REG_RSS_TABLE(0)) / 4]);
	if (reg >= REFNIC_REG_RSS_FIELDS(0) &&
	    reg < REFNIC_REG_RSS_FIELDS(REFNIC_RSS_NUM_FT))
		return READ_ONCE(port->rss_fields[(reg - REFNIC_REG_RSS_FIELDS(0)) / 4]);

	switch (reg) {
	case REFNIC_REG_ID:
		return REFNIC_DEV_ID;
	case REFNIC_REG_REVISION:
		return REFNIC_DEV_REVISION;
	case REFNIC_REG_CAPS:
		return REFNIC_CAPS;
	case REFNIC_REG_CTRL:
		return READ_ONCE(port->ctrl);
	case REFNIC_REG_STATUS:
		return refnic_port_status(port);
	case REFNIC_REG_MAC_LO:
		return READ_ONCE(port->mac_lo);
	case REFNIC_REG_MAC_HI:
		return READ_ONCE(port->mac_hi);
	case REFNIC_REG_MAX_FRAME:
		return READ_ONCE(port->max_frame);
	case REFNIC_REG_RX_CTRL:
		return READ_ONCE(port->rx_ctrl);
	case REFNIC_REG_RX_GRO_TIMEOUT:
		return READ_ONCE(port->gro_timeout);
	case REFNIC_REG_RX_GRO_IDLE:
		return READ_ONCE(port->gro_idle);
	case REFNIC_REG_RSS_QUEUES:
		return READ_ONCE(port->rss_queues);
	case REFNIC_REG_MISC_CAUSE:
		return atomic_xchg(&port->misc_cause, 0);
	case REFNIC_REG_MISC_CAUSE_ADDR_LO:
		return READ_ONCE(port->misc_addr_lo);
	case REFNIC_REG_MISC_CAUSE_ADDR_HI:
		return READ_ONCE(port->misc_addr_hi);
	}
	return 0;
}

static void refnic_global_write(struct refnic_model_port *port, u32 reg,
				u32 val)
{
	bool was_up;
	u32 old;

	if (reg >= REFNIC_REG_RSS_KEY(0) &&
	    reg < REFNIC_REG_RSS_KEY(ARRAY_SIZE(port->rss_key))) {
		WRITE_ONCE(port->rss_key[(reg - REFNIC_REG_RSS_KEY(0)) / 4], val);
		return;
	}
	if (reg >= REFNIC_REG_RSS_TABLE(0) &&
	    reg < REFNIC_REG_RSS_TABLE(ARRAY_SIZE(port->rss_table))) {
		WRITE_ONCE(port->rss_table[(reg - REFNIC_REG_RSS_TABLE(0)) / 4],
			   val);
		return;
	}
	if (reg >= REFNIC_REG_RSS_FIELDS(0) &&
	    reg < REFNIC_REG_RSS_FIELDS(REFNIC_RSS_NUM_FT)) {
		refnic_rss_fields_write(port, (reg - REFNIC_REG_RSS_FIELDS(0)) / 4,
					val);
		return;
	}

	switch (reg) {
	case REFNIC_REG_CTRL:
		was_up = refnic_link_up(port);
		/* RESET wins over anything else in the same write. */
		if (val & REFNIC_CTRL_RESET)
			refnic_port_reset(port);
		else
			WRITE_ONCE(port->ctrl, val & REFNIC_CTRL_ENABLE);
		/* The MAC going on or off takes the link of both ends. */
		refnic_link_changed(port, was_up);
		break;
	case REFNIC_REG_MAC_LO:
		WRITE_ONCE(port->mac_lo, val);
		break;
	case REFNIC_REG_MAC_HI:
		WRITE_ONCE(port->mac_hi, val & 0xffff);
		break;
	case REFNIC_REG_MAX_FRAME:
		WRITE_ONCE(port->max_frame, val);
		break;
	case REFNIC_REG_RX_CTRL:
		old = READ_ONCE(port->rx_ctrl);
		WRITE_ONCE(port->rx_ctrl, val & (REFNIC_RX_CTRL_CSUM |
						 REFNIC_RX_CTRL_RSS |
						 REFNIC_RX_CTRL_HW_GRO |
						 REFNIC_RX_CTRL_PROMISC |
						 REFNIC_RX_CTRL_GRO_CWR |
						 REFNIC_RX_CTRL_GRO_FIXEDID_NODF));
		/* Enabled queues get their context tables, or close every
		 * open context and give the table back.
		 */
		if ((val ^ old) & REFNIC_RX_CTRL_HW_GRO)
			refnic_rx_gro_ctrl_changed(port);
		break;
	case REFNIC_REG_RX_GRO_TIMEOUT:
		WRITE_ONCE(port->gro_timeout,
			   min_t(u32, val, REFNIC_GRO_TIMEOUT_MAX));
		break;
	case REFNIC_REG_RX_GRO_IDLE:
		WRITE_ONCE(port->gro_idle, min_t(u32, val, REFNIC_GRO_TIMEOUT_MAX));
		break;
	case REFNIC_REG_RSS_QUEUES:
		WRITE_ONCE(port->rss_queues, val);
		break;
	case REFNIC_REG_MISC_CAUSE_ADDR_LO:
		WRITE_ONCE(port->misc_addr_lo, val);
		break;
	case REFNIC_REG_MISC_CAUSE_ADDR_HI:
		WRITE_ONCE(port->misc_addr_hi, val);
		break;
	}
}

static u32 refnic_counter_read(struct refnic_model_port *port, u32 reg)
{
	u64 sum = 0;
	int q = refnic_reg_queue(reg);
	unsigned int i;

	/* The registers show the low 32 bits of the model's counters. */
	if (q >= 0 && reg < REFNIC_REG_CNT_RX_CQ_FULL(0))
		return READ_ONCE(port->rxq[q].stats.drop_nobuf);
	if (q >= 0 && reg < REFNIC_REG_CNT_RX_FRAMES(0))
		return READ_ONCE(port->rxq[q].stats.drop_cq_full);
	if (q >= 0)
		return READ_ONCE(port->rxq[q].stats.arrived);

	switch (reg) {
	case REFNIC_REG_CNT_RX_OVERSIZE:
		return atomic64_read(&port->cnt.rx_drop_oversize);
	case REFNIC_REG_CNT_RX_FILTERED:
		return atomic64_read(&port->cnt.rx_drop_filtered);
	case REFNIC_REG_CNT_RX_BAD_QUEUE:
		return atomic64_read(&port->cnt.rx_drop_bad_queue);
	case REFNIC_REG_CNT_RX_MAC_OFF:
		return atomic64_read(&port->cnt.rx_drop_mac_off);
	case REFNIC_REG_CNT_RX_STEERED:
		return atomic64_read(&port->cnt.rx_steered);
	case REFNIC_REG_CNT_RX_STEER_DROP:
		return atomic64_read(&port->cnt.rx_drop_steer);
	case REFNIC_REG_CNT_TX_LINK_DOWN:
		for (i = 0; i < REFNIC_MAX_QUEUES; i++)
			sum += READ_ONCE(port->txq[i].stats.drop_link_down);
		return sum;
	case REFNIC_REG_CNT_TX_ERRORS:
		for (i = 0; i < REFNIC_MAX_QUEUES; i++)
			sum += READ_ONCE(port->txq[i].stats.errors);
		return sum;
	}
	return 0;
}

static bool refnic_reg_valid(u32 reg)
{
	return reg < REFNIC_BAR_SIZE && IS_ALIGNED(reg, 4);
}

u32 refnic_bus_rd32(const struct refnic_bus_port *bport, u32 reg)
{
	struct refnic_model_port *port = refnic_port_of(bport);
	unsigned int v;
	int q;

	if (!refnic_reg_valid(reg)) {
		this_cpu_inc(port->mmio->bad);
		return U32_MAX;
	}
	this_cpu_inc(port->mmio->reads);
	q = refnic_reg_queue(reg);
	if (q >= 0)
		this_cpu_inc(port->mmio->q_reads[q]);
	/* A non-posted read: the CPU waits for the completion. */
	if (refnic_pcie_on(port->card))
		refnic_pcie_read(port->card);

	if (reg < REFNIC_REG_VEC_BASE)
		return refnic_global_read(port, reg);
	if (reg < REFNIC_REG_VEC(REFNIC_NUM_VECTORS, 0)) {
		v = (reg - REFNIC_REG_VEC_BASE) / REFNIC_REG_VEC_STRIDE;
		return refnic_vec_reg_read(port, v,
					   reg - v * REFNIC_REG_VEC_STRIDE);
	}
	if (reg >= REFNIC_REG_Q_BASE &&
	    reg < REFNIC_REG_Q(REFNIC_MAX_QUEUES, 0))
		return refnic_queue_reg_read(port, q,
					     reg - q * REFNIC_REG_Q_STRIDE);
	if (reg >= REFNIC_REG_FLOW_BASE && reg < REFNIC_REG_FLOW_END)
		return refnic_steer_reg_read(port, reg);
	if (reg >= REFNIC_REG_RSS_CTX_BASE && reg < REFNIC_REG_RSS_CTX_END)
		return refnic_rss_ctx_read(port, reg);
	if (reg >= REFNIC_REG_CNT_BASE && reg < REFNIC_REG_FLOW_BASE)
		return refnic_counter_read(port, reg);
	return 0;
}

void refnic_bus_wr32(const struct refnic_bus_port *bport, u32 reg, u32 val)
{
	struct refnic_model_port *port = refnic_port_of(bport);
	unsigned int v;
	int q;

	if (!refnic_reg_valid(reg)) {
		this_cpu_inc(port->mmio->bad);
		return;
	}
	this_cpu_inc(port->mmio->writes);
	q = refnic_reg_queue(reg);
	if (q >= 0)
		this_cpu_inc(port->mmio->q_writes[q]);
	if (refnic_pcie_on(port->card))
		refnic_pcie_write(port->card);

	if (reg < REFNIC_REG_VEC_BASE) {
		refnic_global_write(port, reg, val);
	} else if (reg < REFNIC_REG_VEC(REFNIC_NUM_VECTORS, 0)) {
		v = (reg - REFNIC_REG_VEC_BASE) / REFNIC_REG_VEC_STRIDE;
		refnic_vec_reg_write(port, v, reg - v * REFNIC_REG_VEC_STRIDE,
				     val);
	} else if (reg >= REFNIC_REG_Q_BASE &&
		   reg < REFNIC_REG_Q(REFNIC_MAX_QUEUES, 0)) {
		refnic_queue_reg_write(port, q, reg - q * REFNIC_REG_Q_STRIDE,
				       val);
	} else if (reg >= REFNIC_REG_FLOW_BASE && reg < REFNIC_REG_FLOW_END) {
		refnic_steer_reg_write(port, reg, val);
	} else if (reg >= REFNIC_REG_RSS_CTX_BASE &&
		   reg < REFNIC_REG_RSS_CTX_END) {
		refnic_rss_ctx_write(port, reg, val);
	}
}
