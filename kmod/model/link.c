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
 *
 * The delay line is a ring of frames in one buffer, allocated when the
 * latency is set (refnic_model_link_set()), in the request and charged to
 * the requester's memory cgroup: a latency the cgroup cannot afford fails
 * there with -ENOMEM, and the wire allocates nothing per frame. It holds
 * what the link carries during the latency at its rate (a link without a
 * rate limit is sized as a REFNIC_LINK_NOMINAL_BPS one), a quarter more for
 * the frames' headers and padding, and a burst of the token bucket; at
 * most REFNIC_LINK_MAX_LINE_BYTES. A frame that finds it full is dropped
 * (link_drop_overflow), as by a delay emulator with finite memory. A new
 * latency or rate resizes the line: the frames on it are lost (counted in
 * link_drop_overflow too), as when a cable is swapped.
 */

#include <linux/math64.h>
#include <linux/prandom.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "model.h"

/* The most a delay line holds, per port: 10 ms at 10 Gbit/s. It is
 * allocated, and with init_on_alloc zeroed, each time a new latency
 * resizes it, so its bound is also what a user setting latencies in a loop
 * costs the machine.
 */
#define REFNIC_LINK_MAX_LINE_BYTES	(16 << 20)
/* The rate a delay line is sized for when the link has no rate limit. */
#define REFNIC_LINK_NOMINAL_BPS		10000000000ULL

/**
 * struct refnic_delayed - a frame on a delayed link, in link->line
 * @due_ns: when it arrives at the peer
 * @len: bytes in @data; REFNIC_LINE_WRAP marks the end of the line's used
 *	part, the next frame being at its start
 * @csum_valid: as struct refnic_frame
 * @data: the frame, assembled
 *
 * A frame takes refnic_line_rec() bytes of the line, 8-byte aligned. Where
 * fewer than sizeof(struct refnic_delayed) bytes are left at the end of the
 * line, they are unused and unmarked.
 */
struct refnic_delayed {
	u64 due_ns;
	u32 len;
	u8 csum_valid;
	u8 data[];
};

#define REFNIC_LINE_WRAP	U32_MAX

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
 *
 * Return: true if the frame may leave now; false with @wait_ns set if not.
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

/* ---- The delay line ------------------------------------------------------- */

/**
 * refnic_link_line_size - bytes of the delay line of a link
 * @rate_bps: its rate limit, 0 for none
 * @latency_us: its latency
 *
 * Return: 0 for no latency; else what the link carries in @latency_us at
 * @rate_bps (REFNIC_LINK_NOMINAL_BPS when unlimited), a quarter more for
 * record headers and padding (a 64-byte frame takes 80 bytes), and a
 * burst of the token bucket; page aligned, at most
 * REFNIC_LINK_MAX_LINE_BYTES.
 */
static u32 refnic_link_line_size(u64 rate_bps, u32 latency_us)
{
	u64 rate = rate_bps ?: REFNIC_LINK_NOMINAL_BPS;
	u64 bytes;

	if (!latency_us)
		return 0;
	/* At most 10 s at 10 Tbit/s: 1.25e13, no overflow below. */
	bytes = mul_u64_u64_div_u64(latency_us, rate, 8 * USEC_PER_SEC);
	bytes += bytes / 4 + refnic_link_burst(rate);
	return PAGE_ALIGN(min_t(u64, bytes, REFNIC_LINK_MAX_LINE_BYTES));
}

static u32 refnic_line_rec(u32 len)
{
	return ALIGN(sizeof(struct refnic_delayed) + len, 8);
}

/* Room for a frame taking @rec bytes at the line's head, or NULL when the
 * line is too full. link->lock.
 */
static struct refnic_delayed *refnic_line_reserve(struct refnic_model_link *link,
						  u32 rec)
{
	u32 head, tail, waste = 0;

	if (!link->line_used) {
		link->line_head = 0;
		link->line_tail = 0;
	}
	head = link->line_head;
	tail = link->line_tail;
	if (link->line_used && head <= tail) {
		/* Wrapped (or full): free is [head, tail). */
		if (tail - head < rec)
			return NULL;
	} else if (link->line_size - head < rec) {
		/* Free is [head, size) and [0, tail): skip the end. */
		if (tail < rec)
			return NULL;
		waste = link->line_size - head;
		if (waste >= sizeof(struct refnic_delayed))
			((struct refnic_delayed *)(link->line + head))->len =
				REFNIC_LINE_WRAP;
		head = 0;
	}
	link->line_used += waste + rec;
	link->line_head = head + rec < link->line_size ? head + rec : 0;
	link->line_frames++;
	return (struct refnic_delayed *)(link->line + head);
}

/* The oldest frame on the line, or NULL. link->lock. */
static struct refnic_delayed *refnic_line_peek(struct refnic_model_link *link)
{
	u32 rest = link->line_size - link->line_tail;
	struct refnic_delayed *d;

	if (!link->line_used)
		return NULL;
	d = (struct refnic_delayed *)(link->line + link->line_tail);
	if (rest < sizeof(*d) || d->len == REFNIC_LINE_WRAP) {
		/* The rest of the line is unused: the frame is at its start. */
		link->line_used -= rest;
		link->line_tail = 0;
		d = (struct refnic_delayed *)link->line;
	}
	return d;
}

/* Take @d, the oldest frame, off the line. link->lock. */
static void refnic_line_pop(struct refnic_model_link *link,
			    const struct refnic_delayed *d)
{
	u32 rec = refnic_line_rec(d->len);

	link->line_tail += rec;
	if (link->line_tail == link->line_size)
		link->line_tail = 0;
	link->line_used -= rec;
	link->line_frames--;
}

/* Stop delivering: no timer armed, no work running or queued. */
static void refnic_link_line_quiesce(struct refnic_model_link *link)
{
	/* The work re-arms the timer, the timer queues the work. */
	hrtimer_cancel(&link->timer);
	cancel_work_sync(&link->work);
	hrtimer_cancel(&link->timer);
}

/**
 * refnic_link_line_replace - give a port's link another delay line
 * @port: the port; the card's link_lock held
 * @line: the new line, empty, or NULL for none
 * @size: its size in bytes
 *
 * The frames on the old line are lost, and counted as overflow drops.
 *
 * Return: the old line, for the caller to kvfree().
 */
static u8 *refnic_link_line_replace(struct refnic_model_port *port, u8 *line,
				    u32 size)
{
	struct refnic_model_link *link = &port->link;
	struct refnic_delayed *d;
	u32 lost;
	u8 *old;

	spin_lock(&link->lock);
	old = link->line;
	lost = link->line_frames;
	link->line = line;
	WRITE_ONCE(link->line_size, size);	/* debugfs reads it */
	link->line_head = 0;
	link->line_tail = 0;
	link->line_used = 0;
	link->line_frames = 0;
	/* The frames that new ones would have had to wait for are gone. */
	link->last_due_ns = 0;
	spin_unlock(&link->lock);
	atomic64_add(lost, &port->cnt.link_drop_overflow);

	/* The work may still be delivering a frame from the old line (it
	 * does so without the lock), and the timer be armed for the old
	 * line or, since the swap, the new one: wait for both, then arm the
	 * timer for the new line's oldest frame, if any.
	 */
	refnic_link_line_quiesce(link);
	spin_lock(&link->lock);
	d = link->line ? refnic_line_peek(link) : NULL;
	if (d)
		hrtimer_start(&link->timer, ns_to_ktime(d->due_ns),
			      HRTIMER_MODE_ABS);
	spin_unlock(&link->lock);
	return old;
}

/* Put a frame on the delay line, or deliver it now if the link has none
 * (any more: its latency was just set to 0).
 */
static void refnic_link_delay(struct refnic_model_port *port,
			      const struct refnic_frame *f, u64 latency_ns)
{
	struct refnic_model_link *link = &port->link;
	struct refnic_delayed *d;
	const u8 *payload;
	bool was_empty;
	u64 due;

	/* The line keeps whole frames: a deferred checksum is due now. */
	payload = refnic_frame_fetch(f);
	spin_lock(&link->lock);
	if (!link->line) {
		spin_unlock(&link->lock);
		refnic_rx_deliver(port->peer, f);
		return;
	}
	was_empty = !link->line_used;
	d = refnic_line_reserve(link, refnic_line_rec(f->len));
	if (!d) {
		spin_unlock(&link->lock);
		atomic64_inc(&port->cnt.link_drop_overflow);
		return;
	}
	/* Frames keep their order even when the delay shrinks. */
	due = max(ktime_get_ns() + latency_ns, link->last_due_ns);
	link->last_due_ns = due;
	d->due_ns = due;
	d->len = f->len;
	d->csum_valid = f->csum_valid;
	memcpy(d->data, f->head, f->head_len);
	if (f->data_len)
		memcpy(d->data + f->head_len, payload, f->data_len);
	memset(d->data + f->head_len + f->data_len, 0, f->pad);
	if (was_empty)
		hrtimer_start(&link->timer, ns_to_ktime(due), HRTIMER_MODE_ABS);
	spin_unlock(&link->lock);
	atomic64_inc(&port->cnt.link_delayed);
}

static void refnic_link_xmit_shaped(struct refnic_model_port *port,
				    const struct refnic_frame *f)
{
	struct refnic_model_link *link = &port->link;
	u32 loss = READ_ONCE(link->loss_ppm);
	u64 latency = READ_ONCE(link->latency_ns);

	if (loss && get_random_u32_below(1000000) < loss) {
		atomic64_inc(&port->cnt.link_drop_loss);
		return;
	}
	/* Without latency there is no line (or none for long: it goes
	 * before the latency is cleared).
	 */
	if (!latency)
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

/* Deliver the frames whose time has come, from the line itself: the
 * senders add frames meanwhile, but never where the oldest one is until it
 * is popped. The only consumer (a work item does not run twice at once).
 */
static void refnic_link_work(struct work_struct *work)
{
	struct refnic_model_link *link = container_of(work,
						      struct refnic_model_link,
						      work);
	struct refnic_model_port *port = container_of(link,
						      struct refnic_model_port,
						      link);
	u64 now = ktime_get_ns();
	struct refnic_frame f = {};
	bool delivered = false;
	struct refnic_delayed *d;
	u8 *line;

	for (;;) {
		spin_lock(&link->lock);
		line = link->line;
		d = line ? refnic_line_peek(link) : NULL;
		if (d && d->due_ns > now) {
			hrtimer_start(&link->timer, ns_to_ktime(d->due_ns),
				      HRTIMER_MODE_ABS);
			d = NULL;
		}
		spin_unlock(&link->lock);
		if (!d)
			break;

		f.head = d->data;
		f.head_len = d->len;
		f.len = d->len;
		f.csum_valid = d->csum_valid;
		refnic_rx_deliver(port->peer, &f);
		delivered = true;

		spin_lock(&link->lock);
		/* Unless refnic_link_line_replace() took the line away. */
		if (link->line == line)
			refnic_line_pop(link, d);
		spin_unlock(&link->lock);
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
	hrtimer_setup(&link->timer, refnic_link_timer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS);
	INIT_WORK(&link->work, refnic_link_work);
}

/* Card removal: drop what is on the wire. The TX engines are stopped. */
void refnic_link_stop(struct refnic_model_port *port)
{
	struct refnic_model_link *link = &port->link;

	refnic_link_line_quiesce(link);
	kvfree(link->line);
	link->line = NULL;
	WRITE_ONCE(link->line_size, 0);
	link->line_used = 0;
	link->line_frames = 0;
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
 * A latency or rate that changes the size of the delay line allocates a
 * new one, charged to the caller's memory cgroup; the frames on the old
 * one are lost.
 *
 * Return: 0, -EINVAL for an out-of-range value, or -ENOMEM when the delay
 * line cannot be allocated (nothing changed then).
 */
int refnic_model_link_set(struct refnic_model_port *port,
			  const struct refnic_model_link_cfg *cfg)
{
	struct refnic_model_link *link = &port->link;
	u8 *line = NULL, *old = NULL;
	bool was_up;
	u32 size;

	if (cfg->latency_us > REFNIC_MODEL_MAX_LATENCY_US ||
	    cfg->rate_bps > REFNIC_MODEL_MAX_RATE_BPS ||
	    cfg->loss_ppm > 1000000)
		return -EINVAL;
	size = refnic_link_line_size(cfg->rate_bps, cfg->latency_us);

	mutex_lock(&port->card->link_lock);
	if (size != link->line_size) {
		if (size) {
			/* Fails at the cgroup's limit, without the OOM
			 * killer or a warning: the request says why.
			 */
			line = __vmalloc(size, GFP_KERNEL_ACCOUNT |
					 __GFP_RETRY_MAYFAIL | __GFP_NOWARN);
			if (!line) {
				mutex_unlock(&port->card->link_lock);
				return -ENOMEM;
			}
		}
		/* Before the new latency is published: a sender that still
		 * reads the old one puts its frame on the new line or, when
		 * there is none, delivers it at once.
		 */
		old = refnic_link_line_replace(port, line, size);
	}
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
	kvfree(old);
	return 0;
}
