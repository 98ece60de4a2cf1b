// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The "refnic" link kind: `ip link add A type refnic [peer name B ...]`
 * plugs a card in and registers its two ports, like a veth pair with
 * hardware in between. Deleting either end deletes both; the card is
 * unplugged once both netdevs are unregistered (refnic_pair_put()).
 *
 * The refnic netlink family's dev-new creates pairs through the same path
 * (refnic_pair_new()), and every pair announces its ports' arrival and
 * departure to the family's monitor group, whichever way it was created or
 * deleted.
 */

#include <linux/etherdevice.h>
#include <linux/ethtool_netlink.h>
#include <linux/netdevice.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>

#include "refnic.h"
#include "refnic_genl.h"
#include "refnic_policy.h"
#include "refnic_rtnl.h"

static struct rtnl_link_ops refnic_link_ops;

static const struct nla_policy refnic_policy[IFLA_REFNIC_MAX + 1] = {
	[IFLA_REFNIC_PEER]	   = { .len = sizeof(struct ifinfomsg) },
	[IFLA_REFNIC_QUEUES]	   = NLA_POLICY_RANGE(NLA_U32, 1,
						      REFNIC_MAX_QUEUES),
	[IFLA_REFNIC_RX_RING_SIZE] = NLA_POLICY_RANGE(NLA_U32,
						      REFNIC_MIN_RING_SIZE,
						      REFNIC_MAX_RING_SIZE),
	[IFLA_REFNIC_TX_RING_SIZE] = NLA_POLICY_RANGE(NLA_U32,
						      REFNIC_MIN_RING_SIZE,
						      REFNIC_MAX_RING_SIZE),
};

/* Generic link attributes of either end. */
static int refnic_validate_link(struct nlattr *tb[],
				struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		if (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN ||
		    !is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_ADDRESS],
					    "invalid MAC address");
			return -EADDRNOTAVAIL;
		}
	}
	if (tb[IFLA_NUM_TX_QUEUES] &&
	    nla_get_u32(tb[IFLA_NUM_TX_QUEUES]) > REFNIC_MAX_QUEUES) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_NUM_TX_QUEUES],
				    "at most 16 TX queues");
		return -EINVAL;
	}
	if (tb[IFLA_NUM_RX_QUEUES] &&
	    nla_get_u32(tb[IFLA_NUM_RX_QUEUES]) > REFNIC_MAX_QUEUES) {
		NL_SET_ERR_MSG_ATTR(extack, tb[IFLA_NUM_RX_QUEUES],
				    "at most 16 RX queues");
		return -EINVAL;
	}
	return 0;
}

static int refnic_validate_ring(struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	if (attr && !is_power_of_2(nla_get_u32(attr))) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "ring size must be a power of 2");
		return -EINVAL;
	}
	return 0;
}

static int refnic_validate(struct nlattr *tb[], struct nlattr *data[],
			   struct netlink_ext_ack *extack)
{
	int err;

	err = refnic_validate_link(tb, extack);
	if (err || !data)
		return err;

	err = refnic_validate_ring(data[IFLA_REFNIC_RX_RING_SIZE], extack);
	if (!err)
		err = refnic_validate_ring(data[IFLA_REFNIC_TX_RING_SIZE],
					   extack);
	return err;
}

/* Initial ring configuration of one end: what @req asks for (0 fields take
 * the default) applies to both ends; without a queue count, an end created
 * with IFLA_NUM_{TX,RX}_QUEUES uses all the queues it has, otherwise the
 * default (at most what it has).
 */
static void refnic_link_qcfg(struct refnic_qcfg *cfg,
			     const struct refnic_qcfg *req, struct nlattr *tb[],
			     struct net_device *netdev)
{
	u32 have = min(netdev->num_tx_queues, netdev->num_rx_queues);

	cfg->num_queues = min(have, REFNIC_DEFAULT_QUEUES);
	if (tb[IFLA_NUM_TX_QUEUES] || tb[IFLA_NUM_RX_QUEUES])
		cfg->num_queues = have;
	if (req->num_queues)
		cfg->num_queues = req->num_queues;
	cfg->rx_ring_size = req->rx_ring_size ?: REFNIC_DEFAULT_RING_SIZE;
	cfg->tx_ring_size = req->tx_ring_size ?: REFNIC_DEFAULT_RING_SIZE;
	cfg->tcp_data_split = ETHTOOL_TCP_DATA_SPLIT_DISABLED;
}

/* Plugs a card in, within max_cards; the last refnic_pair_put() unplugs
 * it. Its memory, the device model's included, is charged to the caller's
 * memory cgroup.
 */
static struct refnic_pair *refnic_pair_create(struct netlink_ext_ack *extack)
{
	struct refnic_pair *pair;
	int err;

	err = refnic_card_reserve("plugging a card in", extack);
	if (err)
		return ERR_PTR(err);

	err = -ENOMEM;
	pair = kzalloc(sizeof(*pair), GFP_KERNEL_ACCOUNT);
	if (!pair)
		goto err_unreserve;

	err = refnic_bus_card_add(&pair->card);
	if (err) {
		if (err == -ENOMEM)
			NL_SET_ERR_MSG_MOD(extack,
					   "not enough memory to plug a card in");
		goto err_free;
	}
	refcount_set(&pair->refs, 1);

	return pair;

err_free:
	kfree(pair);
err_unreserve:
	refnic_card_unreserve();
	return ERR_PTR(err);
}

/**
 * struct refnic_peer_req - how to create port 1 of a pair
 * @net: its namespace
 * @name: its name, or a "%d" pattern
 * @name_assign_type: NET_NAME_USER or NET_NAME_ENUM
 * @tb: its IFLA_* attributes (all NULL when none were given)
 * @ifm: its ifinfomsg from rtnetlink, NULL otherwise
 */
struct refnic_peer_req {
	struct net *net;
	const char *name;
	unsigned char name_assign_type;
	struct nlattr **tb;
	struct ifinfomsg *ifm;
};

/* Every IFLA_* attribute absent: devices the refnic family creates get
 * what `ip link add` gives a device created without options.
 */
static struct nlattr *refnic_no_attrs[IFLA_MAX + 1];

/* The one way a pair comes to be, for rtnetlink (refnic_newlink()) and for
 * the refnic netlink family (refnic_pair_new()): plugs a card in, creates
 * and registers port 1 as @preq says, then registers port 0, @dev, which
 * the caller created (rtnl_create_link()) with the IFLA_* attributes @tb.
 * Under RTNL. On error nothing is left registered and @dev is the caller's
 * to free.
 */
static int refnic_pair_register(struct net_device *dev, struct nlattr *tb[],
				const struct refnic_peer_req *preq,
				const struct refnic_qcfg *req,
				struct netlink_ext_ack *extack)
{
	struct refnic_qcfg cfg;
	struct refnic_pair *pair;
	struct net_device *peer;
	int err;

	pair = refnic_pair_create(extack);
	if (IS_ERR(pair))
		return PTR_ERR(pair);

	/* The peer (port 1) first, as veth does: if it cannot exist, the
	 * device the user named is never seen.
	 */
	peer = rtnl_create_link(preq->net, preq->name, preq->name_assign_type,
				&refnic_link_ops, preq->tb, extack);
	if (IS_ERR(peer)) {
		err = PTR_ERR(peer);
		goto out_put_pair;
	}
	/* Without its own attributes the peer got the device's: its
	 * address must still differ.
	 */
	if (!preq->ifm || !preq->tb[IFLA_ADDRESS])
		eth_hw_addr_random(peer);
	if (preq->ifm && dev->ifindex)
		peer->ifindex = preq->ifm->ifi_index;

	refnic_link_qcfg(&cfg, req, preq->tb, peer);
	err = refnic_port_probe(peer, pair, 1, &cfg, extack);
	if (err)
		goto err_free_peer;
	/* A port whose registration fails after ndo_init is destroyed by
	 * register_netdevice() itself, RTNL held; its work items were never
	 * enabled (refnic_priv_destructor()).
	 */
	err = register_netdevice(peer);
	if (err)
		goto err_free_peer;
	/* Before rtnl_configure_link(), which may open it. */
	refnic_port_registered(peer);
	err = rtnl_configure_link(peer, preq->ifm, 0, NULL);
	if (err)
		goto err_unregister_peer;

	refnic_link_qcfg(&cfg, req, tb, dev);
	err = refnic_port_probe(dev, pair, 0, &cfg, extack);
	if (err)
		goto err_unregister_peer;
	err = register_netdevice(dev);
	if (err)
		goto err_unregister_peer;
	refnic_port_registered(dev);

	pair->netdev[0] = dev;
	pair->netdev[1] = peer;
	/* Not in ndo_init: a port whose registration fails is destroyed
	 * with RTNL held, which the debugfs handlers take, so removing
	 * its directory then could wait for them forever. Removed by
	 * refnic_priv_destructor(), which runs without RTNL once the port
	 * is unregistered.
	 */
	refnic_debugfs_port_init(refnic_priv(peer));
	refnic_debugfs_port_init(refnic_priv(dev));
	refnic_nl_notify_dev_add(peer);
	refnic_nl_notify_dev_add(dev);

	/* Each registered netdev holds the card now (ndo_init). */
	refnic_pair_put(pair);
	return 0;

err_unregister_peer:
	/* Its destructor drops its reference once unregistration is done. */
	unregister_netdevice(peer);
	goto out_put_pair;
err_free_peer:
	free_netdev(peer);
out_put_pair:
	refnic_pair_put(pair);
	return err;
}

#if REFNIC_KERNEL_7
/* 7.3's core resolves the peer's namespace from IFLA_REFNIC_PEER (peer_type)
 * and checks CAP_NET_ADMIN there before calling newlink.
 */
static int refnic_newlink(struct net_device *dev,
			  struct rtnl_newlink_params *params,
			  struct netlink_ext_ack *extack)
{
	struct nlattr **data = params->data;
	struct nlattr **tb = params->tb;
#else
static int refnic_newlink(struct net *src_net, struct net_device *dev,
			  struct nlattr *tb[], struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
#endif
	struct refnic_peer_req preq = {
		.name_assign_type = NET_NAME_ENUM,
		.tb = tb,
	};
	struct nlattr *peer_tb[IFLA_MAX + 1];
	struct refnic_qcfg req = {};
	char ifname[IFNAMSIZ];
	int err;

	/* CAP_NET_ADMIN over the namespaces (the core's check, and on 6.12
	 * the peer's below) does not suffice to plug a card in
	 * (refnic_policy.c). newlink runs in the sender's context.
	 */
	err = refnic_admin_check(NULL, "link add", extack);
	if (err)
		return err;

	if (data && data[IFLA_REFNIC_PEER]) {
		preq.ifm = nla_data(data[IFLA_REFNIC_PEER]);
		err = rtnl_nla_parse_ifinfomsg(peer_tb, data[IFLA_REFNIC_PEER],
					       extack);
		if (err < 0)
			return err;
		err = refnic_validate_link(peer_tb, extack);
		if (err)
			return err;
		preq.tb = peer_tb;
	}
	if (data && data[IFLA_REFNIC_QUEUES])
		req.num_queues = nla_get_u32(data[IFLA_REFNIC_QUEUES]);
	if (data && data[IFLA_REFNIC_RX_RING_SIZE])
		req.rx_ring_size = nla_get_u32(data[IFLA_REFNIC_RX_RING_SIZE]);
	if (data && data[IFLA_REFNIC_TX_RING_SIZE])
		req.tx_ring_size = nla_get_u32(data[IFLA_REFNIC_TX_RING_SIZE]);

	if (preq.ifm && preq.tb[IFLA_IFNAME]) {
		nla_strscpy(ifname, preq.tb[IFLA_IFNAME], IFNAMSIZ);
		preq.name_assign_type = NET_NAME_USER;
	} else {
		snprintf(ifname, IFNAMSIZ, REFNIC_DRV_NAME "%%d");
	}
	preq.name = ifname;

#if REFNIC_KERNEL_7
	preq.net = rtnl_newlink_peer_net(params);
	return refnic_pair_register(dev, tb, &preq, &req, extack);
#else
	preq.net = rtnl_link_get_net(src_net, preq.tb);
	if (IS_ERR(preq.net))
		return PTR_ERR(preq.net);
	if (!ns_capable(preq.net->user_ns, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(extack, "no CAP_NET_ADMIN in the peer's netns");
		err = -EPERM;
		goto out_put_net;
	}

	err = refnic_pair_register(dev, tb, &preq, &req, extack);
out_put_net:
	put_net(preq.net);
	return err;
#endif
}

/**
 * refnic_pair_new() - create a pair as `ip link add ... type refnic` does
 * @net: namespace of port 0
 * @name: port 0's name, or NULL for the first free refnic%d
 * @peer_net: namespace of port 1
 * @peer_name: port 1's name, or NULL
 * @req: ring configuration; fields left 0 take the defaults. Ring sizes
 *	must be valid (powers of two in range), as refnic_validate() checks
 *	them for rtnetlink.
 * @extack: for errors
 *
 * For the refnic netlink family. Under RTNL; the caller checked its
 * permissions in both namespaces.
 *
 * Return: port 0's netdev, registered and announced (RTM_NEWLINK), or an
 * ERR_PTR.
 */
struct net_device *refnic_pair_new(struct net *net, const char *name,
				   struct net *peer_net, const char *peer_name,
				   const struct refnic_qcfg *req,
				   struct netlink_ext_ack *extack)
{
	struct refnic_peer_req preq = {
		.net = peer_net,
		.name = peer_name ?: REFNIC_DRV_NAME "%d",
		.name_assign_type = peer_name ? NET_NAME_USER : NET_NAME_ENUM,
		.tb = refnic_no_attrs,
	};
	struct net_device *dev;
	int err;

	ASSERT_RTNL();

	dev = rtnl_create_link(net, name ?: REFNIC_DRV_NAME "%d",
			       name ? NET_NAME_USER : NET_NAME_ENUM,
			       &refnic_link_ops, refnic_no_attrs, extack);
	if (IS_ERR(dev))
		return dev;

	err = refnic_pair_register(dev, refnic_no_attrs, &preq, req, extack);
	if (err) {
		free_netdev(dev);
		return ERR_PTR(err);
	}
	/* Without an ifinfomsg this only marks the link initialized and
	 * sends RTM_NEWLINK; it cannot fail.
	 */
	err = rtnl_configure_link(dev, NULL, 0, NULL);
	if (err) {
		rtnl_delete_link(dev, 0, NULL);
		return ERR_PTR(err);
	}

	return dev;
}

static void refnic_dellink(struct net_device *dev, struct list_head *head)
{
	struct refnic_pair *pair = refnic_priv(dev)->pair;
	unsigned int i;

	/* Announced while both ends are still linked, so that each
	 * notification names its peer.
	 */
	for (i = 0; i < ARRAY_SIZE(pair->netdev); i++)
		if (pair->netdev[i])
			refnic_nl_notify_dev_del(pair->netdev[i]);

	/* Called for each end when a netns goes away or the module is
	 * unloaded; queueing a netdev twice is harmless.
	 */
	unregister_netdevice_queue(dev, head);
	for (i = 0; i < ARRAY_SIZE(pair->netdev); i++) {
		if (pair->netdev[i] && pair->netdev[i] != dev)
			unregister_netdevice_queue(pair->netdev[i], head);
		pair->netdev[i] = NULL;
	}
}

static struct net *refnic_get_link_net(const struct net_device *dev)
{
	struct refnic_priv *priv = refnic_priv(dev);
	struct net_device *peer = priv->pair->netdev[!priv->port->index];

	return peer ? dev_net(peer) : dev_net(dev);
}

/* The netdev gets the most queues the hardware has; how many are used is
 * the real number (ethtool -L).
 */
static unsigned int refnic_get_max_queues(void)
{
	return REFNIC_MAX_QUEUES;
}

static struct rtnl_link_ops refnic_link_ops = {
	.kind			= REFNIC_DRV_NAME,
	.priv_size		= sizeof(struct refnic_priv),
	.setup			= refnic_netdev_setup,
	.maxtype		= IFLA_REFNIC_MAX,
#if REFNIC_KERNEL_7
	.peer_type		= IFLA_REFNIC_PEER,
#endif
	.policy			= refnic_policy,
	.validate		= refnic_validate,
	.newlink		= refnic_newlink,
	.dellink		= refnic_dellink,
	.get_num_tx_queues	= refnic_get_max_queues,
	.get_num_rx_queues	= refnic_get_max_queues,
	.get_link_net		= refnic_get_link_net,
};

/**
 * refnic_is_port() - is @dev a refnic port?
 * @dev: any netdev
 *
 * Return: true when @dev was created by the "refnic" link kind, so that its
 * priv is a struct refnic_priv.
 */
bool refnic_is_port(const struct net_device *dev)
{
	return dev->rtnl_link_ops == &refnic_link_ops;
}

/**
 * refnic_rtnl_init() - register the "refnic" link kind
 *
 * Return: 0 or a negative errno.
 */
int refnic_rtnl_init(void)
{
	return rtnl_link_register(&refnic_link_ops);
}

/**
 * refnic_rtnl_exit() - unregister the "refnic" link kind
 *
 * Deletes every refnic device, in every netns, and waits for them to be
 * unregistered and their cards unplugged.
 */
void refnic_rtnl_exit(void)
{
	rtnl_link_unregister(&refnic_link_ops);
}
