// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * ethtool: rings (-g/-G), channels (-l/-L), coalescing (-c/-C), RSS
 * (-x/-X, and -n/-N rx-flow-hash: refnic_rss.c), ntuple rules (-n/-N,
 * refnic_ntuple.c), statistics (-S). The ethtool core holds the instance
 * lock around every op (RTNL on 6.12, refnic_compat.h); on 7.3 it also
 * takes RTNL for the ops that ask for it in op_needs_rtnl: channels and
 * rings rebuild the queues and change the real number of queues, and
 * ethtool_op_get_link() may run a pending linkwatch event, whose
 * NETDEV_CHANGE notifiers need RTNL (as gve and fbnic ask).
 */

#include <linux/bitfield.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/netdevice.h>

#include "refnic.h"
#include "refnic_bypass.h"
#include "refnic_regs.h"

static void refnic_get_drvinfo(struct net_device *netdev,
			       struct ethtool_drvinfo *info)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	strscpy(info->driver, REFNIC_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, REFNIC_VERSION, sizeof(info->version));
	strscpy(info->bus_info, dev_name(priv->dma_dev),
		sizeof(info->bus_info));
}

/* ---- Rings and channels --------------------------------------------------- */

static void refnic_get_ringparam(struct net_device *netdev,
				 struct ethtool_ringparam *ring,
				 struct kernel_ethtool_ringparam *kring,
				 struct netlink_ext_ack *extack)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	ring->rx_max_pending = REFNIC_MAX_RING_SIZE;
	ring->tx_max_pending = REFNIC_MAX_RING_SIZE;
	ring->rx_pending = priv->cfg.rx_ring_size;
	ring->tx_pending = priv->cfg.tx_ring_size;
	kring->rx_buf_len = REFNIC_RX_BUF_LEN;
	kring->tcp_data_split = priv->cfg.tcp_data_split;
#if REFNIC_KERNEL_7
	/* Header split splits every TCP/UDP frame, whatever its size: the
	 * threshold is 0 and cannot change (the core refuses any other).
	 */
	kring->hds_thresh = 0;
	kring->hds_thresh_max = 0;
#endif
}

static int refnic_check_ring_size(u32 size, const char *dir,
				  struct netlink_ext_ack *extack)
{
	if (size < REFNIC_MIN_RING_SIZE || size > REFNIC_MAX_RING_SIZE ||
	    !is_power_of_2(size)) {
		NL_SET_ERR_MSG_FMT(extack,
				   "%s ring size must be a power of 2 in [%u, %u]",
				   dir, REFNIC_MIN_RING_SIZE,
				   REFNIC_MAX_RING_SIZE);
		return -EINVAL;
	}
	return 0;
}

static int refnic_set_ringparam(struct net_device *netdev,
				struct ethtool_ringparam *ring,
				struct kernel_ethtool_ringparam *kring,
				struct netlink_ext_ack *extack)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_qcfg cfg = priv->cfg;
	int bound, err;

	err = refnic_port_check_failed(priv, extack);
	if (err)
		return err;
	err = refnic_bypass_busy(priv, extack);
	if (err)
		return err;
	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG(extack, "no mini or jumbo rings");
		return -EINVAL;
	}
	err = refnic_check_ring_size(ring->rx_pending, "RX", extack);
	if (!err)
		err = refnic_check_ring_size(ring->tx_pending, "TX", extack);
	if (err)
		return err;

	cfg.rx_ring_size = ring->rx_pending;
	cfg.tx_ring_size = ring->tx_pending;
	/* "auto" leaves header split off until asked for. */
	cfg.tcp_data_split = kring->tcp_data_split ==
			     ETHTOOL_TCP_DATA_SPLIT_ENABLED ?
			     ETHTOOL_TCP_DATA_SPLIT_ENABLED :
			     ETHTOOL_TCP_DATA_SPLIT_DISABLED;
	if (cfg.tcp_data_split == ETHTOOL_TCP_DATA_SPLIT_ENABLED &&
	    !(priv->caps & REFNIC_CAP_HDR_SPLIT)) {
		NL_SET_ERR_MSG(extack, "the device cannot split headers");
		return -EOPNOTSUPP;
	}
	if (cfg.rx_ring_size == priv->cfg.rx_ring_size &&
	    cfg.tx_ring_size == priv->cfg.tx_ring_size &&
	    cfg.tcp_data_split == priv->cfg.tcp_data_split)
		return 0;

	/* A bound queue's payload buffers are the dmabuf's: the 6.12 core
	 * checks neither of these, so the driver must.
	 */
	bound = refnic_rxq_bound_any(priv, 0);
	if (bound >= 0 &&
	    cfg.tcp_data_split != ETHTOOL_TCP_DATA_SPLIT_ENABLED) {
		NL_SET_ERR_MSG_FMT(extack,
				   "RX queue %d has a dmabuf bound, which needs header split",
				   bound);
		return -EBUSY;
	}
	if (bound >= 0 && cfg.rx_ring_size != priv->cfg.rx_ring_size) {
		NL_SET_ERR_MSG_FMT(extack,
				   "RX queue %d has a dmabuf bound: unbind it to resize the RX rings",
				   bound);
		return -EBUSY;
	}

	return refnic_reconfigure(priv, &cfg);
}

static void refnic_get_channels(struct net_device *netdev,
				struct ethtool_channels *ch)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	ch->max_combined = priv->max_queues;
	ch->combined_count = priv->cfg.num_queues;
}

static int refnic_set_channels(struct net_device *netdev,
			       struct ethtool_channels *ch)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_qcfg cfg = priv->cfg;

	/* Queues come in pairs sharing a vector: combined only. */
	if (ch->rx_count || ch->tx_count || ch->other_count)
		return -EINVAL;
	if (!ch->combined_count || ch->combined_count > priv->max_queues)
		return -EINVAL;
	if (ch->combined_count == priv->cfg.num_queues)
		return 0;
	if (refnic_port_check_failed(priv, NULL))
		return -EIO;
	if (refnic_bypass_busy(priv, NULL))
		return -EBUSY;

	cfg.num_queues = ch->combined_count;
	return refnic_reconfigure(priv, &cfg);
}

/* ---- Interrupt coalescing -------------------------------------------------
 * TX and RX of a pair share one vector; refnic_vector_write_itr() explains
 * how the four values combine into its one moderation register. ethtool -c
 * reads back the values as set, and whether DIM sets them instead
 * (adaptive-rx, adaptive-tx: on by default, refnic_dim.c); ethtool
 * --per-queue ... --show-coalesce reads what a queue pair's vector uses
 * now, DIM's values for an adaptive direction.
 *
 * While a direction is adaptive, its usecs and frames are DIM's: changing
 * them then is refused, unless the same request turns adaptive off. A
 * request that turns adaptive on may set them: they are kept for when it
 * goes off again.
 */

static void refnic_fill_coalesce(struct refnic_priv *priv,
				 struct ethtool_coalesce *ec)
{
	ec->rx_coalesce_usecs = priv->rx_usecs;
	ec->rx_max_coalesced_frames = priv->rx_frames;
	ec->tx_coalesce_usecs = priv->tx_usecs;
	ec->tx_max_coalesced_frames = priv->tx_frames;
	ec->use_adaptive_rx_coalesce = priv->adaptive_rx;
	ec->use_adaptive_tx_coalesce = priv->adaptive_tx;
}

static int refnic_get_coalesce(struct net_device *netdev,
			       struct ethtool_coalesce *ec,
			       struct kernel_ethtool_coalesce *kec,
			       struct netlink_ext_ack *extack)
{
	refnic_fill_coalesce(refnic_priv(netdev), ec);
	return 0;
}

static int refnic_get_per_queue_coalesce(struct net_device *netdev, u32 queue,
					 struct ethtool_coalesce *ec)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	if (queue >= priv->cfg.num_queues)
		return -EINVAL;

	refnic_fill_coalesce(priv, ec);
	refnic_vector_coalesce(priv, &priv->vec[queue], &ec->rx_coalesce_usecs,
			       &ec->rx_max_coalesced_frames,
			       &ec->tx_coalesce_usecs,
			       &ec->tx_max_coalesced_frames);
	return 0;
}

/* A direction adaptive before and after the request keeps DIM's values:
 * fixed ones that differ from those set are refused.
 */
static bool refnic_dim_owns(bool adaptive, bool was_adaptive, u32 usecs,
			    u32 frames, u32 set_usecs, u32 set_frames)
{
	return adaptive && was_adaptive &&
	       (usecs != set_usecs || frames != set_frames);
}

static int refnic_set_coalesce(struct net_device *netdev,
			       struct ethtool_coalesce *ec,
			       struct kernel_ethtool_coalesce *kec,
			       struct netlink_ext_ack *extack)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	const u32 max_usecs = FIELD_MAX(REFNIC_ITR_USECS);
	const u32 max_frames = FIELD_MAX(REFNIC_ITR_FRAMES);
	unsigned int v;

	if (ec->rx_coalesce_usecs > max_usecs ||
	    ec->tx_coalesce_usecs > max_usecs) {
		NL_SET_ERR_MSG_FMT(extack, "usecs at most %u", max_usecs);
		return -EINVAL;
	}
	if (ec->rx_max_coalesced_frames > max_frames ||
	    ec->tx_max_coalesced_frames > max_frames) {
		NL_SET_ERR_MSG_FMT(extack, "frames at most %u", max_frames);
		return -EINVAL;
	}
	if (refnic_dim_owns(ec->use_adaptive_rx_coalesce, priv->adaptive_rx,
			    ec->rx_coalesce_usecs, ec->rx_max_coalesced_frames,
			    priv->rx_usecs, priv->rx_frames)) {
		NL_SET_ERR_MSG(extack,
			       "adaptive-rx is on: DIM sets rx-usecs and rx-frames (set adaptive-rx off with them)");
		return -EINVAL;
	}
	if (refnic_dim_owns(ec->use_adaptive_tx_coalesce, priv->adaptive_tx,
			    ec->tx_coalesce_usecs, ec->tx_max_coalesced_frames,
			    priv->tx_usecs, priv->tx_frames)) {
		NL_SET_ERR_MSG(extack,
			       "adaptive-tx is on: DIM sets tx-usecs and tx-frames (set adaptive-tx off with them)");
		return -EINVAL;
	}

	spin_lock(&priv->itr_lock);
	if (!!ec->use_adaptive_rx_coalesce != priv->adaptive_rx ||
	    !!ec->use_adaptive_tx_coalesce != priv->adaptive_tx) {
		/* Each vector's DIM starts over, from the start profile. */
		WRITE_ONCE(priv->dim_gen, priv->dim_gen + 1);
		for (v = 0; v < priv->cfg.num_queues; v++)
			refnic_dim_start_values(&priv->vec[v]);
	}
	WRITE_ONCE(priv->rx_usecs, ec->rx_coalesce_usecs);
	WRITE_ONCE(priv->rx_frames, ec->rx_max_coalesced_frames);
	WRITE_ONCE(priv->tx_usecs, ec->tx_coalesce_usecs);
	WRITE_ONCE(priv->tx_frames, ec->tx_max_coalesced_frames);
	WRITE_ONCE(priv->adaptive_rx, ec->use_adaptive_rx_coalesce);
	WRITE_ONCE(priv->adaptive_tx, ec->use_adaptive_tx_coalesce);

	/* Vectors not enabled get theirs when they are. */
	for (v = 0; v < priv->cfg.num_queues; v++)
		if (priv->vec[v].enabled)
			refnic_vector_write_itr(priv, v);
	spin_unlock(&priv->itr_lock);

	return 0;
}

/* ---- RSS ------------------------------------------------------------------ */

static u32 refnic_get_rxfh_key_size(struct net_device *netdev)
{
	return REFNIC_RSS_KEY_SIZE;
}

static u32 refnic_get_rxfh_indir_size(struct net_device *netdev)
{
	return REFNIC_RSS_TABLE_SIZE;
}

static int refnic_get_rxfh(struct net_device *netdev,
			   struct ethtool_rxfh_param *rxfh)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	rxfh->hfunc = ETH_RSS_HASH_TOP;
	rxfh->input_xfrm = priv->rss_input_xfrm;
	if (rxfh->key)
		memcpy(rxfh->key, priv->rss_key, REFNIC_RSS_KEY_SIZE);
	if (rxfh->indir)
		memcpy(rxfh->indir, priv->rss_indir, sizeof(priv->rss_indir));

	return 0;
}

static int refnic_set_rxfh(struct net_device *netdev,
			   struct ethtool_rxfh_param *rxfh,
			   struct netlink_ext_ack *extack)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	int err;

	if (rxfh->hfunc != ETH_RSS_HASH_NO_CHANGE &&
	    rxfh->hfunc != ETH_RSS_HASH_TOP) {
		NL_SET_ERR_MSG(extack, "only the Toeplitz hash");
		return -EOPNOTSUPP;
	}
	if (rxfh->input_xfrm != RXH_XFRM_NO_CHANGE) {
		err = refnic_rss_check_xfrm(priv, rxfh->input_xfrm, extack);
		if (err)
			return err;
		priv->rss_input_xfrm = rxfh->input_xfrm;
	}

	/* The core checked the entries against ETHTOOL_GRXRINGS. */
	if (rxfh->indir)
		memcpy(priv->rss_indir, rxfh->indir, sizeof(priv->rss_indir));
	if (rxfh->key)
		memcpy(priv->rss_key, rxfh->key, REFNIC_RSS_KEY_SIZE);

	if (netif_running(netdev))
		refnic_rss_program(priv);

	return 0;
}

static int refnic_create_rxfh_context(struct net_device *netdev,
				      struct ethtool_rxfh_context *ctx,
				      const struct ethtool_rxfh_param *rxfh,
				      struct netlink_ext_ack *extack)
{
	return refnic_rss_ctx_create(refnic_priv(netdev), ctx, rxfh, extack);
}

static int refnic_modify_rxfh_context(struct net_device *netdev,
				      struct ethtool_rxfh_context *ctx,
				      const struct ethtool_rxfh_param *rxfh,
				      struct netlink_ext_ack *extack)
{
	return refnic_rss_ctx_modify(refnic_priv(netdev), ctx, rxfh, extack);
}

static int refnic_remove_rxfh_context(struct net_device *netdev,
				      struct ethtool_rxfh_context *ctx,
				      u32 rss_context,
				      struct netlink_ext_ack *extack)
{
	return refnic_rss_ctx_remove(refnic_priv(netdev), rss_context, extack);
}

/* The fields hashed for each flow type are in refnic_rss.c. The ethtool
 * core keeps RSS contexts from reaching them (no rxfh_per_ctx_fields).
 */
#if REFNIC_KERNEL_7
/* 7.3 asks for the RX ring count and the hashed fields with ops of their
 * own; 6.12 as released asks get_rxnfc (ETHTOOL_GRXRINGS, ETHTOOL_GRXFH)
 * and set_rxnfc (ETHTOOL_SRXFH). Later 6.12.y (Debian's 6.12.117) have the
 * fields ops too and fall back to rxnfc without them: rxnfc works on all.
 */
static u32 refnic_get_rx_ring_count(struct net_device *netdev)
{
	return refnic_priv(netdev)->cfg.num_queues;
}

static int refnic_get_rxfh_fields(struct net_device *netdev,
				  struct ethtool_rxfh_fields *fields)
{
	return refnic_rss_get_fields(refnic_priv(netdev), fields->flow_type,
				     &fields->data);
}

static int refnic_set_rxfh_fields(struct net_device *netdev,
				  const struct ethtool_rxfh_fields *fields,
				  struct netlink_ext_ack *extack)
{
	return refnic_rss_set_fields(refnic_priv(netdev), fields->flow_type,
				     fields->data, extack);
}

static int refnic_get_rxnfc(struct net_device *netdev,
			    struct ethtool_rxnfc *cmd, u32 *rule_locs)
{
	return refnic_ntuple_get_rxnfc(refnic_priv(netdev), cmd, rule_locs);
}

static int refnic_set_rxnfc(struct net_device *netdev,
			    struct ethtool_rxnfc *cmd)
{
	return refnic_ntuple_set_rxnfc(refnic_priv(netdev), cmd);
}
#else
static int refnic_get_rxnfc(struct net_device *netdev,
			    struct ethtool_rxnfc *cmd, u32 *rule_locs)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	u32 data;
	int err;

	switch (cmd->cmd) {
	case ETHTOOL_GRXRINGS:
		cmd->data = priv->cfg.num_queues;
		return 0;
	case ETHTOOL_GRXFH:
		err = refnic_rss_get_fields(priv, cmd->flow_type & ~FLOW_RSS,
					    &data);
		if (!err)
			cmd->data = data;
		return err;
	default:
		return refnic_ntuple_get_rxnfc(priv, cmd, rule_locs);
	}
}

static int refnic_set_rxnfc(struct net_device *netdev,
			    struct ethtool_rxnfc *cmd)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	/* The ioctl has no extack: refnic_rss_set_fields() logs why. */
	if (cmd->cmd == ETHTOOL_SRXFH)
		return refnic_rss_set_fields(priv, cmd->flow_type & ~FLOW_RSS,
					     cmd->data, NULL);
	return refnic_ntuple_set_rxnfc(priv, cmd);
}
#endif

/* ---- Statistics ----------------------------------------------------------- */

static int refnic_get_sset_count(struct net_device *netdev, int sset)
{
	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;

	return refnic_ethtool_stats_count(refnic_priv(netdev));
}

static void refnic_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	if (sset == ETH_SS_STATS)
		refnic_ethtool_stats_strings(refnic_priv(netdev), data);
}

static void refnic_get_ethtool_stats(struct net_device *netdev,
				     struct ethtool_stats *stats, u64 *data)
{
	refnic_ethtool_stats_fill(refnic_priv(netdev), data);
}

const struct ethtool_ops refnic_ethtool_ops = {
	.supported_input_xfrm	= RXH_XFRM_SYM_XOR,
	/* Contexts share the port's key, function and fields: no
	 * rxfh_per_ctx_key or rxfh_per_ctx_fields.
	 */
	.rxfh_max_num_contexts	= REFNIC_NUM_RSS_CTX,
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES |
				     ETHTOOL_COALESCE_USE_ADAPTIVE,
#if REFNIC_KERNEL_7
	.supported_ring_params	= ETHTOOL_RING_USE_TCP_DATA_SPLIT |
				  ETHTOOL_RING_USE_HDS_THRS,
	.op_needs_rtnl		= ETHTOOL_OP_NEEDS_RTNL_SCHANNELS |
				  ETHTOOL_OP_NEEDS_RTNL_SRINGPARAM |
				  ETHTOOL_OP_NEEDS_RTNL_GLINK,
	.get_rx_ring_count	= refnic_get_rx_ring_count,
	.get_rxfh_fields	= refnic_get_rxfh_fields,
	.set_rxfh_fields	= refnic_set_rxfh_fields,
#else
	.supported_ring_params	= ETHTOOL_RING_USE_TCP_DATA_SPLIT,
#endif
	.get_drvinfo		= refnic_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	.get_ringparam		= refnic_get_ringparam,
	.set_ringparam		= refnic_set_ringparam,
	.get_channels		= refnic_get_channels,
	.set_channels		= refnic_set_channels,
	.get_coalesce		= refnic_get_coalesce,
	.set_coalesce		= refnic_set_coalesce,
	.get_per_queue_coalesce	= refnic_get_per_queue_coalesce,
	.get_rxfh_key_size	= refnic_get_rxfh_key_size,
	.get_rxfh_indir_size	= refnic_get_rxfh_indir_size,
	.get_rxfh		= refnic_get_rxfh,
	.set_rxfh		= refnic_set_rxfh,
	.create_rxfh_context	= refnic_create_rxfh_context,
	.modify_rxfh_context	= refnic_modify_rxfh_context,
	.remove_rxfh_context	= refnic_remove_rxfh_context,
	.get_rxnfc		= refnic_get_rxnfc,
	.set_rxnfc		= refnic_set_rxnfc,
	.get_sset_count		= refnic_get_sset_count,
	.get_strings		= refnic_get_strings,
	.get_ethtool_stats	= refnic_get_ethtool_stats,
};
