// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * The refnic generic netlink family (uapi/refnic.yaml; policies and ops
 * table generated into refnic_nl_gen.c): the control plane of refnic pairs
 * and of the device model behind them. It creates and deletes pairs
 * (through the same path as `ip link add/del`, refnic_rtnl.c), and drives
 * the card's management side - the link model, the model's counters, fault
 * injection - through the model's control API (model/refnic_model.h),
 * which is why this file lives outside the driver proper: it is the
 * management plane, not the datapath, and the one place outside model/
 * that sees that header.
 *
 * Permissions: reads are open to anyone in the namespace of the request;
 * changes need CAP_NET_ADMIN in the user namespace owning the device's
 * network namespace (for dev-new, each namespace a port goes to); bus-set,
 * whose costs spend host CPU time, CAP_NET_ADMIN in the initial one; and
 * dev-new, which plugs a card in, CAP_NET_ADMIN in the initial user
 * namespace too unless module parameter allow_userns says otherwise
 * (refnic_policy.c). Not GENL_ADMIN_PERM, which checks the same: a module
 * parameter lifts this check, and the refusal should say why.
 *
 * Notifications go to the "monitor" group of the namespace of the port
 * they are about: dev-add-ntf and dev-del-ntf when a port is registered or
 * unregistered, whether through this family, rtnetlink, a namespace going
 * away or a move to another namespace; link-change-ntf on link-set, on
 * bus-set (for both ports) and when the port's link state (carrier)
 * changes; fault-ntf when fault-set arms or clears a fault (not when a
 * fault strikes: that happens in the datapath, possibly millions of times
 * a second; fault-get and stats-get count it).
 *
 * Locking. Every handler runs under RTNL, which
 *  - keeps a netdev found by ifindex registered, and with it its card: the
 *    card is unplugged only once both ports are unregistered and destroyed
 *    (refnic_pair_put()), which cannot complete while RTNL is held;
 *  - protects struct refnic_pair.netdev (a port's peer) and the ports'
 *    ring configuration (struct refnic_priv.cfg);
 *  - serializes link-set's and bus-set's read-modify-writes of a port's
 *    link model and its card's bus model;
 *  - orders notifications against the family's (un)registration
 *    (refnic_nl_live).
 * The model's control API takes its own locks (the card's link_lock) and
 * may sleep, which RTNL allows; fault state is atomics. The family is
 * parallel_ops: genetlink takes no lock of its own for it.
 */

#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "../refnic.h"
#include "../refnic_genl.h"
#include "../refnic_nl_gen.h"
#include "../refnic_policy.h"
#include "../refnic_rtnl.h"
#include "../model/refnic_model.h"

/* The family is registered and may send notifications (RTNL). */
static bool refnic_nl_live;

/* Dump position: the next ifindex, and an index within that device. */
struct refnic_nl_dump_ctx {
	unsigned long ifindex;
	unsigned int idx;
};

static struct refnic_nl_dump_ctx *refnic_nl_dump_ctx(struct netlink_callback *cb)
{
	NL_ASSERT_CTX_FITS(struct refnic_nl_dump_ctx);

	return (struct refnic_nl_dump_ctx *)cb->ctx;
}

/* ---- common ---------------------------------------------------------------- */

/* The refnic port whose ifindex is in @attr, in @net; RTNL. */
static struct net_device *refnic_nl_port(struct net *net,
					 const struct nlattr *attr,
					 struct netlink_ext_ack *extack)
{
	struct net_device *dev;

	dev = __dev_get_by_index(net, nla_get_u32(attr));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "no refnic device with this ifindex");
		return ERR_PTR(-ENODEV);
	}
	if (!refnic_is_port(dev)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "not a refnic device");
		return ERR_PTR(-EOPNOTSUPP);
	}
	return dev;
}

/* May the sender of @skb change @dev? -EPERM, blaming @attr, if not. */
static int refnic_nl_may_change(struct sk_buff *skb, struct net_device *dev,
				const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	if (netlink_ns_capable(skb, dev_net(dev)->user_ns, CAP_NET_ADMIN))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "needs CAP_NET_ADMIN in the user namespace owning the network namespace of the device");
	return -EPERM;
}

static struct refnic_model_port *refnic_nl_hw(struct net_device *dev)
{
	return refnic_priv(dev)->port->hw;
}

/* Sends @msg to the monitor group of @net, or frees it. */
static void refnic_nl_multicast(struct net *net, struct sk_buff *msg)
{
	genlmsg_multicast_netns(&refnic_nl_family, net, msg, 0,
				REFNIC_NLGRP_MONITOR, GFP_KERNEL);
}

static bool refnic_nl_listened(struct net *net)
{
	ASSERT_RTNL();
	return refnic_nl_live &&
	       genl_has_listeners(&refnic_nl_family, net, REFNIC_NLGRP_MONITOR);
}

/* ---- dev-get, notifications about ports ------------------------------------ */

static int refnic_nl_link_fill(struct sk_buff *msg, struct net_device *dev)
{
	struct refnic_model_link_cfg cfg;
	struct nlattr *nest;

	refnic_model_link_get(refnic_nl_hw(dev), &cfg);

	nest = nla_nest_start(msg, REFNIC_A_DEV_LINK);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u8(msg, REFNIC_A_LINK_CARRIER, cfg.carrier) ||
	    nla_put_u64_64bit(msg, REFNIC_A_LINK_RATE, cfg.rate_bps,
			      REFNIC_A_LINK_PAD) ||
	    nla_put_u32(msg, REFNIC_A_LINK_LATENCY, cfg.latency_us) ||
	    nla_put_u32(msg, REFNIC_A_LINK_LOSS, cfg.loss_ppm)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int refnic_nl_bus_fill(struct sk_buff *msg, struct net_device *dev)
{
	struct refnic_model_bus_stats st;
	struct refnic_model_bus_cfg cfg;
	struct nlattr *nest;

	refnic_model_bus_get(refnic_nl_hw(dev), &cfg, &st);

	nest = nla_nest_start(msg, REFNIC_A_DEV_BUS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, REFNIC_A_BUS_READ_NS, cfg.read_ns) ||
	    nla_put_u32(msg, REFNIC_A_BUS_GEN, cfg.gen) ||
	    nla_put_u32(msg, REFNIC_A_BUS_LANES, cfg.lanes) ||
	    nla_put_s32(msg, REFNIC_A_BUS_NODE, cfg.node) ||
	    nla_put_u32(msg, REFNIC_A_BUS_REMOTE_NS, cfg.remote_ns) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_READS, st.reads,
			      REFNIC_A_BUS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_REMOTE_READS, st.remote_reads,
			      REFNIC_A_BUS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_READ_CHARGED_NS, st.read_ns,
			      REFNIC_A_BUS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_WRITES, st.writes,
			      REFNIC_A_BUS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_DMA_TLPS, st.dma_tlps,
			      REFNIC_A_BUS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_DMA_BYTES, st.dma_bytes,
			      REFNIC_A_BUS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_DMA_REMOTE_TLPS,
			      st.dma_remote_tlps, REFNIC_A_BUS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_DMA_CHARGED_NS, st.dma_ns,
			      REFNIC_A_BUS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_DMA_THROTTLED, st.dma_throttled,
			      REFNIC_A_BUS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_BUS_READ_WAITED_NS,
			      st.read_waited_ns, REFNIC_A_BUS_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* A port as dev-get shows it, seen from its own namespace. RTNL. */
static int refnic_nl_dev_fill(struct sk_buff *msg, struct net_device *dev,
			      u32 portid, u32 seq, int flags, u8 cmd)
{
	struct refnic_priv *priv = refnic_priv(dev);
	struct net_device *peer = priv->pair->netdev[!priv->port->index];
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &refnic_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(msg, REFNIC_A_DEV_IFINDEX, dev->ifindex) ||
	    nla_put_string(msg, REFNIC_A_DEV_IFNAME, dev->name))
		goto err_cancel;
	/* No peer while a pair is being torn down. */
	if (peer) {
		if (nla_put_u32(msg, REFNIC_A_DEV_PEER_IFINDEX, peer->ifindex) ||
		    nla_put_string(msg, REFNIC_A_DEV_PEER_IFNAME, peer->name))
			goto err_cancel;
		/* As IFLA_LINK_NETNSID of veth: the peer's namespace by its
		 * id in ours, allocated on first use.
		 */
		if (!net_eq(dev_net(dev), dev_net(peer)) &&
		    nla_put_s32(msg, REFNIC_A_DEV_PEER_NETNSID,
				peernet2id_alloc(dev_net(dev), dev_net(peer),
						 GFP_KERNEL)))
			goto err_cancel;
	}
	if (nla_put_u32(msg, REFNIC_A_DEV_QUEUES, priv->cfg.num_queues) ||
	    nla_put_u32(msg, REFNIC_A_DEV_RX_RING_SIZE, priv->cfg.rx_ring_size) ||
	    nla_put_u32(msg, REFNIC_A_DEV_TX_RING_SIZE, priv->cfg.tx_ring_size) ||
	    nla_put_u32(msg, REFNIC_A_DEV_CARD, priv->port->card_id) ||
	    nla_put_u32(msg, REFNIC_A_DEV_PORT, priv->port->index) ||
	    refnic_nl_link_fill(msg, dev) ||
	    refnic_nl_bus_fill(msg, dev))
		goto err_cancel;

	genlmsg_end(msg, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

static void refnic_nl_notify_dev(struct net_device *dev, u8 cmd)
{
	struct sk_buff *msg;

	if (!refnic_nl_listened(dev_net(dev)))
		return;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	if (refnic_nl_dev_fill(msg, dev, 0, 0, 0, cmd)) {
		nlmsg_free(msg);
		return;
	}
	refnic_nl_multicast(dev_net(dev), msg);
}

/**
 * refnic_nl_notify_dev_add() - announce a new port (dev-add-ntf)
 * @dev: the port, registered and linked to its peer
 *
 * Under RTNL.
 */
void refnic_nl_notify_dev_add(struct net_device *dev)
{
	refnic_nl_notify_dev(dev, REFNIC_CMD_DEV_ADD_NTF);
}

/**
 * refnic_nl_notify_dev_del() - announce a port going away (dev-del-ntf)
 * @dev: the port, still registered
 *
 * Under RTNL.
 */
void refnic_nl_notify_dev_del(struct net_device *dev)
{
	refnic_nl_notify_dev(dev, REFNIC_CMD_DEV_DEL_NTF);
}

int refnic_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct net_device *dev;
	struct sk_buff *rsp;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, REFNIC_A_DEV_IFINDEX))
		return -EINVAL;

	rsp = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!rsp)
		return -ENOMEM;

	rtnl_lock();
	dev = refnic_nl_port(genl_info_net(info),
			     info->attrs[REFNIC_A_DEV_IFINDEX], info->extack);
	if (IS_ERR(dev))
		err = PTR_ERR(dev);
	else
		err = refnic_nl_dev_fill(rsp, dev, info->snd_portid,
					 info->snd_seq, 0,
					 info->genlhdr->cmd);
	rtnl_unlock();
	if (err)
		goto err_free;

	return genlmsg_reply(rsp, info);

err_free:
	nlmsg_free(rsp);
	return err;
}

int refnic_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct refnic_nl_dump_ctx *ctx = refnic_nl_dump_ctx(cb);
	struct net *net = sock_net(skb->sk);
	struct net_device *dev;
	int err = 0;

	rtnl_lock();
	for_each_netdev_dump(net, dev, ctx->ifindex) {
		if (!refnic_is_port(dev))
			continue;
		err = refnic_nl_dev_fill(skb, dev, NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI,
					 REFNIC_CMD_DEV_GET);
		if (err)
			break;
	}
	rtnl_unlock();

	return err;
}

/* ---- dev-new, dev-del ----------------------------------------------------- */

/* The namespace in @attr (a file descriptor), or the request's; referenced.
 * The sender needs CAP_NET_ADMIN over it.
 */
static struct net *refnic_nl_target_net(struct sk_buff *skb,
					struct genl_info *info,
					const struct nlattr *attr)
{
	struct net *net;

	if (attr) {
		net = get_net_ns_by_fd(nla_get_u32(attr));
		if (IS_ERR(net)) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "not a network namespace file descriptor");
			return net;
		}
	} else {
		net = get_net(genl_info_net(info));
	}

	if (!netlink_ns_capable(skb, net->user_ns, CAP_NET_ADMIN)) {
		if (attr)
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "needs CAP_NET_ADMIN in the user namespace owning this network namespace");
		else
			NL_SET_ERR_MSG(info->extack,
				       "needs CAP_NET_ADMIN in the user namespace owning the network namespace");
		put_net(net);
		return ERR_PTR(-EPERM);
	}
	return net;
}

/* A name in @attr (NULL: the kernel picks one), free in @net; RTNL. */
static int refnic_nl_check_name(struct net *net, const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	if (!attr)
		return 0;
	if (!dev_valid_name(nla_data(attr))) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "not a valid interface name");
		return -EINVAL;
	}
	if (__dev_get_by_name(net, nla_data(attr))) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "a device with this name exists in the namespace");
		return -EEXIST;
	}
	return 0;
}

static int refnic_nl_ring_size(const struct nlattr *attr, u32 *size,
			       struct netlink_ext_ack *extack)
{
	if (!attr)
		return 0;
	*size = nla_get_u32(attr);
	if (!is_power_of_2(*size)) {
		NL_SET_ERR_MSG_ATTR(extack, attr, "ring size must be a power of 2");
		return -EINVAL;
	}
	return 0;
}

int refnic_nl_dev_new_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *name = info->attrs[REFNIC_A_DEV_IFNAME];
	struct nlattr *peer_name = info->attrs[REFNIC_A_DEV_PEER_IFNAME];
	struct netlink_ext_ack *extack = info->extack;
	struct refnic_qcfg req = {};
	struct net *net, *peer_net;
	struct net_device *dev;
	struct sk_buff *rsp;
	int err;

	if (info->attrs[REFNIC_A_DEV_QUEUES])
		req.num_queues = nla_get_u32(info->attrs[REFNIC_A_DEV_QUEUES]);
	err = refnic_nl_ring_size(info->attrs[REFNIC_A_DEV_RX_RING_SIZE],
				  &req.rx_ring_size, extack);
	if (err)
		return err;
	err = refnic_nl_ring_size(info->attrs[REFNIC_A_DEV_TX_RING_SIZE],
				  &req.tx_ring_size, extack);
	if (err)
		return err;

	net = refnic_nl_target_net(skb, info,
				   info->attrs[REFNIC_A_DEV_NETNS_FD]);
	if (IS_ERR(net))
		return PTR_ERR(net);
	peer_net = refnic_nl_target_net(skb, info,
					info->attrs[REFNIC_A_DEV_PEER_NETNS_FD]);
	if (IS_ERR(peer_net)) {
		err = PTR_ERR(peer_net);
		goto out_put_net;
	}
	err = refnic_admin_check(skb, "dev-new", extack);
	if (err)
		goto out_put_peer_net;

	rsp = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!rsp) {
		err = -ENOMEM;
		goto out_put_peer_net;
	}

	rtnl_lock();
	err = refnic_nl_check_name(net, name, extack);
	if (!err)
		err = refnic_nl_check_name(peer_net, peer_name, extack);
	if (!err && name && peer_name && net_eq(net, peer_net) &&
	    !nla_strcmp(peer_name, nla_data(name))) {
		NL_SET_ERR_MSG_ATTR(extack, peer_name,
				    "the peer would have the port's name");
		err = -EEXIST;
	}
	if (err)
		goto out_unlock;

	dev = refnic_pair_new(net, name ? nla_data(name) : NULL, peer_net,
			      peer_name ? nla_data(peer_name) : NULL, &req,
			      extack);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out_unlock;
	}
	/* Cannot fail: the message is NLMSG_GOODSIZE, the reply far less. */
	err = refnic_nl_dev_fill(rsp, dev, info->snd_portid, info->snd_seq, 0,
				 info->genlhdr->cmd);
out_unlock:
	rtnl_unlock();
	if (err)
		nlmsg_free(rsp);
	else
		err = genlmsg_reply(rsp, info);
out_put_peer_net:
	put_net(peer_net);
out_put_net:
	put_net(net);
	return err;
}

int refnic_nl_dev_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[REFNIC_A_DEV_IFINDEX];
	struct net_device *dev;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, REFNIC_A_DEV_IFINDEX))
		return -EINVAL;

	rtnl_lock();
	dev = refnic_nl_port(genl_info_net(info), attr, info->extack);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out_unlock;
	}
	err = refnic_nl_may_change(skb, dev, attr, info->extack);
	if (err)
		goto out_unlock;
	/* As `ip link del`: both ports go (refnic_dellink()). */
	err = rtnl_delete_link(dev, 0, NULL);
out_unlock:
	rtnl_unlock();
	return err;
}

/* ---- link-set ----------------------------------------------------------------- */

int refnic_nl_link_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[REFNIC_A_DEV_IFINDEX];
	struct nlattr *tb[REFNIC_A_LINK_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	struct refnic_model_link_cfg cfg;
	struct net_device *dev;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, REFNIC_A_DEV_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, REFNIC_A_DEV_LINK))
		return -EINVAL;
	/* Validated by the policy already; this only splits it up. */
	err = nla_parse_nested(tb, REFNIC_A_LINK_MAX,
			       info->attrs[REFNIC_A_DEV_LINK],
			       refnic_link_nl_policy, extack);
	if (err)
		return err;
	if (tb[REFNIC_A_LINK_RATE] &&
	    nla_get_u64(tb[REFNIC_A_LINK_RATE]) > REFNIC_MODEL_MAX_RATE_BPS) {
		NL_SET_ERR_MSG_ATTR(extack, tb[REFNIC_A_LINK_RATE],
				    "rate above 10 Tbit/s");
		return -ERANGE;
	}

	rtnl_lock();
	dev = refnic_nl_port(genl_info_net(info), attr, extack);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out_unlock;
	}
	err = refnic_nl_may_change(skb, dev, attr, extack);
	if (err)
		goto out_unlock;

	refnic_model_link_get(refnic_nl_hw(dev), &cfg);
	if (tb[REFNIC_A_LINK_CARRIER])
		cfg.carrier = nla_get_u8(tb[REFNIC_A_LINK_CARRIER]);
	if (tb[REFNIC_A_LINK_RATE])
		cfg.rate_bps = nla_get_u64(tb[REFNIC_A_LINK_RATE]);
	if (tb[REFNIC_A_LINK_LATENCY])
		cfg.latency_us = nla_get_u32(tb[REFNIC_A_LINK_LATENCY]);
	if (tb[REFNIC_A_LINK_LOSS])
		cfg.loss_ppm = nla_get_u32(tb[REFNIC_A_LINK_LOSS]);
	/* A latency or rate that resizes the delay line allocates it,
	 * charged to the sender's memory cgroup.
	 */
	err = refnic_model_link_set(refnic_nl_hw(dev), &cfg);
	if (err == -ENOMEM) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[REFNIC_A_DEV_LINK],
				    "not enough memory for the delay line of this latency and rate");
		goto out_unlock;
	}
	if (err) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[REFNIC_A_DEV_LINK],
				    "the link model refused the configuration");
		goto out_unlock;
	}
	refnic_nl_notify_dev(dev, REFNIC_CMD_LINK_CHANGE_NTF);
out_unlock:
	rtnl_unlock();
	return err;
}

/* ---- bus-set ------------------------------------------------------------------ */

int refnic_nl_bus_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[REFNIC_A_DEV_IFINDEX];
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[REFNIC_A_BUS_MAX + 1];
	struct refnic_model_bus_stats stats;
	struct refnic_model_bus_cfg cfg;
	struct net_device *dev, *peer;
	struct refnic_priv *priv;
	int err, i;

	/* A read cost spins whichever CPU reads, for everyone on the host:
	 * not for a namespace's admin to set, whatever allow_userns says.
	 */
	if (!netlink_capable(skb, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(extack,
			       "bus-set needs CAP_NET_ADMIN in the initial user namespace: the bus model's costs spend host CPU time");
		return -EPERM;
	}
	if (GENL_REQ_ATTR_CHECK(info, REFNIC_A_DEV_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, REFNIC_A_DEV_BUS))
		return -EINVAL;
	/* Validated by the policy already; this only splits it up. */
	err = nla_parse_nested(tb, REFNIC_A_BUS_MAX,
			       info->attrs[REFNIC_A_DEV_BUS],
			       refnic_bus_nl_policy, extack);
	if (err)
		return err;
	/* The nest's counters are dev-get's to report, nobody's to set. */
	for (i = REFNIC_A_BUS_READS; i <= REFNIC_A_BUS_MAX; i++) {
		if (tb[i]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[i],
					    "a counter of the bus model is read-only");
			return -EINVAL;
		}
	}

	rtnl_lock();
	dev = refnic_nl_port(genl_info_net(info), attr, extack);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out_unlock;
	}

	refnic_model_bus_get(refnic_nl_hw(dev), &cfg, &stats);
	if (tb[REFNIC_A_BUS_READ_NS])
		cfg.read_ns = nla_get_u32(tb[REFNIC_A_BUS_READ_NS]);
	if (tb[REFNIC_A_BUS_GEN])
		cfg.gen = nla_get_u32(tb[REFNIC_A_BUS_GEN]);
	if (tb[REFNIC_A_BUS_LANES])
		cfg.lanes = nla_get_u32(tb[REFNIC_A_BUS_LANES]);
	if (tb[REFNIC_A_BUS_NODE])
		cfg.node = nla_get_s32(tb[REFNIC_A_BUS_NODE]);
	if (tb[REFNIC_A_BUS_REMOTE_NS])
		cfg.remote_ns = nla_get_u32(tb[REFNIC_A_BUS_REMOTE_NS]);

	err = -EINVAL;
	if (cfg.gen && (cfg.gen < 3 || cfg.gen > 5)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[REFNIC_A_BUS_GEN],
				    "PCIe generation must be 3, 4 or 5 (0: no bandwidth cap)");
		goto out_unlock;
	}
	if (!is_power_of_2(cfg.lanes)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[REFNIC_A_BUS_LANES],
				    "lanes must be 1, 2, 4, 8 or 16");
		goto out_unlock;
	}
	if (cfg.node != NUMA_NO_NODE &&
	    (cfg.node < 0 || cfg.node >= nr_node_ids ||
	     !node_online(cfg.node))) {
		NL_SET_ERR_MSG_ATTR_FMT(extack, tb[REFNIC_A_BUS_NODE],
					"NUMA node %d is not online (-1: none)",
					cfg.node);
		goto out_unlock;
	}
	err = refnic_model_bus_set(refnic_nl_hw(dev), &cfg);
	if (err) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[REFNIC_A_DEV_BUS],
				    "the device model refused the bus configuration");
		goto out_unlock;
	}
	/* The card's: what dev-get shows of both ports changed. */
	priv = refnic_priv(dev);
	peer = priv->pair->netdev[!priv->port->index];
	refnic_nl_notify_dev(dev, REFNIC_CMD_LINK_CHANGE_NTF);
	if (peer)
		refnic_nl_notify_dev(peer, REFNIC_CMD_LINK_CHANGE_NTF);
out_unlock:
	rtnl_unlock();
	return err;
}

/* ---- stats-get ------------------------------------------------------------------ */

/* Attributes of one queue nest, at most. */
#define REFNIC_NL_QSTATS_U32	2
#define REFNIC_NL_QSTATS_U64	14

static size_t refnic_nl_stats_size(unsigned int queues)
{
	size_t qnest = nla_total_size(REFNIC_NL_QSTATS_U32 *
				      nla_total_size(sizeof(u32)) +
				      REFNIC_NL_QSTATS_U64 *
				      nla_total_size_64bit(sizeof(u64)));

	return nla_total_size(sizeof(u32)) +		/* ifindex */
	       6 * nla_total_size_64bit(sizeof(u64)) +	/* port counters */
	       2 * queues * qnest;
}

static int refnic_nl_put_u64(struct sk_buff *msg, int attr, u64 val)
{
	return nla_put_u64_64bit(msg, attr, val, REFNIC_A_QUEUE_STATS_PAD);
}

static int refnic_nl_vec_fill(struct sk_buff *msg,
			      const struct refnic_model_vec_stats *vs)
{
	if (refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_IRQ_RAISED, vs->raised) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_IRQ_MASKED,
			      vs->suppressed) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_IRQ_MODERATED,
			      vs->moderated))
		return -EMSGSIZE;
	return 0;
}

static int refnic_nl_rxq_fill(struct sk_buff *msg, unsigned int q,
			      const struct refnic_model_stats *s)
{
	const struct refnic_model_rxq_stats *rs = &s->rxq[q];
	struct nlattr *nest;

	nest = nla_nest_start(msg, REFNIC_A_STATS_QUEUE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, REFNIC_A_QUEUE_STATS_TYPE, REFNIC_QUEUE_TYPE_RX) ||
	    nla_put_u32(msg, REFNIC_A_QUEUE_STATS_ID, q) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DOORBELLS,
			      rs->doorbells) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_CQ_DOORBELLS,
			      rs->cq_doorbells) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DESC_FETCHED,
			      rs->desc_fetched) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DESC_WRITTEN,
			      rs->cmpl_written) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_FRAMES, rs->frames) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DMA_READ_BYTES,
			      rs->dma_read_bytes) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DMA_WRITE_BYTES,
			      rs->dma_write_bytes) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DROP_NOBUF,
			      rs->drop_nobuf) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DROP_CQ_FULL,
			      rs->drop_cq_full) ||
	    refnic_nl_vec_fill(msg, &s->vec[q])) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int refnic_nl_txq_fill(struct sk_buff *msg, unsigned int q,
			      const struct refnic_model_stats *s)
{
	const struct refnic_model_txq_stats *ts = &s->txq[q];
	struct nlattr *nest;

	nest = nla_nest_start(msg, REFNIC_A_STATS_QUEUE);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, REFNIC_A_QUEUE_STATS_TYPE, REFNIC_QUEUE_TYPE_TX) ||
	    nla_put_u32(msg, REFNIC_A_QUEUE_STATS_ID, q) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_MMIO_READS,
			      ts->mmio_reads) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_MMIO_WRITES,
			      ts->mmio_writes) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DOORBELLS,
			      ts->doorbells) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DESC_FETCHED,
			      ts->desc_fetched) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DESC_WRITTEN,
			      ts->desc_written) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_FRAMES, ts->frames) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DMA_READ_BYTES,
			      ts->dma_read_bytes) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_DMA_WRITE_BYTES,
			      ts->dma_write_bytes) ||
	    refnic_nl_put_u64(msg, REFNIC_A_QUEUE_STATS_BUSY_NS, ts->busy_ns) ||
	    refnic_nl_vec_fill(msg, &s->vec[q])) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* The model's counters of a port: port-wide ones, then for each queue
 * pair in use its RX and its TX queue, each with the pair's vector. RTNL.
 */
static int refnic_nl_stats_fill(struct sk_buff *msg, struct net_device *dev,
				struct refnic_model_stats *s, u32 portid,
				u32 seq, int flags, u8 cmd)
{
	unsigned int q, queues = refnic_priv(dev)->cfg.num_queues;
	u64 link_down = 0;
	void *hdr;

	refnic_model_stats_get(refnic_nl_hw(dev), s);
	for (q = 0; q < REFNIC_MAX_QUEUES; q++)
		link_down += s->txq[q].drop_link_down;

	hdr = genlmsg_put(msg, portid, seq, &refnic_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(msg, REFNIC_A_STATS_IFINDEX, dev->ifindex) ||
	    nla_put_u64_64bit(msg, REFNIC_A_STATS_MMIO_READS,
			      s->port.mmio_reads, REFNIC_A_STATS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_STATS_MMIO_WRITES,
			      s->port.mmio_writes, REFNIC_A_STATS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_STATS_MMIO_BAD, s->port.mmio_bad,
			      REFNIC_A_STATS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_STATS_RESETS, s->port.resets,
			      REFNIC_A_STATS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_STATS_LINK_DROP_LOSS,
			      s->port.link_drop_loss, REFNIC_A_STATS_PAD) ||
	    nla_put_u64_64bit(msg, REFNIC_A_STATS_LINK_DROP_DOWN, link_down,
			      REFNIC_A_STATS_PAD))
		goto err_cancel;
	for (q = 0; q < queues; q++)
		if (refnic_nl_rxq_fill(msg, q, s) ||
		    refnic_nl_txq_fill(msg, q, s))
			goto err_cancel;

	genlmsg_end(msg, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(msg, hdr);
	return -EMSGSIZE;
}

int refnic_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct refnic_model_stats *s;
	struct net_device *dev;
	struct sk_buff *rsp;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, REFNIC_A_STATS_IFINDEX))
		return -EINVAL;

	s = kvmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	rsp = genlmsg_new(refnic_nl_stats_size(REFNIC_MAX_QUEUES), GFP_KERNEL);
	if (!rsp) {
		err = -ENOMEM;
		goto out_free_stats;
	}

	rtnl_lock();
	dev = refnic_nl_port(genl_info_net(info),
			     info->attrs[REFNIC_A_STATS_IFINDEX], info->extack);
	if (IS_ERR(dev))
		err = PTR_ERR(dev);
	else
		err = refnic_nl_stats_fill(rsp, dev, s, info->snd_portid,
					   info->snd_seq, 0,
					   info->genlhdr->cmd);
	rtnl_unlock();

	if (err)
		nlmsg_free(rsp);
	else
		err = genlmsg_reply(rsp, info);
out_free_stats:
	kvfree(s);
	return err;
}

int refnic_nl_stats_get_dump_start(struct netlink_callback *cb)
{
	size_t size = refnic_nl_stats_size(REFNIC_MAX_QUEUES);

	/* One port's message must fit a dump skb, whose default size is
	 * too small for 16 queue pairs.
	 */
	cb->min_dump_alloc = nlmsg_total_size(genlmsg_total_size(size));
	return 0;
}

int refnic_nl_stats_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct refnic_nl_dump_ctx *ctx = refnic_nl_dump_ctx(cb);
	struct net *net = sock_net(skb->sk);
	struct refnic_model_stats *s;
	struct net_device *dev;
	int err = 0;

	s = kvmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;

	rtnl_lock();
	for_each_netdev_dump(net, dev, ctx->ifindex) {
		if (!refnic_is_port(dev))
			continue;
		err = refnic_nl_stats_fill(skb, dev, s,
					   NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI,
					   REFNIC_CMD_STATS_GET);
		if (err)
			break;
	}
	rtnl_unlock();

	kvfree(s);
	return err;
}

/* ---- fault-set, fault-get ------------------------------------------------------- */

/* The device model's faults, by REFNIC_FAULT_*; fail-alloc is the
 * driver's (struct refnic_priv.fail_alloc) and has no entry.
 */
static const enum refnic_model_fault refnic_nl_model_fault[] = {
	[REFNIC_FAULT_DROP_COMPLETION]	= REFNIC_MODEL_FAULT_DROP_CMPL,
	[REFNIC_FAULT_CORRUPT_DMA_ADDR]	= REFNIC_MODEL_FAULT_BAD_DMA,
	[REFNIC_FAULT_STALL_TXQ]	= REFNIC_MODEL_FAULT_STALL_TXQ,
	[REFNIC_FAULT_WEDGE_TXQ]	= REFNIC_MODEL_FAULT_WEDGE_TXQ,
	[REFNIC_FAULT_GRO_BAD_LEN]	= REFNIC_MODEL_FAULT_GRO_BAD_LEN,
	[REFNIC_FAULT_STALL_RXQ]	= REFNIC_MODEL_FAULT_STALL_RXQ,
	[REFNIC_FAULT_LOSE_IRQ]		= REFNIC_MODEL_FAULT_LOSE_IRQ,
};

#define REFNIC_NL_NUM_FAULTS	(REFNIC_FAULT_LOSE_IRQ + 1)

static void refnic_nl_fault_get(struct net_device *dev, u32 type,
				unsigned int q,
				struct refnic_model_fault_state *st)
{
	struct refnic_drv_fault *f;

	if (type != REFNIC_FAULT_FAIL_ALLOC) {
		refnic_model_fault_get(refnic_nl_hw(dev),
				       refnic_nl_model_fault[type], q, st);
		return;
	}
	f = &refnic_priv(dev)->fail_alloc[q];
	st->rate_ppm = READ_ONCE(f->rate_ppm);
	st->count = st->rate_ppm ? 0 : atomic_read(&f->count);
	st->injected = atomic64_read(&f->injected);
}

static int refnic_nl_fault_fill(struct sk_buff *msg, struct net_device *dev,
				u32 type, unsigned int q,
				const struct refnic_model_fault_state *st,
				u32 portid, u32 seq, int flags, u8 cmd)
{
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &refnic_nl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(msg, REFNIC_A_FAULT_IFINDEX, dev->ifindex) ||
	    nla_put_u32(msg, REFNIC_A_FAULT_TYPE, type) ||
	    nla_put_u32(msg, REFNIC_A_FAULT_QUEUE, q) ||
	    nla_put_u32(msg, REFNIC_A_FAULT_RATE, st->rate_ppm) ||
	    nla_put_u32(msg, REFNIC_A_FAULT_COUNT, st->count) ||
	    nla_put_u64_64bit(msg, REFNIC_A_FAULT_INJECTED, st->injected,
			      REFNIC_A_FAULT_PAD)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

static void refnic_nl_notify_fault(struct net_device *dev, u32 type,
				   unsigned int q)
{
	struct refnic_model_fault_state st;
	struct sk_buff *msg;

	if (!refnic_nl_listened(dev_net(dev)))
		return;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	refnic_nl_fault_get(dev, type, q, &st);
	if (refnic_nl_fault_fill(msg, dev, type, q, &st, 0, 0, 0,
				 REFNIC_CMD_FAULT_NTF)) {
		nlmsg_free(msg);
		return;
	}
	refnic_nl_multicast(dev_net(dev), msg);
}

int refnic_nl_fault_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[REFNIC_A_FAULT_IFINDEX];
	struct netlink_ext_ack *extack = info->extack;
	u32 type, q, rate = 0, count = 0;
	struct net_device *dev;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, REFNIC_A_FAULT_IFINDEX) ||
	    GENL_REQ_ATTR_CHECK(info, REFNIC_A_FAULT_TYPE) ||
	    GENL_REQ_ATTR_CHECK(info, REFNIC_A_FAULT_QUEUE))
		return -EINVAL;
	type = nla_get_u32(info->attrs[REFNIC_A_FAULT_TYPE]);
	q = nla_get_u32(info->attrs[REFNIC_A_FAULT_QUEUE]);
	if (info->attrs[REFNIC_A_FAULT_RATE])
		rate = nla_get_u32(info->attrs[REFNIC_A_FAULT_RATE]);
	if (info->attrs[REFNIC_A_FAULT_COUNT])
		count = nla_get_u32(info->attrs[REFNIC_A_FAULT_COUNT]);
	if (rate && count) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[REFNIC_A_FAULT_COUNT],
				    "rate and count are exclusive");
		return -EINVAL;
	}
	if (count > INT_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[REFNIC_A_FAULT_COUNT],
				    "count above 2147483647");
		return -ERANGE;
	}
	/* The policy checks both; the table lookups below rely on it. */
	if (type >= REFNIC_NL_NUM_FAULTS || q >= REFNIC_MAX_QUEUES)
		return -EINVAL;

	rtnl_lock();
	dev = refnic_nl_port(genl_info_net(info), attr, extack);
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto out_unlock;
	}
	err = refnic_nl_may_change(skb, dev, attr, extack);
	if (err)
		goto out_unlock;

	if (type == REFNIC_FAULT_FAIL_ALLOC)
		refnic_fault_arm(&refnic_priv(dev)->fail_alloc[q], rate, count);
	else
		err = refnic_model_fault_set(refnic_nl_hw(dev),
					     refnic_nl_model_fault[type], q,
					     rate, count);
	if (err) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[REFNIC_A_FAULT_TYPE],
				    "the device model refused the fault");
		goto out_unlock;
	}
	refnic_nl_notify_fault(dev, type, q);
out_unlock:
	rtnl_unlock();
	return err;
}

int refnic_nl_fault_get_dump_start(struct netlink_callback *cb)
{
	const struct genl_info *info = genl_info_dump(cb);
	struct nlattr *attr = info->attrs[REFNIC_A_FAULT_IFINDEX];
	struct net_device *dev;

	/* A filter naming no refnic device is refused here, where the
	 * request's extack can still say why.
	 */
	if (!attr)
		return 0;
	rtnl_lock();
	dev = refnic_nl_port(sock_net(cb->skb->sk), attr, info->extack);
	rtnl_unlock();
	return PTR_ERR_OR_ZERO(dev);
}

/* Every fault of a port that is armed or ever struck, from ctx->idx on. */
static int refnic_nl_fault_dump_dev(struct sk_buff *skb,
				    struct netlink_callback *cb,
				    struct net_device *dev,
				    struct refnic_nl_dump_ctx *ctx)
{
	struct refnic_model_fault_state st;
	unsigned int type, q;
	int err;

	for (; ctx->idx < REFNIC_NL_NUM_FAULTS * REFNIC_MAX_QUEUES; ctx->idx++) {
		type = ctx->idx / REFNIC_MAX_QUEUES;
		q = ctx->idx % REFNIC_MAX_QUEUES;
		refnic_nl_fault_get(dev, type, q, &st);
		if (!st.rate_ppm && !st.count && !st.injected)
			continue;
		err = refnic_nl_fault_fill(skb, dev, type, q, &st,
					   NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI,
					   REFNIC_CMD_FAULT_GET);
		if (err)
			return err;
	}
	ctx->idx = 0;
	return 0;
}

int refnic_nl_fault_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	const struct genl_info *info = genl_info_dump(cb);
	struct nlattr *attr = info->attrs[REFNIC_A_FAULT_IFINDEX];
	struct refnic_nl_dump_ctx *ctx = refnic_nl_dump_ctx(cb);
	struct net *net = sock_net(skb->sk);
	struct net_device *dev;
	int err = 0;

	rtnl_lock();
	if (attr) {
		/* Checked at start; it may have gone since. */
		dev = __dev_get_by_index(net, nla_get_u32(attr));
		if (dev && refnic_is_port(dev))
			err = refnic_nl_fault_dump_dev(skb, cb, dev, ctx);
		else if (!ctx->idx)
			err = -ENODEV;
		goto out_unlock;
	}
	for_each_netdev_dump(net, dev, ctx->ifindex) {
		if (!refnic_is_port(dev))
			continue;
		err = refnic_nl_fault_dump_dev(skb, cb, dev, ctx);
		if (err)
			break;
	}
out_unlock:
	rtnl_unlock();
	return err;
}

/* ---- setup ---------------------------------------------------------------------- */

/* Ports moving between namespaces, and link state changes. Ports being
 * created or deleted are announced by refnic_rtnl.c, where both ends are
 * known; they are not yet, or no longer, in their pair's netdev[].
 */
static int refnic_nl_netdev_event(struct notifier_block *nb,
				  unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct refnic_priv *priv;

	if (!refnic_is_port(dev))
		return NOTIFY_DONE;
	priv = refnic_priv(dev);
	if (!priv->pair || priv->pair->netdev[priv->port->index] != dev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_REGISTER:
		refnic_nl_notify_dev(dev, REFNIC_CMD_DEV_ADD_NTF);
		break;
	case NETDEV_UNREGISTER:
		refnic_nl_notify_dev(dev, REFNIC_CMD_DEV_DEL_NTF);
		break;
	case NETDEV_CHANGE:
		refnic_nl_notify_dev(dev, REFNIC_CMD_LINK_CHANGE_NTF);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block refnic_nl_netdev_nb = {
	.notifier_call = refnic_nl_netdev_event,
};

/**
 * refnic_genl_init() - register the refnic netlink family
 *
 * After the "refnic" link kind, so that every request finds it.
 *
 * Return: 0 or a negative errno, with nothing registered.
 */
int refnic_genl_init(void)
{
	int err;

	err = register_netdevice_notifier(&refnic_nl_netdev_nb);
	if (err)
		return err;
	err = genl_register_family(&refnic_nl_family);
	if (err)
		goto err_notifier;

	rtnl_lock();
	refnic_nl_live = true;
	rtnl_unlock();
	return 0;

err_notifier:
	unregister_netdevice_notifier(&refnic_nl_netdev_nb);
	return err;
}

/**
 * refnic_genl_exit() - unregister the refnic netlink family
 *
 * Before the "refnic" link kind: once genl_unregister_family() returns no
 * request of the family runs or can start, so none can create a pair while
 * the link kind deletes them all. Ports deleted from then on (module
 * unload) are not announced.
 */
void refnic_genl_exit(void)
{
	rtnl_lock();
	refnic_nl_live = false;
	rtnl_unlock();
	genl_unregister_family(&refnic_nl_family);
	unregister_netdevice_notifier(&refnic_nl_netdev_nb);
}
