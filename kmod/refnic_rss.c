// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Receive side scaling: the hash key, the indirection table and the fields
 * hashed for each flow type, kept in the priv (ethtool -x and -n read them
 * from there) and written to the device at open and whenever they change.
 */

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <net/netdev_rx_queue.h>

#include "refnic.h"
#include "refnic_regs.h"

/* Says why a request is refused: in the extack (netlink); the ioctl has
 * none, so in the kernel log.
 */
static __printf(4, 5) void refnic_rss_refuse(struct net_device *netdev,
					     struct netlink_ext_ack *extack,
					     const char *what,
					     const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	if (extack)
		NL_SET_ERR_MSG_FMT(extack, "%pV", &vaf);
	else if (net_ratelimit())
		netdev_info(netdev, "%s refused: %pV\n", what, &vaf);
	va_end(args);
}

static void refnic_rss_default_table(struct refnic_priv *priv, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < REFNIC_RSS_TABLE_SIZE; i++)
		priv->rss_indir[i] = ethtool_rxfh_indir_default(i, n);
}

/**
 * refnic_rss_init() - random key, table spread over the configured queues
 * @priv: port
 */
void refnic_rss_init(struct refnic_priv *priv)
{
	unsigned int t;

	netdev_rss_key_fill(priv->rss_key, sizeof(priv->rss_key));
	refnic_rss_default_table(priv, priv->cfg.num_queues);

	/* The device's reset values: the 4-tuple for TCP and UDP, the two
	 * addresses for the rest.
	 */
	for (t = 0; t < REFNIC_RSS_NUM_FT; t++)
		priv->rss_fields[t] = REFNIC_RSS_IP_FIELDS;
	priv->rss_fields[REFNIC_RSS_FT_TCP4] |= REFNIC_RSS_L4_FIELDS;
	priv->rss_fields[REFNIC_RSS_FT_UDP4] |= REFNIC_RSS_L4_FIELDS;
	priv->rss_fields[REFNIC_RSS_FT_TCP6] |= REFNIC_RSS_L4_FIELDS;
	priv->rss_fields[REFNIC_RSS_FT_UDP6] |= REFNIC_RSS_L4_FIELDS;
	priv->rss_input_xfrm = 0;
}

/**
 * refnic_rss_set_queues() - fit the table to a new number of queues
 * @priv: port
 * @n: RX queues in use from now on
 *
 * A table the user set (ethtool -X) is kept while every entry still names
 * a queue; otherwise the default table for @n queues replaces it. Writes
 * the device if the port is up. The ethtool core refuses a channel count
 * at or below the highest queue a user's table names, so the replacement
 * only guards against a caller that did not go through it.
 */
void refnic_rss_set_queues(struct refnic_priv *priv, unsigned int n)
{
	struct net_device *netdev = priv->netdev;
	unsigned int i;

	if (netif_is_rxfh_configured(netdev)) {
		for (i = 0; i < REFNIC_RSS_TABLE_SIZE; i++)
			if (priv->rss_indir[i] >= n)
				break;
		if (i == REFNIC_RSS_TABLE_SIZE)
			goto program;
		netdev_info(netdev,
			    "RSS table names queue %u of %u: reset to default\n",
			    priv->rss_indir[i], n);
#if REFNIC_KERNEL_7
		ethtool_rxfh_indir_lost(netdev);
#else
		netdev->priv_flags &= ~IFF_RXFH_CONFIGURED;
#endif
	}
	refnic_rss_default_table(priv, n);

program:
	if (netif_running(netdev))
		refnic_rss_program(priv);
}

/* The queue the device's table says for @q: the table the user sees stays
 * as set, but RSS never picks a queue pair a bypass session holds (the
 * next one the stack owns stands in), and a whole-port session gets all.
 */
static u32 refnic_rss_entry(const struct refnic_priv *priv, u32 q)
{
	unsigned int n = priv->cfg.num_queues, i, r;

	if (priv->bypass_whole_port >= 0)
		return priv->bypass_whole_port;
	if (!(priv->bypass_mask & BIT(q)))
		return q;
	/* Not onto a dmabuf-bound (devmem) queue either: it drops what is
	 * not split and steered there on purpose.
	 */
	for (i = 1; i < n; i++) {
		r = (q + i) % n;
		if (!(priv->bypass_mask & BIT(r)) &&
		    !__netif_get_rx_queue(priv->netdev, r)->mp_params.mp_priv)
			return r;
	}
	return 0;
}

static void refnic_rss_write_fields(struct refnic_priv *priv, unsigned int t)
{
	u32 val = priv->rss_fields[t];

	/* Without the registers the device hashes its reset fields. */
	if (!(priv->caps & REFNIC_CAP_RSS_FIELDS))
		return;
	if (priv->rss_input_xfrm & RXH_XFRM_SYM_XOR)
		val |= REFNIC_RSS_SYM_XOR;
	refnic_wr32(priv, REFNIC_REG_RSS_FIELDS(t), val);
}

/* Write an indirection table, RSS_TABLE or a context's, from @reg on: four
 * one-byte entries per register, entry 4i in bits 7:0.
 */
static void refnic_rss_write_table(struct refnic_priv *priv, u32 reg,
				   const u32 *indir)
{
	unsigned int i, j;

	for (i = 0; i < REFNIC_RSS_TABLE_SIZE / 4; i++, reg += 4) {
		u32 e[4];

		for (j = 0; j < 4; j++)
			e[j] = refnic_rss_entry(priv, indir[4 * i + j]);
		refnic_wr32(priv, reg,
			    e[0] | e[1] << 8 | e[2] << 16 | e[3] << 24);
	}
}

/* Context @c's table as it is now: a context that does not exist is all
 * zeroes (no rule leads to it).
 */
static void refnic_rss_ctx_program(struct refnic_priv *priv, u32 c)
{
	static const u32 none[REFNIC_RSS_TABLE_SIZE];

	refnic_rss_write_table(priv, REFNIC_REG_RSS_CTX_TABLE(c, 0),
			       test_bit(c, priv->rss_ctx_used) ?
			       priv->rss_ctx_indir[c] : none);
}

/**
 * refnic_rss_program() - write key, tables, hash fields and queue count to
 *	the device
 * @priv: port
 */
void refnic_rss_program(struct refnic_priv *priv)
{
	const u8 *k = priv->rss_key;
	unsigned int i;

	for (i = 0; i < REFNIC_RSS_NUM_FT; i++)
		refnic_rss_write_fields(priv, i);

	for (i = 0; i < REFNIC_RSS_KEY_SIZE / 4; i++, k += 4)
		refnic_wr32(priv, REFNIC_REG_RSS_KEY(i),
			    k[0] | k[1] << 8 | k[2] << 16 | (u32)k[3] << 24);

	refnic_rss_write_table(priv, REFNIC_REG_RSS_TABLE(0), priv->rss_indir);
	/* All of them: one removed while the port was down is still there. */
	for (i = 1; i < REFNIC_NUM_RSS_CTX; i++)
		refnic_rss_ctx_program(priv, i);

	refnic_wr32(priv, REFNIC_REG_RSS_QUEUES, priv->cfg.num_queues);
}

/* ---- RSS contexts (ethtool -X context N) ----------------------------------
 * A context is an indirection table of its own that flow rules lead to
 * (ethtool -N ... context N); every context hashes with the port's key,
 * function, fields and input transform, so the ethtool core refuses to set
 * those per context and reports none for one (no rxfh_per_ctx_key or
 * _fields). The core allocates IDs from 1 to REFNIC_NUM_RSS_CTX - 1, the
 * device's tables (row 0 of rss_ctx_indir is unused: context 0 is the
 * port's own table).
 */

/* The cores check the ID range and the hash function themselves; a device
 * without the tables is refnic's to refuse.
 */
static int refnic_rss_ctx_check(struct refnic_priv *priv,
				const struct ethtool_rxfh_param *rxfh,
				struct netlink_ext_ack *extack)
{
	if (!(priv->caps & REFNIC_CAP_RSS_CTX)) {
		refnic_rss_refuse(priv->netdev, extack, "RSS context",
				  "the device has no RSS contexts");
		return -EOPNOTSUPP;
	}
	if (WARN_ON_ONCE(rxfh->rss_context >= REFNIC_NUM_RSS_CTX))
		return -EINVAL;
	return 0;
}

/**
 * refnic_rss_ctx_create() - ethtool_ops.create_rxfh_context
 * @priv: port; instance lock (RTNL on 6.12) and rss_lock held
 * @ctx: the core's copy; it fills in what @rxfh has after this returns
 * @rxfh: the context's ID, and its table if the user gave one
 * @extack: why it failed
 *
 * A context created while the port is down is written to the device when
 * it comes up. Without a table, the context spreads over every queue.
 *
 * Return: 0 or a negative errno.
 */
int refnic_rss_ctx_create(struct refnic_priv *priv,
			  struct ethtool_rxfh_context *ctx,
			  const struct ethtool_rxfh_param *rxfh,
			  struct netlink_ext_ack *extack)
{
	u32 c = rxfh->rss_context, *indir;
	unsigned int i;
	int err;

	err = refnic_rss_ctx_check(priv, rxfh, extack);
	if (err)
		return err;
	indir = priv->rss_ctx_indir[c];

	/* No key, function or transform of its own: the port's apply. The
	 * key is copied only because 6.12 warns about a context whose key
	 * is all zeroes; the transform stays 0, since 7.3 would otherwise
	 * ask for per-context hash fields when the context is set.
	 */
	ctx->hfunc = ETH_RSS_HASH_TOP;
	ctx->input_xfrm = 0;
	memcpy(ethtool_rxfh_context_key(ctx), priv->rss_key,
	       min_t(u32, ctx->key_size, REFNIC_RSS_KEY_SIZE));
	if (rxfh->indir) {
		memcpy(indir, rxfh->indir, sizeof(priv->rss_ctx_indir[c]));
	} else {
		for (i = 0; i < REFNIC_RSS_TABLE_SIZE; i++)
			indir[i] = ethtool_rxfh_indir_default(i,
							      priv->cfg.num_queues);
		memcpy(ethtool_rxfh_context_indir(ctx), indir,
		       sizeof(priv->rss_ctx_indir[c]));
	}

	__set_bit(c, priv->rss_ctx_used);
	if (netif_running(priv->netdev))
		refnic_rss_ctx_program(priv, c);
	return 0;
}

/**
 * refnic_rss_ctx_modify() - ethtool_ops.modify_rxfh_context
 * @priv: port; instance lock (RTNL on 6.12) and rss_lock held
 * @ctx: the core's copy, as it was
 * @rxfh: the context's ID and its new table, if any
 * @extack: why it failed
 *
 * Return: 0 or a negative errno.
 */
int refnic_rss_ctx_modify(struct refnic_priv *priv,
			  struct ethtool_rxfh_context *ctx,
			  const struct ethtool_rxfh_param *rxfh,
			  struct netlink_ext_ack *extack)
{
	u32 c = rxfh->rss_context;
	int err;

	err = refnic_rss_ctx_check(priv, rxfh, extack);
	if (err)
		return err;
	if (!rxfh->indir)
		return 0;

	/* The core checked the entries against the queue count. */
	memcpy(priv->rss_ctx_indir[c], rxfh->indir,
	       sizeof(priv->rss_ctx_indir[c]));
	if (netif_running(priv->netdev))
		refnic_rss_ctx_program(priv, c);
	return 0;
}

/**
 * refnic_rss_ctx_remove() - ethtool_ops.remove_rxfh_context
 * @priv: port; instance lock (RTNL on 6.12) and rss_lock held, or RTNL
 *	alone with the port closed while it is unregistered
 * @c: the context's ID
 * @extack: why it failed; NULL while unregistering
 *
 * Return: 0, or -EBUSY while a flow rule leads to the context (7.3's core
 * checks that itself; 6.12's does not).
 */
int refnic_rss_ctx_remove(struct refnic_priv *priv, u32 c,
			  struct netlink_ext_ack *extack)
{
	if (c >= REFNIC_NUM_RSS_CTX || !test_bit(c, priv->rss_ctx_used))
		return -ENOENT;
	/* Unregistering drops every context, rules or not, and ignores
	 * errors.
	 */
	if (priv->netdev->reg_state == NETREG_REGISTERED &&
	    refnic_ntuple_ctx_in_use(priv, c)) {
		refnic_rss_refuse(priv->netdev, extack, "RSS context",
				  "context %u is in use by a flow rule", c);
		return -EBUSY;
	}

	__clear_bit(c, priv->rss_ctx_used);
	if (netif_running(priv->netdev))
		refnic_rss_ctx_program(priv, c);
	return 0;
}

/* ---- Hash fields (ethtool -n/-N rx-flow-hash) ------------------------------ */

/* The flow types of ethtool's that are one of the device's: its own six,
 * and the IP protocols it hashes as "other IPv4/IPv6".
 */
static int refnic_rss_flow_type(u32 flow_type, bool *alias)
{
	*alias = false;
	switch (flow_type) {
	case TCP_V4_FLOW:
		return REFNIC_RSS_FT_TCP4;
	case UDP_V4_FLOW:
		return REFNIC_RSS_FT_UDP4;
	case TCP_V6_FLOW:
		return REFNIC_RSS_FT_TCP6;
	case UDP_V6_FLOW:
		return REFNIC_RSS_FT_UDP6;
	case IPV4_FLOW:
		return REFNIC_RSS_FT_IP4;
	case IPV6_FLOW:
		return REFNIC_RSS_FT_IP6;
	case SCTP_V4_FLOW:
	case AH_ESP_V4_FLOW:
	case AH_V4_FLOW:
	case ESP_V4_FLOW:
		*alias = true;
		return REFNIC_RSS_FT_IP4;
	case SCTP_V6_FLOW:
	case AH_ESP_V6_FLOW:
	case AH_V6_FLOW:
	case ESP_V6_FLOW:
		*alias = true;
		return REFNIC_RSS_FT_IP6;
	default:
		return -1;
	}
}

static const char *refnic_rss_flow_name(u32 flow_type)
{
	switch (flow_type) {
	case SCTP_V4_FLOW:
		return "sctp4";
	case SCTP_V6_FLOW:
		return "sctp6";
	case AH_ESP_V4_FLOW:
		return "ah-esp4";
	case AH_ESP_V6_FLOW:
		return "ah-esp6";
	case AH_V4_FLOW:
		return "ah4";
	case AH_V6_FLOW:
		return "ah6";
	case ESP_V4_FLOW:
		return "esp4";
	case ESP_V6_FLOW:
		return "esp6";
	default:
		return "?";
	}
}

static const char *refnic_rss_ip_name(int t)
{
	return t == REFNIC_RSS_FT_IP4 ? "ip4" : "ip6";
}

/* The device's RSS_FIELDS bits and ethtool's RXH_* bits for each field. */
static const struct {
	u32 field;
	u32 rxh;
} refnic_rss_field_map[] = {
	{ REFNIC_RSS_IP_SRC, RXH_IP_SRC },
	{ REFNIC_RSS_IP_DST, RXH_IP_DST },
	{ REFNIC_RSS_L4_SRC, RXH_L4_B_0_1 },
	{ REFNIC_RSS_L4_DST, RXH_L4_B_2_3 },
};

static u32 refnic_rss_fields_to_rxh(u32 fields)
{
	u32 data = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refnic_rss_field_map); i++)
		if (fields & refnic_rss_field_map[i].field)
			data |= refnic_rss_field_map[i].rxh;
	return data;
}

/* The caller refused RXH_* bits the device has no field for. */
static u32 refnic_rss_rxh_to_fields(u64 data)
{
	u32 fields = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(refnic_rss_field_map); i++)
		if (data & refnic_rss_field_map[i].rxh)
			fields |= refnic_rss_field_map[i].field;
	return fields;
}

/**
 * refnic_rss_get_fields() - the fields hashed for an ethtool flow type
 * @priv: port
 * @flow_type: ethtool's flow type (TCP_V4_FLOW, ...), without FLOW_RSS
 * @data: gets RXH_* bits
 *
 * SCTP, AH and ESP are hashed as other IPv4/IPv6 (ip4, ip6); frames that
 * are not IP are not hashed (ether: no field).
 *
 * Return: 0, or -EOPNOTSUPP for a flow type the device does not tell apart
 * (the GTP ones: it hashes them as the UDP they are).
 */
int refnic_rss_get_fields(struct refnic_priv *priv, u32 flow_type, u32 *data)
{
	bool alias;
	int t;

	if (flow_type == ETHER_FLOW) {
		*data = 0;
		return 0;
	}
	t = refnic_rss_flow_type(flow_type, &alias);
	if (t < 0)
		return -EOPNOTSUPP;
	*data = refnic_rss_fields_to_rxh(priv->rss_fields[t]);
	return 0;
}

/* Symmetric-xor can only make a hash symmetric when each source is hashed
 * with its destination.
 */
static bool refnic_rss_fields_sym(u32 fields)
{
	return hweight32(fields & REFNIC_RSS_IP_FIELDS) != 1 &&
	       hweight32(fields & REFNIC_RSS_L4_FIELDS) != 1;
}

/**
 * refnic_rss_set_fields() - choose the fields hashed for a flow type
 * @priv: port
 * @flow_type: ethtool's flow type (TCP_V4_FLOW, ...), without FLOW_RSS
 * @data: RXH_* bits
 * @extack: where to say why a request is refused; NULL for the ioctl
 *
 * tcp4, udp4, tcp6 and udp6 take any of the addresses and the ports,
 * ip4 and ip6 any of the addresses; an empty set means no hash (queue of
 * table entry 0). The flow types the device hashes as ip4/ip6 (SCTP, AH,
 * ESP) only accept the value they already have. With the symmetric input
 * transform on, a source must come with its destination: the ethtool core
 * checks that on both paths, and so does the device's driver.
 *
 * Return: 0, -EOPNOTSUPP for a flow type the device has no class for, or
 * -EINVAL for fields it cannot hash that way.
 */
int refnic_rss_set_fields(struct refnic_priv *priv, u32 flow_type, u64 data,
			  struct netlink_ext_ack *extack)
{
	const u64 l4 = RXH_L4_B_0_1 | RXH_L4_B_2_3;
	struct net_device *netdev = priv->netdev;
	u32 fields, old;
	bool alias;
	int t;

	netdev_assert_locked(netdev);

	if (flow_type == ETHER_FLOW) {
		if (!data)
			return 0;
		refnic_rss_refuse(netdev, extack, "RSS hash setting",
				  "frames that are not IP are not hashed");
		return -EINVAL;
	}
	t = refnic_rss_flow_type(flow_type, &alias);
	if (t >= 0 && !(priv->caps & REFNIC_CAP_RSS_FIELDS) &&
	    data != refnic_rss_fields_to_rxh(priv->rss_fields[t])) {
		refnic_rss_refuse(netdev, extack, "RSS hash setting",
				  "the device hashes fixed fields");
		return -EOPNOTSUPP;
	}
	if (t < 0) {
		refnic_rss_refuse(netdev, extack, "RSS hash setting",
				  "flow type %#x is not the device's: tcp4 udp4 ip4 tcp6 udp6 ip6",
				  flow_type);
		return -EOPNOTSUPP;
	}
	if (data & ~(RXH_IP_SRC | RXH_IP_DST | l4)) {
		refnic_rss_refuse(netdev, extack, "RSS hash setting",
				  "only IP addresses (s, d) and L4 ports (f, n) can be hashed");
		return -EINVAL;
	}
	if ((data & l4) && (t == REFNIC_RSS_FT_IP4 || t == REFNIC_RSS_FT_IP6)) {
		refnic_rss_refuse(netdev, extack, "RSS hash setting",
				  "no L4 ports to hash in %s flows",
				  alias ? refnic_rss_flow_name(flow_type) :
				  refnic_rss_ip_name(t));
		return -EINVAL;
	}

	fields = refnic_rss_rxh_to_fields(data);

	if ((priv->rss_input_xfrm & RXH_XFRM_SYM_XOR) &&
	    !refnic_rss_fields_sym(fields)) {
		refnic_rss_refuse(netdev, extack, "RSS hash setting",
				  "symmetric-xor needs source and destination together");
		return -EINVAL;
	}

	old = priv->rss_fields[t];
	if (alias && fields != old) {
		refnic_rss_refuse(netdev, extack, "RSS hash setting",
				  "%s is hashed as %s: set %s instead",
				  refnic_rss_flow_name(flow_type),
				  refnic_rss_ip_name(t), refnic_rss_ip_name(t));
		return -EINVAL;
	}
	if (fields == old)
		return 0;

	priv->rss_fields[t] = fields;
	if (netif_running(netdev))
		refnic_rss_write_fields(priv, t);
	return 0;
}

/**
 * refnic_rss_check_xfrm() - can the device take this input transform now?
 * @priv: port
 * @input_xfrm: RXH_XFRM_* (ethtool -X xfrm), not RXH_XFRM_NO_CHANGE
 * @extack: where to say why not; NULL for the ioctl
 *
 * The device has symmetric-xor. Turning it on needs every flow type to
 * hash sources with their destinations (the ethtool core checks that too).
 *
 * Return: 0 or -EOPNOTSUPP or -EINVAL.
 */
int refnic_rss_check_xfrm(struct refnic_priv *priv, u8 input_xfrm,
			  struct netlink_ext_ack *extack)
{
	unsigned int t;

	if (input_xfrm & ~RXH_XFRM_SYM_XOR) {
		refnic_rss_refuse(priv->netdev, extack, "RSS hash setting",
				  "input-xfrm: only symmetric-xor");
		return -EOPNOTSUPP;
	}
	if (!input_xfrm)
		return 0;
	if (!(priv->caps & REFNIC_CAP_RSS_FIELDS)) {
		refnic_rss_refuse(priv->netdev, extack, "RSS hash setting",
				  "input-xfrm: the device has no symmetric-xor");
		return -EOPNOTSUPP;
	}
	for (t = 0; t < REFNIC_RSS_NUM_FT; t++) {
		if (!refnic_rss_fields_sym(priv->rss_fields[t])) {
			refnic_rss_refuse(priv->netdev, extack, "RSS hash setting",
					  "symmetric-xor: hash field config is not symmetric");
			return -EINVAL;
		}
	}
	return 0;
}
