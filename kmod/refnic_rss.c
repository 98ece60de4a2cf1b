// SPDX-License-Identifier: GPL-2.0
/* Copyright (c) 2026 The refnic authors
 *
 * Receive side scaling: the hash key and indirection table, kept in the
 * priv (ethtool -x reads them from there) and written to the device at
 * open and whenever they change.
 */

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <net/netdev_rx_queue.h>

#include "refnic.h"
#include "refnic_regs.h"

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
	netdev_rss_key_fill(priv->rss_key, sizeof(priv->rss_key));
	refnic_rss_default_table(priv, priv->cfg.num_queues);
}

/**
 * refnic_rss_set_queues() - fit the table to a new number of queues
 * @priv: port
 * @n: RX queues in use from now on
 *
 * A table the user set (ethtool -X) is kept while every entry still names
 * a queue; otherwise the default table for @n queues replaces it. Writes
 * the device if the port is up.
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

/**
 * refnic_rss_program() - write key, table and queue count to the device
 * @priv: port
 */
void refnic_rss_program(struct refnic_priv *priv)
{
	const u8 *k = priv->rss_key;
	unsigned int i;

	for (i = 0; i < REFNIC_RSS_KEY_SIZE / 4; i++, k += 4)
		refnic_wr32(priv, REFNIC_REG_RSS_KEY(i),
			    k[0] | k[1] << 8 | k[2] << 16 | (u32)k[3] << 24);

	/* Four one-byte entries per register, entry 4i in bits 7:0. */
	for (i = 0; i < REFNIC_RSS_TABLE_SIZE / 4; i++) {
		u32 e[4], j;

		for (j = 0; j < 4; j++)
			e[j] = refnic_rss_entry(priv, priv->rss_indir[4 * i + j]);
		refnic_wr32(priv, REFNIC_REG_RSS_TABLE(i),
			    e[0] | e[1] << 8 | e[2] << 16 | e[3] << 24);
	}

	refnic_wr32(priv, REFNIC_REG_RSS_QUEUES, priv->cfg.num_queues);
}
