// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * One port as a netdev: probe (identify, reset, features), the netdev ops,
 * and recovery (TX timeout, queue errors, RX stalls the service task finds)
 * through a work item under RTNL.
 * A port whose device could not be stopped fails (refnic_port_fail()):
 * recovery gives up on it, and bringing it up is refused, with a message
 * from the NETDEV_PRE_UP notifier below.
 */

#include <linux/bitfield.h>
#include <linux/capability.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/iopoll.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "refnic.h"
#include "refnic_bypass.h"
#include "refnic_policy.h"
#include "refnic_regs.h"
#include "refnic_rtnl.h"
#include "refnic_trace.h"

/* Largest MTU: the MAC takes frames up to REFNIC_MAX_FRAME, and a frame is
 * the MTU plus an Ethernet header with room for one VLAN tag.
 */
#define REFNIC_L2_OVERHEAD	(ETH_HLEN + VLAN_HLEN)
#define REFNIC_MAX_MTU		(REFNIC_MAX_FRAME - REFNIC_L2_OVERHEAD)

/**
 * refnic_hw_reset() - reset the port and wait for it
 * @priv: port
 *
 * Afterwards every queue is disabled, every vector masked and every
 * register at its reset value; the counters keep counting.
 *
 * Return: 0 or -ETIMEDOUT.
 */
int refnic_hw_reset(struct refnic_priv *priv)
{
	u32 status;
	int err;

	refnic_wr32(priv, REFNIC_REG_CTRL, REFNIC_CTRL_RESET);
	err = read_poll_timeout(refnic_rd32, status,
				status & REFNIC_STATUS_RESET_DONE, 100,
				REFNIC_RESET_TIMEOUT_US, false, priv,
				REFNIC_REG_STATUS);
	if (err)
		netdev_err(priv->netdev, "reset timed out\n");

	return err;
}

static void refnic_write_mac(struct refnic_priv *priv)
{
	const u8 *a = priv->netdev->dev_addr;

	refnic_wr32(priv, REFNIC_REG_MAC_LO,
		    a[0] | a[1] << 8 | a[2] << 16 | (u32)a[3] << 24);
	refnic_wr32(priv, REFNIC_REG_MAC_HI, a[4] | a[5] << 8);
}

static void refnic_write_max_frame(struct refnic_priv *priv)
{
	refnic_wr32(priv, REFNIC_REG_MAX_FRAME,
		    READ_ONCE(priv->netdev->mtu) + REFNIC_L2_OVERHEAD);
}

/* Updates bits of RX_CTRL from its shadow; any context. */
static void refnic_rx_ctrl_update(struct refnic_priv *priv, u32 clear,
				  u32 set)
{
	spin_lock_bh(&priv->rx_ctrl_lock);
	priv->rx_ctrl = (priv->rx_ctrl & ~clear) | set;
	refnic_wr32(priv, REFNIC_REG_RX_CTRL, priv->rx_ctrl);
	spin_unlock_bh(&priv->rx_ctrl_lock);
}

/**
 * refnic_write_gro_timers() - program the hardware GRO timers
 * @priv: port; RTNL and the instance lock held
 */
void refnic_write_gro_timers(struct refnic_priv *priv)
{
	refnic_wr32(priv, REFNIC_REG_RX_GRO_IDLE, priv->hw_gro_idle_us);
	refnic_wr32(priv, REFNIC_REG_RX_GRO_TIMEOUT, priv->hw_gro_timeout_us);
}

/**
 * refnic_hw_program() - program the port-wide state and turn the MAC on
 * @priv: port
 *
 * At open, and after a reset forced while stopping queues. Queues and
 * their vectors are programmed when they start.
 */
void refnic_hw_program(struct refnic_priv *priv)
{
	refnic_write_mac(priv);
	refnic_write_max_frame(priv);
	refnic_write_gro_timers(priv);
	refnic_rx_ctrl_update(priv, 0, 0);
	refnic_rss_program(priv);
	refnic_ntuple_program(priv);
	if (priv->misc_irq) {
		refnic_wr32(priv, REFNIC_REG_INTR_ITR(REFNIC_MISC_VECTOR), 0);
		refnic_wr32(priv, REFNIC_REG_INTR_UNMASK(REFNIC_MISC_VECTOR),
			    1);
	}
	refnic_wr32(priv, REFNIC_REG_CTRL, REFNIC_CTRL_ENABLE);
}

/* ---- Recovery ------------------------------------------------------------ */

/**
 * refnic_schedule_reset() - ask for a queue pair (or all) to be restarted
 * @priv: port
 * @q: queue pair, or -1 for all of them
 *
 * Any context.
 */
void refnic_schedule_reset(struct refnic_priv *priv, int q)
{
	if (q < 0)
		WRITE_ONCE(priv->reset_all, true);
	else
		set_bit(q, &priv->reset_pending);
	schedule_work(&priv->reset_work);
}

static void refnic_reset_work(struct work_struct *work)
{
	struct refnic_priv *priv = container_of(work, struct refnic_priv,
						reset_work);
	unsigned long pending;
	unsigned int q;
	bool all;
	int err;

	/* RTNL for the features and RSS table updates of a full restart,
	 * then the instance lock, as the core takes them.
	 */
	rtnl_lock();
	netdev_lock(priv->netdev);
	pending = xchg(&priv->reset_pending, 0);
	all = xchg(&priv->reset_all, false);
	/* A failed port's queues are kept away from the device for good. */
	if (!netif_running(priv->netdev) || priv->failed)
		goto out;

	for_each_set_bit(q, &pending, REFNIC_MAX_QUEUES) {
		/* A session's detach below may have failed the port. */
		if (all || priv->failed || q >= priv->cfg.num_queues)
			break;
		/* A session's queue halted: the session ends, and the
		 * queue pair comes back to the stack restarted.
		 */
		if (priv->bypass[q]) {
			refnic_bypass_detach_queue(priv, q);
			continue;
		}
		err = refnic_qpair_restart(priv, q);
		trace_refnic_reset(priv->netdev, q, err);
		if (err == -ETIMEDOUT) {
			all = true;
		} else if (err) {
			netdev_err(priv->netdev,
				   "queue pair %u restart failed: %d\n", q,
				   err);
		} else {
			netdev_info(priv->netdev, "queue pair %u restarted\n",
				    q);
			atomic64_inc(&priv->queue_resets);
		}
	}

	if (all && !priv->failed) {
		refnic_bypass_detach_all(priv);
		err = refnic_reconfigure(priv, &priv->cfg);
		trace_refnic_reset(priv->netdev, -1, err);
		if (err)
			netdev_err(priv->netdev, "restart failed: %d\n", err);
		else
			atomic64_inc(&priv->queue_resets);
	}
out:
	netdev_unlock(priv->netdev);
	rtnl_unlock();
}

/* ---- netdev ops ---------------------------------------------------------- */

static int refnic_ndo_init(struct net_device *dev)
{
	struct refnic_priv *priv = refnic_priv(dev);

	/* Lock classes of refnic's own (as veth): control paths may hold
	 * both ports' instance locks under RTNL. Here, not in setup: the TX
	 * queues whose locks it classes exist only now.
	 */
	netdev_lockdep_set_classes(dev);

	/* Paired with refnic_priv_destructor(), which the core calls
	 * exactly when ndo_init succeeded.
	 */
	refcount_inc(&priv->pair->refs);
	return 0;
}

/* The core calls the destructor in two ways. After unregistration,
 * netdev_run_todo() calls it with neither RTNL nor the instance lock held,
 * so the reset work and the debugfs handlers, which take both, and the
 * service task, which takes one, can be waited for. When
 * register_netdevice() fails after ndo_init (an ifindex taken, a
 * notifier's veto), it calls it with RTNL held: waiting there for anything
 * that takes RTNL would never end. So the port's work items stay disabled
 * from setup until register_netdevice() has succeeded (queueing a disabled
 * item does nothing): a port that never registered has none pending or
 * running, whatever queues them (its IRQs, NAPI and TX watchdog run only
 * once it is open; its debugfs files and bypass binds exist only once it
 * is registered; ndo_open starts the service task), and
 * disable_work_sync() returns at once.
 */
static void refnic_priv_destructor(struct net_device *netdev)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	/* Unregistered and closed, or never registered: the debugfs
	 * directory (created once both ends are) goes first, then the
	 * service task and the link work, which may queue the reset work,
	 * then the reset work.
	 */
	refnic_debugfs_port_exit(priv);
	refnic_service_stop_sync(priv);
	disable_work_sync(&priv->link_work);
	disable_work_sync(&priv->reset_work);
	refnic_pair_put(priv->pair);
}

/**
 * refnic_port_registered() - register_netdevice() succeeded for a port
 * @netdev: the port
 *
 * From now on the port's work items may be queued: its destructor is
 * called from netdev_run_todo(), without RTNL (refnic_priv_destructor()).
 * Under RTNL, before anything can open the port.
 */
void refnic_port_registered(struct net_device *netdev)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	ASSERT_RTNL();
	enable_work(&priv->link_work);
	enable_work(&priv->reset_work);
	refnic_service_enable(priv);
}

static int refnic_open(struct net_device *netdev)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	int err;

	/* The NETDEV_PRE_UP notifier refused already, with a message. */
	err = refnic_port_check_failed(priv, NULL);
	if (err)
		return err;
	err = refnic_up(priv);
	if (!err)
		refnic_service_start(priv);
	return err;
}

static int refnic_stop(struct net_device *netdev)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	refnic_service_stop(priv);
	refnic_down(priv);
	return 0;
}

/* A TX timeout with the oldest frame done is an interrupt lost, not a
 * queue stuck: NAPI is kicked first, as gve does, and the queue pair is
 * restarted only if it times out again within REFNIC_TX_KICK_GAP.
 */
#define REFNIC_TX_KICK_GAP	(10 * HZ)

static void refnic_tx_timeout(struct net_device *netdev, unsigned int q)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_txq *txq = READ_ONCE(priv->txq[q]);
	struct refnic_vector *v = &priv->vec[q];

	atomic64_inc(&priv->tx_timeouts);
	/* The watchdog holds every TX queue's lock. */
	if (txq && refnic_tx_done_waiting(txq) &&
	    time_after(jiffies, v->tx_kicked + REFNIC_TX_KICK_GAP)) {
		v->tx_kicked = jiffies;
		if (napi_schedule(&v->napi)) {
			atomic64_inc(&priv->lost_irqs);
			netdev_warn(netdev,
				    "TX queue %u timed out with completions waiting: interrupt lost, NAPI scheduled\n",
				    q);
			return;
		}
	}
	netdev_warn(netdev, "TX queue %u timed out, restarting it\n", q);
	refnic_schedule_reset(priv, q);
}

static int refnic_change_mtu(struct net_device *netdev, int mtu)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	/* RX buffers do not depend on the MTU (frames span buffers), so
	 * only the MAC's frame limit changes.
	 */
	WRITE_ONCE(netdev->mtu, mtu);
	refnic_write_max_frame(priv);

	return 0;
}

static int refnic_set_mac_address(struct net_device *netdev, void *addr)
{
	int err;

	err = eth_prepare_mac_addr_change(netdev, addr);
	if (err)
		return err;
	eth_commit_mac_addr_change(netdev, addr);
	refnic_write_mac(refnic_priv(netdev));

	return 0;
}

static void refnic_set_rx_mode(struct net_device *netdev)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	if (netdev->flags & IFF_PROMISC)
		refnic_rx_ctrl_update(priv, 0, REFNIC_RX_CTRL_PROMISC);
	else
		refnic_rx_ctrl_update(priv, REFNIC_RX_CTRL_PROMISC, 0);
}

#if REFNIC_KERNEL_7
/* 7.3 wants ops-locked drivers to take address list changes in process
 * context; refnic filters no addresses, so only promiscuity matters.
 */
static int refnic_set_rx_mode_async(struct net_device *netdev,
				    struct netdev_hw_addr_list *uc,
				    struct netdev_hw_addr_list *mc)
{
	refnic_set_rx_mode(netdev);
	return 0;
}
#endif

/* Hardware GRO rules (RX_CTRL) that follow the kernel's own GRO: 7.x
 * merges CWR segments into runs whose first had CWR (tcp_gro_receive(),
 * SKB_GSO_TCP_ACCECN) and fixed IPv4 IDs without DF, one flag per IPv4
 * header (SKB_GSO_TCP_FIXEDID, SKB_GSO_TCP_FIXEDID_INNER); 6.12 does
 * neither.
 */
#if REFNIC_KERNEL_7
#define REFNIC_RX_CTRL_GRO_RULES	(REFNIC_RX_CTRL_GRO_CWR | \
					 REFNIC_RX_CTRL_GRO_FIXEDID_NODF)
#else
#define REFNIC_RX_CTRL_GRO_RULES	0
#endif

static u32 refnic_features_rx_ctrl(netdev_features_t features)
{
	u32 ctrl = 0;

	if (features & NETIF_F_RXCSUM)
		ctrl |= REFNIC_RX_CTRL_CSUM;
	if (features & NETIF_F_RXHASH)
		ctrl |= REFNIC_RX_CTRL_RSS;
	if (features & NETIF_F_GRO_HW)
		ctrl |= REFNIC_RX_CTRL_HW_GRO | REFNIC_RX_CTRL_GRO_RULES;

	return ctrl;
}

/* A bypass queue pair takes frames as the wire carried them, and gets
 * flows only because RSS steers around it: while one is bound, hardware
 * GRO stays off and RSS on.
 */
static netdev_features_t refnic_fix_features(struct net_device *netdev,
					     netdev_features_t features)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	if (!READ_ONCE(priv->bypass_mask))
		return features;
	if (features & NETIF_F_GRO_HW)
		netdev_info(netdev, "rx-gro-hw stays off while a bypass session is bound\n");
	if (!(features & NETIF_F_RXHASH))
		netdev_info(netdev, "rxhash stays on while a bypass session is bound\n");
	return (features & ~NETIF_F_GRO_HW) | NETIF_F_RXHASH;
}

static int refnic_set_features(struct net_device *netdev,
			       netdev_features_t features)
{
	struct refnic_priv *priv = refnic_priv(netdev);

	/* ntuple off deletes every rule (ncdevmem resets steering so). */
	if (netdev->features & ~features & NETIF_F_NTUPLE)
		refnic_ntuple_clear(priv);

	refnic_rx_ctrl_update(priv,
			      REFNIC_RX_CTRL_CSUM | REFNIC_RX_CTRL_RSS |
			      REFNIC_RX_CTRL_HW_GRO | REFNIC_RX_CTRL_GRO_RULES,
			      refnic_features_rx_ctrl(features));

	return 0;
}

static const struct net_device_ops refnic_netdev_ops = {
	.ndo_init		= refnic_ndo_init,
	.ndo_open		= refnic_open,
	.ndo_stop		= refnic_stop,
	.ndo_select_queue	= refnic_select_queue,
	.ndo_start_xmit		= refnic_start_xmit,
	.ndo_features_check	= refnic_features_check,
	.ndo_get_stats64	= refnic_get_stats64,
#if REFNIC_KERNEL_7
	.ndo_set_rx_mode_async	= refnic_set_rx_mode_async,
#else
	.ndo_set_rx_mode	= refnic_set_rx_mode,
#endif
	.ndo_set_mac_address	= refnic_set_mac_address,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_change_mtu		= refnic_change_mtu,
	.ndo_fix_features	= refnic_fix_features,
	.ndo_set_features	= refnic_set_features,
	.ndo_tx_timeout		= refnic_tx_timeout,
};

/* ---- Probe --------------------------------------------------------------- */

/**
 * refnic_netdev_setup() - rtnl_link_ops setup: what needs no hardware
 * @netdev: freshly allocated netdev
 */
void refnic_netdev_setup(struct net_device *netdev)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	unsigned int i;

	ether_setup(netdev);
	netdev->netdev_ops = &refnic_netdev_ops;
	netdev->ethtool_ops = &refnic_ethtool_ops;
	netdev->stat_ops = &refnic_stat_ops;
	netdev->queue_mgmt_ops = &refnic_queue_mgmt_ops;
	netdev->needs_free_netdev = true;
	netdev->priv_destructor = refnic_priv_destructor;
	netdev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	netdev->min_mtu = ETH_MIN_MTU;
	netdev->max_mtu = REFNIC_MAX_MTU;
	netdev->watchdog_timeo = 5 * HZ;

	priv->netdev = netdev;
	priv->bypass_whole_port = -1;
	priv->hw_gro_idle_us = REFNIC_HW_GRO_IDLE_US;
	priv->hw_gro_timeout_us = REFNIC_HW_GRO_TIMEOUT_US;
	spin_lock_init(&priv->hw_stats_lock);
	spin_lock_init(&priv->rx_ctrl_lock);
	INIT_WORK(&priv->link_work, refnic_link_work);
	INIT_WORK(&priv->reset_work, refnic_reset_work);
	/* Until the port is registered (refnic_priv_destructor()); the
	 * service task likewise (refnic_service_init()).
	 */
	disable_work(&priv->link_work);
	disable_work(&priv->reset_work);
	refnic_service_init(priv);
	for (i = 0; i < REFNIC_MAX_QUEUES; i++) {
		refnic_vector_init(priv, i);
		u64_stats_init(&priv->nstats[i].syncp);
		u64_stats_init(&priv->xstats[i].syncp);
	}
}

static void refnic_set_features_from_caps(struct refnic_priv *priv)
{
	struct net_device *netdev = priv->netdev;
	netdev_features_t hw = NETIF_F_SG;

	if (priv->caps & REFNIC_CAP_TX_CSUM) {
		hw |= NETIF_F_HW_CSUM;
		if (priv->caps & REFNIC_CAP_TSO)
			hw |= NETIF_F_TSO | NETIF_F_TSO6;
		if (priv->caps & REFNIC_CAP_USO)
			hw |= NETIF_F_GSO_UDP_L4;
	}
	if (priv->caps & REFNIC_CAP_RX_CSUM)
		hw |= NETIF_F_RXCSUM;
	if (priv->caps & REFNIC_CAP_RSS)
		hw |= NETIF_F_RXHASH;
	if (priv->caps & REFNIC_CAP_FLOW_STEER)
		hw |= NETIF_F_NTUPLE;
	if (priv->caps & REFNIC_CAP_HW_GRO)
		hw |= NETIF_F_GRO_HW;

	netdev->hw_features = hw;
	/* Hardware GRO is opt-in (ethtool -K DEV rx-gro-hw on). */
	netdev->features = (hw & ~NETIF_F_GRO_HW) | NETIF_F_HIGHDMA;
	/* Offloads that work whatever the L2 header looks like. */
	netdev->vlan_features = netdev->features & (NETIF_F_SG |
						    NETIF_F_HW_CSUM |
						    NETIF_F_HIGHDMA);
	netif_set_tso_max_size(netdev, REFNIC_MAX_TSO_SIZE);

	priv->rx_ctrl = refnic_features_rx_ctrl(netdev->features);
}

/**
 * refnic_port_probe() - bind a netdev to one port of a card
 * @netdev: the port's netdev, not registered yet
 * @pair: the card
 * @index: which port
 * @cfg: initial ring configuration
 * @extack: for errors
 *
 * Identifies and resets the hardware and sets the netdev up; allocates
 * nothing that would need undoing (queues are built at open).
 *
 * Return: 0 or a negative errno.
 */
int refnic_port_probe(struct net_device *netdev, struct refnic_pair *pair,
		      unsigned int index, const struct refnic_qcfg *cfg,
		      struct netlink_ext_ack *extack)
{
	struct refnic_priv *priv = refnic_priv(netdev);
	struct refnic_bus_port *port = pair->card.port[index];
	u32 id, rev, maxq;
	int err;

	priv->pair = pair;
	priv->port = port;
	priv->dma_dev = port->dev;
	SET_NETDEV_DEV(netdev, port->dev);

	err = dma_set_mask_and_coherent(port->dev, DMA_BIT_MASK(64));
	if (err) {
		NL_SET_ERR_MSG(extack, "refnic: no usable DMA mask");
		return err;
	}
	/* The device reads and writes any contiguous range: a dmabuf bound
	 * for devmem TCP is mapped in segments of any length (a udmabuf's
	 * are 128 KiB and more; the default limit is 64 KiB).
	 */
	dma_set_max_seg_size(port->dev, UINT_MAX);

	id = refnic_rd32(priv, REFNIC_REG_ID);
	rev = refnic_rd32(priv, REFNIC_REG_REVISION);
	if (id != REFNIC_DEV_ID) {
		NL_SET_ERR_MSG_FMT(extack, "refnic: unknown device id %#x", id);
		return -ENODEV;
	}
	if (rev != REFNIC_DEV_REVISION)
		dev_warn(port->dev, "revision %u, driver knows %u\n", rev,
			 REFNIC_DEV_REVISION);

	err = refnic_hw_reset(priv);
	if (err) {
		NL_SET_ERR_MSG(extack, "refnic: reset timed out");
		return err;
	}

	priv->caps = refnic_rd32(priv, REFNIC_REG_CAPS);
	maxq = FIELD_GET(REFNIC_CAP_MAX_QUEUES, priv->caps);
	maxq = min3(maxq, REFNIC_MAX_QUEUES, netdev->num_tx_queues);
	priv->max_queues = min(maxq, netdev->num_rx_queues);
	if (!priv->max_queues || cfg->num_queues > priv->max_queues) {
		NL_SET_ERR_MSG_FMT(extack,
				   "refnic: %u queues asked, port has %u",
				   cfg->num_queues, priv->max_queues);
		return -EINVAL;
	}
	priv->cfg = *cfg;

	/* The device's counters run from power-on: count from here. */
	refnic_hw_stats_init(priv);

	refnic_set_features_from_caps(priv);
#if REFNIC_KERNEL_7
	/* The TX path takes net_iov frags (refnic_start_xmit()), whose
	 * payload only the device can checksum. Not for a card plugged in
	 * from a user namespace (allow_userns): its owner could delete the
	 * pair under a TX binding, the core's use-after-free (refnic_policy.c).
	 */
	if (refnic_devmem_tx_enabled() && capable(CAP_NET_ADMIN) &&
	    (netdev->hw_features & NETIF_F_HW_CSUM))
		netdev->netmem_tx = NETMEM_TX_DMA;
#endif

	/* A user-given address (IFLA_ADDRESS) is set already. */
	if (!is_valid_ether_addr(netdev->dev_addr))
		eth_hw_addr_random(netdev);
	refnic_write_mac(priv);

	spin_lock_init(&priv->itr_lock);
	priv->rx_refill_batch = REFNIC_RX_REFILL_BATCH;
	priv->napi_weight = NAPI_POLL_WEIGHT;
	priv->adaptive_rx = true;
	priv->adaptive_tx = true;
	priv->rx_usecs = REFNIC_DEFAULT_ITR_USECS;
	priv->tx_usecs = REFNIC_DEFAULT_ITR_USECS;
	priv->rx_frames = REFNIC_DEFAULT_ITR_FRAMES;
	priv->tx_frames = REFNIC_DEFAULT_ITR_FRAMES;
	refnic_rss_init(priv);

	err = netif_set_real_num_tx_queues(netdev, cfg->num_queues);
	if (!err)
		err = netif_set_real_num_rx_queues(netdev, cfg->num_queues);
	if (err)
		return err;

	netif_carrier_off(netdev);

	return 0;
}

/**
 * refnic_pair_put() - drop a reference to a card
 * @pair: the card
 *
 * The last reference unplugs the card: by then both netdevs are
 * unregistered and closed, so every queue is disabled and every IRQ freed.
 * What a failed port kept goes only then: the device may write it until
 * its engines are stopped, which unplugging does.
 */
void refnic_pair_put(struct refnic_pair *pair)
{
	unsigned int i;

	if (!refcount_dec_and_test(&pair->refs))
		return;

	refnic_bus_card_remove(&pair->card);
	for (i = 0; i < ARRAY_SIZE(pair->kept); i++)
		refnic_quarantine_release(&pair->kept[i]);
	kfree(pair);
	/* Counted by refnic_pair_create() against max_cards. */
	refnic_card_unreserve();
}

/* `ip link set up` of a failed port: __dev_open() asks NETDEV_PRE_UP with
 * an extack before ndo_open, which has none; RTNL (and on 7.3 the instance
 * lock) is held. Not netif_device_detach(), as idpf marks a port whose
 * reset failed: that refuses ethtool too, and ethtool -S quiesce_failures
 * is how the user sees why.
 */
static int refnic_netdev_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct netlink_ext_ack *extack;

	if (event != NETDEV_PRE_UP || !refnic_is_port(dev))
		return NOTIFY_DONE;
	extack = netdev_notifier_info_to_extack(ptr);
	return notifier_from_errno(refnic_port_check_failed(refnic_priv(dev),
							    extack));
}

static struct notifier_block refnic_netdev_nb = {
	.notifier_call = refnic_netdev_event,
};

/**
 * refnic_netdev_init() - watch refnic ports being brought up
 *
 * Return: 0 or a negative errno.
 */
int refnic_netdev_init(void)
{
	return register_netdevice_notifier(&refnic_netdev_nb);
}

/**
 * refnic_netdev_exit() - stop watching refnic ports being brought up
 */
void refnic_netdev_exit(void)
{
	unregister_netdevice_notifier(&refnic_netdev_nb);
}
