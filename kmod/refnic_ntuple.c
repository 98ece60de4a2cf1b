// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * ntuple flow steering (ethtool -N/-n): rules for TCP and UDP over IPv4 and
 * IPv6, by source and destination address and port (each with a bit mask),
 * that deliver matching frames to one RX queue or drop them. The device's
 * flow steering table does the matching, in location order before RSS,
 * first match wins (refnic_hw.h).
 *
 * The rules live in the priv as ethtool gave them, under the instance lock
 * (the ethtool core holds it around every op; RTNL on 6.12), and are
 * written to the device while the port runs: on every change, and whenever
 * the port-wide state is programmed (refnic_hw_program(): at open and after
 * a reset), as RSS is.
 * They survive down/up and channel changes (the ethtool core refuses
 * ethtool -L below a rule's queue, asking ETHTOOL_GRXCLSRLALL); turning
 * NETIF_F_NTUPLE off deletes them all.
 */

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/ratelimit.h>
#include <linux/rtnetlink.h>
#include <linux/unaligned.h>

#include "refnic.h"
#include "refnic_regs.h"

/* A rule in the device's terms: its registers' values. */
struct refnic_hw_flow {
	u32 type;
	u32 action;
	u32 ports;
	u32 ports_mask;
	u32 src[REFNIC_FLOW_IP_WORDS];
	u32 src_mask[REFNIC_FLOW_IP_WORDS];
	u32 dst[REFNIC_FLOW_IP_WORDS];
	u32 dst_mask[REFNIC_FLOW_IP_WORDS];
};

static __printf(2, 3) void refnic_ntuple_refuse(struct net_device *netdev,
						const char *fmt, ...)
{
	static DEFINE_RATELIMIT_STATE(rs, DEFAULT_RATELIMIT_INTERVAL,
				      DEFAULT_RATELIMIT_BURST);
	struct va_format vaf;
	va_list args;

	if (!__ratelimit(&rs))
		return;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	netdev_err(netdev, "ntuple rule refused: %pV\n", &vaf);
	va_end(args);
}

/* An address word as the device wants it: bytes in wire order, the first
 * in bits 7:0.
 */
static u32 refnic_ip_word(const __be32 *addr)
{
	return get_unaligned_le32(addr);
}

static u32 refnic_ports_word(__be16 src, __be16 dst)
{
	return FIELD_PREP(REFNIC_FLOW_SRC_PORT, be16_to_cpu(src)) |
	       FIELD_PREP(REFNIC_FLOW_DST_PORT, be16_to_cpu(dst));
}

/* @fs has passed refnic_ntuple_check(); @ctx is its RSS context. */
static void refnic_ntuple_encode(const struct ethtool_rx_flow_spec *fs,
				 u32 ctx, struct refnic_hw_flow *hw)
{
	u32 flow_type = fs->flow_type & ~FLOW_RSS;
	const struct ethtool_tcpip4_spec *v4, *m4;
	const struct ethtool_tcpip6_spec *v6, *m6;
	unsigned int i;

	memset(hw, 0, sizeof(*hw));
	switch (flow_type) {
	case TCP_V4_FLOW:
	case UDP_V4_FLOW:
		v4 = &fs->h_u.tcp_ip4_spec;
		m4 = &fs->m_u.tcp_ip4_spec;
		hw->type = flow_type == TCP_V4_FLOW ?
			   REFNIC_FLOW_TYPE_TCP4 : REFNIC_FLOW_TYPE_UDP4;
		hw->src[0] = refnic_ip_word(&v4->ip4src);
		hw->src_mask[0] = refnic_ip_word(&m4->ip4src);
		hw->dst[0] = refnic_ip_word(&v4->ip4dst);
		hw->dst_mask[0] = refnic_ip_word(&m4->ip4dst);
		hw->ports = refnic_ports_word(v4->psrc, v4->pdst);
		hw->ports_mask = refnic_ports_word(m4->psrc, m4->pdst);
		break;
	case TCP_V6_FLOW:
	case UDP_V6_FLOW:
		v6 = &fs->h_u.tcp_ip6_spec;
		m6 = &fs->m_u.tcp_ip6_spec;
		hw->type = flow_type == TCP_V6_FLOW ?
			   REFNIC_FLOW_TYPE_TCP6 : REFNIC_FLOW_TYPE_UDP6;
		for (i = 0; i < REFNIC_FLOW_IP_WORDS; i++) {
			hw->src[i] = refnic_ip_word(&v6->ip6src[i]);
			hw->src_mask[i] = refnic_ip_word(&m6->ip6src[i]);
			hw->dst[i] = refnic_ip_word(&v6->ip6dst[i]);
			hw->dst_mask[i] = refnic_ip_word(&m6->ip6dst[i]);
		}
		hw->ports = refnic_ports_word(v6->psrc, v6->pdst);
		hw->ports_mask = refnic_ports_word(m6->psrc, m6->pdst);
		break;
	}

	if (fs->ring_cookie == RX_CLS_FLOW_DISC)
		hw->action = REFNIC_FLOW_ACTION_DROP;
	else if (fs->flow_type & FLOW_RSS)
		hw->action = REFNIC_FLOW_ACTION_RSS |
			     FIELD_PREP(REFNIC_FLOW_ACTION_CTX, ctx);
	else
		hw->action = FIELD_PREP(REFNIC_FLOW_ACTION_QUEUE,
					ethtool_get_flow_spec_ring(fs->ring_cookie));
}

/* Write location @loc of the device's table: the rule there, or none. */
static void refnic_ntuple_write(struct refnic_priv *priv, unsigned int loc)
{
	struct refnic_hw_flow hw;
	unsigned int i;

	if (!test_bit(loc, priv->flow_used)) {
		refnic_wr32(priv, REFNIC_REG_FLOW_CTRL(loc), 0);
		return;
	}

	refnic_ntuple_encode(&priv->flow_rules[loc], priv->flow_ctx[loc], &hw);
	refnic_wr32(priv, REFNIC_REG_FLOW_TYPE(loc), hw.type);
	refnic_wr32(priv, REFNIC_REG_FLOW_ACTION(loc), hw.action);
	refnic_wr32(priv, REFNIC_REG_FLOW_PORTS(loc), hw.ports);
	refnic_wr32(priv, REFNIC_REG_FLOW_PORTS_MASK(loc), hw.ports_mask);
	for (i = 0; i < REFNIC_FLOW_IP_WORDS; i++) {
		refnic_wr32(priv, REFNIC_REG_FLOW_SRC_IP(loc, i), hw.src[i]);
		refnic_wr32(priv, REFNIC_REG_FLOW_SRC_MASK(loc, i),
			    hw.src_mask[i]);
		refnic_wr32(priv, REFNIC_REG_FLOW_DST_IP(loc, i), hw.dst[i]);
		refnic_wr32(priv, REFNIC_REG_FLOW_DST_MASK(loc, i),
			    hw.dst_mask[i]);
	}
	/* Latches the fields: a rule that was there is replaced at once. */
	refnic_wr32(priv, REFNIC_REG_FLOW_CTRL(loc), REFNIC_FLOW_CTRL_VALID);
}

/**
 * refnic_ntuple_program() - write every location of the device's table
 * @priv: port; the device's table is empty (reset) or holds earlier rules
 *
 * From refnic_hw_program(), with the port-wide state.
 */
void refnic_ntuple_program(struct refnic_priv *priv)
{
	unsigned int loc;

	if (!(priv->caps & REFNIC_CAP_FLOW_STEER))
		return;

	for (loc = 0; loc < REFNIC_NUM_FLOW_RULES; loc++)
		refnic_ntuple_write(priv, loc);
}

/**
 * refnic_ntuple_clear() - delete every rule (NETIF_F_NTUPLE turned off)
 * @priv: port
 */
void refnic_ntuple_clear(struct refnic_priv *priv)
{
	bool running = netif_running(priv->netdev);
	unsigned int loc;

	netdev_assert_locked(priv->netdev);

	for_each_set_bit(loc, priv->flow_used, REFNIC_NUM_FLOW_RULES) {
		__clear_bit(loc, priv->flow_used);
		if (running)
			refnic_ntuple_write(priv, loc);
	}
}

/**
 * refnic_ntuple_ctx_in_use() - does a flow rule lead to RSS context @c
 * @priv: port
 * @c: context ID, 1 and up
 *
 * Return: true if a rule's action is RSS context @c.
 */
bool refnic_ntuple_ctx_in_use(struct refnic_priv *priv, u32 c)
{
	unsigned int loc;

	for_each_set_bit(loc, priv->flow_used, REFNIC_NUM_FLOW_RULES)
		if ((priv->flow_rules[loc].flow_type & FLOW_RSS) &&
		    priv->flow_ctx[loc] == c)
			return true;
	return false;
}

/* An RSS action: context 0 (the port's table) or one that exists (6.12's
 * core does not check that); the queue is the table's, with no offset
 * (without cap_rss_rxnfc_adds both cores refuse a ring first).
 */
static int refnic_ntuple_check_rss(struct refnic_priv *priv,
				   const struct ethtool_rx_flow_spec *fs,
				   u32 ctx)
{
	struct net_device *netdev = priv->netdev;

	if (!(priv->caps & REFNIC_CAP_RSS_CTX)) {
		refnic_ntuple_refuse(netdev, "no RSS contexts");
		return -EOPNOTSUPP;
	}
	if (fs->ring_cookie == RX_CLS_FLOW_DISC) {
		refnic_ntuple_refuse(netdev, "a drop rule takes no RSS context");
		return -EINVAL;
	}
	if (ctx && (ctx >= REFNIC_NUM_RSS_CTX ||
		    !test_bit(ctx, priv->rss_ctx_used))) {
		refnic_ntuple_refuse(netdev, "RSS context %u does not exist",
				     ctx);
		return -EINVAL;
	}
	if (fs->ring_cookie) {
		refnic_ntuple_refuse(netdev,
				     "no queue offset or VF with an RSS context");
		return -EINVAL;
	}
	return 0;
}

/* Can the device match and act on @fs, whose RSS context is @ctx? */
static int refnic_ntuple_check(struct refnic_priv *priv,
			       const struct ethtool_rx_flow_spec *fs, u32 ctx)
{
	struct net_device *netdev = priv->netdev;
	u64 ring, vf;

	if (fs->flow_type & (FLOW_EXT | FLOW_MAC_EXT)) {
		refnic_ntuple_refuse(netdev,
				     "no VLAN, user-def or MAC fields (flow type %#x)",
				     fs->flow_type);
		return -EOPNOTSUPP;
	}

	switch (fs->flow_type & ~FLOW_RSS) {
	case TCP_V4_FLOW:
	case UDP_V4_FLOW:
		if (fs->m_u.tcp_ip4_spec.tos) {
			refnic_ntuple_refuse(netdev, "no TOS match");
			return -EOPNOTSUPP;
		}
		break;
	case TCP_V6_FLOW:
	case UDP_V6_FLOW:
		if (fs->m_u.tcp_ip6_spec.tclass) {
			refnic_ntuple_refuse(netdev, "no traffic class match");
			return -EOPNOTSUPP;
		}
		break;
	default:
		refnic_ntuple_refuse(netdev,
				     "flow type %#x: only tcp4, udp4, tcp6 and udp6",
				     fs->flow_type);
		return -EOPNOTSUPP;
	}

	if (fs->flow_type & FLOW_RSS)
		return refnic_ntuple_check_rss(priv, fs, ctx);
	if (fs->ring_cookie == RX_CLS_FLOW_DISC)
		return 0;
	if (fs->ring_cookie == RX_CLS_FLOW_WAKE) {
		refnic_ntuple_refuse(netdev, "no wake-on-LAN action");
		return -EOPNOTSUPP;
	}
	vf = ethtool_get_flow_spec_ring_vf(fs->ring_cookie);
	if (vf) {
		refnic_ntuple_refuse(netdev, "no virtual functions (vf %llu)",
				     vf);
		return -EOPNOTSUPP;
	}
	ring = ethtool_get_flow_spec_ring(fs->ring_cookie);
	if (ring >= priv->cfg.num_queues) {
		refnic_ntuple_refuse(netdev, "queue %llu, the port has %u",
				     ring, priv->cfg.num_queues);
		return -EINVAL;
	}
	return 0;
}

/* Where a rule asked for at @req goes: RX_CLS_LOC_ANY and _FIRST take the
 * lowest free location (the highest priority), _LAST the highest.
 */
static int refnic_ntuple_location(struct refnic_priv *priv, u32 req,
				  u32 *loc)
{
	const unsigned int n = REFNIC_NUM_FLOW_RULES;
	unsigned int i;

	switch (req) {
	case RX_CLS_LOC_ANY:
	case RX_CLS_LOC_FIRST:
		i = find_first_zero_bit(priv->flow_used, n);
		break;
	case RX_CLS_LOC_LAST:
		i = n;
		while (i > 0 && test_bit(i - 1, priv->flow_used))
			i--;
		i = i ? i - 1 : n;
		break;
	default:
		if (req >= n) {
			refnic_ntuple_refuse(priv->netdev,
					     "location %u, the table has 0-%u",
					     req, n - 1);
			return -EINVAL;
		}
		*loc = req;
		return 0;
	}

	if (i >= n) {
		refnic_ntuple_refuse(priv->netdev, "all %u locations in use", n);
		return -ENOSPC;
	}
	*loc = i;
	return 0;
}

static int refnic_ntuple_insert(struct refnic_priv *priv,
				struct ethtool_rxnfc *cmd)
{
	struct ethtool_rx_flow_spec *fs = &cmd->fs;
	struct net_device *netdev = priv->netdev;
	u32 ctx = 0, loc;
	int err;

	if (!(netdev->features & NETIF_F_NTUPLE)) {
		refnic_ntuple_refuse(netdev,
				     "ntuple filters are off (ethtool -K %s ntuple on)",
				     netdev->name);
		return -EOPNOTSUPP;
	}

	/* The context is the command's, not the rule's. */
	if (fs->flow_type & FLOW_RSS)
		ctx = cmd->rss_context;
	err = refnic_ntuple_check(priv, fs, ctx);
	if (err)
		return err;
	err = refnic_ntuple_location(priv, fs->location, &loc);
	if (err)
		return err;

	/* A rule already there is replaced; ethtool learns where it went. */
	fs->location = loc;
	priv->flow_rules[loc] = *fs;
	memset(&priv->flow_rules[loc].h_ext, 0, sizeof(fs->h_ext));
	memset(&priv->flow_rules[loc].m_ext, 0, sizeof(fs->m_ext));
	priv->flow_ctx[loc] = ctx;
	__set_bit(loc, priv->flow_used);

	if (netif_running(netdev))
		refnic_ntuple_write(priv, loc);
	return 0;
}

static int refnic_ntuple_delete(struct refnic_priv *priv, u32 loc)
{
	if (loc >= REFNIC_NUM_FLOW_RULES)
		return -EINVAL;
	if (!test_bit(loc, priv->flow_used))
		return -ENOENT;

	__clear_bit(loc, priv->flow_used);
	if (netif_running(priv->netdev))
		refnic_ntuple_write(priv, loc);
	return 0;
}

/**
 * refnic_ntuple_get_rxnfc() - ethtool_ops.get_rxnfc for the rule table
 * @priv: port
 * @cmd: ETHTOOL_GRXCLSRLCNT, ETHTOOL_GRXCLSRULE or ETHTOOL_GRXCLSRLALL
 * @rule_locs: where GRXCLSRLALL puts up to @cmd->rule_cnt locations
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP for any other command.
 */
int refnic_ntuple_get_rxnfc(struct refnic_priv *priv,
			    struct ethtool_rxnfc *cmd, u32 *rule_locs)
{
	unsigned int loc, n = 0;

	netdev_assert_locked(priv->netdev);

	switch (cmd->cmd) {
	case ETHTOOL_GRXCLSRLCNT:
		cmd->rule_cnt = bitmap_weight(priv->flow_used,
					      REFNIC_NUM_FLOW_RULES);
		/* The driver picks a location for RX_CLS_LOC_ANY & co. */
		cmd->data = REFNIC_NUM_FLOW_RULES | RX_CLS_LOC_SPECIAL;
		return 0;
	case ETHTOOL_GRXCLSRULE:
		loc = cmd->fs.location;
		if (loc >= REFNIC_NUM_FLOW_RULES ||
		    !test_bit(loc, priv->flow_used))
			return -ENOENT;
		cmd->fs = priv->flow_rules[loc];
		/* Not cmd->flow_type: 7.3's -L check would then look up the
		 * core's context 0, which does not exist, and warn; it counts
		 * context tables on its own.
		 */
		cmd->rss_context = priv->flow_ctx[loc];
		cmd->data = REFNIC_NUM_FLOW_RULES;
		return 0;
	case ETHTOOL_GRXCLSRLALL:
		for_each_set_bit(loc, priv->flow_used, REFNIC_NUM_FLOW_RULES) {
			if (n == cmd->rule_cnt)
				return -EMSGSIZE;
			rule_locs[n++] = loc;
		}
		cmd->rule_cnt = n;
		cmd->data = REFNIC_NUM_FLOW_RULES;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * refnic_ntuple_set_rxnfc() - ethtool_ops.set_rxnfc for the rule table
 * @priv: port
 * @cmd: ETHTOOL_SRXCLSRLINS (@cmd->fs.location is set to where the rule
 *	went) or ETHTOOL_SRXCLSRLDEL
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP for any other command.
 */
int refnic_ntuple_set_rxnfc(struct refnic_priv *priv,
			    struct ethtool_rxnfc *cmd)
{
	netdev_assert_locked(priv->netdev);

	switch (cmd->cmd) {
	case ETHTOOL_SRXCLSRLINS:
		return refnic_ntuple_insert(priv, cmd);
	case ETHTOOL_SRXCLSRLDEL:
		return refnic_ntuple_delete(priv, cmd->fs.location);
	default:
		return -EOPNOTSUPP;
	}
}
