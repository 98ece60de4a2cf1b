/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * The device's trace system, refnic_hw: what the hardware does, one event
 * per step its debugfs counters also count (card C, port P:
 * /sys/kernel/debug/refnic/cardC/portP/counters), so that a trace can be
 * held against them (selftests/net/trace.sh). A port is named by its bus
 * name, refnic.N with N = 2C + P (ethtool -i's bus-info), as a PCI
 * device's events name its address: the device knows no netdev. The
 * driver's events are refnic_trace.h's.
 */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM refnic_hw

#if !defined(_REFNIC_HW_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _REFNIC_HW_TRACE_H_

#include <linux/tracepoint.h>

#include "model.h"

/* Which doorbell register a write rang. */
#define REFNIC_TRACE_DB_TXQ_TAIL	0
#define REFNIC_TRACE_DB_RXQ_TAIL	1
#define REFNIC_TRACE_DB_RXCQ_HEAD	2

/* Why an interrupt fired (or, with the lose-irq fault, was lost). */
#define REFNIC_TRACE_IRQ_NOW		0	/* no moderation */
#define REFNIC_TRACE_IRQ_FRAMES		1	/* ITR_FRAMES events held */
#define REFNIC_TRACE_IRQ_USECS		2	/* ITR_USECS since the first */
#define REFNIC_TRACE_IRQ_TIMER		3	/* the moderation timer */
#define REFNIC_TRACE_IRQ_UNMASK		4	/* unmasked with events held */

TRACE_DEFINE_ENUM(REFNIC_MODEL_FAULT_DROP_CMPL);
TRACE_DEFINE_ENUM(REFNIC_MODEL_FAULT_BAD_DMA);
TRACE_DEFINE_ENUM(REFNIC_MODEL_FAULT_STALL_TXQ);
TRACE_DEFINE_ENUM(REFNIC_MODEL_FAULT_WEDGE_TXQ);
TRACE_DEFINE_ENUM(REFNIC_MODEL_FAULT_GRO_BAD_LEN);
TRACE_DEFINE_ENUM(REFNIC_MODEL_FAULT_STALL_RXQ);
TRACE_DEFINE_ENUM(REFNIC_MODEL_FAULT_LOSE_IRQ);

TRACE_EVENT(refnic_hw_doorbell,
	    TP_PROTO(const struct refnic_model_port *p, u16 queue, u8 reg,
		     u32 value),
	    TP_ARGS(p, queue, reg, value),
	    TP_STRUCT__entry(__field(u16, bus)
			     __field(u16, queue)
			     __field(u8, reg)
			     __field(u32, value)),
	    TP_fast_assign(__entry->bus = p->bus.card_id * 2 + p->bus.index;
			   __entry->queue = queue;
			   __entry->reg = reg;
			   __entry->value = value;),
	    TP_printk("refnic.%u queue %u %s=%u", __entry->bus, __entry->queue,
		      __print_symbolic(__entry->reg,
				       { REFNIC_TRACE_DB_TXQ_TAIL, "txq_tail" },
				       { REFNIC_TRACE_DB_RXQ_TAIL, "rxq_tail" },
				       { REFNIC_TRACE_DB_RXCQ_HEAD, "rxcq_head" }),
		      __entry->value)
);

/* Descriptors read by DMA: a TX burst up to the tail; a frame's DONE
 * written back over its @count descriptors from @index.
 */
DECLARE_EVENT_CLASS(refnic_hw_tx_desc,
		    TP_PROTO(const struct refnic_model_port *p, u16 queue,
			     u32 index, u32 count),
		    TP_ARGS(p, queue, index, count),
		    TP_STRUCT__entry(__field(u16, bus)
				     __field(u16, queue)
				     __field(u32, index)
				     __field(u32, count)),
		    TP_fast_assign(__entry->bus = p->bus.card_id * 2 + p->bus.index;
				   __entry->queue = queue;
				   __entry->index = index;
				   __entry->count = count;),
		    TP_printk("refnic.%u queue %u index %u count %u",
			      __entry->bus, __entry->queue,
			      __entry->index, __entry->count)
);

DEFINE_EVENT(refnic_hw_tx_desc, refnic_hw_tx_fetch,
	     TP_PROTO(const struct refnic_model_port *p, u16 queue, u32 index,
		      u32 count),
	     TP_ARGS(p, queue, index, count)
);

/* Enabled, it turns the TX engines' wire fast path off (tx.c). */
DEFINE_EVENT(refnic_hw_tx_desc, refnic_hw_tx_done,
	     TP_PROTO(const struct refnic_model_port *p, u16 queue, u32 index,
		      u32 count),
	     TP_ARGS(p, queue, index, count)
);

/* One RX descriptor read. */
TRACE_EVENT(refnic_hw_rx_fetch,
	    TP_PROTO(const struct refnic_model_port *p, u16 queue, u32 index),
	    TP_ARGS(p, queue, index),
	    TP_STRUCT__entry(__field(u16, bus)
			     __field(u16, queue)
			     __field(u32, index)),
	    TP_fast_assign(__entry->bus = p->bus.card_id * 2 + p->bus.index;
			   __entry->queue = queue;
			   __entry->index = index;),
	    TP_printk("refnic.%u queue %u index %u", __entry->bus, __entry->queue, __entry->index)
);

/* An RX completion written: a frame, or a hardware GRO run of @segs; @split
 * is the header split decision (REFNIC_SPLIT_*).
 */
TRACE_EVENT(refnic_hw_rx_cmpl,
	    TP_PROTO(const struct refnic_model_port *p, u16 queue, u32 index,
		     u32 flags, u32 pay_len, u16 hdr_len, u16 nbufs, u16 segs,
		     u16 split),
	    TP_ARGS(p, queue, index, flags, pay_len, hdr_len, nbufs, segs,
		    split),
	    TP_STRUCT__entry(__field(u16, bus)
			     __field(u16, queue)
			     __field(u32, index)
			     __field(u32, flags)
			     __field(u32, pay_len)
			     __field(u16, hdr_len)
			     __field(u16, nbufs)
			     __field(u16, segs)
			     __field(u16, split)),
	    TP_fast_assign(__entry->bus = p->bus.card_id * 2 + p->bus.index;
			   __entry->queue = queue;
			   __entry->index = index;
			   __entry->flags = flags;
			   __entry->pay_len = pay_len;
			   __entry->hdr_len = hdr_len;
			   __entry->nbufs = nbufs;
			   __entry->segs = segs;
			   __entry->split = split;),
	    TP_printk("refnic.%u queue %u index %u flags %#x hdr %u pay %u bufs %u segs %u split %s",
		      __entry->bus, __entry->queue,
		      __entry->index, __entry->flags, __entry->hdr_len,
		      __entry->pay_len, __entry->nbufs, __entry->segs,
		      __print_symbolic(__entry->split,
				       { REFNIC_SPLIT_DISABLED, "off" },
				       { REFNIC_SPLIT_DONE, "done" },
				       { REFNIC_SPLIT_NO_L3, "no_l3" },
				       { REFNIC_SPLIT_NO_L4, "no_l4" },
				       { REFNIC_SPLIT_HDR_TOO_BIG, "hdr_too_big" }))
);

/* An interrupt message sent (@lost: the lose-irq fault ate it). */
TRACE_EVENT(refnic_hw_irq,
	    TP_PROTO(const struct refnic_model_port *p, u16 vector, u32 held,
		     u8 reason, bool lost),
	    TP_ARGS(p, vector, held, reason, lost),
	    TP_STRUCT__entry(__field(u16, bus)
			     __field(u16, vector)
			     __field(u32, held)
			     __field(u8, reason)
			     __field(bool, lost)),
	    TP_fast_assign(__entry->bus = p->bus.card_id * 2 + p->bus.index;
			   __entry->vector = vector;
			   __entry->held = held;
			   __entry->reason = reason;
			   __entry->lost = lost;),
	    TP_printk("refnic.%u vector %u events %u by %s%s",
		      __entry->bus, __entry->vector,
		      __entry->held,
		      __print_symbolic(__entry->reason,
				       { REFNIC_TRACE_IRQ_NOW, "event" },
				       { REFNIC_TRACE_IRQ_FRAMES, "frames" },
				       { REFNIC_TRACE_IRQ_USECS, "usecs" },
				       { REFNIC_TRACE_IRQ_TIMER, "timer" },
				       { REFNIC_TRACE_IRQ_UNMASK, "unmask" }),
		      __entry->lost ? " lost" : "")
);

/* @events held back by moderation, @held in all; @timer_ns: the timer
 * fires in that long (0: none, ITR_FRAMES alone).
 */
TRACE_EVENT(refnic_hw_irq_moderate,
	    TP_PROTO(const struct refnic_model_port *p, u16 vector, u32 events,
		     u32 held, u64 timer_ns),
	    TP_ARGS(p, vector, events, held, timer_ns),
	    TP_STRUCT__entry(__field(u16, bus)
			     __field(u16, vector)
			     __field(u32, events)
			     __field(u32, held)
			     __field(u64, timer_ns)),
	    TP_fast_assign(__entry->bus = p->bus.card_id * 2 + p->bus.index;
			   __entry->vector = vector;
			   __entry->events = events;
			   __entry->held = held;
			   __entry->timer_ns = timer_ns;),
	    TP_printk("refnic.%u vector %u events %u held %u timer %llu ns",
		      __entry->bus, __entry->vector,
		      __entry->events, __entry->held, __entry->timer_ns)
);

/* INTR_MASK / INTR_UNMASK written by the driver. */
TRACE_EVENT(refnic_hw_irq_mask,
	    TP_PROTO(const struct refnic_model_port *p, u16 vector, bool masked),
	    TP_ARGS(p, vector, masked),
	    TP_STRUCT__entry(__field(u16, bus)
			     __field(u16, vector)
			     __field(bool, masked)),
	    TP_fast_assign(__entry->bus = p->bus.card_id * 2 + p->bus.index;
			   __entry->vector = vector;
			   __entry->masked = masked;),
	    TP_printk("refnic.%u vector %u %s", __entry->bus, __entry->vector,
		      __entry->masked ? "mask" : "unmask")
);

/* An injected fault took effect. */
TRACE_EVENT(refnic_hw_fault,
	    TP_PROTO(const struct refnic_model_port *p, u8 fault, u16 queue),
	    TP_ARGS(p, fault, queue),
	    TP_STRUCT__entry(__field(u16, bus)
			     __field(u8, fault)
			     __field(u16, queue)),
	    TP_fast_assign(__entry->bus = p->bus.card_id * 2 + p->bus.index;
			   __entry->fault = fault;
			   __entry->queue = queue;),
	    TP_printk("refnic.%u queue %u %s", __entry->bus, __entry->queue,
		      __print_symbolic(__entry->fault,
				       { REFNIC_MODEL_FAULT_DROP_CMPL, "drop-completion" },
				       { REFNIC_MODEL_FAULT_BAD_DMA, "corrupt-dma-addr" },
				       { REFNIC_MODEL_FAULT_STALL_TXQ, "stall-txq" },
				       { REFNIC_MODEL_FAULT_WEDGE_TXQ, "wedge-txq" },
				       { REFNIC_MODEL_FAULT_GRO_BAD_LEN, "gro-bad-len" },
				       { REFNIC_MODEL_FAULT_STALL_RXQ, "stall-rxq" },
				       { REFNIC_MODEL_FAULT_LOSE_IRQ, "lose-irq" }))
);

/* The port reset (CTRL.RESET, or the card plugged in or pulled out);
 * @busy: a queue still held DMA, so RESET_DONE stays clear.
 */
TRACE_EVENT(refnic_hw_reset,
	    TP_PROTO(const struct refnic_model_port *p, bool busy),
	    TP_ARGS(p, busy),
	    TP_STRUCT__entry(__field(u16, bus)
			     __field(bool, busy)),
	    TP_fast_assign(__entry->bus = p->bus.card_id * 2 + p->bus.index;
			   __entry->busy = busy;),
	    TP_printk("refnic.%u%s", __entry->bus,
		      __entry->busy ? " busy" : "")
);

#endif /* _REFNIC_HW_TRACE_H_ */

/* Read again by <trace/define_trace.h> in hw_trace.c, from here. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE hw_trace
#include <trace/define_trace.h>
