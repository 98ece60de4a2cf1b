// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Adaptive interrupt moderation (ethtool -C adaptive-rx/adaptive-tx), with
 * the kernel's DIM library as mlx5, ice and bnxt use it. A queue pair's
 * vector has one moderation timer and one frame counter, so it has one DIM
 * instance, fed by the completions of the directions that are adaptive:
 * each poll that re-arms the vector hands net_dim() a sample (interrupts,
 * packets, bytes); when DIM moves to another profile, its work item writes
 * the profile's delay and frame threshold as the values of the adaptive
 * directions, and refnic_vector_write_itr() combines them with the fixed
 * ones as ever: with one direction adaptive and the other fixed, the fixed
 * one's smaller delay caps the vector. A bypass session's vector keeps the
 * fixed values (its process, not the stack, reaps the completions).
 *
 * refnic carries its own profile table. The stock ones stop at 256 us and
 * 128-256 frames, tuned for real time; a frame under TCG takes 20-50 times
 * longer to arrive, so the top profile here waits longer, and DIM only
 * climbs there when the longer wait does not cost throughput.
 */

#include <linux/dim.h>
#include <linux/netdevice.h>

#include "refnic.h"
#include "refnic_compat.h"
#include "refnic_trace.h"

static const struct dim_cq_moder
refnic_dim_profile[NET_DIM_PARAMS_NUM_PROFILES] = {
	{ .usec = 4,	.pkts = 16 },
	{ .usec = 32,	.pkts = 64 },
	{ .usec = 128,	.pkts = 128 },
	{ .usec = 512,	.pkts = 256 },
	{ .usec = 1024,	.pkts = 256 },
};

/* Profile 1 is close to the fixed default (REFNIC_DEFAULT_ITR_USECS). */
#define REFNIC_DIM_START_PROFILE	1

static void refnic_dim_work(struct work_struct *work)
{
	struct dim *dim = container_of(work, struct dim, work);
	struct refnic_vector *v = container_of(dim, struct refnic_vector, dim);
	u8 profile = dim->profile_ix;
	const struct dim_cq_moder *moder = &refnic_dim_profile[profile];
	struct refnic_priv *priv = v->priv;

	spin_lock(&priv->itr_lock);
	WRITE_ONCE(v->dim_usecs, moder->usec);
	WRITE_ONCE(v->dim_frames, moder->pkts);
	refnic_vector_write_itr(priv, v->idx);
	spin_unlock(&priv->itr_lock);
	trace_refnic_dim_profile(priv->netdev, v->idx, profile, moder->usec,
				 moder->pkts);

	/* Read by the vector's poll (refnic_dim_sample()). */
	WRITE_ONCE(dim->state, DIM_START_MEASURE);
}

/* Forget every measurement: the start profile, nothing sampled yet. */
static void refnic_dim_clear(struct dim *dim)
{
	dim->state = DIM_START_MEASURE;
	dim->prev_stats = (struct dim_stats){};
	dim->start_sample = (struct dim_sample){};
	dim->measuring_sample = (struct dim_sample){};
	dim->profile_ix = REFNIC_DIM_START_PROFILE;
	dim->tune_state = DIM_PARKING_ON_TOP;
	dim->steps_left = 0;
	dim->steps_right = 0;
	dim->tired = 0;
}

/**
 * refnic_dim_init() - set up a vector's DIM instance for the port's lifetime
 * @v: vector
 */
void refnic_dim_init(struct refnic_vector *v)
{
	INIT_WORK(&v->dim.work, refnic_dim_work);
	refnic_dim_reset(v);
}

/**
 * refnic_dim_start_values() - the start profile as a vector's DIM values
 * @v: vector
 *
 * Under priv->itr_lock (or before the vector is in use).
 */
void refnic_dim_start_values(struct refnic_vector *v)
{
	const struct dim_cq_moder *moder =
		&refnic_dim_profile[REFNIC_DIM_START_PROFILE];

	WRITE_ONCE(v->dim_usecs, moder->usec);
	WRITE_ONCE(v->dim_frames, moder->pkts);
}

/**
 * refnic_dim_reset() - start a vector's DIM over, from the start profile
 * @v: vector, its NAPI disabled and its DIM work idle
 *
 * The caller writes the vector's moderation register afterwards.
 */
void refnic_dim_reset(struct refnic_vector *v)
{
	refnic_dim_clear(&v->dim);
	v->dim_gen = READ_ONCE(v->priv->dim_gen);
	refnic_dim_start_values(v);
}

/**
 * refnic_dim_stop() - wait for a vector's DIM work to finish
 * @v: vector, its NAPI disabled (nothing schedules the work any more)
 */
void refnic_dim_stop(struct refnic_vector *v)
{
	cancel_work_sync(&v->dim.work);
}

/**
 * refnic_dim_sample() - feed the vector's DIM from the poll about to re-arm
 * @v: vector, from its NAPI poll (the only user of v->dim but its work)
 * @ns: the vector's NAPI counters (written only by this poll)
 *
 * When ethtool changed which directions adapt (priv->dim_gen), what the
 * counters add up to changed under DIM's measurement: it starts over, its
 * work programming the start profile.
 */
void refnic_dim_sample(struct refnic_vector *v, struct refnic_napi_stats *ns)
{
	struct refnic_priv *priv = v->priv;
	bool rx = READ_ONCE(priv->adaptive_rx);
	bool tx = READ_ONCE(priv->adaptive_tx);
	u32 gen = READ_ONCE(priv->dim_gen);
	struct dim_sample sample = {};
	u64 packets = 0, bytes = 0;

	if (!rx && !tx)
		return;
	if (unlikely(gen != v->dim_gen)) {
		if (READ_ONCE(v->dim.state) == DIM_APPLY_NEW_PROFILE)
			return;		/* its work comes first */
		v->dim_gen = gen;
		refnic_dim_clear(&v->dim);
		v->dim.state = DIM_APPLY_NEW_PROFILE;
		schedule_work(&v->dim.work);
		return;
	}
	if (rx) {
		packets += u64_stats_read(&ns->rx_packets);
		bytes += u64_stats_read(&ns->rx_bytes);
	}
	if (tx) {
		packets += u64_stats_read(&ns->tx_packets);
		bytes += u64_stats_read(&ns->tx_bytes);
	}
	/* DIM counts events in a u16 and works with the gap between two. */
	dim_update_sample((u16)u64_stats_read(&v->istats.irqs), packets, bytes,
			  &sample);
	refnic_net_dim(&v->dim, &sample);
}
