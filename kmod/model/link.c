// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The link between the two ports of a card.
 *
 * The link is up when both ports' carriers are. Each port shapes what it
 * sends: a rate limit (a token bucket that holds the TX queue back, so a
 * slow link pushes back on the driver's ring as a real one does), a delay
 * (a delay line: frames wait in arrival order for an hrtimer, then a work
 * item delivers them) and random loss. With the defaults (carrier up, no
 * shaping) the engine delivers straight into the peer and pays one test of
 * link->shaped per frame.
 */

#include <linux/math64.h>
#include <linux/prandom.h>
#include <linux/slab.h>

#include "model.h"

/* The delay line holds at most this much; beyond, frames are dropped. */
#define REFNIC_LINK_MAX_DELAYED_FRAMES	16384
#define REFNIC_LINK_MAX_DELAYED_BYTES	(64 << 20)

/**
 * struct refnic_delayed - a frame on a delayed link
 * @node: in link->delayed
 * @due_ns: when it arrives at the peer
 * @csum_valid: as struct refnic_frame
 * @len: bytes in @data
 * @data: the frame, assembled
 */
struct refnic_delayed {
	struct list_head node;
	u64 due_ns;
	bool csum_valid;
	u32 len;
	u8 data[] __counted_by(len);
};

/* The link is up when both ends have carrier and both MACs are on: like a
 * PHY, a port loses link when the far end powers its MAC down.
 */
bool refnic_link_up(const struct refnic_model_port *port)
{
	return READ_ONCE(port->link.carrier) &&
	       READ_ONCE(port->peer->link.carrier) &&
	       refnic_port_mac_enabled(port) &&
	       refnic_port_mac_enabled(port->peer);
}

/**
 * refnic_link_changed() - raise the link cause if the link went up or down
 * @port: the port whose state just changed
 * @was_up: refnic_link_up() before the change
 *
 * Both ends see the change, each on its misc vector. Two racing changes may
 * raise one cause more than needed; the driver reads STATUS either way.
 */
void refnic_link_changed(struct refnic_model_port *port, bool was_up)
{
	if (refnic_link_up(port) == was_up)
		return;
	refnic_port_raise_misc(port, REFNIC_MISC_LINK);
	refnic_port_raise_misc(port->peer, REFNIC_MISC_LINK);
}

/* Most bytes the bucket saves up: 1 ms at the rate, two frames at least. */
static s64 refnic_link_burst(u64 rate_bps)
{
	return max_t(u64, div_u64(rate_bps, 8 * MSEC_PER_SEC),
		     2 * REFNIC_MAX_FRAME);
}

/**
 * refnic_link_admit - may a frame of @bytes leave @port now?
 * @port: the sending port
 * @bytes: its size on the wire (all segments of a TSO/USO frame)
 * @wait_ns: when not, how long until it may
 *
 * A frame may leave while the bucket is not in debt, and takes its bytes
 * out (which may put the bucket in debt): a frame larger than the burst
 * goes, and the next waits for it to be paid.
 */
bool refnic_link_admit(struct refnic_model_port *port, u32 bytes,
		       u64 *wait_ns)
{
	struct refnic_model_link *link = &port->link;
	u64 rate, now, elapsed;
	bool ok = true;
	s64 burst;

	if (likely(!READ_ONCE(link->shaped)))
		return true;
	rate = READ_ONCE(link->rate_bps);
	if (!rate)
		return true;
	burst = refnic_link_burst(rate);

	spin_lock(&link->lock);
	now = ktime_get_ns();
	/* Ten idle seconds refill any bucket; the cap keeps the product in
	 * range.
	 */
	elapsed = min_t(u64, now - link->stamp_ns, 10 * NSEC_PER_SEC);
	link->stamp_ns = now;
	link->tokens = min(burst, link->tokens +
			   (s64)mul_u64_u64_div_u64(elapsed, rate,
						    8 * NSEC_PER_SEC));
	if (link->tokens < 0) {
		*wait_ns = mul_u64_u64_div_u64(-link->tokens, 8 * NSEC_PER_SEC,
					       rate) + 1;
		ok = false;
	} else {
		link->tokens -= bytes;
	}
	spin_unlock(&link->lock);
	return ok;
}

static void refnic_link_delay(struct refnic_model_port *port,
			      const struct refnic_frame *f, u64 latency_ns)
{
	struct refnic_model_link *link = &port->link;
	struct refnic_delayed *d;
	u64 due;

	d = kmalloc(struct_size(d, data, f->len), GFP_KERNEL | __GFP_NOWARN);
	if (!d)
		goto drop;
	d->len = f->len;
	d->csum_valid = f->csum_valid;
	memcpy(d->data, f->head, f->head_len);
	if (f->data_len)
		memcpy(d->data + f->head_len, f->data, f->data_len);
	memset(d->data + f->head_len + f->data_len, 0, f->pad);

	spin_lock(&link->lock);
	if (link->delayed_frames >= REFNIC_LINK_MAX_DELAYED_FRAMES ||
	    link->delayed_bytes >= REFNIC_LINK_MAX_DELAYED_BYTES) {
		spin_unlock(&link->lock);
		kfree(d);
		goto drop;
	}
	/* Frames keep their order even when the delay shrinks. */
	due = max(ktime_get_ns() + latency_ns, link->last_due_ns);
	d->due_ns = due;
	link->last_due_ns = due;
	if (list_empty(&link->delayed))
		hrtimer_start(&link->timer, ns_to_ktime(due), HRTIMER_MODE_ABS);
	list_add_tail(&d->node, &link->delayed);
	link->delayed_frames++;
	link->delayed_bytes += d->len;
	spin_unlock(&link->lock);
	atomic64_inc(&port->cnt.link_delayed);
	return;
drop:
	atomic64_inc(&port->cnt.link_drop_overflow);
}

static void refnic_link_xmit_shaped(struct refnic_model_port *port,
				    const struct refnic_frame *f)
{
	struct refnic_model_link *link = &port->link;
	u32 loss = READ_ONCE(link->loss_ppm);
	u64 latency = READ_ONCE(link->latency_ns);
	bool direct;

	if (loss && get_random_u32_below(1000000) < loss) {
		atomic64_inc(&port->cnt.link_drop_loss);
		return;
	}
	spin_lock(&link->lock);
	direct = !latency && list_empty(&link->delayed);
	spin_unlock(&link->lock);
	if (direct)
		refnic_rx_deliver(port->peer, f);
	else
		refnic_link_delay(port, f, latency);
}

/**
 * refnic_link_xmit - put a frame on the wire
 * @port: the sending port
 * @f: the frame; only valid during the call
 *
 * Called by the TX engine (process context), once the link is known up and
 * the rate limit has admitted the frame.
 */
void refnic_link_xmit(struct refnic_model_port *port,
		      const struct refnic_frame *f)
{
	if (likely(!READ_ONCE(port->link.shaped)))
		refnic_rx_deliver(port->peer, f);
	else
		refnic_link_xmit_shaped(port, f);
}

static enum hrtimer_restart refnic_link_timer_fn(struct hrtimer *timer)
{
	struct refnic_model_link *link = container_of(timer,
						      struct refnic_model_link,
						      timer);

	queue_work(refnic_engine_wq, &link->work);
	return HRTIMER_NORESTART;
}

/* Deliver the frames whose time has come. */
static void refnic_link_work(struct work_struct *work)
{
	struct refnic_model_link *link = container_of(work,
						      struct refnic_model_link,
						      work);
	struct refnic_model_port *port = container_of(link,
						      struct refnic_model_port,
						      link);
	struct refnic_delayed *d, *tmp;
	struct refnic_frame f = {};
	bool delivered = false;
	LIST_HEAD(arrived);
	u64 now;

	spin_lock(&link->lock);
	now = ktime_get_ns();
	list_for_each_entry_safe(d, tmp, &link->delayed, node) {
		if (d->due_ns > now) {
			hrtimer_start(&link->timer, ns_to_ktime(d->due_ns),
				      HRTIMER_MODE_ABS);
			break;
		}
		list_move_tail(&d->node, &arrived);
		link->delayed_frames--;
		link->delayed_bytes -= d->len;
	}
	spin_unlock(&link->lock);

	list_for_each_entry_safe(d, tmp, &arrived, node) {
		f.head = d->data;
		f.head_len = d->len;
		f.len = d->len;
		f.csum_valid = d->csum_valid;
		refnic_rx_deliver(port->peer, &f);
		kfree(d);
		delivered = true;
	}
	/* The burst is over: with both GRO timers 0, hardware GRO holds
	 * nothing back past it.
	 */
	if (delivered)
		refnic_rx_gro_flush_port(port->peer);
}

void refnic_link_init(struct refnic_model_port *port)
{
	struct refnic_model_link *link = &port->link;

	link->carrier = true;
	spin_lock_init(&link->lock);
	INIT_LIST_HEAD(&link->delayed);
	hrtimer_setup(&link->timer, refnic_link_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);
	INIT_WORK(&link->work, refnic_link_work);
}

/* Card removal: drop what is on the wire. The TX engines are stopped. */
void refnic_link_stop(struct refnic_model_port *port)
{
	struct refnic_model_link *link = &port->link;
	struct refnic_delayed *d, *tmp;

	/* The work re-arms the timer, the timer queues the work. */
	hrtimer_cancel(&link->timer);
	cancel_work_sync(&link->work);
	hrtimer_cancel(&link->timer);

	list_for_each_entry_safe(d, tmp, &link->delayed, node) {
		list_del(&d->node);
		kfree(d);
	}
	link->delayed_frames = 0;
	link->delayed_bytes = 0;
}

void refnic_model_link_get(struct refnic_model_port *port,
			   struct refnic_model_link_cfg *cfg)
{
	struct refnic_model_link *link = &port->link;

	mutex_lock(&port->card->link_lock);
	cfg->carrier = link->carrier;
	cfg->rate_bps = link->rate_bps;
	cfg->latency_us = div_u64(link->latency_ns, NSEC_PER_USEC);
	cfg->loss_ppm = link->loss_ppm;
	mutex_unlock(&port->card->link_lock);
}

/**
 * refnic_model_link_set - configure the wire leaving a port
 * @port: the port
 * @cfg: the configuration (struct refnic_model_link_cfg)
 *
 * Return: 0, or -EINVAL for an out-of-range value.
 */
int refnic_model_link_set(struct refnic_model_port *port,
			  const struct refnic_model_link_cfg *cfg)
{
	struct refnic_model_link *link = &port->link;
	bool was_up;

	if (cfg->latency_us > REFNIC_MODEL_MAX_LATENCY_US ||
	    cfg->rate_bps > REFNIC_MODEL_MAX_RATE_BPS ||
	    cfg->loss_ppm > 1000000)
		return -EINVAL;

	mutex_lock(&port->card->link_lock);
	was_up = refnic_link_up(port);

	spin_lock(&link->lock);
	if (cfg->rate_bps != link->rate_bps) {
		link->tokens = refnic_link_burst(cfg->rate_bps);
		link->stamp_ns = ktime_get_ns();
	}
	spin_unlock(&link->lock);
	WRITE_ONCE(link->rate_bps, cfg->rate_bps);
	WRITE_ONCE(link->latency_ns, (u64)cfg->latency_us * NSEC_PER_USEC);
	WRITE_ONCE(link->loss_ppm, cfg->loss_ppm);
	WRITE_ONCE(link->shaped, cfg->rate_bps || cfg->latency_us ||
		   cfg->loss_ppm);
	WRITE_ONCE(link->carrier, cfg->carrier);

	refnic_link_changed(port, was_up);
	mutex_unlock(&port->card->link_lock);
	return 0;
}
