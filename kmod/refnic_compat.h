/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * The two kernels refnic supports, Linux 6.12 and 7.3 or later, in one
 * source tree. The code is written against 7.3; this header gives 6.12
 * the 7.3 calls the driver uses, so that the rest of the tree needs only a
 * few guarded blocks (signatures that changed: rtnl_link_ops.newlink, the
 * queue management ops, ethtool's RX ring count and flow hash ops). Calls
 * the device model needs too are in refnic_kcompat.h.
 *
 * The netdev instance lock. On 7.3 refnic is "ops locked" (it has
 * queue_mgmt_ops): the core calls ndo_open/ndo_stop, the queue ops, the
 * ethtool and qstat ops with netdev->lock held, and refnic's own entry
 * points that change queues (the reset work, debugfs, /dev/refnic) take
 * it, after RTNL; its netlink family takes RTNL only, as it reads what
 * both locks guard. 6.12 has no instance lock: RTNL is held on every one
 * of those paths, so on 6.12
 *   netdev_lock(), netdev_unlock()	do nothing (RTNL is the lock),
 *   netdev_assert_locked()		is ASSERT_RTNL(),
 *   napi_{enable,disable}_locked()	are napi_{enable,disable}(),
 *   netif_napi_*_locked()		are the unlocked variants,
 *   netif_napi_add_config_locked()	is netif_napi_add(): 6.12 keeps no
 *					per-NAPI config across a delete, and
 *   refnic_napi_add_config_weight()	is netif_napi_add_weight().
 * A path that needs only the instance lock (the service task) takes it
 * with refnic_instance_lock(): netdev_lock() on 7.3, rtnl_lock() on 6.12.
 * These come with the core's ops locking, which no 6.12.y can gain by a
 * backport, so they key on the version; the plain API calls below stand
 * in only where Kbuild found the kernel without them (REFNIC_HAVE_*).
 */

#ifndef _REFNIC_COMPAT_H_
#define _REFNIC_COMPAT_H_

#include <linux/dim.h>
#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

#include "refnic_kcompat.h"

#if REFNIC_KERNEL_7
#include <net/netdev_lock.h>
#endif

/* The DMA device's lifetime. page_pool holds no reference on the device
 * it maps pages for (pool->p.dev). On a kernel whose page_pool tracks its
 * mappings (pool->dma_mapped: upstream commit ee62ce7a1d90 "page_pool:
 * Track DMA-mapped pages and unmap them when destroying the pool", Linux
 * 6.15, and 6.12.34 by backport), page_pool_destroy() unmaps every page
 * still in flight (held in a socket's receive queue, say), and a page
 * that comes back later is not unmapped again. Before it, such a page is
 * unmapped against pool->p.dev whenever it comes back: after the pair is
 * deleted, its device freed and the module perhaps unloaded. refnic
 * destroys its pools while their device lives (refnic_bus.h) and needs
 * the former; without the index bits to track a mapping the tracking is
 * off (refnic_rx_pp_params() checks them).
 */
#ifndef REFNIC_HAVE_PP_DMA_MAPPED
#error "refnic needs page_pool_destroy() to unmap in-flight pages (ee62ce7a1d90): 6.12.34 or later"
#endif

#ifdef REFNIC_HAVE_PAGE_POOL_PUT_NETMEM_BULK
/* page_pool_put_netmem_bulk() gathers the pages to recycle on its stack,
 * XDP_BULK_QUEUE_SIZE of them.
 */
#define REFNIC_PP_BULK_MAX	XDP_BULK_QUEUE_SIZE
#else
/* 6.12's page_pool_put_page_bulk() works in the caller's array. */
#define REFNIC_PP_BULK_MAX	64
#endif

#if REFNIC_KERNEL_7

static inline void refnic_instance_lock(struct net_device *dev)
{
	netdev_lock(dev);
}

static inline void refnic_instance_unlock(struct net_device *dev)
{
	netdev_unlock(dev);
}

#else

static inline void refnic_instance_lock(struct net_device *dev)
{
	rtnl_lock();
}

static inline void refnic_instance_unlock(struct net_device *dev)
{
	rtnl_unlock();
}

static inline void netdev_lock(struct net_device *dev)
{
}

static inline void netdev_unlock(struct net_device *dev)
{
}

static inline void netdev_assert_locked(const struct net_device *dev)
{
	ASSERT_RTNL();
}

static inline void napi_enable_locked(struct napi_struct *n)
{
	napi_enable(n);
}

static inline void napi_disable_locked(struct napi_struct *n)
{
	napi_disable(n);
}

static inline void
netif_napi_add_config_locked(struct net_device *dev, struct napi_struct *napi,
			     int (*poll)(struct napi_struct *, int), int index)
{
	netif_napi_add(dev, napi, poll);
}

static inline void
refnic_napi_add_config_weight(struct net_device *dev, struct napi_struct *napi,
			      int (*poll)(struct napi_struct *, int),
			      int index, int weight)
{
	netif_napi_add_weight(dev, napi, poll, weight);
}

static inline void netif_napi_set_irq_locked(struct napi_struct *napi, int irq)
{
	netif_napi_set_irq(napi, irq);
}

static inline void __netif_napi_del_locked(struct napi_struct *napi)
{
	__netif_napi_del(napi);
}

#endif /* !REFNIC_KERNEL_7 */

#if REFNIC_KERNEL_7
/* netif_napi_add_config_locked() with a NAPI weight other than the
 * default, for refnic-lab (debugfs napi_weight). 7.3 has no such call, and
 * netif_napi_add_weight_locked() gives up the persistent config: a port
 * whose NAPIs then come back with their configs breaks the order of the
 * device's NAPI list (netdev_nl_napi_dump_one() WARNs). The weight is
 * read at each poll only, so it is set before the NAPI is enabled.
 */
static inline void
refnic_napi_add_config_weight(struct net_device *dev, struct napi_struct *napi,
			      int (*poll)(struct napi_struct *, int),
			      int index, int weight)
{
	netif_napi_add_config_locked(dev, napi, poll, index);
	napi->weight = weight;
}
#endif

#ifndef REFNIC_HAVE_NL_ASSERT_CTX_FITS
#define NL_ASSERT_CTX_FITS(type_name) NL_ASSERT_DUMP_CTX_FITS(type_name)
#endif

#ifndef REFNIC_HAVE_PAGE_POOL_UNREF_AND_TEST
static inline bool page_pool_unref_and_test(netmem_ref netmem)
{
	return page_pool_is_last_ref(netmem);
}
#endif

#ifndef REFNIC_HAVE_PAGE_POOL_PUT_NETMEM_BULK
/* 6.12's bulk release takes one pool and page addresses; refnic's batches
 * never mix pools, and netmem_ref is as wide as a pointer.
 */
static inline void page_pool_put_netmem_bulk(netmem_ref *data, u32 count)
{
	void **addr = (void **)data;
	struct page_pool *pool;
	u32 i;

	if (!count)
		return;
	pool = netmem_to_page(data[0])->pp;
	for (i = 0; i < count; i++)
		addr[i] = page_address(netmem_to_page(data[i]));
	page_pool_put_page_bulk(pool, addr, count);
}
#endif

#ifndef REFNIC_HAVE_PAGE_POOL_ENABLE_DIRECT_RECYCLING
/* Upstream 64fdaa94bfe0 (Linux 6.17) without page_pools_lock, static in
 * 6.12: there page-pool-get reports user.napi_id, copied when the pool was
 * listed, and page_pool_napi_local() reads p.napi with READ_ONCE().
 * refnic_rxq_hook_napi() links with the NAPI disabled (list_owner -1).
 */
static inline void page_pool_enable_direct_recycling(struct page_pool *pool,
						     struct napi_struct *napi)
{
	if (READ_ONCE(pool->p.napi) == napi)
		return;
	WARN_ON(!napi || pool->p.napi);
	WRITE_ONCE(pool->p.napi, napi);
}
#endif

/* net_dim() takes its sample by value on 6.12 and by pointer on 7.3. */
static inline void refnic_net_dim(struct dim *dim,
				  const struct dim_sample *sample)
{
#if REFNIC_KERNEL_7
	net_dim(dim, sample);
#else
	net_dim(dim, *sample);
#endif
}

#endif /* _REFNIC_COMPAT_H_ */
