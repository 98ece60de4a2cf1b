/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (c) 2026 The refnic authors
 *
 * The two kernels refnic supports, Linux 6.12 and 7.3, in one source tree.
 * The code is written against 7.3; this header gives 6.12 the 7.3 calls
 * refnic uses, so that the rest of the tree needs only a few guarded
 * blocks (signatures that changed: rtnl_link_ops.newlink, the queue
 * management ops, ethtool's RX ring count and flow hash ops).
 *
 * The netdev instance lock. On 7.3 refnic is "ops locked" (it has
 * queue_mgmt_ops): the core calls ndo_open/ndo_stop, the queue ops, the
 * ethtool and qstat ops with netdev->lock held, and refnic's own entry
 * points (its netlink family, the reset work, debugfs, /dev/refnic) take
 * it, after RTNL. 6.12 has no instance lock: RTNL is held on every one of
 * those paths, so on 6.12
 *   netdev_lock(), netdev_unlock()	do nothing (RTNL is the lock),
 *   netdev_assert_locked()		is ASSERT_RTNL(),
 *   napi_{enable,disable}_locked()	are napi_{enable,disable}(),
 *   netif_napi_*_locked()		are the unlocked variants, and
 *   netif_napi_add_config_locked()	is netif_napi_add(): 6.12 keeps no
 *					per-NAPI config across a delete.
 */

#ifndef _REFNIC_COMPAT_H_
#define _REFNIC_COMPAT_H_

#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

/* REFNIC_KERNEL_7 comes from Kbuild, which refuses other kernels. */
#if REFNIC_KERNEL_7
#include <net/netdev_lock.h>
#endif

#if REFNIC_KERNEL_7
/* page_pool_put_netmem_bulk() gathers the pages to recycle on its stack,
 * XDP_BULK_QUEUE_SIZE of them.
 */
#define REFNIC_PP_BULK_MAX	XDP_BULK_QUEUE_SIZE
#else
/* 6.12's page_pool_put_page_bulk() works in the caller's array. */
#define REFNIC_PP_BULK_MAX	64
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
/* 6.12 has one SKB_GSO_TCP_FIXEDID for every IPv4 header. */
#define SKB_GSO_TCP_FIXEDID_INNER	0
#endif

#if !REFNIC_KERNEL_7

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

static inline void netif_napi_set_irq_locked(struct napi_struct *napi, int irq)
{
	netif_napi_set_irq(napi, irq);
}

static inline void __netif_napi_del_locked(struct napi_struct *napi)
{
	__netif_napi_del(napi);
}

static inline void
hrtimer_setup(struct hrtimer *timer,
	      enum hrtimer_restart (*function)(struct hrtimer *),
	      clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}

#define NL_ASSERT_CTX_FITS(type_name) NL_ASSERT_DUMP_CTX_FITS(type_name)

static inline bool page_pool_unref_and_test(netmem_ref netmem)
{
	return page_pool_is_last_ref(netmem);
}

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

#endif /* !REFNIC_KERNEL_7 */

#endif /* _REFNIC_COMPAT_H_ */
