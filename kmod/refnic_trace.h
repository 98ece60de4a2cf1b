/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * The driver's trace system, refnic: what the driver does, one event per
 * step a counter of ethtool -S also counts, so that a trace can be held
 * against them (selftests/net/trace.sh). Events name the netdev. The
 * device's events are model/hw_trace.h's (refnic_hw).
 */

#undef TRACE_SYSTEM
#define TRACE_SYSTEM refnic

#if !defined(_REFNIC_TRACE_H_) || defined(TRACE_HEADER_MULTI_READ)
#define _REFNIC_TRACE_H_

#include <linux/netdevice.h>
#include <linux/tracepoint.h>

/* A NAPI poll of a vector ended: its work against its budget, whether
 * it used the budget (@full: NAPI polls again) or completed and unmasked
 * the vector (@rearmed).
 */
TRACE_EVENT(refnic_napi_poll,
	    TP_PROTO(const struct net_device *dev, u16 vector, int work,
		     int budget, bool full, bool rearmed),
	    TP_ARGS(dev, vector, work, budget, full, rearmed),
	    TP_STRUCT__entry(__string(dev, netdev_name(dev))
			     __field(u16, vector)
			     __field(int, work)
			     __field(int, budget)
			     __field(bool, full)
			     __field(bool, rearmed)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->vector = vector;
			   __entry->work = work;
			   __entry->budget = budget;
			   __entry->full = full;
			   __entry->rearmed = rearmed;),
	    TP_printk("%s vector %u work %d budget %d%s%s", __get_str(dev),
		      __entry->vector, __entry->work, __entry->budget,
		      __entry->full ? " full" : "",
		      __entry->rearmed ? " unmasked" : "")
);

/* Adaptive moderation (DIM) applied a profile to a vector: the interrupt
 * delay and frame count it gives the adaptive directions
 * (refnic_vector_write_itr() combines them with a fixed direction's).
 */
TRACE_EVENT(refnic_dim_profile,
	    TP_PROTO(const struct net_device *dev, u16 vector, u8 profile,
		     u32 usecs, u32 frames),
	    TP_ARGS(dev, vector, profile, usecs, frames),
	    TP_STRUCT__entry(__string(dev, netdev_name(dev))
			     __field(u16, vector)
			     __field(u8, profile)
			     __field(u32, usecs)
			     __field(u32, frames)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->vector = vector;
			   __entry->profile = profile;
			   __entry->usecs = usecs;
			   __entry->frames = frames;),
	    TP_printk("%s vector %u profile %u usecs %u frames %u",
		      __get_str(dev), __entry->vector, __entry->profile,
		      __entry->usecs, __entry->frames)
);

/* Buffers posted in one refill, and the doorbell (tail) that told of them. */
TRACE_EVENT(refnic_rx_refill,
	    TP_PROTO(const struct net_device *dev, u16 queue, u32 posted, u32 tail),
	    TP_ARGS(dev, queue, posted, tail),
	    TP_STRUCT__entry(__string(dev, netdev_name(dev))
			     __field(u16, queue)
			     __field(u32, posted)
			     __field(u32, tail)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->queue = queue;
			   __entry->posted = posted;
			   __entry->tail = tail;),
	    TP_printk("%s queue %u posted %u tail %u", __get_str(dev),
		      __entry->queue, __entry->posted, __entry->tail)
);

/* One page_pool call giving pages back as a queue drains: @bulk, a batch
 * of @pages under at most one ring lock.
 */
TRACE_EVENT(refnic_rx_release,
	    TP_PROTO(const struct net_device *dev, u16 queue, u32 pages,
		     bool bulk),
	    TP_ARGS(dev, queue, pages, bulk),
	    TP_STRUCT__entry(__string(dev, dev ? netdev_name(dev) : "(detached)")
			     __field(u16, queue)
			     __field(u32, pages)
			     __field(bool, bulk)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->queue = queue;
			   __entry->pages = pages;
			   __entry->bulk = bulk;),
	    TP_printk("%s queue %u pages %u%s", __get_str(dev), __entry->queue,
		      __entry->pages, __entry->bulk ? " bulk" : "")
);

/* A queue drained: @buffers given back in @calls page_pool calls (a
 * fragment of a page still in use elsewhere drops its reference alone).
 */
TRACE_EVENT(refnic_rx_drain,
	    TP_PROTO(const struct net_device *dev, u16 queue, u64 buffers,
		     u64 calls),
	    TP_ARGS(dev, queue, buffers, calls),
	    TP_STRUCT__entry(__string(dev, dev ? netdev_name(dev) : "(detached)")
			     __field(u16, queue)
			     __field(u64, buffers)
			     __field(u64, calls)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->queue = queue;
			   __entry->buffers = buffers;
			   __entry->calls = calls;),
	    TP_printk("%s queue %u buffers %llu calls %llu", __get_str(dev),
		      __entry->queue, __entry->buffers, __entry->calls)
);

/* Sent frames reclaimed in one NAPI poll. */
TRACE_EVENT(refnic_tx_clean,
	    TP_PROTO(const struct net_device *dev, u16 queue, u32 packets,
		     u32 bytes, bool woken),
	    TP_ARGS(dev, queue, packets, bytes, woken),
	    TP_STRUCT__entry(__string(dev, netdev_name(dev))
			     __field(u16, queue)
			     __field(u32, packets)
			     __field(u32, bytes)
			     __field(bool, woken)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->queue = queue;
			   __entry->packets = packets;
			   __entry->bytes = bytes;
			   __entry->woken = woken;),
	    TP_printk("%s queue %u packets %u bytes %u%s", __get_str(dev),
		      __entry->queue, __entry->packets, __entry->bytes,
		      __entry->woken ? " woken" : "")
);

/* Payload of one frame in a dmabuf's net_iovs: @bytes of it. */
DECLARE_EVENT_CLASS(refnic_devmem_frame,
		    TP_PROTO(const struct net_device *dev, u16 queue, u32 bytes),
		    TP_ARGS(dev, queue, bytes),
		    TP_STRUCT__entry(__string(dev, netdev_name(dev))
				     __field(u16, queue)
				     __field(u32, bytes)),
		    TP_fast_assign(__assign_str(dev);
				   __entry->queue = queue;
				   __entry->bytes = bytes;),
		    TP_printk("%s queue %u bytes %u", __get_str(dev),
			      __entry->queue, __entry->bytes)
);

/* Payload received into a dmabuf (devmem TCP, io_uring zero-copy receive). */
DEFINE_EVENT(refnic_devmem_frame, refnic_rx_devmem,
	     TP_PROTO(const struct net_device *dev, u16 queue, u32 bytes),
	     TP_ARGS(dev, queue, bytes)
);

/* A frame sent from a dmabuf (devmem TX): the device reads its payload
 * where the binding mapped the net_iovs.
 */
DEFINE_EVENT(refnic_devmem_frame, refnic_tx_devmem,
	     TP_PROTO(const struct net_device *dev, u16 queue, u32 bytes),
	     TP_ARGS(dev, queue, bytes)
);

/* One NAPI poll of a kernel-bypass queue pair: descriptors it moved. */
TRACE_EVENT(refnic_bypass_poll,
	    TP_PROTO(const struct net_device *dev, u16 queue, u32 tx_posted,
		     u32 rx_done, u32 refilled),
	    TP_ARGS(dev, queue, tx_posted, rx_done, refilled),
	    TP_STRUCT__entry(__string(dev, netdev_name(dev))
			     __field(u16, queue)
			     __field(u32, tx_posted)
			     __field(u32, rx_done)
			     __field(u32, refilled)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->queue = queue;
			   __entry->tx_posted = tx_posted;
			   __entry->rx_done = rx_done;
			   __entry->refilled = refilled;),
	    TP_printk("%s queue %u tx %u rx %u refill %u", __get_str(dev),
		      __entry->queue, __entry->tx_posted, __entry->rx_done,
		      __entry->refilled)
);

/* The reset work restarted a queue pair (@queue) or the port (-1). */
TRACE_EVENT(refnic_reset,
	    TP_PROTO(const struct net_device *dev, int queue, int err),
	    TP_ARGS(dev, queue, err),
	    TP_STRUCT__entry(__string(dev, netdev_name(dev))
			     __field(int, queue)
			     __field(int, err)),
	    TP_fast_assign(__assign_str(dev);
			   __entry->queue = queue;
			   __entry->err = err;),
	    TP_printk("%s queue %d err %d", __get_str(dev), __entry->queue,
		      __entry->err)
);

#endif /* _REFNIC_TRACE_H_ */

/* Read again by <trace/define_trace.h> in refnic_trace.c, from here. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE refnic_trace
#include <trace/define_trace.h>
